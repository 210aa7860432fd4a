"""The gateway's configuration reloaded on SIGHUP while it serves: lazytool-gateway (--http,
and on stdio) in front of the real @modelcontextprotocol/server-everything and
-server-memory, driven by the official MCP Python SDK client. A server added joins (clients
get `notifications/tools/list_changed`), one removed answers its call in flight and then is
gone, one changed restarts, tokens, principals and limits apply to the next request, a
session's discoveries of an unchanged server survive, a configuration with problems is
refused and the old one keeps serving; the log says what each reload changed and the audit
trail has a `reload` line.
"""

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_mcp_http import ListChanges, names  # noqa: E402

from test_gateway import lazy_names, text  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
GATEWAY = Path(os.environ.get("LAZYTOOL_GATEWAY", ROOT / "target/debug/lazytool-gateway"))
UPSTREAMS = ROOT / "target/gateway-upstreams"
DISCOVERY = "__lazy__tool__discovery__"
TIMEOUT = 60
TOKENS = {"alice": "alice-token-3f81c0", "bob": "bob-token-9a24e7", "carol": "carol-token-51d6b2"}
RELOADED = r"the configuration is reloaded|the new configuration is refused"

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def node_server(package: str, **env: str) -> dict:
    script = UPSTREAMS / "node_modules/@modelcontextprotocol" / package / "dist/index.js"
    assert script.is_file(), f"{script} is missing: run tests/mcp/gateway/install-upstreams"
    return {"command": "node", "args": [str(script)], "env": env}


def config(servers: dict, **lazytool: object) -> dict:
    return {"mcpServers": servers, "lazytool": {"startTimeoutMs": 30000, **lazytool}}


EVERYTHING = node_server("server-everything", RELOAD_MARK="first")
MEMORY = node_server("server-memory")


class Log:
    """The gateway's stderr, every line kept: `after(mark, pattern)` waits for a line
    matching `pattern` past line `mark`."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.lines: list[str] = []
        self._grew = threading.Condition()
        threading.Thread(target=self._read, args=(process,), daemon=True).start()

    def _read(self, process: subprocess.Popen) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            with self._grew:
                self.lines.append(line)
                self._grew.notify_all()
        with self._grew:
            self.lines.append("<the gateway exited>")
            self._grew.notify_all()

    def after(self, mark: int, pattern: str) -> re.Match:
        deadline = time.monotonic() + TIMEOUT
        with self._grew:
            while True:
                for line in self.lines[mark:]:
                    if found := re.search(pattern, line):
                        return found
                    assert line != "<the gateway exited>", "".join(self.lines)
                left = deadline - time.monotonic()
                assert left > 0, f"no line matching {pattern!r} in:\n" + "".join(self.lines)
                self._grew.wait(left)


class Gateway:
    """lazytool-gateway serving `work/gateway.json` (over HTTP with principals, or on stdio
    for `stdio_argv`), reloaded by `reload(new_config)`."""

    def __init__(self, work: Path, first: dict) -> None:
        self.work = work
        self.path = work / "gateway.json"
        self.path.write_text(json.dumps(first))
        self.principals(["alice", "bob"])

    def principals(self, who: list[str]) -> None:
        entries = {name: {"tokens": [TOKENS[name]]} for name in who}
        (self.work / "principals.json").write_text(json.dumps({"principals": entries}))

    def argv(self) -> list[str]:
        return [str(GATEWAY), "--config", str(self.path), "--audit", str(self.work / "audit.jsonl")]

    def start_http(self) -> str:
        argv = [*self.argv(), "--http", "127.0.0.1:0", "--principals", str(self.work / "principals.json")]
        self.process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
        self.log = Log(self.process)
        return self.log.after(0, r"at (http://\S+/mcp)")[1]

    def reload(self, new: dict | str | None = None) -> str:
        """Writes `new` (a configuration, or text as it is), sends SIGHUP and returns the
        log line that says how the reload went."""
        if new is not None:
            self.path.write_text(new if isinstance(new, str) else json.dumps(new))
        mark = len(self.log.lines)
        os.kill(self.pid(), signal.SIGHUP)
        return self.log.after(mark, RELOADED).string

    def pid(self) -> int:
        return self.process.pid

    def audit(self, count: int) -> list[dict]:
        """The audit trail's reload lines, once there are `count` (the writer thread may lag:
        waited for)."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            path = self.work / "audit.jsonl"
            lines = path.read_text().splitlines() if path.exists() else []
            reloads = [json.loads(line) for line in lines if '"event":"reload"' in line]
            if len(reloads) >= count:
                return reloads
            time.sleep(0.1)
        return []

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=TIMEOUT)


