"""The text surface reaches the generator whole: no scene prompt is cut at the MiniLM token limit (at 32
tokens half of the 3-object scene prompts lost their last object), and the per-prompt cache is keyed by
that limit."""

import random

from proceedings.core.models import minilm_dir
from proceedings.oopsworld.data import explicit_prompt, sample_scene
from proceedings.oopsworld.encoders import TEXT_TOKENS, MiniLMTokens, op_words, structured_bank
from proceedings.oopsworld.taxonomy import Program


def test_every_sampled_scene_prompt_fits_the_token_limit():
    from tokenizers import Tokenizer  # the fast tokenizer AutoTokenizer loads, without importing transformers

    tokenizer = Tokenizer.from_file(str(minilm_dir() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    rng = random.Random(0)
    longest = max(len(tokenizer.encode(explicit_prompt(sample_scene(rng, 3, 3))).ids) for _ in range(300))
    assert 40 < longest <= TEXT_TOKENS


def test_the_prompt_cache_is_keyed_by_the_token_limit(monkeypatch):
    import proceedings.oopsworld.encoders as encoders

    encoder = MiniLMTokens.__new__(MiniLMTokens)  # no weights needed to name a cache file
    encoder.cache_dir = minilm_dir().parent
    now = encoder._cached("a meadow at night")
    monkeypatch.setattr(encoders, "TEXT_TOKENS", 32)
    assert encoder._cached("a meadow at night") != now


def test_structured_op_tokens_tell_the_targets_colour_from_the_new_one():
    scene = sample_scene(random.Random(0), max_objects=1, min_objects=1)
    oid = scene["local"][0]["id"]
    green = {**scene, "local": [{**scene["local"][0], "color": "green"}]}
    yellow = {**scene, "local": [{**scene["local"][0], "color": "yellow"}]}
    to_yellow = op_words(Program.parse({"ops": [{"op": "recolor", "target": oid, "args": {"color": "yellow"}}]}), green)
    to_green = op_words(Program.parse({"ops": [{"op": "recolor", "target": oid, "args": {"color": "green"}}]}), yellow)
    a, b = structured_bank([to_yellow]).values[0], structured_bank([to_green]).values[0]
    assert sorted(a[0].tolist()) != sorted(b[0].tolist())  # a bag: only the set of words counts
    assert "new_color:yellow" in to_yellow[0] and "color:green" in to_yellow[0]
