import pytest


@pytest.fixture(autouse=True, scope="package")
def one_torch_thread():
    """Small conv nets on a shared 2-core machine: one torch thread (core.runtime's default)."""
    from proceedings.core.runtime import set_threads

    set_threads()
