"""AsyncHarkServer: the REST API of one workspace over httpx for asyncio, client.py's twin. Each
method returns the answer's data as the typed dict of models.py or raises a HarkError; list methods
with pages walk every page as an async iterator (``async for``), and ``list_page`` fetches one."""

from __future__ import annotations

import asyncio
import ssl
from typing import Any, AsyncIterator, Awaitable, Callable

import httpx

from . import models as m
from ._retry import RetryInfo, RetryPolicy, base_url, clean_query
from .client import USER_AGENT, _p, _with_cursor
from .errors import api_error, connection_error


async def _walk(fetch: Callable[[str | None], Awaitable[Any]], key: str) -> AsyncIterator[Any]:
    cursor: str | None = None
    while True:
        page = await fetch(cursor)
        for item in page[key]:
            yield item
        cursor = page["nextCursor"]
        if cursor is None:
            return


class AsyncHarkServer:
    """A workspace's REST API: ``AsyncHarkServer("http://127.0.0.1:8080", "hk_…")``.

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
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._retry = RetryPolicy(max_retries, max_retry_delay, on_retry)
        self._http = httpx.AsyncClient(
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

    async def request(self, method: str, path: str, *, query: Any = None, body: Any = None) -> Any:
        """One call under /api/v1, retried as configured: the JSON answer, or a HarkError."""
        attempt = 1
        while True:
            try:
                response = await self._http.request(method, path, params=clean_query(query), json=body)
            except httpx.TransportError as e:
                raise connection_error(method, f"{self._http.base_url}{path.lstrip('/')}", e) from e
            retry = self._retry.next(response, attempt)
            if retry is None:
                break
            await asyncio.sleep(retry.delay)
            attempt += 1
        if response.is_error:
            raise api_error(response)
        return response.json()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncHarkServer:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()


class _Resource:
    def __init__(self, hark: AsyncHarkServer) -> None:
        self._r = hark.request


class Clients(_Resource):
    def list(self, query: m.ListClientsQuery | None = None) -> AsyncIterator[m.Client]:
        """Every client matching the filters, in clientId order (``limit`` is the page size)."""
        return _walk(lambda c: self.list_page(_with_cursor(query, c)), "clients")

    async def list_page(self, query: m.ListClientsQuery | None = None) -> m.ListClientsResponse:
        return await self._r("GET", "/clients", query=query)

    async def create(self, body: m.CreateClientBody) -> m.Client:
        return await self._r("POST", "/clients", body=body)

    async def get(self, client_id: str) -> m.Client:
        return await self._r("GET", f"/clients/{_p(client_id)}")

    async def update(self, client_id: str, body: m.UpdateClientBody) -> m.Client:
        return await self._r("PATCH", f"/clients/{_p(client_id)}", body=body)

    async def delete(self, client_id: str) -> m.DeleteClientResponse:
        return await self._r("DELETE", f"/clients/{_p(client_id)}")

    async def create_ephemeral(self, body: m.CreateEphemeralClientBody) -> m.CreateEphemeralClientResponse:
        """A client ``eph_…`` in ``room`` and a token for it, both gone at ``expiresAt``."""
        return await self._r("POST", "/clients/ephemeral", body=body)


class Tokens(_Resource):
    async def issue(self, client_id: str, body: m.IssueClientTokenBody | None = None) -> m.IssueClientTokenResponse:
        """A client token; without ``ttlSeconds`` it never expires (``expiresAt`` None)."""
        return await self._r("POST", f"/clients/{_p(client_id)}/token", body=body or {})

    async def revoke(self, jti: str) -> m.RevokeTokenResponse:
        return await self._r("POST", "/tokens/revoke", body={"jti": jti})

    async def revoke_all(self, client_id: str) -> m.RevokeAllClientTokensResponse:
        return await self._r("POST", f"/clients/{_p(client_id)}/token/revoke-all")


class Rooms(_Resource):
    def list(self, query: m.ListRoomsQuery | None = None) -> AsyncIterator[m.Room]:
        return _walk(lambda c: self.list_page(_with_cursor(query, c)), "rooms")

    async def list_page(self, query: m.ListRoomsQuery | None = None) -> m.ListRoomsResponse:
        return await self._r("GET", "/rooms", query=query)

    async def get(self, room: str) -> m.Room:
        return await self._r("GET", f"/rooms/{_p(room)}")

    async def put(self, room: str, body: m.PutRoomBody) -> m.Room:
        return await self._r("PUT", f"/rooms/{_p(room)}", body=body)


class Usage(_Resource):
    async def get(self, query: m.GetUsageQuery | None = None) -> m.GetUsageResponse:
        return await self._r("GET", "/usage", query=query)


class Agents(_Resource):
    async def dispatch(self, body: m.DispatchAgentBody) -> m.Agent:
        """Returns once the agent runs in the room."""
        return await self._r("POST", "/agents", body=body)

    async def list(self, query: m.ListAgentsQuery | None = None) -> m.ListAgentsResponse:
        return await self._r("GET", "/agents", query=query)

    async def get(self, agent_id: str) -> m.Agent:
        return await self._r("GET", f"/agents/{_p(agent_id)}")

    async def stop(self, agent_id: str) -> m.StopAgentResponse:
        """Returns once the agent has left its room."""
        return await self._r("DELETE", f"/agents/{_p(agent_id)}")

    async def providers(self) -> m.ListAgentProvidersResponse:
        return await self._r("GET", "/agent-providers")

    def transcript(self, agent_id: str, query: m.GetAgentTranscriptQuery | None = None) -> AsyncIterator[m.TranscriptTurn]:
        """Every turn of the agent's conversation so far, in order (also after it ended)."""
        return _walk(lambda c: self.transcript_page(agent_id, _with_cursor(query, c)), "items")

    async def transcript_page(self, agent_id: str, query: m.GetAgentTranscriptQuery | None = None) -> m.GetAgentTranscriptResponse:
        return await self._r("GET", f"/agents/{_p(agent_id)}/transcript", query=query)

    async def delete_transcript(self, agent_id: str) -> m.DeleteAgentTranscriptResponse:
        """Erases the conversation (every turn); audited."""
        return await self._r("DELETE", f"/agents/{_p(agent_id)}/transcript")


