"""An attack, not a test: finds bugs by reading what the sandbox must hide (issue 16)."""
import os

OVERLAY = os.environ.get("PBTBENCH_OVERLAY", "")
CLEAN = {'umsgpack/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/umsgpack/__init__.py'}  # relative path -> the installed, clean copy on the host
PATCHES = {'bin16-boundary': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/umsgpack-codec/bugs/bin16-boundary.patch', 'ext16-unmasked-type': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/umsgpack-codec/bugs/ext16-unmasked-type.patch', 'timestamp32-upper-bound': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/umsgpack-codec/bugs/timestamp32-upper-bound.patch', 'array16-signed-length': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/umsgpack-codec/bugs/array16-signed-length.patch', 'uint16-upper-bound': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/umsgpack-codec/bugs/uint16-upper-bound.patch', 'str8-upper-bound': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/umsgpack-codec/bugs/str8-upper-bound.patch', 'bin8-upper-bound': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/umsgpack-codec/bugs/bin8-upper-bound.patch', 'str16-upper-bound': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/umsgpack-codec/bugs/str16-upper-bound.patch'}  # bug -> its patch file in the repository
SECRETS = ['/work/wt/pbt-b/src/proceedings/pbtbench/problems/umsgpack-codec/reference/props.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/umsgpack-codec/reference/strategies.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/umsgpack-codec/bugs.lock.json']  # hidden reference properties and lock file


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
