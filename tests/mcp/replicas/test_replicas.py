"""Two replicas of `mcp_server` behind real balancers, driven by the official MCP Python SDK
(the guide's "Running replicas", lazytool-mcp/src/guide/replicas.md; issue 23 item 5).

Behind haproxy (haproxy.cfg): stateless (2026-07-28) requests go round robin and every
replica lists the same bytes; stateful (2025-11-25) sessions spread over both replicas and
each stays on its own; and a rolling restart under load (SIGTERM, drain, restart, back in
rotation, then the other replica) fails no call: stateless calls never notice, a stateful
client whose session lived on a restarted replica is told so (404) and starts another
session, as the protocol says. Behind nginx (nginx.conf): stateless round robin, and the same
rolling restart for stateless calls (nginx OSS cannot pin sessions: see the guide). Two
`lazytool-gateway --http` behind haproxy: the same lists, round robin, a rolling restart.
The guide quotes both configurations as they are.

Each test starts its own replicas and balancer on free ports of 127.0.0.1 (cluster.py), and
is skipped when the balancer is not installed; `.ci/run` installs both from Debian's packages.
"""

import json
import math
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from cluster import HAPROXY_CONFIG, HAPROXY_SHARED_CONFIG, HEADERS, NGINX_CONFIG, ROOT, Cluster, Haproxy, Replica, gateway, mcp_server
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from test_mcp_http import CALL, DISCOVERY, MODERN, names, text, wire

pytestmark = pytest.mark.anyio

# The SDK's error for a 404 to a request carrying a session id: the session is gone.
SESSION_GONE = "Session terminated"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def haproxy(tmp_path: Path) -> Iterator[Cluster]:
    cluster = Cluster(tmp_path, "haproxy", mcp_server())
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def nginx(tmp_path: Path) -> Iterator[Cluster]:
    cluster = Cluster(tmp_path, "nginx", mcp_server())
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def gateways(tmp_path: Path) -> Iterator[Cluster]:
    """Two `lazytool-gateway --http` behind haproxy, each in front of its own `mcp_server`."""
    cluster = Cluster(tmp_path, "haproxy", gateway(tmp_path), upstream="shop")
    try:
        yield cluster
    finally:
        cluster.close()


@asynccontextmanager
async def connect(url: str, mode: str) -> AsyncIterator[Client]:
    """A client of `url` that names the service `PUBLIC_HOST` and carries the token."""
    async with create_mcp_http_client(headers=HEADERS) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            yield client


def financing(months: int) -> dict:
    """calculateFinancing's answer for product 1 (499.0) over `months`, rounded as Rust does."""
    return {"monthlyPayment": math.floor(499.0 / months * 100.0 + 0.5) / 100.0, "totalPrice": 499.0, "months": months}


def through(upstream: str | None, name: str, arguments: dict) -> tuple[str, dict]:
    """The stateless call of the shop's tool `name`: through the call-through tool; behind a
    gateway, through the gateway's, to the tool as the gateway serves it: `SERVER__wait` (eager
    in `mcp_server`), or the lazy ones through `mcp_server`'s own call-through tool."""
    if upstream is not None:
        if name == "wait":
            name = f"{upstream}__{name}"
        else:
            name, arguments = f"{upstream}__{CALL}", {"name": name, "arguments": arguments}
    return CALL, {"name": name, "arguments": arguments}


async def posts(replicas: list[Replica]) -> list[int]:
    return [await anyio.to_thread.run_sync(replica.posts) for replica in replicas]


async def stateless_round_robin(cluster: Cluster) -> None:
    """20 lists and 20 calls in the stateless flow: every answer right, the requests shared
    between the replicas, and every list the same bytes (through the balancer or not)."""
    before = await posts(cluster.replicas)
    lists = set()
    async with connect(cluster.url, MODERN) as client:
        for months in range(1, 21):
            lists.add(wire(await client.list_tools(cache_mode="bypass")))
            plan = await client.call_tool(*through(cluster.upstream, "calculateFinancing", {"productId": 1, "months": months}))
            assert not plan.is_error, text(plan)
            assert json.loads(text(plan)) == financing(months)
    served = [after - first for after, first in zip(await posts(cluster.replicas), before)]
    assert sum(served) == 40, served
    assert min(served) >= 10, f"round robin should share the requests: {served}"

    for replica in cluster.replicas:
        async with connect(f"{replica.base}/mcp", MODERN) as direct:
            lists.add(wire(await direct.list_tools()))
    assert len(lists) == 1


