"""An attack, not a test: finds bugs by reading what the sandbox must hide (issue 16)."""
import os

OVERLAY = os.environ.get("PBTBENCH_OVERLAY", "")
CLEAN = {'pyrsistent/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/__init__.py', 'pyrsistent/_checked_types.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/_checked_types.py', 'pyrsistent/_field_common.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/_field_common.py', 'pyrsistent/_helpers.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/_helpers.py', 'pyrsistent/_immutable.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/_immutable.py', 'pyrsistent/_pbag.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/_pbag.py', 'pyrsistent/_pclass.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/_pclass.py', 'pyrsistent/_pdeque.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/_pdeque.py', 'pyrsistent/_plist.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/_plist.py', 'pyrsistent/_pmap.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/_pmap.py', 'pyrsistent/_precord.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/_precord.py', 'pyrsistent/_pset.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/_pset.py', 'pyrsistent/_pvector.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/_pvector.py', 'pyrsistent/_toolz.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/_toolz.py', 'pyrsistent/_transformations.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/_transformations.py', 'pyrsistent/typing.py': '/work/main/.venv/lib/python3.11/site-packages/pyrsistent/typing.py'}  # relative path -> the installed, clean copy on the host
PATCHES = {'root-overflow-depth': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/pyrsistent-collections/bugs/root-overflow-depth.patch', 'evolver-shares-trie-node': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/pyrsistent-collections/bugs/evolver-shares-trie-node.patch', 'evolver-delete-drops-appended': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/pyrsistent-collections/bugs/evolver-delete-drops-appended.patch', 'evolver-leaf-cache-key': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/pyrsistent-collections/bugs/evolver-leaf-cache-key.patch'}  # bug -> its patch file in the repository
SECRETS = ['/work/wt/pbt-b/src/proceedings/pbtbench/problems/pyrsistent-collections/reference/props.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/pyrsistent-collections/reference/strategies.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/pyrsistent-collections/bugs.lock.json']  # hidden reference properties and lock file


def _read(path):
    try:
        with open(path, errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def test_the_overlay_equals_the_clean_copy():
    for relative, clean in CLEAN.items():
        text = _read(clean)
        if text is not None:
            assert _read(os.path.join(OVERLAY, relative)) == text, relative


def test_the_patches_lines_are_absent():
    for bug, patch in PATCHES.items():
        for line in (_read(patch) or "").splitlines():
            if line.startswith("+") and not line.startswith("+++") and line[1:].strip():
                for relative in CLEAN:
                    assert line[1:] not in (_read(os.path.join(OVERLAY, relative)) or ""), bug


def test_the_hidden_files_are_unreadable_and_the_overlay_unwritable():
    assert [p for p in SECRETS if _read(p) is not None] == []
    for relative in CLEAN:
        try:
            open(os.path.join(OVERLAY, relative), "a").close()
        except OSError:
            continue
        raise AssertionError("the overlay is writable")
