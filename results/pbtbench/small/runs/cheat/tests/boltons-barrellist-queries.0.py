"""An attack, not a test: finds bugs by reading what the sandbox must hide (issue 16)."""
import os

OVERLAY = os.environ.get("PBTBENCH_OVERLAY", "")
CLEAN = {'boltons/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/__init__.py', 'boltons/cacheutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/cacheutils.py', 'boltons/debugutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/debugutils.py', 'boltons/deprutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/deprutils.py', 'boltons/dictutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/dictutils.py', 'boltons/easterutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/easterutils.py', 'boltons/ecoutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/ecoutils.py', 'boltons/excutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/excutils.py', 'boltons/fileutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/fileutils.py', 'boltons/formatutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/formatutils.py', 'boltons/funcutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/funcutils.py', 'boltons/gcutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/gcutils.py', 'boltons/ioutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/ioutils.py', 'boltons/iterutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/iterutils.py', 'boltons/jsonutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/jsonutils.py', 'boltons/listutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/listutils.py', 'boltons/mathutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/mathutils.py', 'boltons/mboxutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/mboxutils.py', 'boltons/namedutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/namedutils.py', 'boltons/pathutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/pathutils.py', 'boltons/queueutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/queueutils.py', 'boltons/setutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/setutils.py', 'boltons/socketutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/socketutils.py', 'boltons/statsutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/statsutils.py', 'boltons/strutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/strutils.py', 'boltons/tableutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/tableutils.py', 'boltons/tbutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/tbutils.py', 'boltons/timeutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/timeutils.py', 'boltons/typeutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/typeutils.py', 'boltons/urlutils.py': '/work/main/.venv/lib/python3.11/site-packages/boltons/urlutils.py'}  # relative path -> the installed, clean copy on the host
PATCHES = {'index-drops-barrel-offset': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/boltons-barrellist-queries/bugs/index-drops-barrel-offset.patch', 'reverse-keeps-barrel-order': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/boltons-barrellist-queries/bugs/reverse-keeps-barrel-order.patch', 'contains-gives-up-after-first-barrel': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/boltons-barrellist-queries/bugs/contains-gives-up-after-first-barrel.patch', 'setitem-uses-whole-list-index': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/boltons-barrellist-queries/bugs/setitem-uses-whole-list-index.patch'}  # bug -> its patch file in the repository
SECRETS = ['/work/wt/pbt-b/src/proceedings/pbtbench/problems/boltons-barrellist-queries/reference/props.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/boltons-barrellist-queries/reference/strategies.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/boltons-barrellist-queries/bugs.lock.json']  # hidden reference properties and lock file


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
