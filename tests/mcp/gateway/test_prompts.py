"""Prompts and resources through lazytool-gateway, from a real server nobody on this project
wrote (npm @modelcontextprotocol/server-everything, twice: `everything` and `again`), driven by
the official MCP Python SDK on stdio: prompts named SERVER__PROMPT and got with arguments,
resources and templates under their own URIs (a URI both servers list is the first's),
read from their server, every page followed, a real `resources/list_changed`, the errors.

`.ci/run` installs the servers (tests/mcp/gateway/install-upstreams) and builds the gateway
(target/debug/lazytool-gateway, or LAZYTOOL_GATEWAY) before `pytest tests/mcp/gateway`.
"""

import base64
import gzip
import json
import os
import re
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

ROOT = Path(__file__).resolve().parents[3]
GATEWAY = Path(os.environ.get("LAZYTOOL_GATEWAY", ROOT / "target/debug/lazytool-gateway"))
EVERYTHING = ROOT / "target/gateway-upstreams/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
DISCOVERY = "__lazy__tool__discovery__"
TIMEOUT = 60
PROMPTS = ["simple-prompt", "args-prompt", "completable-prompt", "resource-prompt"]
TEMPLATES = ["demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/blob/{resourceId}"]
# The gateway's page size (lazytool_mcp::DEFAULT_PAGE_SIZE).
PAGE = 100

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    assert GATEWAY.is_file(), f"{GATEWAY} is missing: run `cargo build -p lazytool-gateway` first"
    assert EVERYTHING.is_file(), f"{EVERYTHING} is missing: run tests/mcp/gateway/install-upstreams"
    server = {"command": "node", "args": [str(EVERYTHING)]}
    path = tmp_path / "gateway.json"
    path.write_text(json.dumps({"mcpServers": {"everything": server, "again": server}}))
    return path


class Changes:
    """The `list_changed` notifications of prompts and resources a client received."""

    def __init__(self) -> None:
        self.resources = 0
        self.prompts = 0

    async def handle(self, message: object) -> None:
        if isinstance(message, types.ResourceListChangedNotification):
            self.resources += 1
        elif isinstance(message, types.PromptListChangedNotification):
            self.prompts += 1


@asynccontextmanager
async def gateway(
    config: Path, changes: Changes | None = None,
) -> AsyncIterator[tuple[ClientSession, types.ServerCapabilities]]:
    """A client of the gateway on stdio, and the capabilities the gateway announced."""
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(config), "-q"])
    handler = changes.handle if changes else None
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write, message_handler=handler) as session:
            initialized = await session.initialize()
            yield session, initialized.capabilities


async def every_page(
    list_page: Callable[[types.PaginatedRequestParams | None], Awaitable[Any]], key: str,
) -> tuple[list[Any], int]:
    """Every item of a paginated list, following nextCursor; and how many pages it took."""
    items: list[Any] = []
    pages, cursor = 0, None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await list_page(params)
        items.extend(getattr(page, key))
        pages += 1
        cursor = page.next_cursor
        if cursor is None:
            return items, pages


async def all_prompts(session: ClientSession) -> tuple[list[types.Prompt], int]:
    return await every_page(lambda params: session.list_prompts(params=params), "prompts")


async def all_resources(session: ClientSession) -> tuple[list[types.Resource], int]:
    return await every_page(lambda params: session.list_resources(params=params), "resources")


