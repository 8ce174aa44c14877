"""A fake OpenAI-compatible completions server on localhost, for lm-eval's API backends.

It answers `POST /v1/completions` (token-id prompts, as lm-eval sends them with tokenized
requests, or text) with a fixed completion, or with echoed log-probabilities for scoring
requests, and records every prompt it received; anything else is 404 (so lm-eval falls back
to a local tokenizer). It serves only 127.0.0.1 and stops when the `with` block ends.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMPLETION = " 6093237777"


class FakeOpenAI:
    def __init__(self) -> None:
        self.prompts: list = []  # every prompt received: a list of token ids, or a string
        received = self.prompts

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                self.send_error(404)

            def do_POST(self) -> None:
                if not self.path.startswith("/v1/completions"):
                    self.send_error(404)
                    return
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompts = body["prompt"]
                if isinstance(prompts, str) or (prompts and isinstance(prompts[0], int)):
                    prompts = [prompts]
                received.extend(prompts)
                choices = []
                for index, prompt in enumerate(prompts):
                    if body.get("echo"):
                        count = len(prompt) + 1
                        logprobs = {"token_logprobs": [-1.0] * count, "top_logprobs": [{"x": -1.0}] * count}
                        choices.append({"index": index, "text": "", "logprobs": logprobs})
                    else:
                        choices.append({"index": index, "text": COMPLETION, "finish_reason": "stop"})
                payload = json.dumps({"choices": choices}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/v1/completions"

    def __enter__(self) -> FakeOpenAI:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