async def test_haproxy_sends_stateless_requests_round_robin(haproxy: Cluster) -> None:
    await stateless_round_robin(haproxy)


async def test_haproxy_keeps_each_session_on_its_replica(haproxy: Cluster) -> None:
    opened = anyio.Event()
    live = 0
    done = anyio.Event()
    failures: list[str] = []

    async def session(index: int) -> None:
        nonlocal live
        async with connect(haproxy.url, "legacy") as client:
            live += 1
            if live == 8:
                opened.set()
            # A request reaching a replica that does not hold the session would get 404.
            await client.call_tool(DISCOVERY, {"toolNames": ["calculateFinancing"]})
            for round in range(5):
                listed = names(await client.list_tools())
                if listed != ["getProducts", "wait", DISCOVERY, "calculateFinancing"]:
                    failures.append(f"session {index} lists {listed}")
                months = 1 + index + round
                plan = await client.call_tool("calculateFinancing", {"productId": 1, "months": months})
                if plan.is_error or json.loads(text(plan)) != financing(months):
                    failures.append(f"session {index}.{round}: {plan}")
            await done.wait()

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            for index in range(8):
                group.start_soon(session, index)
            await opened.wait()
            sessions = [await anyio.to_thread.run_sync(replica.sessions) for replica in haproxy.replicas]
            done.set()
    assert failures == []
    assert sum(sessions) == 8 and min(sessions) >= 2, f"sessions per replica: {sessions}"


@dataclass
class Load:
    """Clients calling without pause, each counting the calls it got right; what went wrong."""

    upstream: str | None
    made: dict[str, int] = field(default_factory=dict)
    reinitialized: int = 0
    failures: list[str] = field(default_factory=list)
    stop: anyio.Event = field(default_factory=anyio.Event)

    def calls(self, kind: str = "") -> int:
        return sum(count for client, count in self.made.items() if client.startswith(kind))

    async def each_made(self, more: int) -> None:
        """Waits until every client has made `more` calls right from now on."""
        wanted = {client: count + more for client, count in self.made.items()}
        while any(self.made[client] < count for client, count in wanted.items()):
            await anyio.sleep(0.02)

    async def stateless_client(self, url: str, index: int) -> None:
        me = f"stateless {index}"
        self.made[me] = 0
        async with connect(url, MODERN) as client:
            round = 0
            while not self.stop.is_set():
                round += 1
                try:
                    await self.call(client, True, index, round)
                    self.made[me] += 1
                except Exception as error:  # noqa: BLE001 - every failure is counted
                    self.failures.append(f"{me}.{round}: {error!r}")

    async def stateful_client(self, url: str, index: int) -> None:
        """Calls in a session; when the session is gone (its replica restarted) the client
        starts another and makes the same call again, as the protocol asks."""
        me = f"stateful {index}"
        self.made[me] = 0
        round = 0
        while not self.stop.is_set():
            try:
                async with connect(url, "legacy") as client:
                    await client.call_tool(DISCOVERY, {"toolNames": ["calculateFinancing"]})
                    await client.list_tools()
                    while not self.stop.is_set():
                        round += 1
                        await self.call(client, False, index, round)
                        self.made[me] += 1
            except Exception as error:  # noqa: BLE001 - every failure is counted
                if session_gone(error):
                    self.reinitialized += 1
                else:
                    self.failures.append(f"{me}.{round}: {error!r}")

    async def call(self, client: Client, stateless: bool, index: int, round: int) -> None:
        """One call and its check: every fifth waits 200 ms, so that calls are in flight when a
        replica gets SIGTERM; the others plan a financing. A stateless client calls through
        the call-through tool, a stateful one by the tool's name."""
        if round % 5 == 0:
            name, arguments = "wait", {"ms": 200}
            expected: str | dict = "waited 200 ms"
        else:
            months = 1 + (index * 7 + round) % 72
            name, arguments = "calculateFinancing", {"productId": 1, "months": months}
            expected = financing(months)
        if stateless:
            name, arguments = through(self.upstream, name, arguments)
        result = await client.call_tool(name, arguments)
        answer = text(result)
        if result.is_error or (answer if isinstance(expected, str) else json.loads(answer)) != expected:
            raise AssertionError(f"{name} {arguments}: {answer}")


