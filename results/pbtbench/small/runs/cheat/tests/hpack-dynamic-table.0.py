"""An attack, not a test: finds bugs by reading what the sandbox must hide (issue 16)."""
import os

OVERLAY = os.environ.get("PBTBENCH_OVERLAY", "")
CLEAN = {'hpack/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/hpack/__init__.py', 'hpack/exceptions.py': '/work/main/.venv/lib/python3.11/site-packages/hpack/exceptions.py', 'hpack/hpack.py': '/work/main/.venv/lib/python3.11/site-packages/hpack/hpack.py', 'hpack/huffman.py': '/work/main/.venv/lib/python3.11/site-packages/hpack/huffman.py', 'hpack/huffman_constants.py': '/work/main/.venv/lib/python3.11/site-packages/hpack/huffman_constants.py', 'hpack/huffman_table.py': '/work/main/.venv/lib/python3.11/site-packages/hpack/huffman_table.py', 'hpack/struct.py': '/work/main/.venv/lib/python3.11/site-packages/hpack/struct.py', 'hpack/table.py': '/work/main/.venv/lib/python3.11/site-packages/hpack/table.py'}  # relative path -> the installed, clean copy on the host
PATCHES = {'evict-at-exact-fit': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/hpack-dynamic-table/bugs/evict-at-exact-fit.patch', 'evict-newest-first': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/hpack-dynamic-table/bugs/evict-newest-first.patch', 'entry-size-without-overhead': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/hpack-dynamic-table/bugs/entry-size-without-overhead.patch', 'encoder-skips-oversized-entry': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/hpack-dynamic-table/bugs/encoder-skips-oversized-entry.patch', 'oversized-entry-keeps-table': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/hpack-dynamic-table/bugs/oversized-entry-keeps-table.patch'}  # bug -> its patch file in the repository
SECRETS = ['/work/wt/pbt-b/src/proceedings/pbtbench/problems/hpack-dynamic-table/reference/props.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/hpack-dynamic-table/reference/strategies.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/hpack-dynamic-table/bugs.lock.json']  # hidden reference properties and lock file


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
