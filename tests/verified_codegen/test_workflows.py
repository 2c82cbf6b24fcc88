"""The workflows with the oracle and with recorded transcripts, judged by the real checkers.

Coq carries most of these (a check is ~0.3-1 s; Dafny's Mono start-up costs ~2 s a check).
"""

from dataclasses import replace

import pytest

from proceedings.verified_codegen.agents import OracleAgent, Plan, ReplayAgent
from proceedings.verified_codegen.candidates import Candidate, Lemma, reference_candidate
from proceedings.verified_codegen.experiment import DESIGNED
from proceedings.verified_codegen.tasks import load_tasks
from proceedings.verified_codegen.workflows import WORKFLOWS, Settings, solve

SUM_LIST = load_tasks(ids=("sum_list",))[0]
STRUCTURAL = ("Fixpoint sum_list (l : list Z) : Z :=\n  match l with\n  | [] => 0\n  | x :: t => x + sum_list t\n"
              "  end.\n")
BUGGY = STRUCTURAL.replace("x + sum_list t", "x + sum_list t + 1")
INDUCTION = "  induction l as [| x t IH]; simpl; [reflexivity | rewrite IH; reflexivity].\n"
WRONG_PROOF = "  intros l. lia.\n"  # sum_list l and sum l are different atoms to lia


@pytest.mark.external("coqc")
@pytest.mark.parametrize("task_id", ["sum_list", pytest.param("count_pos", marks=pytest.mark.slow)])
def test_the_oracle_solves_coq_tasks_in_every_workflow_with_the_designed_counts(coq, task_id):
    task = load_tasks(ids=(task_id,))[0]
    lemmas = len(reference_candidate(task, "coq").lemmas)
    for workflow in WORKFLOWS:
        attempt = solve(task, workflow, OracleAgent(), coq)
        assert attempt.solved and attempt.recheck == "verified", attempt.trace
        assert (attempt.calls, attempt.checks) == DESIGNED[workflow](lemmas), (workflow, attempt.trace)


@pytest.mark.slow  # ~3 Dafny runs (Mono start-up ~2-7 s each); the tiny reproduce covers two Dafny tasks
@pytest.mark.external("dafny")
def test_the_oracle_solves_a_dafny_task_in_every_workflow_with_the_designed_counts(dafny):
    task = load_tasks(ids=("sum_seq",))[0]
    for workflow in WORKFLOWS:
        attempt = solve(task, workflow, OracleAgent(), dafny)
        assert attempt.solved and (attempt.calls, attempt.checks) == DESIGNED[workflow](0), attempt.trace


@pytest.mark.external("coqc")
def test_sequential_repairs_the_code_once_after_its_proofs_fail(coq):
    first = Candidate("coq", BUGGY)  # fails the tests: never gets a proof
    # passes the tests; its first proof fails, so after m=1 the code changes
    second = Candidate("coq", STRUCTURAL.replace("x :: t => x + sum_list t", "y :: rest => y + sum_list rest"))
    third = Candidate("coq", STRUCTURAL)  # the planfirst test's final file too: one checker run for both
    script = {"code": [first, second, third],
              "proof": [replace(second, proof=WRONG_PROOF), replace(third, proof=INDUCTION)]}
    attempt = solve(SUM_LIST, "sequential", ReplayAgent(script), coq, Settings(proof_rounds=1))
    assert attempt.solved
    kinds = [step.get("call") or step.get("check") for step in attempt.trace]
    assert kinds == ["code", "tests", "code", "tests", "proof", "verify", "code", "tests", "proof", "verify"]


@pytest.mark.external("coqc")
def test_planfirst_replans_once_when_a_planned_lemma_resists(coq):
    ref = reference_candidate(SUM_LIST, "coq")
    blank = replace(ref, lemmas=tuple(replace(l, proof="") for l in ref.lemmas))
    structural = Candidate("coq", STRUCTURAL, proof=INDUCTION)
    script = {"plan": [Plan("accumulator", lemmas=blank.lemmas), Plan("structural recursion", revision=1)],
              "elaborate": [blank, structural],
              "discharge": ["Proof.\n  intros; reflexivity.\nQed."] * 3}
    attempt = solve(SUM_LIST, "planfirst", ReplayAgent(script), coq, Settings(lemma_attempts=3))
    assert attempt.solved
    assert [s["call"] for s in attempt.trace if "call" in s] == ["plan", "elaborate", "discharge", "discharge",
                                                                 "discharge", "plan", "elaborate"]
    assert [s["status"] for s in attempt.trace if s.get("check") in ("verify", "scaffold")] == \
        ["scaffold", "failed", "failed", "failed", "verified"]


