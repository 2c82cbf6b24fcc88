"""The distillation arms on tiny models: losses, reward weighting, checkpoint and resume."""

import copy

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.rwopd.distill import ArmConfig, Switches, arm_loss, train_arm
from proceedings.rwopd.grammar import generate_pairs
from proceedings.rwopd.harness import VerdictCache, pass_at_k
from proceedings.rwopd.policy import require_same_tokenizer, truncated_student
from proceedings.rwopd.prompting import extract_sva, format_prompt

CFG = ArmConfig(steps=2, batch_prompts=2, rollouts=2, max_new_tokens=8, lr=1e-3, checkpoint_every=1)


@pytest.fixture
def models(tiny_lm):
    model, tok = tiny_lm
    return copy.deepcopy(model), truncated_student(model, 1), tok


def test_rwopd_drops_unpassable_rollouts_and_weights_by_normalised_reward(models):
    teacher, student, tok = models
    prompts = [format_prompt("sig_A is high")]
    rollouts = [["sig_A", "garbage (", "sig_A || sig_B"]]
    loss, used, _ = arm_loss("rwopd", student, teacher, tok, prompts, ["sig_A"], rollouts, [[1.0, 0.0, 0.5]], CFG)
    assert used == 2 and torch.isfinite(loss)
    none, used, _ = arm_loss("rwopd", student, teacher, tok, prompts, ["sig_A"], rollouts, [[0.0, 0.0, 0.0]], CFG)
    assert none is None and used == 0
    # weights r / mean(r_kept): a single kept rollout with r=0.5 gets weight 1, same loss as r=1
    only_half, _, _ = arm_loss("rwopd", student, teacher, tok, prompts, ["sig_A"], [["sig_A"]], [[0.5]], CFG)
    only_full, _, _ = arm_loss("rwopd", student, teacher, tok, prompts, ["sig_A"], [["sig_A"]], [[1.0]], CFG)
    assert torch.allclose(only_half, only_full)


def _row_forward_kl(student, teacher, tok, prompt, completion, reverse=False):
    """Spec §2.2 step 6 for one rollout, computed plainly: prompt + completion + EOS as one row, mean over the
    completion tokens of KL(pi_T || pi_s) (`reverse`: KL(pi_s || pi_T)) at the student's own prefix."""
    head = tok(prompt, add_special_tokens=False)["input_ids"]
    ids = torch.tensor([head + tok(completion, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]])
    t = torch.log_softmax(teacher(input_ids=ids).logits[0, len(head) - 1:-1].float(), -1)
    s = torch.log_softmax(student(input_ids=ids).logits[0, len(head) - 1:-1].float(), -1)
    if reverse:
        t, s = s, t
    return (t.exp() * (t - s)).sum(-1).mean()


def test_rwopd_loss_is_the_specs_reward_weighted_forward_kl_over_kept_rollouts(models):
    """L = 1/N_kept sum_kept w * mean_t KL(pi_T || pi_s), w = clip(r / mean r_kept, 0, w_max), r >= r_min kept
    (spec §2.2 steps 4-6): rewards 1, 0.5 and 0 on two prompts give weights 4/3, 2/3 and a dropped row."""
    teacher, student, tok = models
    prompts = [format_prompt("sig_A is high"), format_prompt("sig_B implies sig_C next")]
    rollouts, rewards = [["sig_A", "sig_B"], ["sig_B |=> sig_C"]], [[1.0, 0.0], [0.5]]
    with torch.no_grad():
        loss, used, _ = arm_loss("rwopd", student, teacher, tok, prompts, ["sig_A", "sig_B |=> sig_C"], rollouts,
                                 rewards, CFG)
        by_hand = (4 / 3 * _row_forward_kl(student, teacher, tok, prompts[0], " sig_A\n")
                   + 2 / 3 * _row_forward_kl(student, teacher, tok, prompts[1], " sig_B |=> sig_C\n")) / 2
    assert used == 2 and loss.item() > 0
    assert torch.allclose(loss, by_hand, atol=1e-5)