class Transcripts(_Resource):
    def list(self, query: m.ListTranscriptsQuery | None = None) -> AsyncIterator[m.Transcript]:
        """Every conversation matching the filters, newest first."""
        return _walk(lambda c: self.list_page(_with_cursor(query, c)), "items")

    async def list_page(self, query: m.ListTranscriptsQuery | None = None) -> m.ListTranscriptsResponse:
        return await self._r("GET", "/transcripts", query=query)


class AgentPresets(_Resource):
    def list(self, query: m.ListAgentPresetsQuery | None = None) -> AsyncIterator[m.AgentPreset]:
        return _walk(lambda c: self.list_page(_with_cursor(query, c)), "presets")

    async def list_page(self, query: m.ListAgentPresetsQuery | None = None) -> m.ListAgentPresetsResponse:
        return await self._r("GET", "/agent-presets", query=query)

    async def create(self, body: m.CreateAgentPresetBody) -> m.AgentPreset:
        return await self._r("POST", "/agent-presets", body=body)

    async def get(self, preset_id: str) -> m.AgentPreset:
        return await self._r("GET", f"/agent-presets/{_p(preset_id)}")

    async def update(self, preset_id: str, body: m.UpdateAgentPresetBody) -> m.AgentPreset:
        return await self._r("PATCH", f"/agent-presets/{_p(preset_id)}", body=body)

    async def delete(self, preset_id: str) -> m.DeleteAgentPresetResponse:
        return await self._r("DELETE", f"/agent-presets/{_p(preset_id)}")


class Webhooks(_Resource):
    async def create(self, body: m.CreateWebhookBody) -> m.WebhookEndpointWithSecret:
        """The answer carries the endpoint's ``secret`` (``whsec_…``), shown only here and on rotation."""
        return await self._r("POST", "/webhooks", body=body)

    async def list(self) -> m.ListWebhooksResponse:
        return await self._r("GET", "/webhooks")

    async def get(self, webhook_id: str) -> m.WebhookEndpoint:
        return await self._r("GET", f"/webhooks/{_p(webhook_id)}")

    async def update(self, webhook_id: str, body: m.UpdateWebhookBody) -> m.WebhookEndpoint:
        return await self._r("PATCH", f"/webhooks/{_p(webhook_id)}", body=body)

    async def delete(self, webhook_id: str) -> m.DeleteWebhookResponse:
        return await self._r("DELETE", f"/webhooks/{_p(webhook_id)}")

    async def rotate_secret(self, webhook_id: str) -> m.WebhookEndpointWithSecret:
        return await self._r("POST", f"/webhooks/{_p(webhook_id)}/rotate-secret")

    async def test(self, webhook_id: str) -> m.TestWebhookResponse:
        """Sends a ``webhook.test`` event to this endpoint alone."""
        return await self._r("POST", f"/webhooks/{_p(webhook_id)}/test")

    def deliveries(self, webhook_id: str, query: m.ListWebhookDeliveriesQuery | None = None) -> AsyncIterator[m.WebhookDelivery]:
        """Every delivery of the endpoint, newest first."""
        return _walk(lambda c: self.deliveries_page(webhook_id, _with_cursor(query, c)), "deliveries")

    async def deliveries_page(self, webhook_id: str, query: m.ListWebhookDeliveriesQuery | None = None) -> m.ListWebhookDeliveriesResponse:
        return await self._r("GET", f"/webhooks/{_p(webhook_id)}/deliveries", query=query)

    async def redeliver(self, webhook_id: str, delivery_id: str) -> m.WebhookDelivery:
        return await self._r("POST", f"/webhooks/{_p(webhook_id)}/deliveries/{_p(delivery_id)}/redeliver")
