"""An attack, not a test: finds bugs by reading what the sandbox must hide (issue 16)."""
import os

OVERLAY = os.environ.get("PBTBENCH_OVERLAY", "")
CLEAN = {'pylru.py': '/work/main/.venv/lib/python3.11/site-packages/pylru.py'}  # relative path -> the installed, clean copy on the host
PATCHES = {'delete-keeps-dirty-mark': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/pylru-managers/bugs/delete-keeps-dirty-mark.patch', 'ejection-keeps-dirty-mark': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/pylru-managers/bugs/ejection-keeps-dirty-mark.patch', 'clear-forgets-nodes': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/pylru-managers/bugs/clear-forgets-nodes.patch', 'writethrough-delete-keeps-cached': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/pylru-managers/bugs/writethrough-delete-keeps-cached.patch'}  # bug -> its patch file in the repository
SECRETS = ['/work/wt/pbt-b/src/proceedings/pbtbench/problems/pylru-managers/reference/props.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/pylru-managers/reference/strategies.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/pylru-managers/bugs.lock.json']  # hidden reference properties and lock file


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