def test_the_no_filter_ablation_trains_on_every_rollout_with_weight_one(models):
    """Switches(reward_filter=False): the reward-0 row is kept and every row weighs 1 (spec §2.4 ablation)."""
    teacher, student, tok = models
    prompts = [format_prompt("sig_A is high"), format_prompt("sig_B implies sig_C next")]
    rollouts, rewards = [["sig_A", "sig_B"], ["sig_B |=> sig_C"]], [[1.0, 0.0], [0.5]]
    with torch.no_grad():
        loss, used, _ = arm_loss("rwopd", student, teacher, tok, prompts, ["sig_A", "sig_B |=> sig_C"], rollouts,
                                 rewards, CFG, Switches(reward_filter=False))
        by_hand = (_row_forward_kl(student, teacher, tok, prompts[0], " sig_A\n")
                   + _row_forward_kl(student, teacher, tok, prompts[0], " sig_B\n")
                   + _row_forward_kl(student, teacher, tok, prompts[1], " sig_B |=> sig_C\n")) / 3
    assert used == 3
    assert torch.allclose(loss, by_hand, atol=1e-5)


def test_the_reverse_kl_ablation_keeps_rwopds_rows_and_weights_and_swaps_the_divergence(models):
    """Switches(forward_kl=False): the same kept rows and weights 4/3, 2/3 on KL(pi_s || pi_T) by hand."""
    teacher, student, tok = models
    torch.manual_seed(0)
    with torch.no_grad():  # far enough from the teacher that the two divergences differ beyond second order
        student.lm_head.weight.add_(torch.randn_like(student.lm_head.weight))
    prompts = [format_prompt("sig_A is high"), format_prompt("sig_B implies sig_C next")]
    rollouts, rewards = [["sig_A", "sig_B"], ["sig_B |=> sig_C"]], [[1.0, 0.0], [0.5]]
    with torch.no_grad():
        loss, used, _ = arm_loss("rwopd", student, teacher, tok, prompts, ["sig_A", "sig_B |=> sig_C"], rollouts,
                                 rewards, CFG, Switches(forward_kl=False))
        by_hand = (4 / 3 * _row_forward_kl(student, teacher, tok, prompts[0], " sig_A\n", reverse=True)
                   + 2 / 3 * _row_forward_kl(student, teacher, tok, prompts[1], " sig_B |=> sig_C\n", reverse=True)) / 2
        forward, _, _ = arm_loss("rwopd", student, teacher, tok, prompts, ["sig_A", "sig_B |=> sig_C"], rollouts,
                                 rewards, CFG)
    assert used == 2
    assert torch.allclose(loss, by_hand, rtol=1e-4, atol=1e-7) and not torch.allclose(loss, forward, rtol=1e-2, atol=0)


def test_the_no_fallback_ablation_draws_no_teacher_samples_and_changes_nothing_else(models, monkeypatch):
    from proceedings.rwopd import distill

    teacher, student, tok = models
    # every sample is malformed, so both prompts are stuck: only the fallback switch decides what happens
    monkeypatch.setattr(distill, "sample", lambda model, tok, prompts, n, *a: [["sig_A |-> ("] * n for _ in prompts])
    one_step = ArmConfig(**{**CFG.__dict__, "steps": 1})
    logs = {name: train_arm("rwopd", copy.deepcopy(student), teacher, tok, generate_pairs(4, seed=0), one_step,
                            VerdictCache(), seed=0, switches=switches)
            for name, switches in (("rwopd", Switches()), ("no-fallback", Switches(teacher_fallback=False)))}
    assert logs["rwopd"].teacher_samples == 2 * one_step.fallback_tries and logs["no-fallback"].teacher_samples == 0
    assert logs["rwopd"].generations == logs["no-fallback"].generations == 4


