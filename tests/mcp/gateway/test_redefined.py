"""lazytool-gateway on stdio in front of shifting_server.py, whose `drifting` tool changes its
input schema (a required `secret`) after its first call, driven by the official MCP Python SDK
client: with no lock, whatever the pin setting, a discovered tool whose definition changed is
refused with an error that says to discover it again, and never reaches the upstream until it
is; an eager one, until the tools are listed again; over stateless HTTP (2026-07-28), a
`__lazy__tool__call__` that brings back the fingerprint of the older definition (issue 34,
item 3).
"""

import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from test_gateway import CALL, DISCOVERY, GATEWAY, MODERN, TIMEOUT, text
from test_mcp_http import TOKEN, ListChanges, await_line, connect, names

SHIFTING = Path(__file__).with_name("shifting_server.py")
CHANGED = (
    "Error: Tool 'shifting__drifting' changed since it was discovered. "
    "Call __lazy__tool__discovery__ with toolNames: ['shifting__drifting'] to discover it again."
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def write_config(work: Path, **settings: object) -> Path:
    """A shifting server that changes `drifting`'s schema after one call and announces it with
    `list_changed`; every call it gets is recorded in work/shifting.log."""
    args = [str(SHIFTING), "--after", "1", "--change", "schema", "--notify", "--state", str(work / "shifting.log")]
    config = {"mcpServers": {"shifting": {"command": sys.executable, "args": args}},
              "lazytool": {"servers": {"shifting": settings}}}
    (work / "gateway.json").write_text(json.dumps(config))
    return work / "gateway.json"


@asynccontextmanager
async def gateway(work: Path, changes: ListChanges, **settings: object) -> AsyncIterator[ClientSession]:
    """The gateway on stdio in front of the shifting server of `write_config`."""
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(write_config(work, **settings))])
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write, message_handler=changes.handle) as session:
            await session.initialize()
            yield session


def upstream_calls(work: Path, tool: str) -> int:
    return (work / "shifting.log").read_text().splitlines().count(f"call {tool}")


@pytest.mark.parametrize("pin", ["off", "warn", "block"])
async def test_a_discovered_tool_whose_definition_changed_must_be_discovered_again(tmp_path: Path, pin: str) -> None:
    changes = ListChanges()
    async with gateway(tmp_path, changes, pin=pin) as client:
        found = await client.call_tool(DISCOVERY, {"toolNames": ["shifting__drifting", "shifting__stable"]})
        assert not found.is_error, text(found)
        await changes.wait()
        assert text(await client.call_tool("shifting__drifting", {"text": "before"})) == "before"

        # The upstream now wants a `secret` and says so; the gateway relists it and tells us.
        await changes.wait()
        stolen = await client.call_tool("shifting__drifting", {"text": "x", "secret": "/etc/hostname"})
        assert stolen.is_error
        assert text(stolen) == CHANGED
        assert upstream_calls(tmp_path, "drifting") == 1, "the changed tool never reached the upstream"
        assert text(await client.call_tool("shifting__stable", {"text": "still"})) == "still"

        # Listed again, it is no longer among the discovered tools, and still refused.
        listed = names(await client.list_tools())
        assert listed == [DISCOVERY, "shifting__stable"], listed
        assert text(await client.call_tool("shifting__drifting", {"text": "x", "secret": "y"})) == CHANGED

        # A fresh discovery shows the new schema and makes it callable.
        again = await client.call_tool(DISCOVERY, {"toolNames": ["shifting__drifting"]})
        [tool] = json.loads(text(again))["tools"]
        assert tool["inputSchema"]["required"] == ["text", "secret"]
        ran = await client.call_tool("shifting__drifting", {"text": "after", "secret": "y"})
        assert not ran.is_error and text(ran) == "after"
        assert upstream_calls(tmp_path, "drifting") == 2


async def test_an_eager_tool_whose_definition_changed_runs_once_the_tools_are_listed_again(tmp_path: Path) -> None:
    changes = ListChanges()
    async with gateway(tmp_path, changes, eager=["drifting"]) as client:
        assert "shifting__drifting" in names(await client.list_tools())
        assert text(await client.call_tool("shifting__drifting", {"text": "before"})) == "before"
        await changes.wait()
        early = await client.call_tool("shifting__drifting", {"text": "x", "secret": "y"})
        assert early.is_error
        assert text(early) == (
            "Error: Tool 'shifting__drifting' changed since the tools were last listed. "
            "List the tools again to read its new definition before calling it."
        )
        assert upstream_calls(tmp_path, "drifting") == 1
        [tool] = [tool for tool in (await client.list_tools()).tools if tool.name == "shifting__drifting"]
        assert tool.input_schema["required"] == ["text", "secret"]
        assert text(await client.call_tool("shifting__drifting", {"text": "after", "secret": "y"})) == "after"


async def test_a_stateless_call_with_the_fingerprint_of_the_older_definition_is_refused(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [str(GATEWAY), "--config", str(write_config(tmp_path)), "--http", "127.0.0.1:0", "--token", TOKEN],
        stderr=subprocess.PIPE, text=True,
    )
    try:
        url = await_line(process, r"at (http://\S+/mcp)", "the gateway did not say where it serves")[1]
        async with connect(url, MODERN) as client:
            async def discovered() -> dict:
                found = await client.call_tool(DISCOVERY, {"toolNames": ["shifting__drifting"]})
                [tool] = json.loads(text(found))["tools"]
                return tool

            older = (await discovered())["fingerprint"]
            ran = await client.call_tool(CALL, {"name": "shifting__drifting", "arguments": {"text": "before"},
                                                "fingerprint": older})
            assert text(ran) == "before"

            # No session remembers the discovery: the gateway relists the upstream, and the
            # fingerprint it gave is the only trace of what the model read.
            deadline = time.monotonic() + TIMEOUT
            while (newer := await discovered())["fingerprint"] == older:
                assert time.monotonic() < deadline, "the changed definition was never listed"
                await anyio.sleep(0.05)
            assert newer["inputSchema"]["required"] == ["text", "secret"]
            stolen = await client.call_tool(CALL, {"name": "shifting__drifting",
                                                   "arguments": {"text": "x", "secret": "/etc/hostname"},
                                                   "fingerprint": older})
            assert stolen.is_error and text(stolen) == CHANGED
            assert upstream_calls(tmp_path, "drifting") == 1
            ran = await client.call_tool(CALL, {"name": "shifting__drifting", "arguments": {"text": "after", "secret": "y"},
                                                "fingerprint": newer["fingerprint"]})
            assert not ran.is_error and text(ran) == "after"
    finally:
        process.terminate()
        process.wait(timeout=TIMEOUT)
