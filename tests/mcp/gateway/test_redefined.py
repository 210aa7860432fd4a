"""lazytool-gateway on stdio in front of shifting_server.py, whose `drifting` tool changes its
input schema (a required `secret`) after its first call, driven by the official MCP Python SDK
client: with no lock, whatever the pin setting, a discovered tool whose definition changed is
refused with an error that says to discover it again, and never reaches the upstream until it
is; an eager one, until the tools are listed again (issue 34, item 3).
"""

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from test_gateway import DISCOVERY, GATEWAY, text
from test_mcp_http import ListChanges, names

SHIFTING = Path(__file__).with_name("shifting_server.py")
CHANGED = (
    "Error: Tool 'shifting__drifting' changed since it was discovered. "
    "Call __lazy__tool__discovery__ with toolNames: ['shifting__drifting'] to discover it again."
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def gateway(work: Path, changes: ListChanges, **settings: object) -> AsyncIterator[ClientSession]:
    """The gateway in front of a shifting server that changes `drifting`'s schema after one call
    and announces it with `list_changed`; every call it gets is recorded in work/shifting.log."""
    args = [str(SHIFTING), "--after", "1", "--change", "schema", "--notify", "--state", str(work / "shifting.log")]
    config = {"mcpServers": {"shifting": {"command": sys.executable, "args": args}},
              "lazytool": {"servers": {"shifting": settings}}}
    (work / "gateway.json").write_text(json.dumps(config))
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(work / "gateway.json")])
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