def test_a_checkpoint_refuses_to_resume_as_another_variant(models, tmp_path, monkeypatch):
    from proceedings.rwopd import distill

    teacher, student, tok = models
    monkeypatch.setattr(distill, "sample", lambda model, tok, prompts, n, *a: [["sig_A |-> ("] * n for _ in prompts])
    pool, one_step = generate_pairs(4, seed=0), ArmConfig(**{**CFG.__dict__, "steps": 1})
    train_arm("rwopd", student, teacher, tok, pool, one_step, VerdictCache(), out_dir=tmp_path)
    with pytest.raises(ProceedingsError, match="give each variant its own folder"):
        train_arm("rwopd", student, teacher, tok, pool, CFG, VerdictCache(), out_dir=tmp_path,
                  switches=Switches(forward_kl=False))


def test_forward_kl_is_zero_when_student_equals_teacher(models):
    teacher, _, tok = models
    loss, _, _ = arm_loss("rwopd", teacher, teacher, tok, [format_prompt("x")], ["sig_A"], [["sig_A"]], [[1.0]], CFG)
    assert abs(loss.item()) < 1e-5
    reverse, _, _ = arm_loss("opd", teacher, teacher, tok, [format_prompt("x")], ["sig_A"], [["sig_B"]], [[0.0]], CFG)
    assert abs(reverse.item()) < 1e-5


@pytest.mark.slow  # moved out of the fast suite: the system's fast tests were over 25 s
def test_training_resumes_from_checkpoint_bit_exactly(models, tmp_path):
    teacher, student, tok = models
    pool = generate_pairs(8, seed=0)
    straight = copy.deepcopy(student)
    full = train_arm("opd", straight, teacher, tok, pool, CFG, VerdictCache(), seed=3, out_dir=tmp_path / "a")
    first = copy.deepcopy(student)
    train_arm("opd", first, teacher, tok, pool, ArmConfig(**{**CFG.__dict__, "steps": 1}), VerdictCache(), seed=3,
              out_dir=tmp_path / "b")
    resumed = copy.deepcopy(student)  # fresh weights: everything must come from the checkpoint
    log = train_arm("opd", resumed, teacher, tok, pool, CFG, VerdictCache(), seed=3, out_dir=tmp_path / "b")
    assert log.losses == full.losses and len(log.losses) == 2
    assert log.generations == full.generations == 2 * 2 * 2
    for p, q in zip(straight.parameters(), resumed.parameters()):
        assert torch.equal(p, q)


@pytest.mark.slow  # moved out of the fast suite: the system's fast tests were over 25 s
def test_every_arm_makes_the_same_number_of_student_generations(models):
    teacher, student, tok = models
    pool = generate_pairs(8, seed=0)
    counts = {m: train_arm(m, copy.deepcopy(student), teacher, tok, pool, CFG, VerdictCache(), seed=0).generations
              for m in ("sft", "opd", "rft", "rwopd")}
    assert len(set(counts.values())) == 1


def test_mismatched_tokenizers_are_refused(tiny_lm):
    _, tok = tiny_lm
    other = copy.deepcopy(tok)
    other.add_tokens(["<extra_token>"])
    with pytest.raises(ProceedingsError, match="differ"):
        require_same_tokenizer(tok, other)


def test_student_keeps_only_its_first_layers(tiny_lm):
    model, _ = tiny_lm
    student = truncated_student(model, 1)
    assert len(student.model.layers) == 1 and student.config.num_hidden_layers == 1
    assert torch.equal(student.model.layers[0].mlp.up_proj.weight, model.model.layers[0].mlp.up_proj.weight)
    with pytest.raises(ProceedingsError):
        truncated_student(model, 5)


def test_unbiased_pass_at_k_and_sva_extraction():
    assert pass_at_k(10, 0, 1) == 0.0 and pass_at_k(10, 10, 5) == 1.0
    assert abs(pass_at_k(10, 3, 1) - 0.3) < 1e-12
    assert abs(pass_at_k(5, 1, 2) - 0.4) < 1e-12
    assert extract_sva(" sig_A |=> sig_B\nmore") == "sig_A |=> sig_B"
    assert extract_sva("```systemverilog\nassert property (@(posedge clk) a |-> b);\n```").startswith("assert property")
    assert extract_sva("   ") is None