@pytest.fixture
def gateway(tmp_path: Path) -> Iterator[Gateway]:
    assert GATEWAY.is_file(), f"{GATEWAY} is missing: run `cargo build -p lazytool-gateway` first"
    gateway = Gateway(tmp_path, config({"everything": EVERYTHING}))
    yield gateway
    if hasattr(gateway, "process"):
        gateway.stop()


@asynccontextmanager
async def connect(url: str, who: str, changes: ListChanges | None = None):
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKENS[who]}"})
    async with http:
        transport = streamable_http_client(url, http_client=http)
        handler = changes.handle if changes else None
        async with Client(transport, mode="legacy", message_handler=handler) as client:
            yield client


def metrics(url: str) -> str:
    request = urllib.request.Request(url.removesuffix("/mcp") + "/metrics",
                                     headers={"Authorization": f"Bearer {TOKENS['alice']}"})
    with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
        return answer.read().decode()


async def discover(client: Client, changes: ListChanges, *tools: str) -> None:
    found = await client.call_tool(DISCOVERY, {"toolNames": list(tools)})
    assert not found.is_error, text(found)
    await changes.wait()
    assert set(tools) <= set(names(await client.list_tools()))


async def test_a_server_added_joins_and_clients_hear_of_it(gateway: Gateway) -> None:
    url = gateway.start_http()
    changes = ListChanges()
    async with connect(url, "alice", changes) as client:
        assert not any(name.startswith("memory__") for name in lazy_names(await client.list_tools()))
        line = gateway.reload(config({"everything": EVERYTHING, "memory": MEMORY}))
        assert "added=memory" in line and "removed= " in line, line
        await changes.wait()
        assert "memory__read_graph" in lazy_names(await client.list_tools())
        await discover(client, changes, "memory__read_graph")
        graph = await client.call_tool("memory__read_graph", {})
        assert not graph.is_error and "entities" in text(graph)
    [reload] = gateway.audit(1)
    assert reload["outcome"] == "ok" and reload["added"] == ["memory"] and reload["removed"] == []


async def test_a_server_removed_answers_its_call_in_flight_then_is_gone(gateway: Gateway) -> None:
    gateway.path.write_text(json.dumps(config({"everything": EVERYTHING, "memory": MEMORY})))
    url = gateway.start_http()
    changes = ListChanges()
    async with connect(url, "alice", changes) as client:
        slow = "everything__trigger-long-running-operation"
        await discover(client, changes, slow, "memory__read_graph")
        started = anyio.Event()
        answered: list[types.CallToolResult] = []

        async def progress(done: float, total: float | None, message: str | None) -> None:
            started.set()

        async def call() -> None:
            answered.append(await client.call_tool(slow, {"duration": 4, "steps": 4}, progress_callback=progress))

        async with anyio.create_task_group() as calls:
            calls.start_soon(call)
            # The first progress notification: the call is at the upstream.
            with anyio.fail_after(TIMEOUT):
                await started.wait()
            line = await anyio.to_thread.run_sync(gateway.reload, config({"memory": MEMORY}))
            assert "removed=everything" in line, line
        [result] = answered
        assert not result.is_error, text(result)
        assert "completed" in text(result).lower(), text(result)
        with pytest.raises(MCPError, match="unknown tool 'everything__echo'"):
            await client.call_tool("everything__echo", {"message": "still there?"})
        listed = await client.list_tools()
        assert slow not in names(listed)
        assert not any(name.startswith("everything__") for name in lazy_names(listed))
        kept = await client.call_tool("memory__read_graph", {})
        assert not kept.is_error, text(kept)
    # /metrics follows: the removed server has no series any more.
    scraped = metrics(url)
    assert 'lazytool_gateway_upstream_tools{server="memory"}' in scraped
    assert 'server="everything"' not in scraped, scraped


