"""The digits cell format (spec §2.1): exact round trips through a real tokenizer, no added rows, vectors of
the two formats never combined, and run folders and sampling limits that know the format."""

import copy
from dataclasses import replace
from types import SimpleNamespace

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from proceedings.core.errors import ProceedingsError
from proceedings.mobta.experiment import experiment_config, run_folder, sampling_limits
from proceedings.mobta.finetuning import Recipe, finetune
from proceedings.mobta.generation import sample
from proceedings.mobta.task_vector import TaskVector, model_hash
from proceedings.mobta.token_ids import hf_ids, own_ids, visit_length
from proceedings.mobta.tokenization import EOS, InvalidSample, TrajTokenizer
from proceedings.mobta.trajectories import Trajectory

DIGITS = TrajTokenizer(16, cell_format="digits")
visits = st.lists(st.tuples(st.integers(0, 47), st.integers(0, 255)), min_size=1, max_size=12)


@pytest.fixture(scope="module")
def smollm2_ids(tiny_lm):
    return hf_ids(copy.deepcopy(tiny_lm[1]), DIGITS)


@settings(max_examples=60, deadline=None)
@given(visits)
def test_digit_words_round_trip_through_smollm2s_tokenizer_and_the_tiny_characters(smollm2_ids, raw):
    bus, day = Trajectory(tuple(sorted(raw))), Trajectory(tuple(dict(sorted(raw)).items()))
    for trajectory, tag in ((bus, "bus"), (day, "mob")):
        words = DIGITS.encode(trajectory, tag)
        for ids in (smollm2_ids, own_ids(DIGITS)):
            assert DIGITS.decode(ids.words(ids.ids(words))) == (tag, trajectory)
        text = " ".join(words[:-1])  # per-word ids are exactly the tokenizer's ids of the whole text
        assert smollm2_ids.ids(words) == [*smollm2_ids.piece_ids(text), smollm2_ids.eos_id]


def test_the_digits_format_adds_no_tokens_and_spells_a_visit_in_twelve_smollm2_ids(smollm2_ids, tiny_lm):
    assert DIGITS.added_tokens() == [] and smollm2_ids.new_ids == []
    assert smollm2_ids.vocab_size == len(tiny_lm[1]) and smollm2_ids.eos_id == tiny_lm[1].eos_token_id
    assert visit_length(smollm2_ids, DIGITS) == 12 and visit_length(own_ids(TrajTokenizer(16)), TrajTokenizer(16)) == 2


@pytest.mark.parametrize("text, reason", [
    ("mob 08:00 r05 c07", "no <eos>"),
    ("mob 08:00 r05 <eos>", "triples"),
    ("mob 08:15 r05 c07 <eos>", "does not start a 30-min slot"),
    ("mob 24:00 r05 c07 <eos>", "expected a time"),
    ("mob 08:00 r16 c07 <eos>", "expected a row"),
    ("mob 08:00 r05 c7 <eos>", "expected a column"),
    ("mob 08:00 r05 c07 07:30 r01 c01 <eos>", "time goes backwards"),
    ("mob 08:00  r05 <eos>", "expected a row, got ''"),  # a double space
    ("<mob> 08:00 r05 c07 <eos>", "does not start with bus or mob"),
    ("mobile 08:00 r05 c07 <eos>", "no space after the tag"),
])
def test_digit_samples_that_do_not_parse_are_invalid_with_their_reason(text, reason):
    with pytest.raises(InvalidSample, match=reason):
        DIGITS.decode(text.split(" "))


def test_a_digits_lora_fine_tune_is_lora_deltas_only_merges_exactly_and_samples(smollm2_ids, tiny_lm):
    base = copy.deepcopy(tiny_lm[0])
    data = [smollm2_ids.ids(DIGITS.encode(Trajectory(((16, 87), (35, 3))), "mob"))] * 4
    tuned, _ = finetune(base, data, Recipe(steps=2, batch=4, lr=2e-2, lora_r=8, warmup_steps=1), smollm2_ids.eos_id,
                        smollm2_ids.new_ids or None)
    vector = TaskVector.from_lora(tuned, {"base_hash": model_hash(base), "cell_format": "digits"})
    assert vector.row_offset == {} and all("lora" not in k and "embed" not in k for k in vector.deltas)
    ours = dict(vector.apply_to(base).named_parameters())
    peft = dict(copy.deepcopy(tuned).merge_and_unload().named_parameters())
    assert max(float((ours[k] - peft[k]).abs().max()) for k in ours) <= 1e-5
    out = sample(vector.apply_to(base), DIGITS, smollm2_ids, "mob", 3, seed=0, max_new_tokens=12, batch=3)
    assert out.total == 3


