"""Two `lazytool-gateway --http` sharing their sessions through Redis
(`lazytool.shared.redis`, the guides' "Replicas sharing sessions through Redis"), behind
haproxy round robin without sticky sessions (haproxy-shared.cfg), driven by the official MCP
Python SDK and by raw HTTP to each replica:

- any replica serves any session: a session opened on one replica discovers a tool on the
  other and calls it on the first; the client never starts another session;
- two replicas discovering for one session at once: each lists both tools (a union);
- a discovery on one replica reaches the session's stream (`GET`) held by the other as
  `notifications/tools/list_changed`;
- a rolling restart under load with stateful clients that discovered a tool: no failed call,
  no session started again, the discovered tool called after both restarts;
- Redis killed mid-run: sessions held go on; one opened meanwhile is written once Redis is
  back, and the other replica serves it then.

Each test starts its own redis-server (redis_server.py), gateways and haproxy on free ports of
127.0.0.1 (cluster.py).
"""

import json
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import anyio.to_thread
import httpx2
import pytest
from cluster import HAPROXY_SHARED_CONFIG, HEADERS, Cluster, Replica, gateway
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from redis_server import RedisServer, redis_server
from test_mcp_http import DISCOVERY

pytestmark = pytest.mark.anyio

LEGACY = "2025-11-25"
TIMEOUT = 20


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisServer]:
    yield from redis_server(tmp_path)


# A second principal beside `--token`'s `default`, from a principals file.
INTRUDER = "token-of-another-principal-77a1"


@pytest.fixture
def gateways(tmp_path: Path, redis: RedisServer) -> Iterator[Cluster]:
    principals = tmp_path / "principals.json"
    principals.write_text(json.dumps({"principals": {"intruder": {"tokens": [INTRUDER]}}}))
    program = [*gateway(tmp_path, {"shared": {"redis": redis.url}}), "--principals", str(principals)]
    cluster = Cluster(tmp_path, "haproxy", program, upstream="shop", haproxy_config=HAPROXY_SHARED_CONFIG)
    try:
        yield cluster
    finally:
        cluster.close()


