"""An LLM agent over any OpenAI-compatible chat endpoint (spec 2.6, 7).

The loop: system prompt of the regime + the task (docs, example tests, file list); each reply
holds one action (LIST, READ, RUN, SUBMIT, see prompts.PROTOCOL). READ pages through a file by
character offset; RUN executes the file in the sandbox against the library with all bugs applied
and returns per-test verdicts and the output (4 k characters). A reply with a code block but no
action counts as RUN; when the step budget ends the last file is submitted. Reasoning models are
supported: a `<think>` block is dropped before the action is parsed, and any sampling option set
to None (temperature, max tokens) is left out of the request, since such models reject them.
Endpoint errors are retried with exponential backoff (429, 5xx, timeouts, 6 tries); after that
the instance is an `infra_error`, excluded from recall and reported.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable
from urllib.parse import urlparse

from proceedings.core.errors import ProceedingsError
from proceedings.pbtbench.agents.base import AgentResult
from proceedings.pbtbench.agents.prompts import PROMPT_VERSION, prompt_hash, system_prompt
from proceedings.pbtbench.integrity import installed_unchanged
from proceedings.pbtbench.problem import Problem
from proceedings.pbtbench.pytest_run import run_pytest
from proceedings.pbtbench.sandbox import FEEDBACK_PHASES, Limits, Sandbox, target_for
from proceedings.pbtbench.workspace import Workspace

log = logging.getLogger(__name__)
_CODE = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.S)
_READ = re.compile(r"^\s*READ\s+(\S+)(?:[ \t]+(\d+))?(?:[ \t]+(\d+))?", re.M)
_LIST = re.compile(r"^\s*LIST\b[ \t]*(\S*)", re.M)
_THINK = re.compile(r"<think>.*?(</think>|$)", re.S)
RETRIES = 6


@dataclass(frozen=True)
class Sampling:
    """Request options; None leaves an option out of the request (the endpoint's default applies)."""

    temperature: float | None = None
    max_tokens: int | None = None
    token_field: str = "max_tokens"  # OpenAI reasoning models want "max_completion_tokens"
    reasoning_effort: str | None = None  # "low" | "medium" | "high" for models that take it

    def request_options(self, seed: int) -> dict[str, Any]:
        options: dict[str, Any] = {"seed": seed}
        if self.temperature is not None:
            options["temperature"] = self.temperature
        if self.max_tokens is not None:
            options[self.token_field] = self.max_tokens
        if self.reasoning_effort is not None:
            options["reasoning_effort"] = self.reasoning_effort
        return options


@dataclass(frozen=True)
class Action:
    kind: str  # list | read | run | submit | none
    argument: str = ""
    offset: int = 0  # READ: first character
    length: int | None = None  # READ: characters (None: the workspace's page size)


def parse_action(reply: str) -> Action:
    """The one action of a reply (spec: plain-text protocol for models without tool calls)."""
    reply = _THINK.sub("", reply)
    blocks = _CODE.findall(reply)
    code = blocks[-1] if blocks else ""
    if re.search(r"^\s*SUBMIT\b", reply, re.M):
        return Action("submit", code)
    if re.search(r"^\s*RUN\b", reply, re.M) and code:
        return Action("run", code)
    read = _READ.search(reply)
    if read:
        length = int(read.group(3)) if read.group(3) else None
        return Action("read", read.group(1), int(read.group(2) or 0), length)
    listing = _LIST.search(reply)
    if listing:
        return Action("list", listing.group(1))
    return Action("run", code) if code else Action("none")


def is_loopback(url: str) -> bool:
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class ChatAgent:
    """Writes tests with an LLM behind `base_url` (OpenAI-compatible /v1/chat/completions)."""

    name = "openai"

    def __init__(self, base_url: str, model: str, regime: str = "pbt", api_key_env: str = "OPENAI_API_KEY",
                 max_steps: int = 12, sampling: Sampling = Sampling(), docs_chars: int = 12000,
                 limits: Limits = Limits(), request_timeout_s: float = 600.0, retries: int = RETRIES,
                 backoff_s: float = 1.0, unsafe: bool = False):
        system_prompt(regime)  # validates the regime
        key = os.environ.get(api_key_env)
        if not key:
            if not is_loopback(base_url):
                raise ProceedingsError(f"${api_key_env} is not set; export the API key for {base_url} "
                                       "(or pass --api-key-env NAME)")
            key = "local"
        self._api_key, self._timeout, self._client = key, request_timeout_s, None
        self.base_url, self.model, self.regime = base_url, model, regime
        self.max_steps, self.sampling = max_steps, sampling
        self.docs_chars, self.limits, self.unsafe = docs_chars, limits, unsafe
        self.retries, self.backoff_s = retries, backoff_s

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_client": None}  # worker processes open their own connection

    @property
    def client(self):
        if self._client is None:
            from openai import OpenAI

            self._client = OpenAI(base_url=self.base_url, api_key=self._api_key, max_retries=0, timeout=self._timeout)
        return self._client

    def describe(self) -> dict[str, Any]:
        return {"agent": self.name, "base_url": self.base_url, "model": self.model, "regime": self.regime,
                "prompt_version": PROMPT_VERSION, "prompt_hash": prompt_hash(self.regime),
                "max_steps": self.max_steps, "sampling": asdict(self.sampling)}

    def solve(self, problem: Problem, run: int, log_step: Callable[[dict[str, Any]], None]) -> AgentResult:
        """The agent loop; its own test runs go through the sandbox, hashed around as scoring is."""
        with installed_unchanged([problem.library], f"the agent's runs on {problem.id}"):
            return self._solve(problem, run, log_step)

    def _solve(self, problem: Problem, run: int, log_step: Callable[[dict[str, Any]], None]) -> AgentResult:
        workspace = Workspace(problem)
        sandbox = Sandbox(self.limits, unsafe=self.unsafe)
        messages = [{"role": "system", "content": system_prompt(self.regime)},
                    {"role": "user", "content": workspace.task_text(self.docs_chars)}]
        result = AgentResult(code="")
        for step in range(1, self.max_steps + 1):
            reply, usage, error = self._complete(messages, seed=run)
            if error:
                result.infra_error = error
                log_step({"step": step, "error": error})
                return result
            result.steps = step
            result.prompt_tokens += (usage.get("prompt_tokens") or 0)
            result.completion_tokens += (usage.get("completion_tokens") or 0)
            action = parse_action(reply)
            entry: dict[str, Any] = {"step": step, "reply": reply, "action": action.kind}
            if action.kind == "submit":
                result.code = action.argument or result.code
                log_step(entry)
                return result
            if action.kind == "run":
                result.code = action.argument
                feedback = self._run_tests(sandbox, problem, workspace, action.argument)
            elif action.kind == "read":
                feedback = workspace.read(action.argument, action.offset, action.length)
            elif action.kind == "list":
                feedback = workspace.listing(action.argument)
            else:
                feedback = "No action found. Reply with LIST, READ <path> [offset] [length], RUN + a python block, or SUBMIT."
            entry["feedback"] = feedback
            log_step(entry)
            messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": feedback}]
        return result

    def _run_tests(self, sandbox: Sandbox, problem: Problem, workspace: Workspace, code: str) -> str:
        report = run_pytest(sandbox, "pbt_test.py", code, target_for(problem, workspace.overlay.bugs), problem.seed,
                            phases=FEEDBACK_PHASES)
        verdicts = ", ".join(f"{k}: {v}" for k, v in report.verdicts.items()) or "no test collected"
        return f"Results: {verdicts}\n\nOutput:\n{report.output[-4000:]}"

    def _complete(self, messages: list[dict[str, str]], seed: int) -> tuple[str, dict[str, int], str]:
        """(reply, usage, error); retries 429/5xx/timeouts with exponential backoff."""
        import openai

        delay = self.backoff_s
        for attempt in range(1, self.retries + 1):
            try:
                response = self.client.chat.completions.create(
                    model=self.model, messages=messages, **self.sampling.request_options(seed))
                usage = response.usage.model_dump() if response.usage else {}
                return _THINK.sub("", response.choices[0].message.content or "").strip(), usage, ""
            except (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError,
                    openai.InternalServerError) as err:
                log.warning("endpoint error (attempt %d/%d): %s", attempt, self.retries, err)
                last = f"{type(err).__name__}: {err}"
            except openai.APIStatusError as err:  # 4xx other than 429: retrying will not help
                return "", {}, f"{type(err).__name__}: {err}"
            if attempt < self.retries:
                time.sleep(delay)
                delay *= 2
        return "", {}, f"endpoint failed {self.retries} times: {last}"
