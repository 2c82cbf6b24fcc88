"""ShareGPT recovery from a truncated file, the held-out split, and damaged response files."""

import json

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.core.selfdistill import (first_human_turns, read_examples, recover_conversations, sharegpt_file,
                                          split_held_out)


def conversation(i, first="human"):
    return {"id": str(i), "conversations": [{"from": first, "value": f" question {i % 4} "}, {"from": "gpt", "value": "a"}]}


def test_whole_conversations_are_recovered_from_a_truncated_file(tmp_path):
    items = [conversation(i) for i in range(6)] + [conversation(6, "gpt")]
    text = json.dumps(items, indent=2)
    cut = text[:text.rindex('"id": "6"') + 4]  # cut inside the last conversation
    path = tmp_path / "sharegpt.json"
    path.write_text(cut)
    recovered = recover_conversations(path.read_text())
    assert [c["id"] for c in recovered] == ["0", "1", "2", "3", "4", "5"]
    assert recover_conversations(text)[-1]["id"] == "6"  # a whole file gives everything
    assert first_human_turns(recover_conversations(text)) == ["question 0", "question 1", "question 2", "question 3"]
    with pytest.raises(ProceedingsError, match="does not start a JSON array"):
        recover_conversations("{}")


def test_the_held_out_split_depends_on_the_text_not_the_order():
    prompts = [f"prompt {i}" for i in range(30)]
    train, held = split_held_out(prompts, 5)
    assert len(held) == 5 and not set(held) & set(train) and len(train) == 25
    assert split_held_out(prompts[::-1], 5)[1] == held


def test_a_damaged_line_of_a_responses_file_is_named(tmp_path):
    path = tmp_path / "responses.jsonl"
    good = json.dumps({"prompt": "p", "prompt_ids": [1], "response_ids": [2, 3]})
    path.write_text(good + "\n" + good[:-5] + "\n")
    with pytest.raises(ProceedingsError, match="line 2 is damaged"):
        read_examples(path)
    path.write_text(good + "\n")
    assert read_examples(path)[0].response_ids == [2, 3]


def test_the_sharegpt_package_is_installed():
    assert sharegpt_file().name == "ShareGPT_V3_unfiltered_cleaned_split.json"


def test_a_responses_file_made_with_another_base_is_refused_naming_both(tmp_path):
    path = tmp_path / "responses.jsonl"
    line = {"prompt": "p", "prompt_ids": [1], "response_ids": [2, 3]}
    path.write_text(json.dumps({**line, "base": "aaaa"}) + "\n")
    assert read_examples(path, base="aaaa")[0].response_ids == [2, 3]
    with pytest.raises(ProceedingsError, match="line 1 was made with base aaaa, but the loaded base is bbbb"):
        read_examples(path, base="bbbb")
    path.write_text(json.dumps(line) + "\n")  # a file that records no base cannot be vouched for
    with pytest.raises(ProceedingsError, match="made with base \\(not recorded\\)"):
        read_examples(path, base="bbbb")
    assert len(read_examples(path)) == 1  # without a base to check against, the cache reads as before
