"""AsyncHarkServer against the same engine: the calls, async pagination and typed errors."""

from __future__ import annotations

import asyncio

import pytest

from hark_server import AsyncHarkServer, AuthenticationError, NotFoundError

from .conftest import server_error


def test_async_client(base_url: str, api_key: str) -> None:
    async def flow() -> None:
        async with AsyncHarkServer(base_url, api_key) as hark:
            await asyncio.gather(*(hark.clients.create({"clientId": f"as-{i}", "kind": "app"}) for i in range(5)))
            ids = [c["clientId"] async for c in hark.clients.list({"kind": "app", "limit": 2})]
            assert ids == ["as-0", "as-1", "as-2", "as-3", "as-4"]
            issued = await hark.tokens.issue("as-0", {"ttlSeconds": 60})
            assert issued["clientId"] == "as-0"
            agent = await hark.agents.dispatch({"room": "async-room"})
            assert agent["state"] == "running"
            assert (await hark.agents.stop(agent["agentId"]))["stopped"] is True
            assert "totals" in await hark.usage.get()
            with pytest.raises(NotFoundError) as missing:
                await hark.clients.get("as-nobody")
            server = server_error(base_url, "/clients/as-nobody", api_key)
            assert (missing.value.code, str(missing.value)) == (server["code"], server["message"])
        async with AsyncHarkServer(base_url, "hk_" + "B" * 43) as wrong:
            with pytest.raises(AuthenticationError) as denied:
                await wrong.usage.get()
            assert denied.value.status == 401 and denied.value.code == "invalid_api_key"

    asyncio.run(flow())
