"""The LLM path end to end over HTTP on loopback: a scripted model, a tiny random model, SmolLM2."""

import json

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.pbtbench.agents.chat import ChatAgent, parse_action
from proceedings.pbtbench.agents.local_server import ChatModel, serve_in_thread
from proceedings.pbtbench.runner import run_benchmark
from proceedings.pbtbench.test_files import reference_test_file


class ScriptedModel:
    """Replies from a fixed script (stands in for a model; the HTTP server and client are real)."""

    def __init__(self, replies):
        self.replies, self.name, self.seen = list(replies), "scripted", []

    def complete(self, messages, max_tokens, temperature, seed):
        self.seen.append(messages)
        return self.replies.pop(0), 10, 5


def test_actions_are_parsed_from_plain_text():
    assert parse_action("READ docs/overview.md").kind == "read"
    assert parse_action("RUN\n```python\ndef test_a(): pass\n```") == parse_action("```python\ndef test_a(): pass\n```")
    assert parse_action("SUBMIT").kind == "submit" and parse_action("hello").kind == "none"


def test_chat_agent_reads_runs_and_submits_through_a_loopback_server(tmp_path, lru_problem):
    code = reference_test_file(lru_problem, lru_problem.bugs)
    model = ScriptedModel(["READ docs/overview.md", f"RUN\n```python\n{code}```", "SUBMIT"])
    server = serve_in_thread(model)
    try:
        agent = ChatAgent(f"http://127.0.0.1:{server.server_port}/v1", "scripted", regime="pbt", max_steps=5)
        summary = run_benchmark(agent, [lru_problem], tmp_path / "run")
    finally:
        server.shutdown()
    assert summary["recall"] == 1.0
    steps = [json.loads(l) for l in (tmp_path / "run/transcripts/cachetools-caches.0.jsonl").read_text().splitlines()]
    assert [s["action"] for s in steps] == ["read", "run", "submit"]
    assert "currsize" in steps[0]["feedback"] and "test_sized_currsize: failed" in steps[1]["feedback"]
    assert "Hypothesis" in model.seen[0][0]["content"]  # the pbt regime's scaffolding
    line = json.loads((tmp_path / "run/results.jsonl").read_text())
    assert line["prompt_tokens"] == 30 and line["steps"] == 3


def test_endpoint_failures_become_an_infra_error_not_a_zero(tmp_path, lru_problem):
    agent = ChatAgent("http://127.0.0.1:9/v1", "none", retries=2, backoff_s=0.01, request_timeout_s=2)
    summary = run_benchmark(agent, [lru_problem], tmp_path / "run")
    assert summary["infra_errors"] == 1 and summary["scored"] == 0


def test_a_remote_endpoint_without_an_api_key_is_refused_before_any_work(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ProceedingsError, match="OPENAI_API_KEY"):
        ChatAgent("https://api.example.invalid/v1", "gpt")


def test_serve_local_refuses_non_loopback_addresses(tiny_lm):
    model, tokenizer = tiny_lm
    with pytest.raises(ProceedingsError, match="loopback"):
        serve_in_thread(ChatModel(model, tokenizer, "tiny"), host="0.0.0.0")


def test_a_real_transformers_model_answers_over_http(tiny_lm, tmp_path, lru_problem):
    model, tokenizer = tiny_lm
    server = serve_in_thread(ChatModel(model, tokenizer, "tiny"))
    try:
        agent = ChatAgent(f"http://127.0.0.1:{server.server_port}/v1", "tiny", max_steps=1, max_tokens=8,
                          docs_chars=500)
        summary = run_benchmark(agent, [lru_problem], tmp_path / "run")
    finally:
        server.shutdown()
    assert summary["instances"] == 1 and summary["infra_errors"] == 0
    line = json.loads((tmp_path / "run/results.jsonl").read_text())
    assert line["completion_tokens"] >= 1 and line["recall"] == 0.0


@pytest.mark.slow
def test_smollm2_served_locally_completes_one_problem(smollm2, tmp_path, lru_problem):
    model, tokenizer = smollm2
    server = serve_in_thread(ChatModel(model, tokenizer, "smollm2-135m"))
    try:
        agent = ChatAgent(f"http://127.0.0.1:{server.server_port}/v1", "smollm2-135m", max_steps=2,
                          max_tokens=256, docs_chars=2000)
        summary = run_benchmark(agent, [lru_problem], tmp_path / "run")
    finally:
        server.shutdown()
    assert summary["instances"] == 1 and summary["infra_errors"] == 0
    assert (tmp_path / "run/tests/cachetools-caches.0.py").exists()