async def test_prompts_are_listed_by_server_and_got_with_arguments(config: Path) -> None:
    async with gateway(config) as (session, capabilities):
        assert capabilities.prompts and capabilities.prompts.list_changed
        prompts, pages = await all_prompts(session)
        assert [prompt.name for prompt in prompts] == [
            f"{server}__{name}" for server in ["everything", "again"] for name in PROMPTS
        ]
        assert pages == 1
        [args] = [prompt for prompt in prompts if prompt.name == "everything__args-prompt"]
        assert args.title == "Arguments Prompt"
        assert {argument.name: argument.required for argument in args.arguments or []} == {"city": True, "state": False}

        got = await session.get_prompt("again__args-prompt", {"city": "Paris", "state": "Texas"})
        [message] = got.messages
        assert message.role == "user"
        assert isinstance(message.content, types.TextContent)
        assert message.content.text == "What's weather in Paris, Texas?"

        with pytest.raises(MCPError) as unknown:
            await session.get_prompt("everything__no-such-prompt", {})
        assert unknown.value.code == -32602
        assert "everything__no-such-prompt" in unknown.value.message
        # The upstream's own answer to a missing required argument passes through.
        with pytest.raises(MCPError) as missing:
            await session.get_prompt("everything__args-prompt", {})
        assert missing.value.code == -32602, missing.value.message


async def test_resources_and_templates_keep_their_uris_and_are_read_from_their_server(config: Path) -> None:
    async with gateway(config) as (session, capabilities):
        assert capabilities.resources and capabilities.resources.list_changed
        resources, _ = await all_resources(session)
        uris = [resource.uri for resource in resources]
        # Both servers list the same documents: each URI once, the first server's.
        assert len(uris) == len(set(uris)) == 7, uris
        assert all(uri.startswith("demo://resource/static/document/") for uri in uris)
        [architecture] = [resource for resource in resources if resource.uri.endswith("/architecture.md")]
        assert architecture.mime_type == "text/markdown"

        read = await session.read_resource(architecture.uri)
        [contents] = read.contents
        assert isinstance(contents, types.TextResourceContents)
        document = EVERYTHING.parent / "docs/architecture.md"
        assert contents.text == document.read_text()

        templates = await session.list_resource_templates()
        assert [template.uri_template for template in templates.resource_templates] == TEMPLATES
        assert templates.next_cursor is None
        templated = await session.read_resource("demo://resource/dynamic/text/5")
        [contents] = templated.contents
        assert isinstance(contents, types.TextResourceContents)
        assert contents.text.startswith("Resource 5: This is a plaintext resource"), contents.text

        with pytest.raises(MCPError) as nowhere:
            await session.read_resource("nowhere://at/all")
        assert nowhere.value.code == -32002, nowhere.value.message
        assert "nowhere://at/all" in nowhere.value.message


async def test_resources_a_server_adds_are_announced_and_listed_across_pages(config: Path) -> None:
    """server-everything's gzip tool adds a session resource and announces it: enough of them
    make the gateway's list longer than a page."""
    changes = Changes()
    async with gateway(config, changes) as (session, _):
        gzip_tool = "everything__gzip-file-as-resource"
        found = await session.call_tool(DISCOVERY, {"toolNames": [gzip_tool]})
        assert not found.is_error
        payload = "data:text/plain;base64," + base64.b64encode(b"hello from a test\n").decode()
        for index in range(PAGE):
            zipped = await session.call_tool(gzip_tool, {"name": f"note-{index}.gz", "data": payload})
            assert not zipped.is_error, zipped.content
        with anyio.fail_after(TIMEOUT):
            while True:
                resources, pages = await all_resources(session)
                if len(resources) == 7 + PAGE:
                    break
                await anyio.sleep(0.1)
        assert changes.resources >= 1
        assert pages == 2
        uris = [resource.uri for resource in resources]
        assert len(set(uris)) == len(uris)
        assert "demo://resource/session/note-99.gz" in uris

        read = await session.read_resource("demo://resource/session/note-7.gz")
        [contents] = read.contents
        assert isinstance(contents, types.BlobResourceContents)
        assert gzip.decompress(base64.b64decode(contents.blob)) == b"hello from a test\n"


def test_check_counts_prompts_and_resources(config: Path) -> None:
    checked = subprocess.run([str(GATEWAY), "--config", str(config), "--check"], capture_output=True, text=True, timeout=TIMEOUT)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    counts = re.findall(r"^  (\d+) prompts, (\d+) resources, (\d+) resource templates$", checked.stdout, re.M)
    assert counts == [("4", "7", "2"), ("4", "7", "2")], checked.stdout
