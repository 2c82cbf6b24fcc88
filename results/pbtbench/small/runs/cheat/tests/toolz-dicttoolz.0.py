"""An attack, not a test: finds bugs by reading what the sandbox must hide (issue 16)."""
import os

OVERLAY = os.environ.get("PBTBENCH_OVERLAY", "")
CLEAN = {'tlz/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/tlz/__init__.py', 'tlz/_build_tlz.py': '/work/main/.venv/lib/python3.11/site-packages/tlz/_build_tlz.py', 'toolz/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/__init__.py', 'toolz/_signatures.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/_signatures.py', 'toolz/compatibility.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/compatibility.py', 'toolz/curried/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/curried/__init__.py', 'toolz/curried/exceptions.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/curried/exceptions.py', 'toolz/curried/operator.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/curried/operator.py', 'toolz/dicttoolz.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/dicttoolz.py', 'toolz/functoolz.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/functoolz.py', 'toolz/itertoolz.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/itertoolz.py', 'toolz/recipes.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/recipes.py', 'toolz/sandbox/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/sandbox/__init__.py', 'toolz/sandbox/core.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/sandbox/core.py', 'toolz/sandbox/parallel.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/sandbox/parallel.py', 'toolz/sandbox/tests/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/sandbox/tests/__init__.py', 'toolz/sandbox/tests/test_core.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/sandbox/tests/test_core.py', 'toolz/sandbox/tests/test_parallel.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/sandbox/tests/test_parallel.py', 'toolz/tests/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/tests/__init__.py', 'toolz/tests/test_compatibility.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/tests/test_compatibility.py', 'toolz/tests/test_curried.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/tests/test_curried.py', 'toolz/tests/test_curried_doctests.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/tests/test_curried_doctests.py', 'toolz/tests/test_dicttoolz.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/tests/test_dicttoolz.py', 'toolz/tests/test_functoolz.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/tests/test_functoolz.py', 'toolz/tests/test_inspect_args.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/tests/test_inspect_args.py', 'toolz/tests/test_itertoolz.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/tests/test_itertoolz.py', 'toolz/tests/test_package.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/tests/test_package.py', 'toolz/tests/test_recipes.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/tests/test_recipes.py', 'toolz/tests/test_serialization.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/tests/test_serialization.py', 'toolz/tests/test_signatures.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/tests/test_signatures.py', 'toolz/tests/test_tlz.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/tests/test_tlz.py', 'toolz/tests/test_utils.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/tests/test_utils.py', 'toolz/utils.py': '/work/main/.venv/lib/python3.11/site-packages/toolz/utils.py'}  # relative path -> the installed, clean copy on the host
PATCHES = {'update-in-drops-intermediate': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/toolz-dicttoolz/bugs/update-in-drops-intermediate.patch', 'dissoc-bulk-path-skips-first': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/toolz-dicttoolz/bugs/dissoc-bulk-path-skips-first.patch'}  # bug -> its patch file in the repository
SECRETS = ['/work/wt/pbt-b/src/proceedings/pbtbench/problems/toolz-dicttoolz/reference/props.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/toolz-dicttoolz/reference/strategies.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/toolz-dicttoolz/bugs.lock.json']  # hidden reference properties and lock file


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
