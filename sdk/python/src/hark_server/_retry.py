"""When to send a request again: a 429 or a 503 means the call had no effect (spec/rest.md), so any
method may be retried, after the server's Retry-After or a jittered backoff, within a bound."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

import httpx

from .errors import parse_retry_after

RETRIED = (429, 503)


@dataclass(frozen=True)
class RetryInfo:
    attempt: int
    """1 for the first retry."""
    status: int
    delay: float
    """Seconds the client waits before the retry."""
    retry_after: str | None
    """The server's Retry-After, when it sent one."""


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 2
    """Retries of a 429 or 503 answer before it is raised (0 turns retries off)."""
    max_delay: float = 60.0
    """The longest wait in seconds; a longer Retry-After is raised at once."""
    on_retry: Callable[[RetryInfo], None] | None = None

    def next(self, response: httpx.Response, attempt: int) -> RetryInfo | None:
        """The retry to make after ``response`` (attempt 1 = the first try), or None to return it."""
        if response.status_code not in RETRIED or attempt > self.max_retries:
            return None
        header = response.headers.get("retry-after")
        delay = parse_retry_after(header)
        if delay is None:
            delay = min(8.0, 0.5 * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)
        if delay > self.max_delay:
            return None
        info = RetryInfo(attempt=attempt, status=response.status_code, delay=delay, retry_after=header)
        if self.on_retry is not None:
            self.on_retry(info)
        return info


def base_url(url: str) -> str:
    """The API root for a REST port URL (a trailing /api/v1 is accepted)."""
    url = url.rstrip("/")
    if url.endswith("/api/v1"):
        url = url[: -len("/api/v1")]
    return url + "/api/v1"


def clean_query(query: object | None) -> dict[str, str] | None:
    if not query:
        return None
    return {k: str(v) for k, v in dict(query).items() if v is not None}  # type: ignore[call-overload]
