"""The small preset's path on the real SmolLM2: tokens added (or, in the digits format, none), LoRA (+ trainable
rows), dense vector, merge, sample."""

import pytest

from proceedings.mobta.backbone import llm_backbone
from proceedings.mobta.finetuning import Recipe, finetune
from proceedings.mobta.generation import sample
from proceedings.mobta.task_vector import TaskVector, is_tied
from proceedings.mobta.tokenization import TrajTokenizer
from proceedings.mobta.trajectories import Trajectory


@pytest.mark.slow
@pytest.mark.parametrize("cell_format", ["tokens", "digits"])
def test_smollm2_lora_fine_tune_becomes_a_dense_vector_that_merges_tied_and_samples(cell_format):
    tokenizer = TrajTokenizer(16, cell_format=cell_format)
    base = llm_backbone("smollm2-135m", tokenizer, seed=0)
    day = Trajectory(((0, 17), (16, 120), (34, 17)))
    data = [base.ids.ids(tokenizer.encode(day, "mob"))] * 8
    tuned, log = finetune(base.model, data, Recipe(steps=2, batch=4, lora_r=8, warmup_steps=1), base.pad_id,
                          base.ids.new_ids or None)
    vector = TaskVector.from_lora(tuned, base.meta("mob"))
    if cell_format == "tokens":
        rows = vector.deltas["model.embed_tokens.weight"]
        assert rows.shape[0] == len(tokenizer.vocabulary()) and vector.row_offset["model.embed_tokens.weight"] == 49152
    else:  # no rows added or trained: the vocabulary is SmolLM2's own
        assert vector.row_offset == {} and base.model.get_input_embeddings().weight.shape[0] == 49152
    merged = vector.apply_to(base.model)
    assert is_tied(base.model) and is_tied(merged)
    out = sample(merged, tokenizer, base.ids, "mob", 4, seed=0, max_new_tokens=8, batch=4)
    assert out.total == 4 and log.steps == 2
