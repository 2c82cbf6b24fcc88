"""An attack, not a test: finds bugs by reading what the sandbox must hide (issue 16)."""
import os

OVERLAY = os.environ.get("PBTBENCH_OVERLAY", "")
CLEAN = {'cachetools/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/cachetools/__init__.py', 'cachetools/_cached.py': '/work/main/.venv/lib/python3.11/site-packages/cachetools/_cached.py', 'cachetools/_cachedmethod.py': '/work/main/.venv/lib/python3.11/site-packages/cachetools/_cachedmethod.py', 'cachetools/_decorator.py': '/work/main/.venv/lib/python3.11/site-packages/cachetools/_decorator.py', 'cachetools/_descriptor.py': '/work/main/.venv/lib/python3.11/site-packages/cachetools/_descriptor.py', 'cachetools/func.py': '/work/main/.venv/lib/python3.11/site-packages/cachetools/func.py', 'cachetools/keys.py': '/work/main/.venv/lib/python3.11/site-packages/cachetools/keys.py'}  # relative path -> the installed, clean copy on the host
PATCHES = {'lru-clear-keeps-order': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/cachetools-cache-clear/bugs/lru-clear-keeps-order.patch', 'rr-clear-keeps-keys': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/cachetools-cache-clear/bugs/rr-clear-keeps-keys.patch', 'lfu-clear-keeps-links': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/cachetools-cache-clear/bugs/lfu-clear-keeps-links.patch'}  # bug -> its patch file in the repository
SECRETS = ['/work/wt/pbt-b/src/proceedings/pbtbench/problems/cachetools-cache-clear/reference/props.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/cachetools-cache-clear/reference/strategies.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/cachetools-cache-clear/bugs.lock.json']  # hidden reference properties and lock file


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