@pytest.mark.external("coqc")
def test_planfirst_replans_once_when_its_scaffold_fails_a_recorded_test_before_any_lemma_is_discharged(coq):
    """Refute-by-test: the first plan (accumulator + its lemma) is elaborated into code that fails a test; the
    plan is refuted at once (no scaffold check, no discharge, no second elaboration) and the revised plan
    verifies. Every file here was checked by the sequential test too: the session's memo answers them."""
    ref = reference_candidate(SUM_LIST, "coq")
    blank = replace(ref, lemmas=tuple(replace(l, proof="") for l in ref.lemmas))
    script = {"plan": [Plan("accumulator", lemmas=blank.lemmas), Plan("structural recursion", revision=1)],
              "elaborate": [replace(blank, code=BUGGY), Candidate("coq", STRUCTURAL, proof=INDUCTION)],
              "discharge": [l.proof for l in ref.lemmas]}
    attempt = solve(SUM_LIST, "planfirst", ReplayAgent(script), coq, Settings(elaborations=3))
    assert attempt.solved and (attempt.calls, attempt.checks, attempt.solved_at) == (4, 3, 3)
    kinds = [step.get("call") or step.get("check") or ("refuted" if "refuted" in step else "?") for step in attempt.trace]
    assert kinds == ["plan", "elaborate", "tests", "refuted", "plan", "elaborate", "tests", "verify"]
    assert attempt.trace[3]["refuted"].startswith("plan refuted by test(s) [1, 2, 3]: 3 test(s) fail")


@pytest.mark.external("coqc")
def test_one_run_at_b_max_gives_the_runs_at_smaller_budgets(coq):
    wrong = [Candidate("coq", STRUCTURAL, proof=WRONG_PROOF)] * 4
    script = {"joint": wrong[:3] + [Candidate("coq", STRUCTURAL, proof=INDUCTION)]}
    full = solve(SUM_LIST, "joint", ReplayAgent(script), coq, Settings(checks=8))
    assert full.solved_at == 4
    for budget in (2, 4):
        run = solve(SUM_LIST, "joint", ReplayAgent(script), coq, Settings(checks=budget))
        assert run.solved == full.solved_within(budget)


@pytest.mark.external("coqc")
def test_a_rerun_takes_finished_attempts_from_the_store_without_running_them_again(coq, tmp_path):
    from proceedings.verified_codegen.experiment import run_arms

    store = tmp_path / "attempts.jsonl"
    first = run_arms([SUM_LIST], OracleAgent(), {"coq": coq}, Settings(), "oracle", store)
    lines = store.read_text().splitlines()
    processes = coq.processes
    again = run_arms([SUM_LIST], OracleAgent(), {"coq": coq}, Settings(), "oracle", store)
    assert coq.processes == processes and store.read_text().splitlines() == lines and len(lines) == 3
    assert [a.row() for a in again] == [a.row() for a in first]


@pytest.mark.slow  # importing torch and building the tiny Llama: ~11 s here
def test_the_local_agent_sends_every_request_through_the_model_and_parses_what_comes_back(tiny_lm):
    from proceedings.verified_codegen.local_agent import LocalAgent, fenced

    task = load_tasks(ids=("sum_seq",))[0]
    agent = LocalAgent(lm=tiny_lm, max_new_tokens=8)
    candidate = agent.joint(task, "dafny", "")
    plan = agent.plan(task, "dafny", "the checker's message")
    assert candidate.backend == "dafny" and candidate.features["parsed"] == "code only" and isinstance(plan.approach, str)
    assert agent.completion_tokens == 16 and agent.prompt_tokens > 100
    assert "The checker said: the checker's message" in agent.transcript[1]["prompt"]
    assert fenced("Sure:\n```dafny\n{ r := 0; }\n```\nDone.") == "{ r := 0; }"


def test_a_staged_run_starts_no_attempt_once_its_time_is_spent(tmp_path):
    from proceedings.core.errors import ProceedingsError
    from proceedings.verified_codegen.experiment import run_arms

    with pytest.raises(ProceedingsError, match="0 of 3 attempts stored .* run the same command again"):
        run_arms([SUM_LIST], OracleAgent(), {}, Settings(), "oracle", tmp_path / "runs.jsonl", deadline=0.0)


def test_the_shared_pool_s_ranking_is_charged_to_no_arm():
    import time as clock

    from proceedings.verified_codegen.checkers import Checker, TestOutcome, Verdict
    from proceedings.verified_codegen.ranker import SizeRanker
    from proceedings.verified_codegen.sketch import SketchAgent

    class SlowRanker(SizeRanker):
        def rank(self, task, candidates):
            clock.sleep(0.5)
            return super().rank(task, candidates)

    class Refuses(Checker):  # answers at once: only the workflow's own time is left on the clock
        backend, executable = "dafny", "true"

        def verify(self, task, solution, scaffold=None, holes=(), fresh=False):
            return Verdict("failed", "no")

        def run_tests(self, task, solution):
            return TestOutcome(False, reason="no")

    task, agent = load_tasks(ids=("alt_sum",))[0], SketchAgent(ranker=SlowRanker())
    first = solve(task, "joint", agent, Refuses(), Settings(checks=2))
    assert first.checks == 2 and first.wall_s < 0.25 and first.cpu_s < 0.25 and first.load_1m >= 0


