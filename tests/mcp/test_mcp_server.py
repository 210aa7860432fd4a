"""The `mcp_server` example driven by the official MCP Python SDK over stdio.

Build the server first (`cargo build --example mcp_server`), or point LAZYTOOL_MCP_SERVER at
the binary. `.ci/run` does both and runs `pytest tests/mcp`.
"""

import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from test_mcp_http import ListChanges

ROOT = Path(__file__).resolve().parents[2]
SERVER = Path(os.environ.get("LAZYTOOL_MCP_SERVER", ROOT / "target/debug/examples/mcp_server"))
DISCOVERY = "__lazy__tool__discovery__"
CALL = "__lazy__tool__call__"
TIMEOUT = 10

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def server_binary() -> None:
    assert SERVER.is_file(), f"{SERVER} is missing: run `cargo build --example mcp_server` first"


@asynccontextmanager
async def connect() -> AsyncIterator[tuple[ClientSession, ListChanges]]:
    changes = ListChanges(TIMEOUT)
    async with stdio_client(StdioServerParameters(command=str(SERVER))) as (read, write):
        async with ClientSession(read, write, message_handler=changes.handle) as session:
            yield session, changes


async def names(session: ClientSession) -> list[str]:
    return [tool.name for tool in (await session.list_tools()).tools]


def text(result: types.CallToolResult) -> str:
    [content] = result.content
    assert isinstance(content, types.TextContent)
    return content.text


async def test_lazy_discovery_step_by_step() -> None:
    async with connect() as (session, changes):
        initialized = await session.initialize()
        assert initialized.protocol_version == "2025-11-25"
        assert initialized.capabilities.tools is not None
        assert initialized.capabilities.tools.list_changed is True

        tools = (await session.list_tools()).tools
        assert [tool.name for tool in tools] == ["getProducts", DISCOVERY]
        assert tools[1].description.endswith("[calculateFinancing, compareProducts]")
        get_products = tools[0]
        assert get_products.annotations is not None
        assert get_products.annotations.title == "Products"
        assert get_products.annotations.read_only_hint is True
        assert get_products.output_schema is not None
        assert get_products.output_schema["type"] == "object"
        products = await session.call_tool("getProducts", {})
        assert not products.is_error
        # A non-object output is wrapped as {"result": ...}; the text is the same JSON.
        assert products.structured_content == json.loads(text(products))
        rows = products.structured_content["result"]
        assert {"id", "name", "price"} <= set(rows[0])

        early = await session.call_tool("calculateFinancing", {"productId": 1, "months": 12})
        assert early.is_error
        assert text(early) == (
            "Error: Tool 'calculateFinancing' must be discovered first. Call "
            "__lazy__tool__discovery__ with toolNames: ['calculateFinancing'] to discover it."
        )

        discovery = await session.call_tool(DISCOVERY, {"toolNames": ["calculateFinancing"]})
        assert not discovery.is_error
        [found] = json.loads(text(discovery))["tools"]
        assert found["name"] == "calculateFinancing"
        assert found["inputSchema"]["required"] == ["productId", "months"]
        await changes.wait()

        assert await names(session) == ["getProducts", DISCOVERY, "calculateFinancing"]
        plan = await session.call_tool("calculateFinancing", {"productId": 1, "months": 12})
        assert not plan.is_error
        assert json.loads(text(plan)) == {"monthlyPayment": 41.58, "totalPrice": 499.0, "months": 12}

        # Asking again for a discovered tool returns it without a new notification.
        await session.call_tool(DISCOVERY, {"toolNames": ["calculateFinancing"]})
        await session.call_tool(DISCOVERY, {"toolNames": ["compareProducts"]})
        await changes.wait()
        assert changes.count == 2
        assert await names(session) == ["getProducts", "calculateFinancing", "compareProducts"]
        compared = await session.call_tool("compareProducts", {"productIds": [1, 2]})
        assert json.loads(text(compared))["cheapest"] == "Office chair"


async def test_a_discovered_tool_is_callable_at_once_without_a_relist() -> None:
    # A client that ignores list_changed and never lists again: the discovery answer gave
    # it the schema, so the call that follows is served.
    async with connect() as (session, _):
        await session.initialize()
        discovery = await session.call_tool(DISCOVERY, {"toolNames": ["calculateFinancing"]})
        assert not discovery.is_error, text(discovery)
        plan = await session.call_tool("calculateFinancing", {"productId": 1, "months": 12})
        assert not plan.is_error, text(plan)
        assert json.loads(text(plan)) == {"monthlyPayment": 41.58, "totalPrice": 499.0, "months": 12}


