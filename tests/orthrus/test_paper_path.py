"""The paper path, run on the CPU at tiny size: the dual-pass mask as a FlexAttention BlockMask (element by
element against the dense mask; diffusion logits against the SDPA path), bf16 training through Accelerate
at B=16, and `reproduce --scale paper`, which builds and stops in one line without local weights or a GPU."""

import copy
import sys

import pytest
import torch
from transformers import DynamicCache

from proceedings.core.errors import ProceedingsError
from proceedings.orthrus.dual_view import DiffusionView
from proceedings.orthrus.training import (TrainConfig, dual_pass_block_mask, dual_pass_mask, dual_pass_mask_mod,
                                          train_view)

flex = pytest.importorskip("torch.nn.attention.flex_attention", reason="this torch has no FlexAttention")


@pytest.mark.parametrize("first_slot_causal", [False, True])
@pytest.mark.parametrize("anchors, block, length", [([3, 7], 4, 12), ([5, 21, 37], 16, 60)])
def test_the_flex_block_mask_equals_the_dense_mask_element_by_element(anchors, block, length, first_slot_causal):
    anchors = torch.tensor(anchors)
    queries = len(anchors) * block
    rendered = flex.create_mask(dual_pass_mask_mod(anchors, block, length, first_slot_causal), None, None, queries,
                                length + queries, device="cpu")[0, 0]
    assert torch.equal(rendered, dual_pass_mask(anchors, block, length, first_slot_causal))
    assert dual_pass_block_mask(anchors, block, length, first_slot_causal).shape[-2:] == (queries, length + queries)


def _tiny_qwen3():
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(0)
    return Qwen3ForCausalLM(Qwen3Config(vocab_size=64, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                        num_attention_heads=4, num_key_value_heads=2, head_dim=16)).eval()


@pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile")  # eager on the CPU, by design
def test_flex_diffusion_logits_equal_the_sdpa_logits_on_a_tiny_qwen3():
    base = _tiny_qwen3()
    view = DiffusionView(base, 4)
    with torch.no_grad():
        for p in view.parameters():
            p.add_(0.02 * torch.randn_like(p))
    tokens, anchors = torch.randint(0, 64, (24,)), torch.tensor([4, 11, 18])
    cache = DynamicCache()
    with torch.inference_mode():
        base(input_ids=tokens[None], cache=cache, use_cache=True)
        past = [(layer.keys, layer.values) for layer in cache.layers]
        embeddings = view.block_embeddings(base, tokens[anchors], 4)
        positions = (anchors[:, None] + torch.arange(4)[None]).reshape(-1)
        dense = view(base, embeddings, positions, past, dual_pass_mask(anchors, 4, 24)).logits
        blocks = view(base, embeddings, positions, past, dual_pass_block_mask(anchors, 4, 24)).logits
    assert (dense - blocks).abs().max() < 1e-5


@pytest.fixture
def fresh_accelerate_state():
    """Accelerate fixes one precision per process: start and leave this test with a clean state."""
    from accelerate.state import AcceleratorState

    AcceleratorState._reset_state(reset_partial_state=True)
    yield
    AcceleratorState._reset_state(reset_partial_state=True)


def test_bf16_training_through_accelerate_at_b16_computes_in_bf16_and_keeps_fp32_weights(
        pattern_base, pattern_prompt_list, fresh_accelerate_state):
    from proceedings.core.speculative import autoregressive_decode

    base = copy.deepcopy(pattern_base)
    before = {k: v.clone() for k, v in base.state_dict().items()}
    sequences = [(p + autoregressive_decode(base, p, 40).tokens, len(p)) for p in pattern_prompt_list[:2]]
    start = DiffusionView(base, 16)
    runs = {}
    for precision in ("fp32", "bf16"):
        view = copy.deepcopy(start)
        cfg = TrainConfig(steps=2, batch=2, lr=1e-3, seed=0, precision=precision)
        runs[precision] = (train_view(base, view, sequences, cfg).losses, view)
    (fp32, _), (bf16, view) = runs["fp32"], runs["bf16"]
    assert bf16[0] != fp32[0]  # autocast really computed in bf16 ...
    assert bf16[0] == pytest.approx(fp32[0], rel=2e-2)  # ... to about bf16's precision
    assert {p.dtype for p in view.parameters()} == {torch.float32}  # the master weights stay fp32
    assert any(not torch.equal(a, b) for a, b in zip(start.parameters(), view.parameters()))
    assert all(torch.equal(before[k], v) for k, v in base.state_dict().items())


def test_flex_training_off_a_gpu_and_unknown_settings_are_refused_in_one_line(pattern_base, pattern_prompt_list):
    sequences = [(pattern_prompt_list[0] * 2, 16)]
    for settings, message in (({"attention": "flex"}, "FlexAttention training needs a CUDA GPU"),
                              ({"precision": "fp16"}, "unknown precision 'fp16'")):
        with pytest.raises(ProceedingsError, match=message):
            train_view(pattern_base, DiffusionView(pattern_base, 4), sequences, TrainConfig(steps=1, **settings))


def test_reproduce_paper_builds_b16_bf16_flex_and_stops_naming_what_is_missing(monkeypatch, tmp_path, capsys):
    from proceedings.cli import main
    from proceedings.orthrus.experiment import PAPER_BASE_ENV, experiment_config, reproduce

    cfg = experiment_config("paper")
    assert (cfg.block_size, cfg.train.precision, cfg.train.attention, cfg.device) == (16, "bf16", "flex", "cuda")
    monkeypatch.delenv(PAPER_BASE_ENV, raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ProceedingsError, match=f"a local Qwen3 base \\(set {PAPER_BASE_ENV}.*and a CUDA GPU"):
        reproduce("paper")
    _tiny_qwen3().save_pretrained(tmp_path / "qwen3")
    monkeypatch.setenv(PAPER_BASE_ENV, str(tmp_path / "qwen3"))
    monkeypatch.setattr(sys, "argv", ["proceedings", "reproduce", "orthrus", "--scale", "paper"])
    with pytest.raises(SystemExit) as exit_:
        main()
    output = " ".join(capsys.readouterr().err.split())
    assert exit_.value.code == 2 and "it needs a CUDA GPU" in output and "Qwen3 base" not in output
