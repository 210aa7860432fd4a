"""lazytool-gateway in front of an upstream tool whose definition is too large for a model:
hostile_server.py's ``wide``, an input schema of 8,000 properties each described in 100
characters (no text long enough to be cut, 1.1 MB in all), beside the same server's other
tools and a real server (PyPI mcp-server-time), driven by the official MCP Python SDK.
`lazytool-mcp/tests/hostile.rs` and `tests/tests/catalog.rs` check the same bound in
`McpCatalog` and `catalog_tools`.
"""

import json
import re
from pathlib import Path
import subprocess

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from test_gateway import DISCOVERY, GATEWAY, TIMEOUT, lazy_names, text
from test_hostile import hostile, time_server, write_config

WIDE = "8000"


def over(bound: str) -> str:
    """The pattern of the reason `wide` is left out, its size captured."""
    return r"its definition is (1,\d{3},\d{3}) bytes, over the bound of " + re.escape(bound) + " bytes"


pytestmark = pytest.mark.anyio


def sections(report: str) -> dict[str, str]:
    """`--check`'s lines under each server's own line, by server name."""
    found: dict[str, str] = {}
    name = ""
    for line in report.splitlines():
        if not line.startswith(" "):
            name = line.split(":", 1)[0]
            found[name] = ""
        found[name] += line + "\n"
    return found


def test_check_names_the_server_the_tool_its_size_and_the_bound(tmp_path: Path) -> None:
    """`maxDefinitionBytes` under `lazytool` and per server: the server held to a smaller bound
    leaves `wide` out with its size and that bound, its other tools listed; the other, under
    the global bound, lists it."""
    config = write_config(tmp_path / "gateway.json", {
        "hostile": hostile(tmp_path / "hostile.log", HOSTILE_WIDE=WIDE),
        "roomy": hostile(tmp_path / "roomy.log", HOSTILE_WIDE=WIDE),
    }, maxDefinitionBytes=2_000_000, servers={"hostile": {"maxDefinitionBytes": 100_000}})
    checked = subprocess.run([str(GATEWAY), "--config", str(config), "--check"],
                             capture_output=True, text=True, timeout=TIMEOUT)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = sections(checked.stdout)
    left_out = re.search(rf"^  wide: left out: {over('100,000')}$", report["hostile"], re.M)
    assert left_out, checked.stdout
    assert int(left_out[1].replace(",", "")) > 1_000_000
    assert re.search(r"^hostile: 10 tools", report["hostile"], re.M), checked.stdout
    assert re.search(r"^roomy: 11 tools", report["roomy"], re.M), checked.stdout
    assert "wide" not in report["roomy"], checked.stdout


async def test_a_definition_over_the_bound_never_reaches_the_model(tmp_path: Path) -> None:
    """Under the default bound (64 KiB): `wide` is neither listed nor discovered, the log names
    the server, the tool, its size and the bound, and the rest of the server and the other
    server keep working."""
    config = write_config(tmp_path / "gateway.json", {
        "hostile": hostile(tmp_path / "hostile.log", HOSTILE_WIDE=WIDE),
        "time": time_server(),
    })
    log = (tmp_path / "gateway.log").open("w")
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(config)])
    async with stdio_client(parameters, errlog=log) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            offered = lazy_names(listed)
            assert "hostile__echo" in offered and "time__get_current_time" in offered, offered
            assert "hostile__wide" not in offered, offered
            assert len(listed.model_dump_json()) < 20_000

            found = await session.call_tool(DISCOVERY, {"toolNames": ["hostile__wide", "hostile__echo", "time__get_current_time"]})
            assert len(text(found)) < 10_000, len(text(found))
            answer = json.loads(text(found))
            assert [tool["name"] for tool in answer["tools"]] == ["hostile__echo", "time__get_current_time"], answer
            assert "hostile__wide" in " ".join(answer.get("errors", [])), answer

            echoed = await session.call_tool("hostile__echo", {"text": "still"})
            assert not echoed.is_error and text(echoed) == "still", text(echoed)
            now = await session.call_tool("time__get_current_time", {"timezone": "UTC"})
            assert not now.is_error and "datetime" in text(now), text(now)
    log.close()
    lines = [line for line in (tmp_path / "gateway.log").read_text().splitlines() if "wide" in line]
    assert any("hostile" in line and re.search(over("65,536"), line) for line in lines), lines