async def test_errors() -> None:
    async with connect() as (session, _):
        await session.initialize()
        await session.call_tool(DISCOVERY, {"toolNames": ["calculateFinancing"]})
        await session.list_tools()

        invalid = await session.call_tool("calculateFinancing", {"productId": 1, "months": 0})
        assert invalid.is_error
        assert "months" in text(invalid)
        missing = await session.call_tool("calculateFinancing", {"months": 12})
        assert missing.is_error
        assert "productId" in text(missing)
        failed = await session.call_tool("calculateFinancing", {"productId": 99, "months": 12})
        assert failed.is_error
        assert text(failed) == "no product has id 99; call getProducts for the ids"

        with pytest.raises(MCPError) as unknown:
            await session.call_tool("deleteEverything", {})
        assert unknown.value.code == -32602
        assert "deleteEverything" in unknown.value.message

        empty = await session.call_tool(DISCOVERY, {"toolNames": []})
        assert empty.is_error
        assert "compareProducts" in text(empty)


async def test_connections_do_not_share_discoveries() -> None:
    async with connect() as (first, _), connect() as (second, _):
        await first.initialize()
        await second.initialize()
        await first.call_tool(DISCOVERY, {"toolNames": ["calculateFinancing"]})
        assert await names(first) == ["getProducts", DISCOVERY, "calculateFinancing"]
        assert await names(second) == ["getProducts", DISCOVERY]
        refused = await second.call_tool("calculateFinancing", {"productId": 1, "months": 12})
        assert refused.is_error
        assert "must be discovered first" in text(refused)


async def test_newest_protocol_is_stateless_and_calls_through() -> None:
    async with connect() as (session, changes):
        await session.discover()
        assert session.protocol_version == "2026-07-28"
        listed = await session.list_tools()
        assert [tool.name for tool in listed.tools] == ["getProducts", DISCOVERY, CALL]
        assert listed.ttl_ms == 300_000
        found = await session.call_tool(DISCOVERY, {"toolNames": ["compareProducts"]})
        assert CALL in json.loads(text(found))["howToCall"]
        again = await session.list_tools()
        assert again.tools == listed.tools
        compared = await session.call_tool(CALL, {"name": "compareProducts", "arguments": {"productIds": [1, 2]}})
        assert json.loads(text(compared))["cheapest"] == "Office chair"
        assert changes.count == 0


class RawClient:
    """Newline-delimited JSON-RPC over the server's pipes, without an SDK in between."""

    def __init__(self, process: anyio.abc.Process) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.stdin = process.stdin
        self.stdout = BufferedByteReceiveStream(process.stdout)

    async def send(self, line: bytes) -> None:
        await self.stdin.send(line + b"\n")

    async def receive(self) -> dict:
        with anyio.fail_after(TIMEOUT):
            return json.loads(await self.stdout.receive_until(b"\n", 1 << 20))

    async def request(self, id: int, method: str, params: dict) -> dict:
        message = {"jsonrpc": "2.0", "id": id, "method": method, "params": params}
        await self.send(json.dumps(message).encode())
        return await self.receive()


async def test_hostile_input_gets_answers_and_the_server_keeps_serving() -> None:
    async with await anyio.open_process([str(SERVER)]) as process:
        client = RawClient(process)
        initialize = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        }
        assert (await client.request(1, "initialize", initialize))["id"] == 1
        await client.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

        megabytes = b'{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"getProducts",'
        megabytes += b'"arguments":{"padding":"' + b"x" * (6 << 20) + b'"}}}'
        deep = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"getProducts",'
        deep += b'"arguments":{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}}}"
        cases = [
            (megabytes, "big", -32600),
            (deep, 7, -32700),
            (b"[" * 100_000, None, -32700),
            (b"\x00\xffthis is not JSON", None, -32700),
            (b'{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{', 9, -32700),
        ]
        for line, id, code in cases:
            await client.send(line)
            reply = await client.receive()
            assert (reply["id"], reply["error"]["code"]) == (id, code), reply
            listed = await client.request(2, "tools/list", {})
            assert [tool["name"] for tool in listed["result"]["tools"]] == ["getProducts", DISCOVERY]

        await client.stdin.aclose()
        with anyio.fail_after(TIMEOUT):
            assert await process.wait() == 0
