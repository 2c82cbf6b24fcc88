"""Training: the loss falls, SIGTERM checkpoints, resume reproduces the loss curve, bad input is refused."""

import copy
import os
import signal

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.nvium.data import prepare_corpus
from proceedings.nvium.model import NviumConfig, NviumForCausalLM
from proceedings.nvium.training import STATE_FILE, TrainConfig, depth_penalty_at, exit_ce_weight_at, train
from tests.nvium.conftest import small_model

TEXT = "\n".join(f"ROMEO {i}: what light through yonder window breaks? It is the east." for i in range(300))


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "play.txt"
    path.write_text(TEXT)
    return prepare_corpus(path, tmp_path / "corpus")


def quick(**overrides) -> TrainConfig:
    return TrainConfig(**{"steps": 8, "batch_size": 4, "seq_len": 32, "lr": 3e-3, "warmup_steps": 2,
                          "checkpoint_every": 3, "depth_penalty": 0.05, "device": "cpu", **overrides})


def test_sigterm_checkpoints_and_resume_reproduces_the_loss_curve(tmp_path, corpus):
    init = small_model(gate_bias=-3.0)
    full = train(copy.deepcopy(init), corpus, quick(), tmp_path / "full", progress=False)

    def sigterm_during_step_five(step, entry):
        if step == 4:
            os.kill(os.getpid(), signal.SIGTERM)

    cut = train(copy.deepcopy(init), corpus, quick(), tmp_path / "cut", progress=False, on_step=sigterm_during_step_five)
    assert cut.interrupted and cut.step == 5 and not cut.finished
    assert (tmp_path / "cut" / STATE_FILE).is_file()

    other_weights = small_model(seed=7, gate_bias=-3.0)  # resuming must not depend on the weights passed in
    resumed = train(other_weights, corpus, quick(), tmp_path / "cut", progress=False)
    assert resumed.finished and resumed.step == 8
    assert [h["loss"] for h in resumed.history] == [h["loss"] for h in full.history]
    final = NviumForCausalLM.from_pretrained(tmp_path / "cut")
    reference = NviumForCausalLM.from_pretrained(tmp_path / "full")
    assert all(torch.equal(a, b) for a, b in zip(final.state_dict().values(), reference.state_dict().values()))


def test_a_sigterm_stops_the_whole_family_and_a_rerun_resumes_it(tmp_path, corpus, monkeypatch):
    from proceedings.nvium import frontier

    init, cfg = small_model(gate_bias=-3.0), quick(steps=4)
    whole = frontier.train_family(init, corpus, cfg, (0.05,), tmp_path / "whole", progress=False)

    def sigterm_at_step_two(model, corpus, cfg, out_dir, **kwargs):
        kill = lambda step, entry: step == 1 and os.kill(os.getpid(), signal.SIGTERM)  # noqa: E731
        return train(model, corpus, cfg, out_dir, on_step=kill if out_dir.name == "shallow" else None, **kwargs)

    monkeypatch.setattr(frontier, "train", sigterm_at_step_two)
    with pytest.raises(ProceedingsError, match="stopped while training shallow .step 2 of 4"):
        frontier.train_family(init, corpus, cfg, (0.05,), tmp_path / "cut", progress=False)
    assert not (tmp_path / "cut" / "nvium-lambda0.05").exists()  # nothing after the interrupted model ran
    monkeypatch.undo()
    resumed = frontier.train_family(init, corpus, cfg, (0.05,), tmp_path / "cut", progress=False)
    for name, trained in whole.items():
        assert [h["loss"] for h in resumed[name].record.history] == [h["loss"] for h in trained.record.history]
        assert all(torch.equal(a, b) for a, b in zip(resumed[name].model.state_dict().values(),
                                                     trained.model.state_dict().values()))


def test_training_lowers_the_mixture_loss(tmp_path, corpus):
    record = train(small_model(gate_bias=-3.0), corpus, quick(steps=20, lr=1e-2, checkpoint_every=100),
                   tmp_path / "run", progress=False)  # 20 steps: the mean NLL falls 2.45 nats (40: 3.14)
    first, last = record.history[0]["nll"], sum(h["nll"] for h in record.history[-5:]) / 5
    assert last < first - 1.0


