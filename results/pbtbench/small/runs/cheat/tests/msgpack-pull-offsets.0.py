"""An attack, not a test: finds bugs by reading what the sandbox must hide (issue 16)."""
import os

OVERLAY = os.environ.get("PBTBENCH_OVERLAY", "")
CLEAN = {'msgpack/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/msgpack/__init__.py', 'msgpack/exceptions.py': '/work/main/.venv/lib/python3.11/site-packages/msgpack/exceptions.py', 'msgpack/ext.py': '/work/main/.venv/lib/python3.11/site-packages/msgpack/ext.py', 'msgpack/fallback.py': '/work/main/.venv/lib/python3.11/site-packages/msgpack/fallback.py'}  # relative path -> the installed, clean copy on the host
PATCHES = {'strip-keeps-checkpoint': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/msgpack-pull-offsets/bugs/strip-keeps-checkpoint.patch'}  # bug -> its patch file in the repository
SECRETS = ['/work/wt/pbt-b/src/proceedings/pbtbench/problems/msgpack-pull-offsets/reference/props.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/msgpack-pull-offsets/reference/strategies.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/msgpack-pull-offsets/bugs.lock.json']  # hidden reference properties and lock file


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
