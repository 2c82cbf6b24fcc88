"""The `openai` agent: the `local` agent's prompts sent to any OpenAI-compatible chat endpoint (spec §6.1;
vLLM or SGLang serving a model, or a hosted API), the full-scale path of the issue's agents.

One request = one `POST {base_url}/chat/completions` with a single user turn, `temperature` 0 and
`max_tokens`; the answer is `choices[0].message.content`, the token counts are the reply's `usage`.
The key is read from the environment variable `api_key_env` (default OPENAI_API_KEY; none is sent when
it is unset, as a local server needs none). An endpoint that does not answer is retried with backoff
(spec §7); after the last try the run stops with one line naming the endpoint.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from proceedings.core.errors import ProceedingsError
from proceedings.verified_codegen.local_agent import ModelAgent

BASE_URL_ENV, MODEL_ENV = "VCG_OPENAI_BASE_URL", "VCG_OPENAI_MODEL"


@dataclass
class OpenAIAgent(ModelAgent):
    base_url: str = ""  # e.g. http://localhost:8000/v1; default $VCG_OPENAI_BASE_URL
    model: str = ""  # the endpoint's model id; default $VCG_OPENAI_MODEL
    api_key_env: str = "OPENAI_API_KEY"
    name: str = "openai"
    tries: int = 3
    backoff_s: float = 2.0  # waits backoff_s, 2 x backoff_s, ... between tries
    timeout_s: float = 300.0

    def __post_init__(self):
        self.base_url = (self.base_url or os.environ.get(BASE_URL_ENV, "")).rstrip("/")
        self.model = self.model or os.environ.get(MODEL_ENV, "")
        if not (self.base_url and self.model):
            raise ProceedingsError(f"the openai agent needs an endpoint and a model: set {BASE_URL_ENV} "
                                   f"(e.g. http://localhost:8000/v1) and {MODEL_ENV}")

    def complete(self, prompt: str) -> tuple[str, int, int]:
        body = json.dumps({"model": self.model, "messages": [{"role": "user", "content": prompt}],
                           "temperature": 0, "max_tokens": self.max_new_tokens}).encode()
        headers = {"Content-Type": "application/json"}
        if os.environ.get(self.api_key_env):
            headers["Authorization"] = f"Bearer {os.environ[self.api_key_env]}"
        url = f"{self.base_url}/chat/completions"
        for attempt in range(self.tries):
            try:
                request = urllib.request.Request(url, data=body, headers=headers, method="POST")
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    reply = json.load(response)
                usage = reply.get("usage") or {}
                return (reply["choices"][0]["message"]["content"] or "", int(usage.get("prompt_tokens", 0)),
                        int(usage.get("completion_tokens", 0)))
            except (urllib.error.URLError, TimeoutError, ConnectionError, json.JSONDecodeError, KeyError,
                    IndexError) as error:
                failure = error
                if attempt + 1 < self.tries:
                    time.sleep(self.backoff_s * 2 ** attempt)
        raise ProceedingsError(f"the endpoint {url} did not answer after {self.tries} tries: {failure}")
