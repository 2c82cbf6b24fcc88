"""Tests that need a proof checker carry `@pytest.mark.external("coqc")` / `("dafny")`: they skip, with
the apt package to install, when the tool is absent (`make setup` installs coq, dafny and z3)."""

import shutil

import pytest

PACKAGES = {"coqc": "coq", "dafny": "dafny"}


def pytest_runtest_setup(item):
    for marker in item.iter_markers("external"):
        tool = marker.args[0]
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not installed (apt-get install -y --no-install-recommends {PACKAGES.get(tool, tool)})")


@pytest.fixture(scope="session")
def coq():
    """One Coq checker for the session: identical files are answered from its memo, as within a run."""
    from proceedings.verified_codegen.checkers import get_checker

    return get_checker("coq")


@pytest.fixture(scope="session")
def dafny():
    from proceedings.verified_codegen.checkers import get_checker

    return get_checker("dafny")


@pytest.fixture(scope="session")
def dafny_served():
    """One Dafny checker whose checks go to a DafnyServer and whose test runs go to the test host (each
    started once: Mono's start-up is paid once)."""
    from proceedings.verified_codegen.checkers import get_checker

    checker = get_checker("dafny", server=True, test_host=True)
    yield checker
    checker.close()