async def test_a_changed_server_restarts_and_an_unchanged_one_keeps_its_discoveries(gateway: Gateway) -> None:
    gateway.path.write_text(json.dumps(config({"everything": EVERYTHING, "memory": MEMORY})))
    url = gateway.start_http()
    changes = ListChanges()
    async with connect(url, "alice", changes) as client:
        await discover(client, changes, "everything__get-env", "memory__create_entities", "memory__read_graph")
        before = await client.call_tool("everything__get-env", {})
        assert json.loads(text(before))["RELOAD_MARK"] == "first"
        entity = {"name": "reload", "entityType": "test", "observations": ["kept"]}
        created = await client.call_tool("memory__create_entities", {"entities": [entity]})
        assert not created.is_error, text(created)

        changed = node_server("server-everything", RELOAD_MARK="second")
        line = gateway.reload(config({"everything": changed, "memory": MEMORY}))
        assert "restarted=everything" in line and "added= " in line, line
        after = await client.call_tool("everything__get-env", {})
        assert not after.is_error and json.loads(text(after))["RELOAD_MARK"] == "second"
        # memory was not restarted: the same process, its graph and this session's
        # discoveries of it as they were, without discovering again.
        assert {"memory__create_entities", "memory__read_graph"} <= set(names(await client.list_tools()))
        graph = await client.call_tool("memory__read_graph", {})
        assert not graph.is_error and "kept" in text(graph)


async def test_tokens_principals_and_limits_apply_to_the_next_request(gateway: Gateway) -> None:
    url = gateway.start_http()
    async with connect(url, "bob") as bob:
        assert not (await bob.call_tool(DISCOVERY, {"toolNames": ["everything__echo"]})).is_error
        gateway.principals(["alice", "carol"])
        limited = config({"everything": EVERYTHING}, limits={"principals": {"alice": {"perSecond": 0.01, "burst": 1}}})
        line = gateway.reload(limited)
        assert "settings=lazytool.limits,principals" in line, line
        with pytest.raises(Exception) as refused:
            await bob.list_tools()
        assert "401" in str(refused.value) or "nauthorized" in str(refused.value), refused.value
    async with connect(url, "carol") as carol:
        found = await carol.call_tool(DISCOVERY, {"toolNames": ["everything__echo"]})
        assert not found.is_error, text(found)
    async with connect(url, "alice") as alice:
        first = await alice.call_tool(DISCOVERY, {"toolNames": ["everything__echo"]})
        assert not first.is_error, text(first)
        with pytest.raises(MCPError, match="rate limit of principal `alice` reached"):
            await alice.call_tool(DISCOVERY, {"toolNames": ["everything__echo"]})


async def test_a_configuration_with_problems_is_refused_and_the_old_one_serves(gateway: Gateway) -> None:
    url = gateway.start_http()
    changes = ListChanges()
    async with connect(url, "alice", changes) as client:
        await discover(client, changes, "everything__echo")
        bad = json.dumps(config({"everything": EVERYTHING, "memory": {"comand": "node"}}))
        line = gateway.reload(bad)
        assert "refused" in line and "$.mcpServers.memory" in "".join(gateway.log.lines), line
        echoed = await client.call_tool("everything__echo", {"message": "the old one serves"})
        assert not echoed.is_error and "the old one serves" in text(echoed)
        assert not any(name.startswith("memory__") for name in lazy_names(await client.list_tools()))
        line = gateway.reload("{ not json")
        assert "refused" in line, line
        # Another issuer's metadata cannot replace the one served from the start.
        issuer = config({"everything": EVERYTHING}, oidc={"issuer": "http://127.0.0.1:9", "audience": "x"})
        line = gateway.reload(issuer)
        assert "issuer changed from none to http://127.0.0.1:9" in line, line
        # A good one after them applies.
        line = gateway.reload(config({"everything": EVERYTHING, "memory": MEMORY}))
        assert "added=memory" in line, line
    outcomes = [reload["outcome"] for reload in gateway.audit(4)]
    assert outcomes == ["refused", "refused", "refused", "ok"], outcomes


async def test_stdio_serving_reloads_on_sighup(gateway: Gateway) -> None:
    pid_file = gateway.work / "gateway.pid"
    # The shell's pid is the gateway's (`exec`): the test signals the process it started.
    script = f'echo $$ > "{pid_file}"; exec "$@"'
    argv = [str(GATEWAY), "--config", str(gateway.path)]
    params = StdioServerParameters(command="sh", args=["-c", script, "sh", *argv])
    changes = ListChanges()
    log = gateway.work / "stderr.log"
    with log.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, message_handler=changes.handle) as session:
                await session.initialize()
                assert not any(name.startswith("memory__") for name in lazy_names(await session.list_tools()))
                gateway.path.write_text(json.dumps(config({"everything": EVERYTHING, "memory": MEMORY})))
                os.kill(int(pid_file.read_text()), signal.SIGHUP)
                await changes.wait()
                assert "memory__read_graph" in lazy_names(await session.list_tools())
                # The line comes once the reload is done, after the clients heard of it.
                with anyio.fail_after(TIMEOUT):
                    while "the configuration is reloaded" not in log.read_text():
                        await anyio.sleep(0.05)
    assert "added=memory" in log.read_text()
