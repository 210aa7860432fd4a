"""The guide's "The gateway in five minutes" (lazytool-gateway/src/guide/five_minutes.md), step
by step as written: its mcp.json (with the real servers installed locally, by install-upstreams,
in place of `npx -y` and `uvx`), `--check`, `lock`, then the client's entry serving the gateway
on stdio to the official Python SDK."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_gateway import DISCOVERY, GATEWAY, ROOT, TIMEOUT, UPSTREAMS, lazy_names, node_server, text  # noqa: E402
from test_mcp_http import ListChanges, names  # noqa: E402

pytestmark = pytest.mark.anyio
CHAPTER = ROOT / "lazytool-gateway/src/guide/five_minutes.md"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def recipe() -> str:
    return CHAPTER.read_text()


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", recipe(), re.S)


def installed(entry: dict) -> dict:
    """The same server, installed by install-upstreams instead of fetched by npx or uvx."""
    match entry:
        case {"command": "npx", "args": ["-y", package]}:
            return node_server(package.removeprefix("@modelcontextprotocol/"))
        case {"command": "uvx", "args": [package, *rest]}:
            return {"command": str(UPSTREAMS / "venv/bin" / package), "args": rest}
    raise AssertionError(f"the recipe's server {entry} is neither npx nor uvx")


def test_the_guide_recipe_shows_what_this_test_runs() -> None:
    commands = [line.split("#")[0].split() for block in blocks("sh") for line in block.splitlines()]
    assert ["lazytool-gateway", "--config", "mcp.json", "--check"] in commands
    assert ["lazytool-gateway", "--config", "mcp.json", "lock"] in commands
    servers, client = (json.loads(block) for block in blocks("json"))
    assert set(servers["mcpServers"]) == {"memory", "time"}
    assert client["mcpServers"]["tools"] == {"command": "lazytool-gateway", "args": ["--config", "/path/to/mcp.json"]}


async def test_the_gateway_in_five_minutes(tmp_path: Path) -> None:
    servers, client = (json.loads(block) for block in blocks("json"))
    servers["mcpServers"] = {name: installed(entry) for name, entry in servers["mcpServers"].items()}
    servers["mcpServers"]["memory"]["env"] = {"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps(servers, indent=2))

    def gateway(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(GATEWAY), "--config", str(config), *args], capture_output=True, text=True, timeout=TIMEOUT * 2)

    checked = gateway("--check")
    assert checked.returncode == 0, checked.stderr
    report = checked.stdout + checked.stderr
    for server in ["memory", "time"]:
        assert re.search(rf"{server}\b.*\d+ tools?", report), report

    locked = gateway("lock")
    assert locked.returncode == 0, locked.stderr
    lock = json.loads((tmp_path / "lazytool.lock").read_text())
    assert {"memory", "time"} <= set(json.dumps(lock).split('"')), lock

    entry = client["mcpServers"]["tools"]
    assert entry["command"] == "lazytool-gateway"
    args = [str(config) if arg == "/path/to/mcp.json" else arg for arg in entry["args"]]
    changes = ListChanges()
    parameters = StdioServerParameters(command=str(GATEWAY), args=args)
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write, message_handler=changes.handle) as session:
            await session.initialize()
            listed = await session.list_tools()
            assert names(listed) == [DISCOVERY]
            offered = lazy_names(listed)
            assert "memory__create_entities" in offered and "time__get_current_time" in offered
            found = await session.call_tool(DISCOVERY, {"toolNames": ["time__get_current_time"]})
            assert not found.is_error, text(found)
            now = await session.call_tool("time__get_current_time", {"timezone": "UTC"})
            assert not now.is_error, text(now)
            assert json.loads(text(now))["timezone"] == "UTC"
