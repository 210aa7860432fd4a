"""What a real upstream asks of its client during a call, through lazytool-gateway on stdio:
npm @modelcontextprotocol/server-everything's sampling, elicitation and long-running
(progress) tools, driven by the official MCP Python SDK client with `sampling_callback`,
`elicitation_callback` and a progress callback.

server-everything offers its sampling and elicitation tools only to a client that
announced those capabilities: the gateway announces to it what its own client announced.
The gateway starts its upstreams before its client's `initialize`; once the client announced
them, the upstream is started again and its new tools are listed.
"""

import json
import os
import sys
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_gateway import GATEWAY, TIMEOUT, everything_over_http, node_server, text  # noqa: E402, F401 (a fixture)

pytestmark = pytest.mark.anyio
SAMPLING_TOOL = "everything__trigger-sampling-request"
ELICITATION_TOOL = "everything__trigger-elicitation-request"
LONG_TOOL = "everything__trigger-long-running-operation"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def gateway(tmp_path: Path) -> StdioServerParameters:
    config = {
        "mcpServers": {"everything": node_server("server-everything")},
        "lazytool": {"servers": {"everything": {"eager": ["trigger-*"]}}},
    }
    (tmp_path / "gateway.json").write_text(json.dumps(config))
    return StdioServerParameters(command=str(GATEWAY), args=["--config", str(tmp_path / "gateway.json")], env=dict(os.environ))


async def tool_names(session: ClientSession) -> list[str]:
    return [tool.name for tool in (await session.list_tools()).tools]


async def sampled(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    [message] = params.messages
    assert "what is 2 + 2?" in message.content.text
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="four"), model="test-model", stop_reason="endTurn",
    )


async def elicited(context, params: types.ElicitRequestParams) -> types.ElicitResult:
    assert "name" in params.requested_schema["properties"]
    return types.ElicitResult(action="accept", content={"name": "Ada Lovelace", "check": True})


async def test_sampling_elicitation_and_progress_pass_through(tmp_path: Path) -> None:
    async with stdio_client(gateway(tmp_path)) as (read, write):
        async with ClientSession(read, write, sampling_callback=sampled, elicitation_callback=elicited) as session:
            await session.initialize()
            with anyio.fail_after(TIMEOUT):
                while SAMPLING_TOOL not in await tool_names(session):
                    await anyio.sleep(0.2)
            assert ELICITATION_TOOL in await tool_names(session)

            sampling = await session.call_tool(SAMPLING_TOOL, {"prompt": "what is 2 + 2?", "maxTokens": 10})
            assert not sampling.is_error, text(sampling)
            assert '"text": "four"' in text(sampling) and '"model": "test-model"' in text(sampling), text(sampling)

            elicitation = await session.call_tool(ELICITATION_TOOL, {})
            assert not elicitation.is_error, text(elicitation)
            assert "- Name: Ada Lovelace" in text(elicitation), text(elicitation)

            progress = []

            async def report(value: float, total: float | None, message: str | None) -> None:
                progress.append((value, total))

            done = await session.call_tool(LONG_TOOL, {"duration": 0.3, "steps": 3}, progress_callback=report)
            assert not done.is_error, text(done)
            assert progress == [(1, 3), (2, 3), (3, 3)]


async def test_a_client_without_those_capabilities_is_not_asked(tmp_path: Path) -> None:
    async with stdio_client(gateway(tmp_path)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            names = await tool_names(session)
            assert LONG_TOOL in names
            # The gateway announced nothing the client did not: server-everything does not
            # offer the tools that would need it.
            assert SAMPLING_TOOL not in names and ELICITATION_TOOL not in names
            # Progress only when asked for: none asked, the call still completes.
            done = await session.call_tool(LONG_TOOL, {"duration": 0.2, "steps": 2})
            assert not done.is_error, text(done)
            assert SAMPLING_TOOL not in await tool_names(session)


async def test_over_streamable_http_the_request_rides_the_calls_stream(tmp_path: Path, everything_over_http: str) -> None:
    """server-everything over streamable HTTP sends its sampling request on the response
    stream of the call: the gateway ties it to that call by the stream it came on."""
    config = {"mcpServers": {"everything": {"url": everything_over_http}},
              "lazytool": {"servers": {"everything": {"eager": ["trigger-*"]}}}}
    (tmp_path / "gateway.json").write_text(json.dumps(config))
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(tmp_path / "gateway.json")], env=dict(os.environ))
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write, sampling_callback=sampled, elicitation_callback=elicited) as session:
            await session.initialize()
            with anyio.fail_after(TIMEOUT):
                while SAMPLING_TOOL not in await tool_names(session):
                    await anyio.sleep(0.2)
            sampling = await session.call_tool(SAMPLING_TOOL, {"prompt": "what is 2 + 2?", "maxTokens": 10})
            assert not sampling.is_error, text(sampling)
            assert '"text": "four"' in text(sampling), text(sampling)
            elicitation = await session.call_tool(ELICITATION_TOOL, {})
            assert "- Name: Ada Lovelace" in text(elicitation), text(elicitation)


async def test_a_2026_07_28_server_asks_with_input_required(tmp_path: Path) -> None:
    """A 2026-07-28 server on the official SDK asks for the user's name and a sampling in an
    `input_required` result; the gateway asks its client and sends the call again with the
    answers."""
    server = {"command": sys.executable, "args": [str(Path(__file__).with_name("modern_asking_server.py"))]}
    config = {"mcpServers": {"modern": server}, "lazytool": {"servers": {"modern": {"eager": ["*"]}}}}
    (tmp_path / "gateway.json").write_text(json.dumps(config))
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(tmp_path / "gateway.json")], env=dict(os.environ))
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write, sampling_callback=sampled, elicitation_callback=elicited) as session:
            await session.initialize()
            greeted = await session.call_tool("modern__greet", {})
            assert not greeted.is_error, text(greeted)
            assert text(greeted) == "hello Ada Lovelace, 2 + 2 = four"
    # A client without those capabilities: the gateway announced none, so the server says
    # what is missing itself (-32021), and the client gets that error as the server gave it.
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            with pytest.raises(MCPError) as refused:
                await session.call_tool("modern__greet", {})
            assert refused.value.code == -32021, refused.value
            assert "did not declare the form elicitation capability" in str(refused.value), refused.value
