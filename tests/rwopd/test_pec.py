"""The property-equivalence checker: documented equivalences, traces that really separate, bad input."""

import pytest

pytest.importorskip("pyslang")
pytest.importorskip("z3")

from proceedings.rwopd.equivalence import Trace, replay  # noqa: E402
from proceedings.rwopd.experiment import FIXTURES  # noqa: E402
from proceedings.rwopd.frontend import infer_signals, parse_assertion  # noqa: E402
from proceedings.rwopd.pec import Verdict, build_miter, check_equivalence  # noqa: E402


def _replayed(a: str, b: str, trace: dict) -> dict:
    signals = infer_signals(a, b)
    first, second = (parse_assertion(x, signals=signals).assertion for x in (a, b))
    circuit, out_a, out_b = build_miter(first, second)
    holds, fails = (out_a, out_b) if trace["separates"] == "A_not_B" else (out_b, out_a)
    return replay(circuit, holds, fails, Trace(trace["steps"], trace["loop_start"]))


def test_overlapped_delay_of_one_equals_non_overlapped_implication():
    result = check_equivalence("a |-> ##1 b", "a |=> b")
    assert result.verdict == Verdict.EQUIVALENT and result.proved


def test_delay_of_two_differs_with_a_trace_that_replays_through_both_monitors():
    result = check_equivalence("a |-> ##2 b", "a |=> b")
    assert result.verdict == Verdict.DIFFERENT
    trace = result.counterexample
    assert len(trace["steps"]) <= 4
    check = _replayed("a |-> ##2 b", "a |=> b", trace)
    assert check["loop_closes"] and check["a_holds"] and check["b_fails"]
    # and by hand: some tick with a=1 is not followed by b=1 (|=> fails) on the lasso
    steps, loop = trace["steps"], trace["loop_start"]
    unrolled = steps + steps[loop:] * 3
    assert any(unrolled[t]["a"] and not unrolled[t + 1]["b"] for t in range(len(steps)))


@pytest.mark.parametrize("a,b,expected", FIXTURES)
def test_fixture_table_verdicts(a, b, expected):
    assert check_equivalence(a, b, timeout_s=60).verdict.value == expected


def test_liveness_difference_is_found_on_a_lasso_and_replays():
    a, b = "a |-> s_eventually b", "a |-> s_eventually (b || c)"
    result = check_equivalence(a, b, timeout_s=60)
    assert result.verdict == Verdict.A_IMPLIES_B
    assert _replayed(a, b, result.counterexample)["separates"]


def test_k_induction_needs_its_base_case():
    # A and B cannot both hold for two ticks, so the induction step alone closes vacuously.
    result = check_equivalence("j |-> $rose(a)", "!j |-> $rose(a)")
    assert result.verdict == Verdict.DIFFERENT


def test_ieee_semantics_keeps_unbounded_delays_weak():
    assert check_equivalence("a |-> ##[0:$] b", "a |-> s_eventually b", semantics="ieee").verdict == Verdict.B_IMPLIES_A


def test_disable_iff_is_honoured_under_ieee_semantics():
    with_reset = "disable iff (rst) a |=> b"
    assert check_equivalence(with_reset, "disable iff (rst) a |=> (b || rst)", semantics="ieee").verdict \
        == Verdict.EQUIVALENT
    assert check_equivalence(with_reset, "a |=> b", semantics="ieee").verdict == Verdict.UNSUPPORTED
    assert check_equivalence(with_reset, "a |=> b", semantics="jasper").verdict == Verdict.EQUIVALENT


def test_malformed_sva_is_a_syntax_error_with_slangs_message_and_position():
    result = check_equivalence("a |-> ##[2:1] b", "a |-> b")
    assert result.verdict == Verdict.SYNTAX_ERROR
    assert "1:" in result.message and "greater than specified maximum" in result.message
    garbage = check_equivalence("a |-> (b &&", "a")
    assert garbage.verdict == Verdict.SYNTAX_ERROR and garbage.message


def test_unknown_signal_is_named():
    result = check_equivalence("a |-> zz", "a |-> b", signals={"a": 1, "b": 1})
    assert result.verdict == Verdict.SYNTAX_ERROR and "'zz'" in result.message


def test_width_mismatch_is_reported_as_a_warning_and_out_of_range_select_is_named():
    result = check_equivalence("(w & v) != 0", "v != 0", signals={"v": 3, "w": 5})
    assert any("different types" in w and "logic[4:0]" in w for w in result.warnings)
    outside = check_equivalence("v[3]", "v[0]", signals={"v": 3})
    assert outside.verdict == Verdict.UNSUPPORTED and "index 3" in outside.message


def test_unsupported_construct_is_named_never_equivalent():
    result = check_equivalence("a |-> b #-# c", "a |-> b #-# c")
    assert result.verdict == Verdict.UNSUPPORTED and "#-#" in result.message


def test_each_check_has_a_timeout():
    result = check_equivalence("a |-> ##[1:8] b ##[1:8] c", "a |-> ##[1:8] b ##[1:8] c", timeout_s=1e-4)
    assert result.verdict == Verdict.TIMEOUT


def test_multibit_arithmetic_follows_sv_widths():
    signals = {"x": 4, "y": 4}
    # 4-bit wrap-around: x + 1 == 0 exactly when x == 15
    assert check_equivalence("(x + 4'd1) == 4'd0", "x == 4'd15", signals=signals).verdict == Verdict.EQUIVALENT
    assert check_equivalence("$onehot(x)", "$countones(x) == 1", signals=signals).verdict == Verdict.EQUIVALENT
    assert check_equivalence("x < y", "y > x", signals=signals).verdict == Verdict.EQUIVALENT
    assert check_equivalence("x <= y", "x < y", signals=signals).verdict == Verdict.B_IMPLIES_A
