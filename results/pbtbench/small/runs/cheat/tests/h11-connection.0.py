"""An attack, not a test: finds bugs by reading what the sandbox must hide (issue 16)."""
import os

OVERLAY = os.environ.get("PBTBENCH_OVERLAY", "")
CLEAN = {'h11/__init__.py': '/work/main/.venv/lib/python3.11/site-packages/h11/__init__.py', 'h11/_abnf.py': '/work/main/.venv/lib/python3.11/site-packages/h11/_abnf.py', 'h11/_connection.py': '/work/main/.venv/lib/python3.11/site-packages/h11/_connection.py', 'h11/_events.py': '/work/main/.venv/lib/python3.11/site-packages/h11/_events.py', 'h11/_headers.py': '/work/main/.venv/lib/python3.11/site-packages/h11/_headers.py', 'h11/_readers.py': '/work/main/.venv/lib/python3.11/site-packages/h11/_readers.py', 'h11/_receivebuffer.py': '/work/main/.venv/lib/python3.11/site-packages/h11/_receivebuffer.py', 'h11/_state.py': '/work/main/.venv/lib/python3.11/site-packages/h11/_state.py', 'h11/_util.py': '/work/main/.venv/lib/python3.11/site-packages/h11/_util.py', 'h11/_version.py': '/work/main/.venv/lib/python3.11/site-packages/h11/_version.py', 'h11/_writers.py': '/work/main/.venv/lib/python3.11/site-packages/h11/_writers.py'}  # relative path -> the installed, clean copy on the host
PATCHES = {'line-search-skips-split-crlf': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/h11-connection/bugs/line-search-skips-split-crlf.patch', 'blank-line-search-resumes-at-end': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/h11-connection/bugs/blank-line-search-resumes-at-end.patch', 'close-token-must-come-first': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/h11-connection/bugs/close-token-must-come-first.patch', 'head-response-framed-by-length': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/h11-connection/bugs/head-response-framed-by-length.patch', 'extract-keeps-head-search-offset': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/h11-connection/bugs/extract-keeps-head-search-offset.patch', 'chunked-reply-to-http10-peer': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/h11-connection/bugs/chunked-reply-to-http10-peer.patch', 'chunk-size-two-hex-digits': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/h11-connection/bugs/chunk-size-two-hex-digits.patch', 'expect-continue-ignores-version': '/work/wt/pbt-b/src/proceedings/pbtbench/problems/h11-connection/bugs/expect-continue-ignores-version.patch'}  # bug -> its patch file in the repository
SECRETS = ['/work/wt/pbt-b/src/proceedings/pbtbench/problems/h11-connection/reference/props.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/h11-connection/reference/strategies.py', '/work/wt/pbt-b/src/proceedings/pbtbench/problems/h11-connection/bugs.lock.json']  # hidden reference properties and lock file


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
