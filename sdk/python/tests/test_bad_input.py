"""Bad input, each a typed error with the server's message: no server at the URL, a TLS
certificate the client does not trust, a wrong API key, a 429 storm, forged webhooks."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import time

import pytest

from hark_server import (
    AsyncHarkServer,
    AuthenticationError,
    HarkConnectionError,
    HarkError,
    HarkServer,
    RateLimitError,
    RetryInfo,
    WebhookVerificationError,
    WebhookVerifier,
    verify_webhook,
)

from .conftest import Limited, env, server_error


def test_connection_refused(api_key: str) -> None:
    with socket.socket() as s:  # a port that was free a moment ago and has no listener now
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with HarkServer(f"http://127.0.0.1:{port}", api_key) as hark, pytest.raises(HarkConnectionError) as refused:
        hark.clients.list_page()
    assert refused.value.code == "ECONNREFUSED" and f"127.0.0.1:{port}/api/v1/clients" in str(refused.value)

    async def refused_async() -> HarkConnectionError:
        async with AsyncHarkServer(f"http://127.0.0.1:{port}", api_key) as hark:
            try:
                await hark.usage.get()
            except HarkConnectionError as e:
                return e
        raise AssertionError("connected")

    assert asyncio.run(refused_async()).code == "ECONNREFUSED"


def test_untrusted_tls_certificate(api_key: str) -> None:
    with HarkServer(env("HARK_TLS_URL"), api_key) as hark, pytest.raises(HarkConnectionError) as failed:
        hark.usage.get()
    assert failed.value.code == "CERTIFICATE_VERIFY_FAILED" and "certificate" in str(failed.value)


def test_wrong_api_key(base_url: str) -> None:
    wrong = "hk_" + "A" * 43
    with HarkServer(base_url, wrong) as hark, pytest.raises(AuthenticationError) as denied:
        hark.usage.get()
    server = server_error(base_url, "/usage", wrong)
    assert isinstance(denied.value, HarkError)
    assert (denied.value.status, denied.value.code, str(denied.value)) == (401, "invalid_api_key", server["message"])


def test_429_storm_without_retries(limited: Limited) -> None:
    outcomes: list[object] = []
    with HarkServer(limited.url, limited.keys[0], max_retries=0) as hark:
        for _ in range(8):
            try:
                outcomes.append(hark.clients.list_page())
            except RateLimitError as e:
                outcomes.append(e)
    errors = [o for o in outcomes if isinstance(o, RateLimitError)]
    assert len(outcomes) - len(errors) == 3 and len(errors) == 5
    for error in errors:
        assert (error.status, error.code, str(error), error.retry_after) == (429, "rate_limited", "rate limit exceeded, retry in 1 s", 1.0)


def test_429_retried_after_retry_after(limited: Limited) -> None:
    retries: list[RetryInfo] = []

    def on_retry(info: RetryInfo) -> None:
        retries.append(info)
        limited.advance(1000)  # the window passes on the engine's clock while the client waits

    with HarkServer(limited.url, limited.keys[1], max_retries=0) as drain:
        for _ in range(3):
            drain.clients.list_page()
    started = time.monotonic()
    with HarkServer(limited.url, limited.keys[1], on_retry=on_retry) as hark:
        assert hark.clients.list_page()["clients"] == []
    assert time.monotonic() - started >= 1.0
    assert [(r.attempt, r.status, r.delay, r.retry_after) for r in retries] == [(1, 429, 1.0, "1")]

    # The clock stays: each retry is limited again, and after max_retries the 429 is raised.
    with HarkServer(limited.url, limited.keys[1], max_retries=0) as drain:
        for _ in range(2):
            drain.clients.list_page()
    retries.clear()
    with HarkServer(limited.url, limited.keys[1], max_retries=1, on_retry=retries.append) as stuck:
        with pytest.raises(RateLimitError):
            stuck.clients.list_page()
    assert [r.attempt for r in retries] == [1]

    # A Retry-After beyond max_retry_delay is raised at once, not waited for.
    retries.clear()
    with HarkServer(limited.url, limited.keys[1], max_retry_delay=0.5, on_retry=retries.append) as hasty:
        with pytest.raises(RateLimitError) as hurried:
            hasty.clients.list_page()
    assert hurried.value.retry_after == 1.0 and retries == []


def test_forged_and_malformed_webhooks() -> None:
    secret = "whsec_" + "YS1zZWNyZXQtb2YtMzItYnl0ZXMtZm9yLXRlc3RzISE="
    verifier = WebhookVerifier(secret)
    body = json.dumps({"id": "evt_1", "type": "webhook.test", "timestamp": "2030-01-01T00:00:00.000Z", "workspaceId": "ws_1", "resource": "webhook:wh_1", "sequence": 1, "data": {"webhookId": "wh_1", "message": "hi"}})

    def signed(at: int, payload: str = body) -> dict[str, str]:
        return {"webhook-id": "evt_1", "webhook-timestamp": str(at), "webhook-signature": verifier.sign("evt_1", at, payload)}

    now = int(time.time())
    good = signed(now)
    assert verify_webhook(secret, body, good)["type"] == "webhook.test"
    assert verify_webhook(secret, body.encode(), {k.upper(): v for k, v in good.items()})["id"] == "evt_1"
    # Two signatures during a rotation: either one verifies.
    assert verify_webhook(secret, body, {**good, "webhook-signature": "v1,AAAA " + good["webhook-signature"]})["id"] == "evt_1"

    def failure(secret_: str, body_: str, headers: dict[str, str]) -> str:
        with pytest.raises(WebhookVerificationError) as e:
            verify_webhook(secret_, body_, headers)
        return str(e.value)

    assert failure(secret, body.replace("hi", "ho"), good) == "No matching signature found"
    assert failure(secret, body, {**good, "webhook-signature": "v1,AAAA"}) == "No matching signature found"
    assert failure(secret, body, {**good, "webhook-signature": good["webhook-signature"].replace("v1,", "v2,")}) == "No matching signature found"
    assert failure("whsec_" + "YW5vdGhlci1zZWNyZXQtZW50aXJlbHktMzItYnl0ZXM=", body, good) == "No matching signature found"
    assert failure(secret, body, {"webhook-id": "evt_1", "webhook-timestamp": str(now)}) == "Missing required headers"
    assert failure(secret, body, signed(now - 600)) == "Message timestamp too old"
    assert failure(secret, body, signed(now + 600)) == "Message timestamp too new"
    assert failure(secret, body, {**good, "webhook-timestamp": "yesterday"}) == "Invalid Signature Headers"
    assert failure(secret, "not json", signed(now, "not json")).startswith("webhook body is not JSON")
    assert failure(secret, '{"id":1}', signed(now, '{"id":1}')) == "webhook body is not a Hark event (no type)"
    assert re.match(r"unusable webhook secret", failure("whsec_***", body, good))