def test_combining_a_tokens_and_a_digits_vector_is_refused_naming_both(tmp_path):
    meta = {"base_hash": "b", "tokenizer_hash": "t", "grid": 16, "slot_minutes": 30}
    TaskVector({"w": torch.ones(2)}, {**meta, "name": "old"}).save(tmp_path / "old.safetensors")  # saved before formats
    digits = {**meta, "name": "new", "cell_format": "digits"}
    TaskVector({"w": torch.ones(2)}, digits).save(tmp_path / "new.safetensors")
    old, new = (TaskVector.load(tmp_path / f"{n}.safetensors") for n in ("old", "new"))
    with pytest.raises(ProceedingsError) as refused:
        old - new
    message = str(refused.value)
    assert "cell_format tokens" in message and "cell_format digits" in message and "old" in message and "new" in message
    assert (old + TaskVector.load(tmp_path / "old.safetensors")).meta["cell_format"] == "tokens"


def test_run_folders_differ_by_format_and_the_tokens_key_is_the_one_before_formats():
    import hashlib
    import json
    from dataclasses import asdict

    cfg, base = experiment_config("small"), SimpleNamespace(base_hash="h")
    before = {k: asdict(cfg)[k] for k in ("model", "source", "target", "recipe", "grid", "bus_sequences", "mob_days")}
    key = hashlib.sha256(json.dumps([before, "h"], default=str).encode()).hexdigest()[:12]
    assert run_folder(cfg, base).name == key
    assert run_folder(replace(cfg, cell_format="digits"), base).name != run_folder(cfg, base).name
    assert experiment_config("small", cell_format="digits").cell_format == "digits"
    assert experiment_config("small").cell_format == "tokens"  # the preset's default is not switched


def test_sampling_limits_give_the_digits_format_the_same_four_visits_of_margin(smollm2_ids):
    sequences = {"bus_S": [[1] * 30], "mob_S": [[1] * 12]}
    work = SimpleNamespace(sequences=sequences)
    tokens = SimpleNamespace(ids=own_ids(TrajTokenizer(16)), tokenizer=TrajTokenizer(16))
    digits = SimpleNamespace(ids=smollm2_ids, tokenizer=DIGITS)
    cfg = experiment_config("small")
    assert sampling_limits(cfg, tokens, work) == {"bus": 29 + 8, "mob": 11 + 8}
    assert sampling_limits(cfg, digits, work) == {"bus": 29 + 48, "mob": 11 + 48}


def test_eos_ends_the_digit_words_and_an_unfinished_sample_has_none(smollm2_ids):
    words = DIGITS.encode(Trajectory(((16, 87),)), "mob")
    ids = smollm2_ids.ids(words)
    assert smollm2_ids.words(ids + [5, 6]) == words and EOS not in smollm2_ids.words(ids[:-1])


def test_micro_batches_give_the_whole_batchs_loss_and_gradient():
    from proceedings.mobta.backbone import tiny_backbone
    from proceedings.mobta.finetuning import _accumulate, _batch

    base = tiny_backbone(DIGITS, seed=0, hidden=64, pretrain=Recipe(steps=0, lora_r=None))
    days = [Trajectory(tuple((s, 17 * s % 256) for s in range(1, n + 1))) for n in range(1, 9)]  # 1-8 visits
    batch = _batch([base.ids.ids(DIGITS.encode(d, "mob")) for d in days], Recipe(batch=8), 0, base.pad_id)
    grads, losses = [], []
    for micro in (None, 3):  # 3 + 3 + 2 sequences, each part cut to its own width
        model = copy.deepcopy(base.model)
        losses.append(_accumulate(model, batch, micro))
        grads.append({n: p.grad for n, p in model.named_parameters()})
    assert losses[1] == pytest.approx(losses[0], rel=1e-5)
    assert max(float((grads[0][n] - grads[1][n]).abs().max()) for n in grads[0]) <= 1e-6
