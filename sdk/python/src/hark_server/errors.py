"""What the SDK raises: the server's error envelope {"error": {"message", "code"}} as one class per
family of HTTP status, a connection that never got an answer, and a forged or stale webhook. Every
class derives from HarkError."""

from __future__ import annotations

import email.utils
import json
import ssl
import time
from typing import Any

import httpx


class HarkError(Exception):
    """Every error of this SDK."""


class HarkAPIError(HarkError):
    """The server answered with an error status; ``message`` and ``code`` are the envelope's."""

    def __init__(self, message: str, *, status: int, code: str, headers: httpx.Headers) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.headers = headers


class BadRequestError(HarkAPIError):
    """400, 413, 415, 431: validation_failed, malformed_json, limit_exceeded …"""


class AuthenticationError(HarkAPIError):
    """401 invalid_api_key: the key is missing, malformed, unknown or revoked."""


class NotFoundError(HarkAPIError):
    """404 client_not_found or not_found."""


class ConflictError(HarkAPIError):
    """409 client_exists or conflict."""


class RateLimitError(HarkAPIError):
    """429 rate_limited, after the retries the client allows."""

    @property
    def retry_after(self) -> float | None:
        """The server's Retry-After in seconds, when it sent one."""
        return parse_retry_after(self.headers.get("retry-after"))


class ServerError(HarkAPIError):
    """5xx: internal, agent_start_failed, server_shutting_down, storage_unavailable, cluster_unavailable."""


class HarkConnectionError(HarkError):
    """No answer at all: refused connection, unknown host, TLS failure, timeout. ``code`` names which."""

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class WebhookVerificationError(HarkError):
    """A webhook request whose signature, headers or timestamp do not verify, or whose body is not an event."""


def parse_retry_after(value: str | None) -> float | None:
    """Retry-After as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    if value.strip().isdigit():
        return float(value.strip())
    try:
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _class_for(status: int) -> type[HarkAPIError]:
    if status == 401:
        return AuthenticationError
    if status == 404:
        return NotFoundError
    if status == 409:
        return ConflictError
    if status == 429:
        return RateLimitError
    if status >= 500:
        return ServerError
    if status in (400, 413, 415, 431):
        return BadRequestError
    return HarkAPIError


def api_error(response: httpx.Response) -> HarkAPIError:
    """The typed error of a failed response."""
    cls = _class_for(response.status_code)
    try:
        body: Any = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str) and isinstance(error.get("code"), str):
        return cls(error["message"], status=response.status_code, code=error["code"], headers=response.headers)
    # Not Hark's envelope (a proxy in front, say): keep what it said, cut short.
    text = response.text[:200]
    message = f"HTTP {response.status_code}" + (f": {text}" if text else "")
    return cls(message, status=response.status_code, code="http_error", headers=response.headers)


def _chain(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def connection_error(method: str, url: str, error: httpx.TransportError) -> HarkConnectionError:
    """An httpx transport failure as a HarkConnectionError naming the URL and the system's reason."""
    causes = _chain(error)
    code = "ECONNECTION"
    if isinstance(error, httpx.TimeoutException):
        code = "ETIMEDOUT"
    elif any(isinstance(c, ssl.SSLCertVerificationError) for c in causes) or "CERTIFICATE_VERIFY_FAILED" in str(error):
        code = "CERTIFICATE_VERIFY_FAILED"
    elif any(isinstance(c, ssl.SSLError) for c in causes):
        code = "TLS_ERROR"
    elif any(isinstance(c, ConnectionRefusedError) for c in causes) or "Connection refused" in str(error):
        code = "ECONNREFUSED"
    return HarkConnectionError(f"cannot reach {method} {url}: {error}", code=code)
