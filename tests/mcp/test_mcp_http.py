"""The `mcp_server` example over streamable HTTP, driven by the official MCP Python SDK.

One server (`mcp_server --http 127.0.0.1:0 --token ...`) serves every test: the session flow
of protocol 2025-11-25, the stateless flow of 2026-07-28 (a fixed list with
`__lazy__tool__call__`), the guard (Origin, token, body limit), and 50 concurrent clients.
"""

import json
import os
import re
import signal
import subprocess
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

ROOT = Path(__file__).resolve().parents[2]
SERVER = Path(os.environ.get("LAZYTOOL_MCP_SERVER", ROOT / "target/debug/examples/mcp_server"))
DISCOVERY = "__lazy__tool__discovery__"
CALL = "__lazy__tool__call__"
TOKEN = "test-token-5f1c"
MODERN = "2026-07-28"
TIMEOUT = 20

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    assert SERVER.is_file(), f"{SERVER} is missing: run `cargo build --example mcp_server` first"
    process = subprocess.Popen(
        [str(SERVER), "--http", "127.0.0.1:0", "--token", TOKEN],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield await_line(process, r"at (http://\S+/mcp)", "the server did not say where it serves")[1]
    finally:
        process.terminate()
        process.wait(timeout=TIMEOUT)


def await_line(process: subprocess.Popen, pattern: str, failure: str) -> re.Match:
    """The first line of `process`'s stderr that matches `pattern` (the test fails with
    `failure` if it ends first); the rest of its log is read on, or the process blocks once
    the pipe is full."""
    assert process.stderr is not None
    for line in process.stderr:
        found = re.search(pattern, line)
        if found:
            threading.Thread(target=process.stderr.read, daemon=True).start()
            return found
    pytest.fail(failure)


class ListChanges:
    """Counts the `notifications/tools/list_changed` a client receives; `wait` waits at most
    `timeout` seconds for the next."""

    def __init__(self, timeout: float = TIMEOUT) -> None:
        self.count = 0
        self._timeout = timeout
        self._event = anyio.Event()

    async def handle(self, message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.count += 1
            self._event.set()

    async def wait(self) -> None:
        with anyio.fail_after(self._timeout):
            await self._event.wait()
        self._event = anyio.Event()


@asynccontextmanager
async def connect(url: str, mode: str, changes: ListChanges | None = None) -> AsyncIterator[Client]:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
    async with http:
        transport = streamable_http_client(url, http_client=http)
        handler = changes.handle if changes else None
        async with Client(transport, mode=mode, message_handler=handler) as client:
            yield client


def names(listed: types.ListToolsResult) -> list[str]:
    return [tool.name for tool in listed.tools]


def text(result: types.CallToolResult) -> str:
    [content] = result.content
    assert isinstance(content, types.TextContent)
    return content.text


def wire(listed: types.ListToolsResult) -> str:
    """The tools as the server sent them, for byte-level comparison."""
    return json.dumps([tool.model_dump(mode="json", by_alias=True) for tool in listed.tools])


async def test_session_flow_discovers_and_notifies(url: str) -> None:
    changes = ListChanges()
    async with connect(url, "legacy", changes) as client, connect(url, "legacy") as other:
        assert client.protocol_version == "2025-11-25"
        assert names(await client.list_tools()) == ["getProducts", DISCOVERY]

        early = await client.call_tool("calculateFinancing", {"productId": 1, "months": 12})
        assert early.is_error and "must be discovered first" in text(early)

        found = await client.call_tool(DISCOVERY, {"toolNames": ["calculateFinancing"]})
        assert json.loads(text(found))["tools"][0]["name"] == "calculateFinancing"
        await changes.wait()
        assert names(await client.list_tools()) == ["getProducts", DISCOVERY, "calculateFinancing"]
        plan = await client.call_tool("calculateFinancing", {"productId": 1, "months": 12})
        assert json.loads(text(plan)) == {"monthlyPayment": 41.58, "totalPrice": 499.0, "months": 12}

        # Sessions are separate.
        assert names(await other.list_tools()) == ["getProducts", DISCOVERY]


async def test_stateless_flow_lists_the_same_everywhere_and_calls_through(url: str) -> None:
    async with connect(url, MODERN) as first, connect(url, "auto") as second:
        assert (first.protocol_version, second.protocol_version) == (MODERN, MODERN)
        listed = await first.list_tools()
        assert names(listed) == ["getProducts", DISCOVERY, CALL]
        assert listed.ttl_ms == 300_000
        call_tool = listed.tools[2]
        assert call_tool.input_schema["required"] == ["name"]

        found = await first.call_tool(DISCOVERY, {"toolNames": ["calculateFinancing", "compareProducts"]})
        discovered = json.loads(text(found))
        assert [tool["name"] for tool in discovered["tools"]] == ["calculateFinancing", "compareProducts"]
        assert CALL in discovered["howToCall"]

        # After discoveries, from either client: the same list, byte for byte.
        for client in (first, second):
            again = await client.list_tools(cache_mode="refresh")
            assert wire(again) == wire(listed)

        plan = await second.call_tool(
            CALL, {"name": "calculateFinancing", "arguments": {"productId": 1, "months": 12}}
        )
        assert not plan.is_error
        assert json.loads(text(plan))["monthlyPayment"] == 41.58
        encoded = await second.call_tool(
            CALL, {"name": "compareProducts", "arguments": json.dumps({"productIds": [1, 2]})}
        )
        assert json.loads(text(encoded))["cheapest"] == "Office chair"

        invalid = await first.call_tool(CALL, {"name": "calculateFinancing", "arguments": {"productId": 1, "months": 0}})
        assert invalid.is_error and "months" in text(invalid)
        missing = await first.call_tool(CALL, {"name": "calculateFinancing", "arguments": {"months": 12}})
        assert missing.is_error and "productId" in text(missing)
        not_an_object = await first.call_tool(CALL, {"name": "compareProducts", "arguments": [1, 2]})
        assert not_an_object.is_error and "must be a JSON object" in text(not_an_object)
        unknown = await first.call_tool(CALL, {"name": "deleteEverything", "arguments": {}})
        assert unknown.is_error
        assert "deleteEverything" in text(unknown)
        assert "[calculateFinancing, compareProducts]" in text(unknown)


async def raw_post(url: str, body: bytes, headers: dict[str, str]) -> httpx2.Response:
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        return await http.post(url, content=body, headers=base | headers)


LIST = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/list",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }
).encode()
MODERN_HEADERS = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"}
AUTHORIZED = {"Authorization": f"Bearer {TOKEN}"}


async def test_the_guard_refuses_and_keeps_serving(url: str) -> None:
    foreign = await raw_post(url, LIST, MODERN_HEADERS | AUTHORIZED | {"Origin": "https://evil.example.com"})
    assert foreign.status_code == 403
    no_token = await raw_post(url, LIST, MODERN_HEADERS)
    assert no_token.status_code == 401
    assert no_token.headers["www-authenticate"] == "Bearer"
    wrong_token = await raw_post(url, LIST, MODERN_HEADERS | {"Authorization": "Bearer nope"})
    assert wrong_token.status_code == 401

    oversized = b'{"jsonrpc":"2.0","id":"big","method":"tools/list","params":{"pad":"'
    oversized += b"x" * (5 << 20) + b'"}}'
    too_large = await raw_post(url, oversized, MODERN_HEADERS | AUTHORIZED)
    assert too_large.status_code == 413
    assert too_large.json()["id"] == "big"
    assert too_large.json()["error"]["code"] == -32600

    broken = await raw_post(url, b'{"jsonrpc":"2.0","id":5,"method":"tools/list",', AUTHORIZED)
    assert (broken.status_code, broken.json()["id"], broken.json()["error"]["code"]) == (400, 5, -32700)

    served = await raw_post(url, LIST, MODERN_HEADERS | AUTHORIZED | {"Origin": "http://localhost:3000"})
    assert served.status_code == 200
    assert [tool["name"] for tool in served.json()["result"]["tools"]] == ["getProducts", DISCOVERY, CALL]

    with pytest.raises(Exception):
        async with Client(url, mode=MODERN) as unauthenticated:
            await unauthenticated.list_tools()


async def test_50_concurrent_clients_list_discover_and_call(url: str) -> None:
    failures: list[str] = []

    async def legacy(index: int) -> None:
        async with connect(url, "legacy") as client:
            # Listing starts a turn: what round 0 discovers is callable from round 1 on.
            for round in range(10):
                listed = names(await client.list_tools())
                expected = ["getProducts", DISCOVERY] + (["calculateFinancing"] if round else [])
                if listed != expected:
                    failures.append(f"legacy {index}.{round}: {listed}")
                plan = await client.call_tool("calculateFinancing", {"productId": 2, "months": 1 + round})
                if round == 0:
                    if not (plan.is_error and "must be discovered first" in text(plan)):
                        failures.append(f"legacy early call {index}: {plan}")
                elif plan.is_error or json.loads(text(plan))["months"] != 1 + round:
                    failures.append(f"legacy call {index}.{round}: {plan}")
                await client.call_tool(DISCOVERY, {"toolNames": ["calculateFinancing"]})

    async def modern(index: int) -> None:
        async with connect(url, MODERN) as client:
            for round in range(10):
                listed = names(await client.list_tools(cache_mode="bypass"))
                if listed != ["getProducts", DISCOVERY, CALL]:
                    failures.append(f"modern {index}.{round}: {listed}")
                found = await client.call_tool(DISCOVERY, {"toolNames": ["calculateFinancing"]})
                if found.is_error:
                    failures.append(f"modern discovery {index}.{round}: {found}")
                arguments = {"productId": 2, "months": 1 + round}
                plan = await client.call_tool(CALL, {"name": "calculateFinancing", "arguments": arguments})
                if plan.is_error or json.loads(text(plan))["months"] != 1 + round:
                    failures.append(f"modern call {index}.{round}: {plan}")

    with anyio.fail_after(120):
        async with anyio.create_task_group() as group:
            for index in range(50):
                group.start_soon(legacy if index % 2 else modern, index)
    assert failures == []


def modern_call(name: str, arguments: dict) -> bytes:
    """A 2026-07-28 call of the tool `name`, to send with `Mcp-Method: tools/call` and
    `Mcp-Name: NAME`."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": name, "arguments": arguments, "_meta": meta}
    return json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}).encode()


def wait_call(ms: int) -> bytes:
    """A 2026-07-28 call of the `wait` tool (`mcp_server --wait-tool`)."""
    return modern_call("wait", {"ms": ms})


async def test_sigterm_lets_the_call_in_flight_finish_then_exits_0() -> None:
    process = subprocess.Popen(
        [str(SERVER), "--http", "127.0.0.1:0", "--wait-tool", "--drain-timeout", "20s"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = await_line(process, r"at (http://\S+/mcp)", "the server did not say where it serves")[1]
        base = url.removesuffix("/mcp")
        async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
            assert (await http.get(f"{base}/readyz")).status_code == 200
        headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "wait"}
        results: list[httpx2.Response] = []

        async def call() -> None:
            results.append(await raw_post(url, wait_call(1500), headers))

        with anyio.fail_after(TIMEOUT):
            async with anyio.create_task_group() as group:
                group.start_soon(call)
                await anyio.sleep(0.5)  # the call is running: its tool sleeps 1.5 s
                process.send_signal(signal.SIGTERM)
        [answer] = results
        assert answer.status_code == 200, answer.text
        assert answer.json()["result"]["content"][0]["text"] == "waited 1500 ms"
        assert process.wait(timeout=TIMEOUT) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=TIMEOUT)
