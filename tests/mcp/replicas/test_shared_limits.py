"""Two `lazytool-gateway --http` behind haproxy (round robin) sharing their limits through
Redis (`lazytool.shared.redis`, the guides' "Replicas sharing limits through Redis"): a
principal limited to N calls a minute (perSecond N/60, burst N) gets exactly N calls through
in all, whichever replica answers each, and 429 with Retry-After and the JSON-RPC error for
the rest. With Redis killed mid-run, the calls go on under each replica's own limits and
/readyz says so (200, "shared store down: local limits"); once Redis is back, the limit is
shared again.

Each test starts its own redis-server (redis_server.py), gateways and haproxy on free ports of
127.0.0.1 (cluster.py); it is skipped when haproxy or redis-server is not installed, unless
LAZYTOOL_REQUIRE_BALANCERS or LAZYTOOL_REQUIRE_REDIS=1 (.ci/run) is set.
"""

import math
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from cluster import HEADERS, Cluster, Replica, gateway
from redis_server import RedisServer, redis_server
from test_mcp_http import CALL, MODERN, modern_call, raw_post

pytestmark = pytest.mark.anyio

# Calls a minute per principal.
N = 6
# `--token` makes every call the principal `default`'s.
PRINCIPAL = "default"
CALL_HEADERS = HEADERS | {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": CALL}
# The shop's `wait` tool, through the gateway's call-through tool, waiting not at all.
WAIT = modern_call(CALL, {"name": "shop__wait", "arguments": {"ms": 0}})


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisServer]:
    yield from redis_server(tmp_path)


@pytest.fixture
def gateways(tmp_path: Path, redis: RedisServer) -> Iterator[Cluster]:
    lazytool = {
        "limits": {"perPrincipal": {"perSecond": N / 60, "burst": N}},
        "shared": {"redis": redis.url},
    }
    cluster = Cluster(tmp_path, "haproxy", gateway(tmp_path, lazytool), upstream="shop")
    try:
        yield cluster
    finally:
        cluster.close()


async def calls(cluster: Cluster, count: int) -> list[int]:
    """`count` calls one after the other through haproxy: each answer's status, each checked
    for its shape (a result, or the principal's rate limit with its retry time)."""
    statuses = []
    for _ in range(count):
        answer = await raw_post(cluster.url, WAIT, CALL_HEADERS)
        statuses.append(answer.status_code)
        if answer.status_code == 200:
            assert "result" in answer.json(), answer.text
        elif answer.status_code == 429:
            retry = int(answer.headers["Retry-After"])
            # The next token of N a minute: at most 60/N s away.
            assert 1 <= retry <= math.ceil(60 / N), retry
            error = answer.json()["error"]
            assert error["code"] == -32000, error
            assert error["data"]["limit"] == "rate" and error["data"]["scope"] == "principal", error
            assert error["data"]["name"] == PRINCIPAL, error
            assert error["data"]["retryAfterSeconds"] == retry, error
        else:
            pytest.fail(f"{answer.status_code}: {answer.text}")
    return statuses


async def posts(replicas: list[Replica]) -> list[int]:
    return [await anyio.to_thread.run_sync(replica.posts) for replica in replicas]


async def readiness(replicas: list[Replica]) -> list[tuple[int, dict]]:
    return [await anyio.to_thread.run_sync(replica.readiness) for replica in replicas]


async def test_two_gateways_share_a_principals_rate_exactly_n_calls_in_all(gateways: Cluster) -> None:
    before = await posts(gateways.replicas)
    statuses = await calls(gateways, 3 * N)
    assert statuses.count(200) == N, statuses
    assert statuses.count(429) == 2 * N, statuses
    served = [after - first for after, first in zip(await posts(gateways.replicas), before)]
    assert min(served) >= N, f"round robin should share the calls: {served}"
    for status, body in await readiness(gateways.replicas):
        assert (status, body) == (200, {"status": "ready", "detail": "shared store up"})


async def test_redis_down_mid_run_means_local_limits_then_shared_again(
    gateways: Cluster, redis: RedisServer
) -> None:
    half = N // 2
    assert await calls(gateways, half) == [200] * half
    redis.kill()
    # Each replica on its own: its own bucket of N, untouched while the store decided.
    statuses = await calls(gateways, 2 * N + 4)
    assert statuses.count(200) == 2 * N, statuses
    for status, body in await readiness(gateways.replicas):
        assert (status, body) == (200, {"status": "ready", "detail": "shared store down: local limits"})
    for replica in gateways.replicas:
        assert replica.metrics()["lazytool_shared_store_up"] == 0

    redis.start()
    deadline = time.monotonic() + 20
    while any(body.get("detail") != "shared store up" for _, body in await readiness(gateways.replicas)):
        assert time.monotonic() < deadline, "the replicas did not see Redis back within 20 s"
        await anyio.sleep(0.2)
    # A Redis started empty: a full bucket of N, shared again.
    statuses = await calls(gateways, 2 * N)
    assert statuses.count(200) == N, statuses
    for replica in gateways.replicas:
        assert replica.metrics()["lazytool_shared_store_up"] == 1
