"""What the tests get from python.test.ts, which starts the engines: their URLs and API keys, a way
to move the rate-limited engine's clock, and a webhook receiver on 127.0.0.1 that verifies every
request with this package's verifier."""

from __future__ import annotations

import os
import queue
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator

import httpx
import pytest

from hark_server import HarkServer, WebhookVerificationError, verify_webhook


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run these tests through python.test.ts (npm test)")
    return value


@pytest.fixture(scope="session")
def base_url() -> str:
    return env("HARK_URL")


@pytest.fixture(scope="session")
def api_key() -> str:
    return env("HARK_API_KEY")


@pytest.fixture()
def hark(base_url: str, api_key: str) -> Iterator[HarkServer]:
    with HarkServer(base_url, api_key) as client:
        yield client


def server_error(url: str, path: str, key: str) -> dict[str, str]:
    """The error envelope the server itself answers, read without the SDK."""
    return httpx.get(f"{url}/api/v1{path}", headers={"authorization": f"Bearer {key}"}).json()["error"]


class Limited:
    """The engine whose rate limit is 3 calls a second on a clock that only the test moves."""

    def __init__(self) -> None:
        self.url = env("HARK_LIMITED_URL")
        self.keys = env("HARK_LIMITED_KEYS").split(",")
        self._clock = env("HARK_CLOCK_URL")

    def advance(self, ms: int) -> None:
        httpx.post(self._clock, json={"ms": ms}).raise_for_status()


@pytest.fixture(scope="session")
def limited() -> Limited:
    return Limited()


class Receiver:
    """A back end's webhook endpoint: 204 for what verifies with ``secret``, 401 for the rest."""

    def __init__(self) -> None:
        self.secret = ""
        self.events: queue.Queue[tuple[dict[str, Any], bytes, dict[str, str]]] = queue.Queue()
        self.seen: list[tuple[dict[str, Any], bytes, dict[str, str]]] = []
        self.refused: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                raw = self.rfile.read(int(self.headers.get("content-length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                try:
                    event = verify_webhook(receiver.secret, raw, headers)
                except WebhookVerificationError as e:
                    receiver.refused.append(str(e))
                    self.send_response(401)
                    self.end_headers()
                    return
                self.send_response(204)
                self.end_headers()
                receiver.events.put((dict(event), raw, headers))

            def log_message(self, *_: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hark"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def event(self, type_: str, where: Callable[[dict[str, Any]], bool] = lambda e: True, timeout: float = 15.0) -> tuple[dict[str, Any], bytes, dict[str, str]]:
        """The first verified event of ``type_`` matching ``where``, waiting for it to arrive."""
        for item in self.seen:
            if item[0]["type"] == type_ and where(item[0]):
                return item
        while True:
            try:
                item = self.events.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no webhook {type_} within {timeout} s; had {[e[0]['type'] for e in self.seen]}") from None
            self.seen.append(item)
            if item[0]["type"] == type_ and where(item[0]):
                return item

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture()
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()