class Raw:
    """A 2025-11-25 session spoken by hand, each request to the replica the test names."""

    def __init__(self) -> None:
        self.session: str | None = None
        self.next_id = 1

    def headers(self) -> dict[str, str]:
        headers = HEADERS | {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                             "MCP-Protocol-Version": LEGACY}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        return headers

    async def post(self, replica: Replica, message: dict) -> httpx2.Response:
        async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
            return await http.post(f"{replica.base}/mcp", content=json.dumps(message).encode(), headers=self.headers())

    async def open(self, replica: Replica) -> None:
        answer = await self.request(replica, "initialize", {
            "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}})
        assert "result" in answer, answer
        initialized = await self.post(replica, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert initialized.status_code == 202, initialized.text

    async def request(self, replica: Replica, method: str, params: dict) -> dict:
        self.next_id += 1
        answer = await self.post(replica, {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert answer.status_code == 200, (replica.name, answer.status_code, answer.text)
        if self.session is None:
            self.session = answer.headers["mcp-session-id"]
        return message(answer)

    async def tools(self, replica: Replica) -> set[str]:
        return {tool["name"] for tool in (await self.request(replica, "tools/list", {}))["result"]["tools"]}

    async def call(self, replica: Replica, name: str, arguments: dict) -> dict:
        return await self.request(replica, "tools/call", {"name": name, "arguments": arguments})


def message(answer: httpx2.Response) -> dict:
    """The JSON-RPC answer of a POST, sent as JSON or as the last event of an SSE stream."""
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[len("data: "):] for line in answer.text.splitlines() if line.startswith("data: {")]
        return json.loads(data[-1])
    return answer.json()


def ok(answer: dict) -> bool:
    return "result" in answer and not answer["result"].get("isError")


async def test_any_replica_serves_any_session(gateways: Cluster) -> None:
    """Opened on replica1, a tool discovered on replica2, called on replica1 at once (the
    discovery's announcement may not be there yet: the call reads it from Redis), then the
    client goes on through haproxy, round robin, in the same session."""
    one, two = gateways.replicas
    raw = Raw()
    await raw.open(one)
    found = await raw.call(two, DISCOVERY, {"toolNames": ["shop__wait"]})
    assert ok(found), found
    called = await raw.call(one, "shop__wait", {"ms": 0})
    assert ok(called), called
    assert "shop__wait" in await raw.tools(two)
    assert "shop__wait" in await raw.tools(one)
    for _ in range(6):
        async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
            body = {"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "shop__wait", "arguments": {"ms": 0}}}
            answer = await http.post(gateways.url, content=json.dumps(body).encode(), headers=raw.headers())
        assert answer.status_code == 200 and ok(message(answer)), answer.text


async def test_another_principal_cannot_take_a_session_on_any_replica(gateways: Cluster) -> None:
    """A session of `default` asked for with another principal's token: refused on the replica
    that holds it and on the one that would read it from Redis (403, before anything is
    restored); its owner goes on on both."""
    one, two = gateways.replicas
    raw = Raw()
    await raw.open(one)
    body = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}).encode()
    headers = raw.headers() | {"Authorization": f"Bearer {INTRUDER}"}
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        elsewhere = await http.post(f"{two.base}/mcp", content=body, headers=headers)
        held = await http.post(f"{one.base}/mcp", content=body, headers=headers)
    assert elsewhere.status_code == 403, elsewhere.text
    assert "belongs to another principal" in elsewhere.json()["error"]["message"]
    assert "belongs to another principal" in message(held)["error"]["message"], held.text
    assert DISCOVERY in await raw.tools(two)
    assert DISCOVERY in await raw.tools(one)


async def test_a_principals_sessions_are_bounded_across_replicas(tmp_path: Path, redis: RedisServer) -> None:
    """`--max-sessions-per-principal 2` on both replicas: a third session of the principal,
    wherever it opens, ends its least recently active one on every replica (404 there, as for
    an idle session ended), and the two others go on."""
    program = [*gateway(tmp_path, {"shared": {"redis": redis.url}}), "--max-sessions-per-principal", "2"]
    cluster = Cluster(tmp_path, "haproxy", program, upstream="shop", haproxy_config=HAPROXY_SHARED_CONFIG)
    try:
        one, two = cluster.replicas
        first, second, third = Raw(), Raw(), Raw()
        await first.open(one)
        assert DISCOVERY in await first.tools(two)
        await second.open(two)
        await third.open(one)
        body = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {}}).encode()
        for replica in (one, two):
            deadline = time.monotonic() + TIMEOUT
            while True:
                async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
                    ended = await http.post(f"{replica.base}/mcp", content=body, headers=first.headers())
                if ended.status_code == 404:
                    break
                assert time.monotonic() < deadline, f"{replica.name} still serves it: {ended.status_code}"
                await anyio.sleep(0.05)
        for raw in (second, third):
            for replica in (one, two):
                assert DISCOVERY in await raw.tools(replica)
    finally:
        cluster.close()


async def test_two_replicas_discovering_at_once_merge(gateways: Cluster) -> None:
    """One session discovers `shop__wait` on replica1 and `shop__getProducts` on replica2 at the same
    time: both replicas list both (a union in Redis, never the last writer)."""
    one, two = gateways.replicas
    raw = Raw()
    await raw.open(one)
    # The second replica holds the session too before both discover.
    assert DISCOVERY in await raw.tools(two)
    found: dict[str, dict] = {}

    async def discover(replica: Replica, tool: str) -> None:
        found[tool] = await raw.call(replica, DISCOVERY, {"toolNames": [tool]})

    async with anyio.create_task_group() as group:
        group.start_soon(discover, one, "shop__wait")
        group.start_soon(discover, two, "shop__getProducts")
    assert all(ok(answer) for answer in found.values()), found
    for replica in (one, two):
        deadline = time.monotonic() + TIMEOUT
        while not {"shop__wait", "shop__getProducts"} <= await raw.tools(replica):
            assert time.monotonic() < deadline, f"{replica.name} lists {await raw.tools(replica)}"
            await anyio.sleep(0.05)


async def test_a_discovery_elsewhere_reaches_the_sessions_stream(gateways: Cluster) -> None:
    """The session's `GET` stream is held by replica2; a discovery on replica1 comes to it as
    `notifications/tools/list_changed`."""
    one, two = gateways.replicas
    raw = Raw()
    await raw.open(one)
    heard = anyio.Event()

    async def listen() -> None:
        headers = raw.headers() | {"Accept": "text/event-stream"}
        async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
            async with http.stream("GET", f"{two.base}/mcp", headers=headers) as stream:
                assert stream.status_code == 200, await stream.aread()
                listening.set()
                async for line in stream.aiter_lines():
                    if "notifications/tools/list_changed" in line:
                        heard.set()
                        return

    listening = anyio.Event()
    with anyio.fail_after(TIMEOUT):
        async with anyio.create_task_group() as group:
            group.start_soon(listen)
            await listening.wait()
            assert ok(await raw.call(one, DISCOVERY, {"toolNames": ["shop__wait"]}))
            await heard.wait()
            group.cancel_scope.cancel()


async def test_a_rolling_restart_loses_no_session_and_no_discovered_tool(gateways: Cluster) -> None:
    """Three official SDK clients (2025-11-25 sessions) each discover `shop__wait` and call it
    without pause through haproxy while each replica in turn drains, exits, starts again and
    is back in rotation: no call fails, no client starts another session, and each calls its
    discovered tool after both restarts."""
    failures: list[str] = []
    calls = [0, 0, 0]
    stop = anyio.Event()
    # The session ids each client was given: a client that started another session was
    # given a second one.
    sessions: dict[int, set[str]] = {0: set(), 1: set(), 2: set()}

    async def client(index: int) -> None:
        async def note(response: httpx2.Response) -> None:
            if "mcp-session-id" in response.headers and response.request.method == "POST":
                body = response.request.content
                if b'"initialize"' in body:
                    sessions[index].add(response.headers["mcp-session-id"])

        http = create_mcp_http_client(headers=HEADERS)
        http.event_hooks["response"].append(note)
        async with http, Client(streamable_http_client(gateways.url, http_client=http), mode="legacy") as session:
            found = await session.call_tool(DISCOVERY, {"toolNames": ["shop__wait"]})
            assert not found.is_error, found
            while not stop.is_set():
                try:
                    result = await session.call_tool("shop__wait", {"ms": 20})
                    if result.is_error:
                        failures.append(f"client {index}: {result.content}")
                except Exception as error:  # noqa: BLE001 - every failure is the finding
                    failures.append(f"client {index}: {error!r}")
                calls[index] += 1

    async def each_made(more: int) -> None:
        wanted = [count + more for count in calls]
        while any(count < goal for count, goal in zip(calls, wanted)):
            await anyio.sleep(0.02)

    with anyio.fail_after(120):
        async with anyio.create_task_group() as group:
            for index in range(3):
                group.start_soon(client, index)
            await each_made(5)
            for name, replica in zip(["replica1", "replica2"], gateways.replicas):
                assert await anyio.to_thread.run_sync(replica.terminate) == 0, f"{name} did not drain cleanly"
                await each_made(3)
                await anyio.to_thread.run_sync(replica.start)
                await anyio.to_thread.run_sync(gateways.balancer.wait_until, {name: "UP"})
                await each_made(3)
            stop.set()
    print(f"\nshared sessions, rolling restart: {sum(calls)} calls, {len(failures)} failed, "
          f"{sum(len(ids) for ids in sessions.values())} sessions for 3 clients")
    assert failures == []
    assert all(len(ids) == 1 for ids in sessions.values()), sessions


async def test_redis_down_keeps_held_sessions_and_writes_new_ones_when_back(gateways: Cluster, redis: RedisServer) -> None:
    one, two = gateways.replicas
    held = Raw()
    await held.open(one)
    assert ok(await held.call(two, DISCOVERY, {"toolNames": ["shop__wait"]}))
    assert ok(await held.call(one, "shop__wait", {"ms": 0}))
    redis.kill()
    # Both replicas hold it: it goes on while Redis is down.
    for replica in (one, two, one, two):
        assert ok(await held.call(replica, "shop__wait", {"ms": 0}))
    opened = Raw()
    await opened.open(one)
    assert ok(await opened.call(one, DISCOVERY, {"toolNames": ["shop__getProducts"]}))
    # Not in Redis: the other replica cannot read it, and says so as for an unknown session.
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        body = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}
        unknown = await http.post(f"{two.base}/mcp", content=json.dumps(body).encode(), headers=opened.headers())
    assert unknown.status_code == 404, unknown.text
    redis.start()
    deadline = time.monotonic() + TIMEOUT
    while True:
        async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
            answer = await http.post(f"{two.base}/mcp", content=json.dumps(body).encode(), headers=opened.headers())
        if answer.status_code == 200:
            break
        assert time.monotonic() < deadline, f"replica2 never read the session: {answer.status_code} {answer.text}"
        await anyio.sleep(0.2)
    assert "shop__getProducts" in {tool["name"] for tool in message(answer)["result"]["tools"]}
    assert ok(await opened.call(two, "shop__getProducts", {}))
