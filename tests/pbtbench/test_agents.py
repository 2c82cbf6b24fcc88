"""The LLM path over HTTP on loopback: a scripted model, a strict stub endpoint, a tiny random
model, SmolLM2; READ paging and the file listing."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.pbtbench.agents.chat import ChatAgent, Sampling, parse_action
from proceedings.pbtbench.agents.local_server import ChatModel, serve_in_thread
from proceedings.pbtbench.runner import run_benchmark
from proceedings.pbtbench.test_files import reference_test_file
from proceedings.pbtbench.workspace import Workspace
from tests.pbtbench.conftest import subset_problem


class ScriptedModel:
    """Replies from a fixed script (stands in for a model; the HTTP server and client are real)."""

    def __init__(self, replies):
        self.replies, self.name, self.seen = list(replies), "scripted", []

    def complete(self, messages, max_tokens, temperature, seed):
        self.seen.append(messages)
        return self.replies.pop(0), 10, 5


def test_actions_are_parsed_from_plain_text():
    assert parse_action("READ docs/overview.md") == parse_action("READ docs/overview.md 0")
    assert parse_action("READ library/x.py 4000 500").offset == 4000
    assert parse_action("READ library/x.py 4000 500").length == 500
    assert parse_action("LIST library/").kind == "list" and parse_action("LIST").argument == ""
    assert parse_action("RUN\n```python\ndef test_a(): pass\n```") == parse_action("```python\ndef test_a(): pass\n```")
    assert parse_action("SUBMIT").kind == "submit" and parse_action("hello").kind == "none"
    assert parse_action("<think>maybe READ docs/a.md</think>SUBMIT").kind == "submit"


def test_read_pages_through_a_library_file_and_list_shows_sizes(lru_problem):
    workspace = Workspace(lru_problem)
    name = "library/cachetools/__init__.py"
    text = workspace.files[name].read_text()
    pages, offset = [], 0
    while True:
        page = workspace.read(name, offset, 4000)
        header, _, body = page.partition("\n")
        assert header == f"{name}: characters {offset}-{min(offset + 4000, len(text))} of {len(text)}"
        more = f"\n... READ {name} {offset + 4000} to read on"
        pages.append(body.removesuffix(more))
        if not body.endswith(more):
            break
        offset += 4000
    assert "".join(pages) == text and len(pages) > 2
    assert f"{name} ({len(text)} characters)" in workspace.listing("library/")
    assert "docs/" not in workspace.listing("library/") and "No such file" in workspace.read("bugs/x.patch")


class StrictEndpoint(BaseHTTPRequestHandler):
    """A reasoning-model endpoint: rejects temperature and max_tokens, answers with a think block."""

    requests: list = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        StrictEndpoint.requests.append(body)
        rejected = sorted({"temperature", "max_tokens"} & set(body))
        if rejected:
            status, reply = 400, {"error": {"message": f"Unsupported parameter: {rejected[0]}"}}
        else:
            message = {"role": "assistant", "content": "<think>READ docs/overview.md first?</think>\nSUBMIT"}
            status, reply = 200, {"id": "x", "object": "chat.completion", "created": 0, "model": "r",
                                  "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
        data = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def test_the_client_omits_options_set_to_none_so_a_reasoning_endpoint_accepts_it():
    server = ThreadingHTTPServer(("127.0.0.1", 0), StrictEndpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/v1"
    try:
        messages = [{"role": "user", "content": "hi"}]
        agent = ChatAgent(url, "r", sampling=Sampling())  # one client; its options change between requests
        reply, _, error = agent._complete(messages, seed=0)
        assert (reply, error) == ("SUBMIT", "")
        agent.sampling = Sampling(temperature=0.7)
        assert "temperature" in agent._complete(messages, seed=0)[2]
        for run in range(3):  # --runs 3 at a positive temperature: one seed per run, so the runs differ
            agent._complete(messages, seed=run)
        assert [(r["seed"], r["temperature"]) for r in StrictEndpoint.requests[-3:]] == [(0, 0.7), (1, 0.7), (2, 0.7)]
        agent.sampling = Sampling(max_tokens=900, token_field="max_completion_tokens", reasoning_effort="low")
        _, _, error = agent._complete(messages, seed=1)
    finally:
        server.shutdown()
    assert error == "" and StrictEndpoint.requests[-1]["max_completion_tokens"] == 900
    assert StrictEndpoint.requests[-1]["reasoning_effort"] == "low" and StrictEndpoint.requests[-1]["seed"] == 1
    assert {"temperature", "max_tokens"}.isdisjoint(StrictEndpoint.requests[0])


@pytest.mark.slow
def test_runs_at_a_positive_temperature_differ(tiny_lm):
    model, tokenizer = tiny_lm
    chat = ChatModel(model, tokenizer, "tiny")
    messages = [{"role": "user", "content": "Write a test."}]
    runs = {chat.complete(messages, 12, 1.0, seed)[0] for seed in range(3)}
    greedy = {chat.complete(messages, 12, 0.0, seed)[0] for seed in range(2)}
    assert len(runs) == 3 and len(greedy) == 1


@pytest.mark.slow  # moved out of the fast suite: the system's fast tests were over 25 s
def test_chat_agent_lists_reads_runs_and_submits_through_a_loopback_server(tmp_path):
    lru_problem = subset_problem(tmp_path / "problems", "cachetools-caches", ["sized-update-evicts-self"])
    code = reference_test_file(lru_problem, lru_problem.bugs).replace("max_examples=200", "max_examples=60")
    broken = "SUBMIT\n```python\ndef test_x(:\n```"  # scoring is test_scorer's business: no runs here
    model = ScriptedModel(["LIST docs/", "READ docs/overview.md", f"RUN\n```python\n{code}```", broken])
    server = serve_in_thread(model)
    try:
        agent = ChatAgent(f"http://127.0.0.1:{server.server_port}/v1", "scripted", regime="pbt", max_steps=5)
        summary = run_benchmark(agent, [lru_problem], tmp_path / "run")
    finally:
        server.shutdown()
    steps = [json.loads(l) for l in (tmp_path / "run/transcripts/cachetools-caches.0.jsonl").read_text().splitlines()]
    assert [s["action"] for s in steps] == ["list", "read", "run", "submit"]
    assert "docs/overview.md (" in steps[0]["feedback"] and "currsize" in steps[1]["feedback"]
    assert "test_sized_currsize: failed" in steps[2]["feedback"]
    assert "Hypothesis" in model.seen[0][0]["content"]  # the pbt regime's scaffolding
    line = json.loads((tmp_path / "run/results.jsonl").read_text())
    assert line["prompt_tokens"] == 40 and line["steps"] == 4 and "does not parse" in line["reason"]
    assert (tmp_path / "run/tests/cachetools-caches.0.py").read_text() == "def test_x(:\n"
    assert summary["recall"] == 0.0 and summary["scored"] == 1


def test_endpoint_failures_become_an_infra_error_not_a_zero(tmp_path, lru_problem):
    agent = ChatAgent("http://127.0.0.1:9/v1", "none", retries=2, backoff_s=0.01, request_timeout_s=2)
    summary = run_benchmark(agent, [lru_problem], tmp_path / "run")
    assert summary["infra_errors"] == 1 and summary["scored"] == 0 and summary["recall"] is None


def test_a_remote_endpoint_without_an_api_key_is_refused_before_any_work(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ProceedingsError, match="OPENAI_API_KEY"):
        ChatAgent("https://api.example.invalid/v1", "gpt")


def test_serve_local_refuses_non_loopback_addresses():
    with pytest.raises(ProceedingsError, match="loopback"):
        serve_in_thread(ChatModel(None, None, "never loaded"), host="0.0.0.0")


@pytest.mark.slow
def test_a_real_transformers_model_answers_over_http(tiny_lm, tmp_path, lru_problem):
    model, tokenizer = tiny_lm
    server = serve_in_thread(ChatModel(model, tokenizer, "tiny"))
    try:
        agent = ChatAgent(f"http://127.0.0.1:{server.server_port}/v1", "tiny", max_steps=1,
                          sampling=Sampling(max_tokens=8), docs_chars=500)
        summary = run_benchmark(agent, [lru_problem], tmp_path / "run")
    finally:
        server.shutdown()
    assert summary["instances"] == 1 and summary["infra_errors"] == 0
    line = json.loads((tmp_path / "run/results.jsonl").read_text())
    assert line["completion_tokens"] >= 1 and line["recall"] == 0.0
