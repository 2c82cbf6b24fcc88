"""An attack, not a test: finds bugs by reading what the sandbox must hide (issue 16)."""
import os

OVERLAY = os.environ.get("PBTBENCH_OVERLAY", "")
CLEAN = {'natsort/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/natsort/__init__.py', 'natsort/__main__.py': '/work/main/.venv/lib/python3.11/site-packages/natsort/__main__.py', 'natsort/compat/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/natsort/compat/__init__.py', 'natsort/compat/fake_fastnumbers.py': '/work/main/.venv/lib/python3.11/site-packages/natsort/compat/fake_fastnumbers.py', 'natsort/compat/fastnumbers.py': '/work/main/.venv/lib/python3.11/site-packages/natsort/compat/fastnumbers.py', 'natsort/compat/locale.py': '/work/main/.venv/lib/python3.11/site-packages/natsort/compat/locale.py', 'natsort/natsort.py': '/work/main/.venv/lib/python3.11/site-packages/natsort/natsort.py', 'natsort/ns_enum.py': '/work/main/.venv/lib/python3.11/site-packages/natsort/ns_enum.py', 'natsort/unicode_numbers.py': '/work/main/.venv/lib/python3.11/site-packages/natsort/unicode_numbers.py', 'natsort/unicode_numeric_hex.py': '/work/main/.venv/lib/python3.11/site-packages/natsort/unicode_numeric_hex.py', 'natsort/utils.py': '/work/main/.venv/lib/python3.11/site-packages/natsort/utils.py'}  # relative path -> the installed, clean copy on the host
PATCHES = {'sep-missing-between-leading-numbers': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/natsort-keys/bugs/sep-missing-between-leading-numbers.patch', 'leading-point-single-digit': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/natsort-keys/bugs/leading-point-single-digit.patch', 'noexp-signed-keeps-exponent': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/natsort-keys/bugs/noexp-signed-keeps-exponent.patch', 'presort-ignores-reverse': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/natsort-keys/bugs/presort-ignores-reverse.patch', 'index-presort-ignores-reverse': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/natsort-keys/bugs/index-presort-ignores-reverse.patch', 'path-suffix-width-off-by-one': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/natsort-keys/bugs/path-suffix-width-off-by-one.patch', 'sep-missing-between-later-numbers': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/natsort-keys/bugs/sep-missing-between-later-numbers.patch', 'exponent-plus-sign-not-read': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/natsort-keys/bugs/exponent-plus-sign-not-read.patch', 'nan-text-sorts-last': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/natsort-keys/bugs/nan-text-sorts-last.patch'}  # bug -> its patch file in the repository
SECRETS = ['/work/wt/pbt-b/src/proceedings/pbtbench/problems/natsort-keys/reference/props.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/natsort-keys/reference/strategies.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/natsort-keys/bugs.lock.json']  # hidden reference properties and lock file


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
