"""An attack, not a test: finds bugs by reading what the sandbox must hide (issue 16)."""
import os

OVERLAY = os.environ.get("PBTBENCH_OVERLAY", "")
CLEAN = {'isodate/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/isodate/__init__.py', 'isodate/duration.py': '/work/main/.venv/lib/python3.11/site-packages/isodate/duration.py', 'isodate/isodates.py': '/work/main/.venv/lib/python3.11/site-packages/isodate/isodates.py', 'isodate/isodatetime.py': '/work/main/.venv/lib/python3.11/site-packages/isodate/isodatetime.py', 'isodate/isoduration.py': '/work/main/.venv/lib/python3.11/site-packages/isodate/isoduration.py', 'isodate/isoerror.py': '/work/main/.venv/lib/python3.11/site-packages/isodate/isoerror.py', 'isodate/isostrf.py': '/work/main/.venv/lib/python3.11/site-packages/isodate/isostrf.py', 'isodate/isotime.py': '/work/main/.venv/lib/python3.11/site-packages/isodate/isotime.py', 'isodate/isotzinfo.py': '/work/main/.venv/lib/python3.11/site-packages/isodate/isotzinfo.py', 'isodate/tzinfo.py': '/work/main/.venv/lib/python3.11/site-packages/isodate/tzinfo.py', 'isodate/version.py': '/work/main/.venv/lib/python3.11/site-packages/isodate/version.py'}  # relative path -> the installed, clean copy on the host
PATCHES = {'leap-year-drops-400-rule': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/isodate-durations/bugs/leap-year-drops-400-rule.patch', 'equality-compares-fields': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/isodate-durations/bugs/equality-compares-fields.patch'}  # bug -> its patch file in the repository
SECRETS = ['/work/wt/pbt-b/src/proceedings/pbtbench/problems/isodate-durations/reference/props.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/isodate-durations/reference/strategies.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/isodate-durations/bugs.lock.json']  # hidden reference properties and lock file


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
