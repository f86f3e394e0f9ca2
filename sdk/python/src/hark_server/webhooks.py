"""Verifying what Hark POSTs to a webhook endpoint (spec/webhooks.md), by the Standard Webhooks
rules: HMAC-SHA256 over "{webhook-id}.{webhook-timestamp}.{body}" keyed with the base64 part of the
``whsec_`` secret, ``v1,<base64>`` signatures space-separated, the timestamp within 5 minutes.
Written on the standard library (hmac, hashlib, base64): the ``standardwebhooks`` package is on
neither Debian nor the npm registry this project installs from; its error messages are kept."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import Mapping, cast

from .errors import WebhookVerificationError
from .models import WebhookEvent

TOLERANCE_SECONDS = 5 * 60
PREFIX = "whsec_"


class WebhookVerifier:
    """Checks webhook requests signed with one endpoint's secret (``whsec_…``)."""

    def __init__(self, secret: str) -> None:
        raw = secret[len(PREFIX):] if secret.startswith(PREFIX) else secret
        try:
            self._key = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError) as e:
            raise WebhookVerificationError(f"unusable webhook secret: {e}") from None
        if not self._key:
            raise WebhookVerificationError("unusable webhook secret: it is empty")

    def sign(self, msg_id: str, timestamp: int, body: bytes | str) -> str:
        """The ``v1,…`` signature of a message (for tests and tools)."""
        payload = body.encode() if isinstance(body, str) else body
        digest = hmac.new(self._key, f"{msg_id}.{timestamp}.".encode() + payload, hashlib.sha256).digest()
        return "v1," + base64.b64encode(digest).decode()

    def verify(self, body: bytes | str, headers: Mapping[str, str], *, now: float | None = None) -> WebhookEvent:
        """The event, once its signature and timestamp verify. ``body`` is the raw request body as received."""
        lower = {k.lower(): v for k, v in headers.items()}
        msg_id, stamp, signatures = lower.get("webhook-id"), lower.get("webhook-timestamp"), lower.get("webhook-signature")
        if not msg_id or not stamp or not signatures:
            raise WebhookVerificationError("Missing required headers")
        try:
            timestamp = int(stamp)
        except ValueError:
            raise WebhookVerificationError("Invalid Signature Headers") from None
        current = time.time() if now is None else now
        if timestamp < current - TOLERANCE_SECONDS:
            raise WebhookVerificationError("Message timestamp too old")
        if timestamp > current + TOLERANCE_SECONDS:
            raise WebhookVerificationError("Message timestamp too new")
        expected = self.sign(msg_id, timestamp, body).encode()
        if not any(hmac.compare_digest(s.encode(), expected) for s in signatures.split(" ") if s.startswith("v1,")):
            raise WebhookVerificationError("No matching signature found")
        try:
            event = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise WebhookVerificationError(f"webhook body is not JSON: {e}") from None
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise WebhookVerificationError("webhook body is not a Hark event (no type)")
        return cast(WebhookEvent, event)


def verify_webhook(secret: str, body: bytes | str, headers: Mapping[str, str]) -> WebhookEvent:
    """One-off form of ``WebhookVerifier(secret).verify(body, headers)``."""
    return WebhookVerifier(secret).verify(body, headers)