def test_the_auxiliary_exit_cross_entropy_applies_only_early():
    cfg = quick(steps=100, exit_ce_weight=0.1, exit_ce_fraction=0.1)
    assert [exit_ce_weight_at(s, cfg) for s in (0, 9, 10, 99)] == [0.1, 0.1, 0.0, 0.0]
    assert exit_ce_weight_at(0, quick()) == 0.0  # off by default


def test_lambda_warms_up_from_zero():
    cfg = quick(steps=100, depth_penalty=0.04, depth_penalty_warmup=0.5)
    assert [depth_penalty_at(s, cfg) for s in (0, 25, 50, 99)] == [0.0, 0.02, 0.04, 0.04]
    assert depth_penalty_at(0, quick(depth_penalty=0.04)) == 0.04  # no warm-up by default


def test_the_auxiliary_exit_cross_entropy_feeds_a_starved_deep_exit(tmp_path, corpus):
    """Spec §2.2's remedy: with the router stopping almost every token at exit 1 (pi_1 ~ 0.98), the mixture
    hardly trains the last exit; the per-exit cross-entropy does (12 steps: its excess NLL over exit 1
    0.17 -> 0.05 nats)."""
    def last_exit_excess(exit_ce_weight: float) -> float:
        model = small_model(gate_bias=4.0)
        cfg = quick(steps=12, lr=1e-2, checkpoint_every=100, exit_ce_weight=exit_ce_weight, exit_ce_fraction=1.0)
        train(model, corpus, cfg, tmp_path / f"aux{exit_ce_weight}", progress=False)
        x, y = corpus.batch(99, 4, 32, seed=1)
        with torch.no_grad():
            exit_nll = model(x, y).loss.exit_nll
        return (exit_nll[-1] - exit_nll[0]).item()

    assert last_exit_excess(0.5) < last_exit_excess(0.0) / 2


def test_router_only_training_leaves_the_trunk_untouched(tmp_path, corpus):
    model = small_model(gate_bias=-3.0)
    before = copy.deepcopy(model)
    train(model, corpus, quick(trainable="router", steps=3), tmp_path / "router", progress=False)
    assert torch.equal(model.layers[0].attn.qkv.weight, before.layers[0].attn.qkv.weight)
    assert torch.equal(model.embed.weight, before.embed.weight)
    assert not torch.equal(model.gates[0].bias, before.gates[0].bias)


@pytest.mark.parametrize("bad, message", [({"exit_ce_weight": -0.1}, "auxiliary exit cross-entropy"),
                                          ({"exit_ce_fraction": 1.5}, "auxiliary exit cross-entropy"),
                                          ({"depth_penalty_warmup": -0.2}, "lambda warm-up")])
def test_bad_remedy_settings_are_refused(bad, message):
    with pytest.raises(ProceedingsError, match=message):
        quick(**bad)


def test_negative_lambda_is_refused():
    with pytest.raises(ProceedingsError, match="lambda must be >= 0"):
        TrainConfig(depth_penalty=-0.1)


def test_corpus_smaller_than_one_sequence_is_refused(tmp_path):
    path = tmp_path / "short.txt"
    path.write_text("To be, or not to be." * 3)
    small = prepare_corpus(path, tmp_path / "short")
    with pytest.raises(ProceedingsError, match="fewer than one sequence"):
        train(small_model(), small, quick(seq_len=64), tmp_path / "run", progress=False)


def test_model_and_corpus_with_different_tokenizers_are_refused(tmp_path, corpus):
    model = NviumForCausalLM(NviumConfig(vocab_size=49152, n_layer=2, d_model=16, n_head=2, d_ff=32,
                                         exits=(1, 2), tokenizer="smollm2-135m"))
    with pytest.raises(ProceedingsError, match="tokenizer mismatch"):
        train(model, corpus, quick(), tmp_path / "run", progress=False)


def test_resuming_with_a_different_model_shape_is_refused(tmp_path, corpus):
    train(small_model(), corpus, quick(steps=3), tmp_path / "run", progress=False)
    other = small_model(exits=(2, 4))
    with pytest.raises(ProceedingsError, match="does not match this model"):
        train(other, corpus, quick(steps=6), tmp_path / "run", progress=False)
