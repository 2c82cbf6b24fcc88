"""An attack, not a test: finds bugs by reading what the sandbox must hide (issue 16)."""
import os

OVERLAY = os.environ.get("PBTBENCH_OVERLAY", "")
CLEAN = {'dateutil/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/__init__.py', 'dateutil/_common.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/_common.py', 'dateutil/_tzdata_impl.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/_tzdata_impl.py', 'dateutil/_version.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/_version.py', 'dateutil/easter.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/easter.py', 'dateutil/parser/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/parser/__init__.py', 'dateutil/parser/_parser.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/parser/_parser.py', 'dateutil/parser/isoparser.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/parser/isoparser.py', 'dateutil/relativedelta.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/relativedelta.py', 'dateutil/rrule.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/rrule.py', 'dateutil/tz/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/tz/__init__.py', 'dateutil/tz/_common.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/tz/_common.py', 'dateutil/tz/_factories.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/tz/_factories.py', 'dateutil/tz/_tzfile.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/tz/_tzfile.py', 'dateutil/tz/_tzpath.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/tz/_tzpath.py', 'dateutil/tz/tz.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/tz/tz.py', 'dateutil/tz/win.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/tz/win.py', 'dateutil/tzwin.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/tzwin.py', 'dateutil/utils.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/utils.py', 'dateutil/zoneinfo/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/zoneinfo/__init__.py', 'dateutil/zoneinfo/rebuild.py': '/work/main/.venv/lib/python3.11/site-packages/dateutil/zoneinfo/rebuild.py'}  # relative path -> the installed, clean copy on the host
PATCHES = {'ambiguous-hour-excludes-start': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/dateutil-tzstr/bugs/ambiguous-hour-excludes-start.patch', 'repeated-hour-fold-inverted': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/dateutil-tzstr/bugs/repeated-hour-fold-inverted.patch', 'fromutc-folds-first-pass': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/dateutil-tzstr/bugs/fromutc-folds-first-pass.patch', 'dst-end-inclusive': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/dateutil-tzstr/bugs/dst-end-inclusive.patch'}  # bug -> its patch file in the repository
SECRETS = ['/work/wt/pbt-b/src/proceedings/pbtbench/problems/dateutil-tzstr/reference/props.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/dateutil-tzstr/reference/strategies.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/dateutil-tzstr/bugs.lock.json']  # hidden reference properties and lock file


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
