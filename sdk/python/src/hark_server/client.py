"""HarkServer: the REST API of one workspace over httpx (synchronous). Each method returns the
answer's data as the typed dict of models.py or raises a HarkError; list methods with pages walk
every page as an iterator, and ``list_page`` fetches one."""

from __future__ import annotations

import ssl
import time
from typing import Any, Callable, Iterator, TypeVar
from urllib.parse import quote

import httpx

from . import models as m
from ._retry import RetryInfo, RetryPolicy, base_url, clean_query
from .errors import api_error, connection_error

T = TypeVar("T")
USER_AGENT = "hark-server-python/0.1.0"


def _p(segment: str) -> str:
    return quote(segment, safe="")


def _walk(fetch: Callable[[str | None], Any], key: str) -> Iterator[Any]:
    cursor: str | None = None
    while True:
        page = fetch(cursor)
        yield from page[key]
        cursor = page["nextCursor"]
        if cursor is None:
            return


def _with_cursor(query: Any, cursor: str | None) -> Any:
    return {**(query or {}), **({"cursor": cursor} if cursor else {})}


class HarkServer:
    """A workspace's REST API: ``HarkServer("http://127.0.0.1:8080", "hk_…")``.

    ``max_retries`` / ``max_retry_delay``: 429 and 503 answers are retried after their Retry-After
    (at most that many times, never waiting longer than that many seconds). ``timeout``: seconds per
    attempt. ``verify``: TLS verification as httpx takes it (a CA bundle path or an SSLContext).
    """

    def __init__(
        self,
        base: str,
        api_key: str,
        *,
        max_retries: int = 2,
        max_retry_delay: float = 60.0,
        timeout: float = 150.0,
        verify: bool | str | ssl.SSLContext = True,
        on_retry: Callable[[RetryInfo], None] | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._retry = RetryPolicy(max_retries, max_retry_delay, on_retry)
        self._http = httpx.Client(
            base_url=base_url(base),
            headers={"authorization": f"Bearer {api_key}", "user-agent": USER_AGENT},
            timeout=timeout,
            verify=verify,
            transport=transport,
        )
        self.clients = Clients(self)
        self.tokens = Tokens(self)
        self.rooms = Rooms(self)
        self.usage = Usage(self)
        self.agents = Agents(self)
        self.transcripts = Transcripts(self)
        self.agent_presets = AgentPresets(self)
        self.webhooks = Webhooks(self)

    def request(self, method: str, path: str, *, query: Any = None, body: Any = None) -> Any:
        """One call under /api/v1, retried as configured: the JSON answer, or a HarkError."""
        attempt = 1
        while True:
            try:
                response = self._http.request(method, path, params=clean_query(query), json=body)
            except httpx.TransportError as e:
                raise connection_error(method, f"{self._http.base_url}{path.lstrip('/')}", e) from e
            retry = self._retry.next(response, attempt)
            if retry is None:
                break
            time.sleep(retry.delay)
            attempt += 1
        if response.is_error:
            raise api_error(response)
        return response.json()

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> HarkServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class _Resource:
    def __init__(self, hark: HarkServer) -> None:
        self._r = hark.request


class Clients(_Resource):
    def list(self, query: m.ListClientsQuery | None = None) -> Iterator[m.Client]:
        """Every client matching the filters, in clientId order (``limit`` is the page size)."""
        return _walk(lambda c: self.list_page(_with_cursor(query, c)), "clients")

    def list_page(self, query: m.ListClientsQuery | None = None) -> m.ListClientsResponse:
        return self._r("GET", "/clients", query=query)

    def create(self, body: m.CreateClientBody) -> m.Client:
        return self._r("POST", "/clients", body=body)

    def get(self, client_id: str) -> m.Client:
        return self._r("GET", f"/clients/{_p(client_id)}")

    def update(self, client_id: str, body: m.UpdateClientBody) -> m.Client:
        return self._r("PATCH", f"/clients/{_p(client_id)}", body=body)

    def delete(self, client_id: str) -> m.DeleteClientResponse:
        return self._r("DELETE", f"/clients/{_p(client_id)}")

    def create_ephemeral(self, body: m.CreateEphemeralClientBody) -> m.CreateEphemeralClientResponse:
        """A client ``eph_…`` in ``room`` and a token for it, both gone at ``expiresAt``."""
        return self._r("POST", "/clients/ephemeral", body=body)


class Tokens(_Resource):
    def issue(self, client_id: str, body: m.IssueClientTokenBody | None = None) -> m.IssueClientTokenResponse:
        """A client token; without ``ttlSeconds`` it never expires (``expiresAt`` None)."""
        return self._r("POST", f"/clients/{_p(client_id)}/token", body=body or {})

    def revoke(self, jti: str) -> m.RevokeTokenResponse:
        return self._r("POST", "/tokens/revoke", body={"jti": jti})

    def revoke_all(self, client_id: str) -> m.RevokeAllClientTokensResponse:
        return self._r("POST", f"/clients/{_p(client_id)}/token/revoke-all")


class Rooms(_Resource):
    def list(self, query: m.ListRoomsQuery | None = None) -> Iterator[m.Room]:
        return _walk(lambda c: self.list_page(_with_cursor(query, c)), "rooms")

    def list_page(self, query: m.ListRoomsQuery | None = None) -> m.ListRoomsResponse:
        return self._r("GET", "/rooms", query=query)

    def get(self, room: str) -> m.Room:
        return self._r("GET", f"/rooms/{_p(room)}")

    def put(self, room: str, body: m.PutRoomBody) -> m.Room:
        return self._r("PUT", f"/rooms/{_p(room)}", body=body)


class Usage(_Resource):
    def get(self, query: m.GetUsageQuery | None = None) -> m.GetUsageResponse:
        return self._r("GET", "/usage", query=query)


class Agents(_Resource):
    def dispatch(self, body: m.DispatchAgentBody) -> m.Agent:
        """Returns once the agent runs in the room."""
        return self._r("POST", "/agents", body=body)

    def list(self, query: m.ListAgentsQuery | None = None) -> m.ListAgentsResponse:
        return self._r("GET", "/agents", query=query)

    def get(self, agent_id: str) -> m.Agent:
        return self._r("GET", f"/agents/{_p(agent_id)}")

    def stop(self, agent_id: str) -> m.StopAgentResponse:
        """Returns once the agent has left its room."""
        return self._r("DELETE", f"/agents/{_p(agent_id)}")

    def providers(self) -> m.ListAgentProvidersResponse:
        return self._r("GET", "/agent-providers")

    def transcript(self, agent_id: str, query: m.GetAgentTranscriptQuery | None = None) -> Iterator[m.TranscriptTurn]:
        """Every turn of the agent's conversation so far, in order (also after it ended)."""
        return _walk(lambda c: self.transcript_page(agent_id, _with_cursor(query, c)), "items")

    def transcript_page(self, agent_id: str, query: m.GetAgentTranscriptQuery | None = None) -> m.GetAgentTranscriptResponse:
        return self._r("GET", f"/agents/{_p(agent_id)}/transcript", query=query)

    def delete_transcript(self, agent_id: str) -> m.DeleteAgentTranscriptResponse:
        """Erases the conversation (every turn); audited."""
        return self._r("DELETE", f"/agents/{_p(agent_id)}/transcript")


class Transcripts(_Resource):
    def list(self, query: m.ListTranscriptsQuery | None = None) -> Iterator[m.Transcript]:
        """Every conversation matching the filters, newest first."""
        return _walk(lambda c: self.list_page(_with_cursor(query, c)), "items")

    def list_page(self, query: m.ListTranscriptsQuery | None = None) -> m.ListTranscriptsResponse:
        return self._r("GET", "/transcripts", query=query)


class AgentPresets(_Resource):
    def list(self, query: m.ListAgentPresetsQuery | None = None) -> Iterator[m.AgentPreset]:
        return _walk(lambda c: self.list_page(_with_cursor(query, c)), "presets")

    def list_page(self, query: m.ListAgentPresetsQuery | None = None) -> m.ListAgentPresetsResponse:
        return self._r("GET", "/agent-presets", query=query)

    def create(self, body: m.CreateAgentPresetBody) -> m.AgentPreset:
        return self._r("POST", "/agent-presets", body=body)

    def get(self, preset_id: str) -> m.AgentPreset:
        return self._r("GET", f"/agent-presets/{_p(preset_id)}")

    def update(self, preset_id: str, body: m.UpdateAgentPresetBody) -> m.AgentPreset:
        return self._r("PATCH", f"/agent-presets/{_p(preset_id)}", body=body)

    def delete(self, preset_id: str) -> m.DeleteAgentPresetResponse:
        return self._r("DELETE", f"/agent-presets/{_p(preset_id)}")


class Webhooks(_Resource):
    def create(self, body: m.CreateWebhookBody) -> m.WebhookEndpointWithSecret:
        """The answer carries the endpoint's ``secret`` (``whsec_…``), shown only here and on rotation."""
        return self._r("POST", "/webhooks", body=body)

    def list(self) -> m.ListWebhooksResponse:
        return self._r("GET", "/webhooks")

    def get(self, webhook_id: str) -> m.WebhookEndpoint:
        return self._r("GET", f"/webhooks/{_p(webhook_id)}")

    def update(self, webhook_id: str, body: m.UpdateWebhookBody) -> m.WebhookEndpoint:
        return self._r("PATCH", f"/webhooks/{_p(webhook_id)}", body=body)

    def delete(self, webhook_id: str) -> m.DeleteWebhookResponse:
        return self._r("DELETE", f"/webhooks/{_p(webhook_id)}")

    def rotate_secret(self, webhook_id: str) -> m.WebhookEndpointWithSecret:
        return self._r("POST", f"/webhooks/{_p(webhook_id)}/rotate-secret")

    def test(self, webhook_id: str) -> m.TestWebhookResponse:
        """Sends a ``webhook.test`` event to this endpoint alone."""
        return self._r("POST", f"/webhooks/{_p(webhook_id)}/test")

    def deliveries(self, webhook_id: str, query: m.ListWebhookDeliveriesQuery | None = None) -> Iterator[m.WebhookDelivery]:
        """Every delivery of the endpoint, newest first."""
        return _walk(lambda c: self.deliveries_page(webhook_id, _with_cursor(query, c)), "deliveries")

    def deliveries_page(self, webhook_id: str, query: m.ListWebhookDeliveriesQuery | None = None) -> m.ListWebhookDeliveriesResponse:
        return self._r("GET", f"/webhooks/{_p(webhook_id)}/deliveries", query=query)

    def redeliver(self, webhook_id: str, delivery_id: str) -> m.WebhookDelivery:
        return self._r("POST", f"/webhooks/{_p(webhook_id)}/deliveries/{_p(delivery_id)}/redeliver")
