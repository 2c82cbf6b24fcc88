"""Staged runs: the budget variable becomes a deadline or a one-line error; Paused is a ProceedingsError."""

import time

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.core.staging import Paused, budget_deadline, past_deadline, pause_message

ENV = "PROCEEDINGS_TEST_MAX_MINUTES"


def test_an_unset_or_empty_budget_means_no_deadline(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    assert budget_deadline(ENV) is None and not past_deadline(None)
    monkeypatch.setenv(ENV, " ")
    assert budget_deadline(ENV) is None


def test_a_budget_in_minutes_is_a_deadline_that_passes(monkeypatch):
    monkeypatch.setenv(ENV, "2.5")
    before = time.time()
    deadline = budget_deadline(ENV)
    assert before + 150 <= deadline <= time.time() + 150
    assert not past_deadline(deadline) and past_deadline(time.time() - 1)


@pytest.mark.parametrize("raw", ["soon", "0", "-5", "nan"])
def test_a_bad_budget_is_one_line_naming_the_variable(monkeypatch, raw):
    monkeypatch.setenv(ENV, raw)
    with pytest.raises(ProceedingsError, match=rf"\${ENV}='{raw}'") as err:
        budget_deadline(ENV)
    assert "\n" not in str(err.value)


def test_paused_is_a_one_line_proceedings_error_saying_how_to_resume():
    with pytest.raises(ProceedingsError, match="train: time budget reached at step 3/10; run the same command again"):
        raise Paused(pause_message("train", 3, 10))