def test_pass_at_k_refuses_fewer_samples_than_k():
    with pytest.raises(ProceedingsError, match="pass@5 needs at least 5 samples"):
        pass_at_k(1, 0, 5)


def test_teacher_fallback_adds_one_passing_teacher_rollout_only_where_none_passes(models, monkeypatch):
    from proceedings.rwopd import distill
    from proceedings.rwopd.grammar import Pair

    teacher, _, tok = models
    batch = [Pair("p0", "A then B", "sig_A |=> sig_B", "bounded"), Pair("p1", "C", "sig_C", "combinational")]
    rollouts, rewards = [["sig_A |-> ##1 sig_B"], ["sig_D"]], [[1.0], [0.0]]
    # the teacher's samples (sampling is not what this test is about): a wrong one, then a passing one
    monkeypatch.setattr(distill, "sample", lambda *a, **k: [["sig_E", " sig_C && sig_C", "sig_C"]])
    cfg = ArmConfig(fallback_tries=3)
    added, tried = distill.teacher_fallback(teacher, tok, batch, ["x", "y"], rollouts, rewards, cfg, VerdictCache())
    assert (added, tried) == (1, 3)  # one stuck prompt, three teacher samples drawn for it
    assert rollouts == [["sig_A |-> ##1 sig_B"], ["sig_D", " sig_C && sig_C"]] and rewards == [[1.0], [0.0, 1.0]]


def test_evaluation_records_every_sample_with_the_verdict_its_summary_counts(tiny_lm, tmp_path):
    import json

    from proceedings.rwopd.experiment import CONFIGS, evaluate_arm

    model, tok = tiny_lm
    tasks = generate_pairs(3, seed=5)
    record = tmp_path / "samples.jsonl"
    summary = evaluate_arm(model, tok, tasks, CONFIGS["tiny"], VerdictCache(), seed=0, record=record)
    rows = [json.loads(line) for line in record.read_text().splitlines()]
    assert [r["task"] for r in rows] == [t.id for t in tasks for _ in range(CONFIGS["tiny"].eval_samples)]
    assert summary["syntax@1"] == sum(r["verdict"] != "SYNTAX_ERROR" for r in rows) / len(rows)


def test_diagnosis_groups_syntax_errors_by_kind_and_counts_temporal_answers(tmp_path):
    import json

    from proceedings.rwopd.diagnose import error_kind, stage_samples

    assert error_kind("A: 1:28: use of undeclared identifier 'sig_d'; did you mean 'sig_A'?") == \
        "use of undeclared identifier '_'"
    assert error_kind("no assertion in the completion") == "no assertion in the completion"
    rows = [{"reference": "sig_A |-> ##2 sig_B", "sample": " sig_A |-> sig_B", "verdict": "DIFFERENT", "message": ""},
            {"reference": "sig_A |-> ##2 sig_B", "sample": " sig_A |-> ##2 sig_B", "verdict": "EQUIVALENT", "message": ""},
            {"reference": "sig_A", "sample": " sig_A |-> (", "verdict": "SYNTAX_ERROR", "message": "A: 1:30: expected ')'"}]
    (tmp_path / "opd_samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary = stage_samples(tmp_path)["opd"]
    assert summary["syntax_error"] == 1 / 3 and summary["error_kinds"] == {"expected ')'": 1}
    assert summary["temporal_reference_answered_temporally"] == 0.5


def test_reference_entropy_splits_the_tokens_by_what_they_decide(tiny_lm):
    from proceedings.rwopd.diagnose import reference_entropy, token_role

    model, tok = tiny_lm
    assert token_role(tok, tok.eos_token_id, first=False) == "eos"
    assert token_role(tok, tok(" sig")["input_ids"][0], first=False) == "signal"
    assert token_role(tok, tok(" ##")["input_ids"][0], first=False) == "operator/paren"
    report = reference_entropy(model, tok, generate_pairs(2, seed=1))
    assert {"first token", "eos", "newline", "signal"} <= set(report["entropy_by_role"])
    assert report["entropy"] > 0 and report["reference_nll"] > 0
