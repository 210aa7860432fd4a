"""lazytool-gateway in front of a server built on the official Python SDK's low-level `Server`
that lists resources and has no `resources/templates/list` (templateless_server.py: it
announces `resources` and answers that method with -32601): `lock` pins it, `--check` reports
it, and serving offers its tools, prompts and resources, with a warning naming the server
and the list it does not know. A method-not-found on an optional list means "none".
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from test_gateway import DISCOVERY, GATEWAY, TIMEOUT, text

TEMPLATELESS = Path(__file__).with_name("templateless_server.py")
SERVER = "s17"
WARNING = re.compile(rf"WARN .*does not know resources/templates/list \(-32601\): it offers none.* source={SERVER} ")

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    assert GATEWAY.is_file(), f"{GATEWAY} is missing: run `cargo build -p lazytool-gateway` first"
    path = tmp_path / "gateway.json"
    server = {"command": sys.executable, "args": [str(TEMPLATELESS)]}
    path.write_text(json.dumps({"mcpServers": {SERVER: server}}))
    return path


def gateway(config: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(GATEWAY), "--config", str(config), *args],
                          capture_output=True, text=True, timeout=TIMEOUT)


def test_lock_pins_a_server_without_templates(config: Path) -> None:
    locked = gateway(config, "lock")
    assert locked.returncode == 0, locked.stderr
    assert re.search(rf"^{SERVER}: pinned: 1 tools .*: echo; 1 prompt; 1 resource$", locked.stdout, re.M), locked.stdout
    assert WARNING.search(locked.stderr), locked.stderr
    entry = json.loads((config.parent / "lazytool.lock").read_text())["servers"][SERVER]
    assert list(entry["tools"]) == ["echo"]
    assert list(entry["prompts"]) == ["greet"]
    assert list(entry["resources"]) == ["note://readme"]
    assert not entry.get("resourceTemplates"), entry


def test_check_counts_its_prompts_and_resources(config: Path) -> None:
    checked = gateway(config, "--check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert re.search(rf"^{SERVER}: 1 tool,", checked.stdout, re.M), checked.stdout
    # Zero counts are left out of the report (no templates).
    assert re.search(r"^  1 prompt, 1 resource$", checked.stdout, re.M), checked.stdout
    assert WARNING.search(checked.stderr), checked.stderr
    assert "listing the tools" not in checked.stderr, checked.stderr


async def test_serving_offers_its_prompts_and_resources(config: Path, tmp_path: Path) -> None:
    log_path = tmp_path / "gateway.log"
    with log_path.open("w") as log:
        parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(config)])
        async with stdio_client(parameters, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                prompts = await session.list_prompts()
                assert [prompt.name for prompt in prompts.prompts] == [f"{SERVER}__greet"]
                resources = await session.list_resources()
                assert [str(resource.uri) for resource in resources.resources] == ["note://readme"]
                assert (await session.list_resource_templates()).resource_templates == []
                read_back = await session.read_resource("note://readme")
                assert [content.text for content in read_back.contents] == ["read me first"]
                got = await session.get_prompt(f"{SERVER}__greet")
                assert [message.content.text for message in got.messages] == ["hello"]
                found = await session.call_tool(DISCOVERY, {"toolNames": [f"{SERVER}__echo"]})
                assert not found.is_error, text(found)
                echoed = await session.call_tool(f"{SERVER}__echo", {"text": "still here"})
                assert not echoed.is_error and text(echoed) == "still here", text(echoed)
    logged = log_path.read_text()
    assert WARNING.search(logged), logged
    assert "cannot be listed" not in logged, logged