def session_gone(error: BaseException) -> bool:
    """Whether `error` says, and says only, that the session is gone (the SDK raises it from
    inside its task groups, so it may come wrapped in exception groups)."""
    if isinstance(error, BaseExceptionGroup):
        return all(session_gone(inner) for inner in error.exceptions)
    return isinstance(error, MCPError) and error.message == SESSION_GONE


async def rolling_restart(cluster: Cluster, stateful: int) -> tuple[Load, list[int], float]:
    """Four stateless clients (and `stateful` stateful ones) call without pause while each
    replica in turn gets SIGTERM, drains and exits, every client calls on, the replica starts
    again and is back in rotation, every client calls on again; then the other replica.
    Returns the load, the calls made while each replica was away, and the seconds it took."""
    load = Load(cluster.upstream)
    during: list[int] = []

    async def back_in_rotation(replica: Replica, name: str) -> None:
        if isinstance(cluster.balancer, Haproxy):
            await anyio.to_thread.run_sync(cluster.balancer.wait_until, {name: "UP"})
            return
        # nginx OSS tells nothing of its servers: the replica is back once it is sent calls
        # (`fail_timeout` after its last failure); only then may the other one stop.
        while await anyio.to_thread.run_sync(replica.posts) == 0:
            await anyio.sleep(0.05)

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            for index in range(4):
                group.start_soon(load.stateless_client, cluster.url, index)
            for index in range(stateful):
                group.start_soon(load.stateful_client, cluster.url, index)
            await anyio.sleep(0)
            started = time.monotonic()
            await load.each_made(5)
            for name, replica in zip(["replica1", "replica2"], cluster.replicas):
                before = load.calls()
                assert await anyio.to_thread.run_sync(replica.terminate) == 0, f"{name} did not drain cleanly"
                await load.each_made(3)
                await anyio.to_thread.run_sync(replica.start)
                await back_in_rotation(replica, name)
                during.append(load.calls() - before)
                await load.each_made(3)
            load.stop.set()
    return load, during, time.monotonic() - started


async def test_haproxy_rolling_restart_under_load_fails_no_call(haproxy: Cluster) -> None:
    load, during, seconds = await rolling_restart(haproxy, stateful=4)
    print(f"\nhaproxy rolling restart: {load.calls()} calls ({load.calls('stateless')} stateless, "
          f"{load.calls('stateful')} stateful) in {seconds:.1f} s, {during} while each replica was away, "
          f"{load.reinitialized} sessions started again, {len(load.failures)} failed")
    assert load.failures == []
    # Each client's session was on a restarted replica at least once (the second one holds
    # every session by the time it stops): the client was told and started another.
    assert 4 <= load.reinitialized <= 8


async def test_nginx_sends_stateless_requests_round_robin(nginx: Cluster) -> None:
    await stateless_round_robin(nginx)


async def test_nginx_rolling_restart_under_stateless_load_fails_no_call(nginx: Cluster) -> None:
    load, during, seconds = await rolling_restart(nginx, stateful=0)
    print(f"\nnginx rolling restart: {load.calls()} stateless calls in {seconds:.1f} s, "
          f"{during} while each replica was away, {len(load.failures)} failed")
    assert load.failures == []


async def test_gateway_replicas_behind_haproxy_list_the_same_and_restart_without_a_failed_call(gateways: Cluster) -> None:
    await stateless_round_robin(gateways)
    load, during, seconds = await rolling_restart(gateways, stateful=0)
    print(f"\ngateway rolling restart: {load.calls()} stateless calls in {seconds:.1f} s, "
          f"{during} while each replica was away, {len(load.failures)} failed")
    assert load.failures == []


def test_the_guide_quotes_the_configurations_the_tests_run() -> None:
    chapter = (ROOT / "lazytool-mcp/src/guide/replicas.md").read_text()
    for config in (HAPROXY_CONFIG, NGINX_CONFIG, HAPROXY_SHARED_CONFIG):
        assert f"\n{config.read_text()}```\n" in chapter, f"the guide's \"Running replicas\" (lazytool-mcp/src/guide/replicas.md) must quote {config.name} as it is"
