"""README's operator flow through the installed package against a real engine: clients, tokens,
ephemeral clients, agents, usage and webhooks, every event delivered to a real receiver and
verified with this package."""

from __future__ import annotations

import re

import pytest

from hark_server import BadRequestError, ConflictError, HarkServer, NotFoundError, verify_webhook

from .conftest import Receiver, server_error


def test_operator_flow(hark: HarkServer, receiver: Receiver, base_url: str, api_key: str) -> None:
    endpoint = hark.webhooks.create({"url": receiver.url, "description": "python sdk"})
    assert endpoint["secret"].startswith("whsec_") and endpoint["events"] is None and endpoint["enabled"] is True
    receiver.secret = endpoint["secret"]

    created = hark.clients.create({"clientId": "py-1", "name": "Kitchen", "kind": "device", "room": "lobby"})
    assert created["clientId"] == "py-1" and created["status"] == "offline" and created["connection"] is None
    event, _, _ = receiver.event("client.created", lambda e: e["data"]["clientId"] == "py-1")
    assert event["data"] == {"clientId": "py-1", "name": "Kitchen", "kind": "device", "room": "lobby", "ephemeral": False}
    with pytest.raises(ConflictError) as conflict:
        hark.clients.create({"clientId": "py-1"})
    assert (conflict.value.status, conflict.value.code) == (409, "client_exists")

    # Paged lists walk every page: 5 more clients at 2 a page, in clientId order.
    for client_id in ["py-2", "py-3", "py-4", "py-5", "py-6"]:
        hark.clients.create({"clientId": client_id, "kind": "device"})
    first = hark.clients.list_page({"kind": "device", "limit": 2})
    assert [c["clientId"] for c in first["clients"]] == ["py-1", "py-2"] and isinstance(first["nextCursor"], str)
    assert [c["clientId"] for c in hark.clients.list({"kind": "device", "limit": 2})] == ["py-1", "py-2", "py-3", "py-4", "py-5", "py-6"]

    issued = hark.tokens.issue("py-1", {"ttlSeconds": 3600})
    assert issued["clientId"] == "py-1" and re.fullmatch(r"[0-9A-Z]{26}", issued["jti"]) and issued["expiresAt"]
    assert hark.tokens.issue("py-1")["expiresAt"] is None

    updated = hark.clients.update("py-1", {"room": "office", "name": None})
    assert updated["room"] == "office" and updated["name"] is None
    event, _, _ = receiver.event("client.updated", lambda e: e["data"]["clientId"] == "py-1")
    assert event["data"]["room"] == "office"

    eph = hark.clients.create_ephemeral({"room": "office", "kind": "web", "ttlSeconds": 600})
    assert re.fullmatch(r"eph_[0-9A-Za-z]{20}", eph["clientId"]) and eph["room"] == "office" and eph["token"]
    detail = hark.clients.get(eph["clientId"])
    assert detail["ephemeral"] is True and detail["expiresAt"] == eph["expiresAt"]

    assert "echo" in [p["name"] for p in hark.agents.providers()["providers"]]
    agent = hark.agents.dispatch({"room": "office"})
    assert (agent["provider"], agent["room"], agent["state"]) == ("echo", "office", "running")
    started, _, _ = receiver.event("agent.started", lambda e: e["data"]["agentId"] == agent["agentId"])
    assert started["data"]["provider"] == "echo"
    assert [a["agentId"] for a in hark.agents.list({"room": "office"})["agents"]] == [agent["agentId"]]
    assert hark.agents.get(agent["agentId"])["state"] == "running"
    stopped = hark.agents.stop(agent["agentId"])
    assert stopped["agentId"] == agent["agentId"] and stopped["stopped"] is True
    receiver.event("agent.stopped", lambda e: e["data"]["agentId"] == agent["agentId"])
    # Its conversation is on record (nobody talked: no turns), found by room, and erased.
    page = hark.agents.transcript_page(agent["agentId"])
    assert (page["agentId"], page["turns"], page["items"], page["nextCursor"]) == (agent["agentId"], 0, [], None)
    assert list(hark.agents.transcript(agent["agentId"])) == []
    assert [t["agentId"] for t in hark.transcripts.list({"room": "office"})] == [agent["agentId"]]
    assert hark.agents.delete_transcript(agent["agentId"]) == {"agentId": agent["agentId"], "deleted": True}
    assert [r["room"] for r in hark.rooms.list()] == []

    usage = hark.usage.get()
    assert usage["totals"]["sessions"] == sum(r["sessions"] for r in usage["records"]) == 0
    assert all(set(r) == {"date", "minutes", "sessions"} for r in usage["records"])

    revoked = hark.tokens.revoke(issued["jti"])
    assert revoked == {"jti": issued["jti"], "clientId": "py-1", "revoked": True}
    event, _, _ = receiver.event("token.revoked")
    assert event["data"] == {"clientId": "py-1", "jti": issued["jti"], "all": False}
    assert hark.tokens.revoke_all("py-1")["clientId"] == "py-1"

    assert hark.clients.delete("py-6") == {"clientId": "py-6", "deleted": True}
    event, _, _ = receiver.event("client.deleted")
    assert event["data"] == {"clientId": "py-6"}
    with pytest.raises(NotFoundError) as missing:
        hark.clients.get("py-6")
    server = server_error(base_url, "/clients/py-6", api_key)
    assert (missing.value.status, missing.value.code, str(missing.value)) == (404, server["code"], server["message"])

    sent = hark.webhooks.test(endpoint["webhookId"])
    event, _, _ = receiver.event("webhook.test")
    assert event["id"] == sent["eventId"]
    deliveries = list(hark.webhooks.deliveries(endpoint["webhookId"], {"limit": 3}))
    assert sent["deliveryId"] in [d["deliveryId"] for d in deliveries] and len(deliveries) >= len(receiver.seen)
    rotated = hark.webhooks.rotate_secret(endpoint["webhookId"])
    assert rotated["secret"] != endpoint["secret"]
    receiver.secret = rotated["secret"]
    hark.webhooks.test(endpoint["webhookId"])
    event, raw, headers = receiver.event("webhook.test", lambda e: e["id"] != sent["eventId"])
    # During the grace period both secrets sign: the old one verifies the same request.
    assert verify_webhook(endpoint["secret"], raw, headers)["id"] == event["id"]
    assert [w["webhookId"] for w in hark.webhooks.list()["webhooks"]] == [endpoint["webhookId"]]
    assert hark.webhooks.update(endpoint["webhookId"], {"enabled": False})["enabled"] is False
    assert hark.webhooks.get(endpoint["webhookId"])["disabledReason"]
    assert hark.webhooks.delete(endpoint["webhookId"]) == {"webhookId": endpoint["webhookId"], "deleted": True}
    assert receiver.refused == []


