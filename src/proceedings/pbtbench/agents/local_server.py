"""`serve-local`: an OpenAI-compatible chat endpoint for a local Hugging Face model, on loopback.

Wraps `transformers` generation in a stdlib HTTP server (`/v1/models`, `/v1/chat/completions`),
so the benchmark's real HTTP client path runs fully offline with SmolLM2-135M-Instruct (spec 4:
the honest floor, expected recall ~0) or any model `load_causal_lm` accepts. One request is
generated at a time; binding to anything but a loopback address is refused.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from proceedings.core.errors import ProceedingsError

log = logging.getLogger(__name__)


class ChatModel:
    """A causal LM + tokenizer answering chat messages with its chat template."""

    def __init__(self, model, tokenizer, name: str):
        self.model, self.tokenizer, self.name = model, tokenizer, name
        self.lock = threading.Lock()

    def complete(self, messages: list[dict[str, str]], max_tokens: int, temperature: float,
                 seed: int | None) -> tuple[str, int, int]:
        """(text, prompt tokens, completion tokens)."""
        import torch

        prompt = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt",
                                                    return_dict=True)
        input_ids = prompt["input_ids"].to(self.model.device)
        options: dict[str, Any] = {"max_new_tokens": max_tokens, "pad_token_id": self.tokenizer.pad_token_id}
        if temperature > 0:
            options.update(do_sample=True, temperature=temperature, top_p=0.95)
        else:
            options.update(do_sample=False)
        with self.lock, torch.no_grad():
            if seed is not None:
                torch.manual_seed(seed)
            output = self.model.generate(input_ids, attention_mask=torch.ones_like(input_ids), **options)
        new = output[0, input_ids.shape[1]:]
        return self.tokenizer.decode(new, skip_special_tokens=True), int(input_ids.shape[1]), int(new.shape[0])


def _handler(chat: ChatModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt: str, *args: Any) -> None:
            log.debug("serve-local: " + fmt, *args)

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/v1/models":
                self._send(200, {"object": "list", "data": [{"id": chat.name, "object": "model", "owned_by": "local"}]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                messages = request["messages"]
            except (ValueError, KeyError) as err:
                self._send(400, {"error": {"message": f"bad request: {err}"}})
                return
            text, prompt_tokens, completion_tokens = chat.complete(
                messages, int(request.get("max_tokens") or request.get("max_completion_tokens") or 512),
                float(request.get("temperature") or 0.0), request.get("seed"))
            self._send(200, {
                "id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion", "created": int(time.time()),
                "model": chat.name,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                          "total_tokens": prompt_tokens + completion_tokens}})

    return Handler


def make_server(chat: ChatModel, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A server bound to a loopback address (port 0: any free port; read `server.server_port`)."""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        raise ProceedingsError(f"serve-local binds only to loopback addresses (127.0.0.1, ::1), not '{host}'")
    return ThreadingHTTPServer((host, port), _handler(chat))


def serve_in_thread(chat: ChatModel, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """Start serving in a daemon thread; call `server.shutdown()` to stop."""
    server = make_server(chat, host, port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
