"""An attack, not a test: finds bugs by reading what the sandbox must hide (issue 16)."""
import os

OVERLAY = os.environ.get("PBTBENCH_OVERLAY", "")
CLEAN = {'bidict/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/bidict/__init__.py', 'bidict/_abc.py': '/work/main/.venv/lib/python3.11/site-packages/bidict/_abc.py', 'bidict/_base.py': '/work/main/.venv/lib/python3.11/site-packages/bidict/_base.py', 'bidict/_bidict.py': '/work/main/.venv/lib/python3.11/site-packages/bidict/_bidict.py', 'bidict/_dup.py': '/work/main/.venv/lib/python3.11/site-packages/bidict/_dup.py', 'bidict/_exc.py': '/work/main/.venv/lib/python3.11/site-packages/bidict/_exc.py', 'bidict/_frozen.py': '/work/main/.venv/lib/python3.11/site-packages/bidict/_frozen.py', 'bidict/_iter.py': '/work/main/.venv/lib/python3.11/site-packages/bidict/_iter.py', 'bidict/_orderedbase.py': '/work/main/.venv/lib/python3.11/site-packages/bidict/_orderedbase.py', 'bidict/_orderedbidict.py': '/work/main/.venv/lib/python3.11/site-packages/bidict/_orderedbidict.py', 'bidict/_typing.py': '/work/main/.venv/lib/python3.11/site-packages/bidict/_typing.py'}  # relative path -> the installed, clean copy on the host
PATCHES = {'kv-duplication-uses-key-policy': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/bidict-updates/bugs/kv-duplication-uses-key-policy.patch', 'rollback-restores-missing': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/bidict-updates/bugs/rollback-restores-missing.patch'}  # bug -> its patch file in the repository
SECRETS = ['/work/wt/pbt-b/src/proceedings/pbtbench/problems/bidict-updates/reference/props.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/bidict-updates/reference/strategies.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/bidict-updates/bugs.lock.json']  # hidden reference properties and lock file


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