def test_presets_rooms_and_validation(hark: HarkServer) -> None:
    preset = hark.agent_presets.create({"presetId": "py-concierge", "provider": "echo", "name": "Concierge"})
    assert (preset["presetId"], preset["provider"]) == ("py-concierge", "echo")
    assert hark.agent_presets.update("py-concierge", {"name": "Front desk"})["name"] == "Front desk"
    assert "py-concierge" in [p["presetId"] for p in hark.agent_presets.list({"limit": 1})]
    room = hark.rooms.put("py-hall", {"defaultAgent": {"presetId": "py-concierge"}})
    assert room["room"] == "py-hall" and room["participants"] == []
    assert room["defaultAgent"] is not None and room["defaultAgent"]["presetId"] == "py-concierge"
    stored = hark.rooms.get("py-hall")["defaultAgent"]
    assert stored is not None and stored["presetId"] == "py-concierge"
    assert hark.agent_presets.get("py-concierge")["name"] == "Front desk"
    assert hark.agent_presets.delete("py-concierge")["deleted"] is True

    with pytest.raises(BadRequestError) as bad:
        hark.clients.create({"clientId": "eph_nope"})
    assert bad.value.status == 400 and bad.value.code == "validation_failed" and "clientId" in str(bad.value)
    with pytest.raises(NotFoundError) as gone:
        hark.agents.get("ag_0000000000000000")
    assert gone.value.code == "not_found"
