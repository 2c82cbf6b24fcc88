"""Fixtures for the NAS tests: the tiny editing model and a private cache for C_0 and rho."""

import copy

import pytest


@pytest.fixture(scope="session")
def tiny_editing():
    """The tiny random Llama of the tiny scale (embeddings scaled so edits can move it); copy before editing."""
    from proceedings.nas.experiment import tiny_editing_model

    return tiny_editing_model()


@pytest.fixture
def tiny_copy(tiny_editing):
    model, tok = tiny_editing
    return copy.deepcopy(model), tok


@pytest.fixture(scope="session")
def nas_cache(tmp_path_factory):
    """One cache folder for the session, so C_0 and rho of the tiny model are computed once."""
    return tmp_path_factory.mktemp("nas-cache")


@pytest.fixture(scope="session")
def invented():
    from proceedings.nas.facts import invented_tables, table_requests

    tables = invented_tables(seed=0)
    return table_requests(24, 0, tables), table_requests(16, 1, tables)


@pytest.fixture(scope="session")
def tiny_hparams():
    """hparams(model, **overrides): the tiny scale's settings, shortened for tests."""
    from proceedings.nas.experiment import CONFIGS
    from proceedings.nas.hparams import EditHparams

    base = dict(mom2_update_weight=150.0, v_num_grad_steps=6, nas_n_ref=8, stats_tokens=1_000,
                **CONFIGS["tiny"].edit_overrides)
    return lambda model, **overrides: EditHparams.for_model(model, **{**base, **overrides})