def serve_chat(answers: list):
    """A stub OpenAI-compatible endpoint on localhost: each POST gets the next of `answers` (a status code
    alone is an HTTP error); the requests' bodies and headers are kept."""
    import http.server
    import json
    import threading

    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
            answer = answers.pop(0)
            if isinstance(answer, int):
                self.send_error(answer)
                return
            reply = json.dumps({"choices": [{"message": {"role": "assistant", "content": answer}}],
                                "usage": {"prompt_tokens": 120, "completion_tokens": 40}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, seen


def test_the_openai_agent_posts_the_prompt_to_the_endpoint_retries_and_reads_the_fenced_file(monkeypatch):
    from proceedings.core.errors import ProceedingsError
    from proceedings.verified_codegen.agents import make_agent

    reference = SUM_LIST.spec("coq").path.read_text()
    server, seen = serve_chat([503, f"Here it is:\n```coq\n{reference}```\n"])
    monkeypatch.setenv("TEST_VCG_KEY", "sk-test")
    try:
        agent = make_agent("openai", base_url=f"http://127.0.0.1:{server.server_port}/v1", model="stub-model",
                           api_key_env="TEST_VCG_KEY", backoff_s=0.0)
        candidate = agent.joint(SUM_LIST, "coq", "the checker's message")
    finally:
        server.shutdown()
    assert candidate.regions() == reference_candidate(SUM_LIST, "coq").regions()  # the whole file, read by its regions
    assert len(seen) == 2 and seen[1]["path"] == "/v1/chat/completions" and seen[1]["auth"] == "Bearer sk-test"
    body = seen[1]["body"]
    assert body["model"] == "stub-model" and body["temperature"] == 0 and "The checker said: the checker's message" in \
        body["messages"][0]["content"]
    assert (agent.prompt_tokens, agent.completion_tokens) == (120, 40)
    server, _ = serve_chat([500, 500])
    try:
        with pytest.raises(ProceedingsError, match="did not answer after 2 tries"):
            make_agent("openai", base_url=f"http://127.0.0.1:{server.server_port}/v1", model="m", tries=2,
                       backoff_s=0.0).plan(SUM_LIST, "coq", "")
    finally:
        server.shutdown()
    monkeypatch.delenv("VCG_OPENAI_BASE_URL", raising=False)
    with pytest.raises(ProceedingsError, match="VCG_OPENAI_BASE_URL"):
        make_agent("openai")


@pytest.mark.external("coqc")
def test_a_model_agent_s_tokens_are_charged_to_its_attempt_and_summed_for_the_local_run(coq, tmp_path):
    from proceedings.verified_codegen.experiment import summarise_local
    from proceedings.verified_codegen.local_agent import ModelAgent
    from tests.verified_codegen.test_checkers import write_twice

    class Canned(ModelAgent):
        def complete(self, prompt):
            return "```coq\nDefinition twice (n : nat) : nat := n.\n```", 10, 3

    twice = load_tasks(write_twice(tmp_path / "tasks" / "twice").parent)[0]
    agent = Canned()
    attempts = [solve(twice, "joint", agent, coq, Settings(checks=2)) for _ in range(2)]
    # J asks again after each failed check; its third answer finds the budget spent: 3 calls, 2 checks
    assert [(a.calls, a.checks, a.prompt_tokens, a.completion_tokens) for a in attempts] == [(3, 2, 30, 9)] * 2
    numbers = summarise_local(attempts)
    assert numbers["local_prompt_tokens"] == 60 and numbers["local_solved"] == 0 and numbers["local_calls"] == 6
    assert summarise_local([]) == {"local_attempts": 0}


@pytest.mark.slow  # two spawned workers import the package and check two Coq tasks: ~20 CPU-s
@pytest.mark.external("coqc")
def test_two_workers_give_the_same_attempts_as_one_in_the_tasks_order(tmp_path):
    from proceedings.verified_codegen.checkers import get_checker
    from proceedings.verified_codegen.experiment import CONFIGS, run_arms, run_sharded
    from proceedings.verified_codegen.sketch import SketchAgent

    tasks = load_tasks(ids=("sum_list", "count_pos"))
    cfg = replace(CONFIGS["tiny"], workers=2)
    sharded, counts = run_sharded(tasks, cfg, "sharded", tmp_path / "two.jsonl", None)
    single = run_arms(tasks, SketchAgent(), {"coq": get_checker("coq")}, cfg.settings, "single", tmp_path / "one.jsonl")
    numbers = ("task", "workflow", "solved", "solved_at", "checks", "calls", "recheck", "solution")
    assert [[getattr(a, k) for k in numbers] for a in sharded] == [[getattr(a, k) for k in numbers] for a in single]
    assert sorted(p.name for p in tmp_path.glob("two.*.jsonl")) == ["two.0.jsonl", "two.1.jsonl"]
    assert counts["processes"] > 0
