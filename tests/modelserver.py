"""A tiny OpenAI-compatible chat server on 127.0.0.1 for tests: scripted replies, delays, errors.

Drive the real litellm client at it with ``model="openai/<name>"`` and
``api_base=server.url``. Each request takes the next scripted :class:`Step`;
when the script runs out the last step repeats. Requests are kept for assertions.
A scripted ``"$USER"`` is answered as the id of the first line the user typed in the
request's bundle (``{u3}``), ``"$TOOL"`` as the first tool output's (``{t7 ...}``) and
``"$TOOL:WebFetch"`` as that tool's: the answer of a model that cites its sources.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

USER_LINE = re.compile(r"\{(u\d+)")  # a user-typed line's source id in the bundle
TOOL_LINE = re.compile(r"\{(t\d+)")  # a tool output's
NAMED_TOOL = re.compile(r'"\$TOOL:(\w+)"')  # a named tool's output: "$TOOL:WebFetch"


def cite(content: str, sent: str) -> str:
    """The scripted answer with its placeholders replaced by the source ids the request's bundle gave."""
    for placeholder, line in (('"$USER"', USER_LINE), ('"$TOOL"', TOOL_LINE)):
        found = line.search(sent)
        content = content.replace(placeholder, json.dumps(found.group(1) if found else "u0"))
    for name in set(NAMED_TOOL.findall(content)):
        found = re.search(r"\{(t\d+) `" + re.escape(name) + "`", sent)
        content = content.replace(f'"$TOOL:{name}"', json.dumps(found.group(1) if found else "u0"))
    return content


@dataclass(frozen=True)
class Step:
    content: str = ""
    status: int = 200
    delay_s: float = 0.0
    raw: bytes | None = None  # a body sent as is (e.g. not JSON at all)


def reply(content: str | dict, delay_s: float = 0.0) -> Step:
    text = content if isinstance(content, str) else json.dumps(content)
    return Step(content=text, delay_s=delay_s)


def error(status: int, delay_s: float = 0.0) -> Step:
    return Step(status=status, delay_s=delay_s)


class ModelServer:
    def __init__(self, steps: list[Step] | None = None) -> None:
        self.steps: list[Step] = list(steps or [])
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._served = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                step = server._next(body)
                if step.delay_s:
                    time.sleep(step.delay_s)
                if step.status != 200:
                    payload = json.dumps({"error": {"message": f"scripted {step.status}", "type": "server_error"}}).encode()
                elif step.raw is not None:
                    payload = step.raw
                else:
                    content = cite(step.content, body.decode("utf-8", "replace"))
                    payload = json.dumps(
                        {
                            "id": "chatcmpl-test",
                            "object": "chat.completion",
                            "created": 1,
                            "model": "test",
                            "choices": [
                                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
                            ],
                            "usage": {"prompt_tokens": 1200, "completion_tokens": 80, "total_tokens": 1280},
                        }
                    ).encode()
                try:
                    self.send_response(step.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def _next(self, body: bytes) -> Step:
        with self._lock:
            try:
                self.requests.append(json.loads(body))
            except ValueError:
                self.requests.append({"raw": body.decode("utf-8", "replace")})
            if not self.steps:
                return reply('{"summary": "nothing", "operations": []}')
            step = self.steps[min(self._served, len(self.steps) - 1)]
            self._served += 1
            return step

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> ModelServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
