"""lazytool-gateway in front of real MCP servers nobody on this project wrote, driven by the
official MCP Python SDK: @modelcontextprotocol/server-everything (stdio and streamable HTTP),
-memory and -filesystem (npm), mcp-server-time and mcp-server-git (PyPI), plus a small
misbehaving server of our own (faulty_server.py) and a 2026-07-28 one on the official SDK
whose tool list changes (modern_server.py).

`.ci/run` installs the servers (tests/mcp/gateway/install-upstreams, into
target/gateway-upstreams), builds the gateway (target/debug/lazytool-gateway, or
LAZYTOOL_GATEWAY) and runs `pytest tests/mcp/gateway`.
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# The HTTP tests' client: the token, ListChanges, connect(url, mode, changes), names, and
# await_line(process, pattern, failure), which reads a server's log up to a line.
from test_mcp_http import (  # noqa: E402
    AUTHORIZED, TOKEN, ListChanges, await_line, connect, modern_call, names, raw_post,
)

ROOT = Path(__file__).resolve().parents[3]
GATEWAY = Path(os.environ.get("LAZYTOOL_GATEWAY", ROOT / "target/debug/lazytool-gateway"))
UPSTREAMS = ROOT / "target/gateway-upstreams"
INSPECTOR = ROOT / "target/gateway-inspector/node_modules/.bin/mcp-inspector"
FAULTY = Path(__file__).with_name("faulty_server.py")
MODERN_SERVER = Path(__file__).with_name("modern_server.py")
DISCOVERY = "__lazy__tool__discovery__"
CALL = "__lazy__tool__call__"
MODERN = "2026-07-28"
TIMEOUT = 60
REAL = ["everything", "memory", "filesystem", "time", "git"]

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def node_server(package: str, *args: str) -> dict:
    script = UPSTREAMS / "node_modules/@modelcontextprotocol" / package / "dist/index.js"
    assert script.is_file(), f"{script} is missing: run tests/mcp/gateway/install-upstreams"
    return {"command": "node", "args": [str(script), *args]}


def config(work: Path) -> dict:
    """Every real server, the faulty one, one that does not exist and one that hangs."""
    (work / "files").mkdir()
    (work / "files/hello.txt").write_text("hello from the filesystem server\n")
    subprocess.run(["git", "init", "-q", str(work / "repo")], check=True)
    (work / "repo/readme.md").write_text("a repository\n")
    return {
        "mcpServers": {
            "everything": node_server("server-everything"),
            "memory": node_server("server-memory") | {"env": {"MEMORY_FILE_PATH": "${GATEWAY_TEST_DIR}/memory.jsonl"}},
            "filesystem": node_server("server-filesystem", str(work / "files")),
            "time": {"command": str(UPSTREAMS / "venv/bin/mcp-server-time"), "args": ["--local-timezone", "UTC"]},
            "git": {"command": str(UPSTREAMS / "venv/bin/mcp-server-git"), "args": ["--repository", str(work / "repo")]},
            "faulty": {"command": sys.executable, "args": [str(FAULTY), "ok", str(work / "faulty.log")]},
            "modern": {"command": sys.executable, "args": [str(MODERN_SERVER)]},
            "missing": {"command": "lazytool-no-such-command"},
            "hangs": {"command": sys.executable, "args": [str(FAULTY), "hang"]},
            "garbage": {"command": sys.executable, "args": [str(FAULTY), "garbage"]},
        },
        "lazytool": {
            "startTimeoutMs": 20000,
            "callTimeoutMs": 8000,
            "servers": {"time": {"eager": ["get_current_time"]}},
        },
    }


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert GATEWAY.is_file(), f"{GATEWAY} is missing: run `cargo build -p lazytool-gateway` first"
    work = tmp_path_factory.mktemp("gateway")
    (work / "gateway.json").write_text(json.dumps(config(work)))
    return work


def environment(work: Path) -> dict[str, str]:
    return os.environ | {"GATEWAY_TEST_DIR": str(work)}


@pytest.fixture(scope="module")
def url(work: Path) -> Iterator[str]:
    process = subprocess.Popen(
        [str(GATEWAY), "--config", str(work / "gateway.json"), "--http", "127.0.0.1:0", "--token", TOKEN],
        stderr=subprocess.PIPE,
        text=True,
        env=environment(work),
    )
    try:
        yield await_line(process, r"at (http://\S+/mcp)", "the gateway did not say where it serves")[1]
    finally:
        process.terminate()
        process.wait(timeout=TIMEOUT)
    # Stopping the gateway stopped its children.
    for pid in started_pids(work):
        assert not alive(pid), f"the upstream {pid} outlived the gateway"


def started_pids(work: Path) -> list[int]:
    return started_pids_in(work / "faulty.log")


def started_pids_in(log: Path) -> list[int]:
    return [int(line.split()[1]) for line in log.read_text().splitlines() if line.startswith("started")]


def alive(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        # A zombie is dead too: only its parent (the gateway, now gone) could reap it.
        status = Path(f"/proc/{pid}/status")
        if status.exists() and "State:\tZ" in status.read_text():
            return False
        time.sleep(0.1)
    return True


def text(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def lazy_names(listed: types.ListToolsResult) -> list[str]:
    """The names the discovery tool lists: full SERVER__TOOL names by default."""
    [discovery] = [tool for tool in listed.tools if tool.name == DISCOVERY]
    found = re.search(r"Tools available: \[([^\]]*)\]", discovery.description or "")
    assert found, discovery.description
    assert "{" not in found.group(1), "grouped names are an option, not the default"
    return found.group(1).split(", ")


async def discover(client: Client, changes: ListChanges, *tools: str) -> None:
    found = await client.call_tool(DISCOVERY, {"toolNames": list(tools)})
    assert not found.is_error, text(found)
    assert [tool["name"] for tool in json.loads(text(found))["tools"]] == list(tools)
    await changes.wait()
    assert set(tools) <= set(names(await client.list_tools()))


async def test_every_server_is_listed_lazily_and_answers(url: str, work: Path) -> None:
    changes = ListChanges()
    async with connect(url, "legacy", changes) as client:
        listed = await client.list_tools()
        # Eager by config: time's get_current_time; everything else behind discovery.
        assert names(listed) == ["time__get_current_time", DISCOVERY]
        lazy = lazy_names(listed)
        for server in REAL:
            assert any(name.startswith(f"{server}__") for name in lazy), server
        assert "faulty__echo" in lazy
        assert not any(name.split("__")[0] in ("missing", "hangs", "garbage") for name in lazy)

        now = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
        assert not now.is_error and json.loads(text(now))["timezone"] == "UTC"

        await discover(client, changes, "everything__echo", "filesystem__read_text_file", "git__git_status")
        echoed = await client.call_tool("everything__echo", {"message": "through the gateway"})
        assert not echoed.is_error and "through the gateway" in text(echoed)
        read = await client.call_tool("filesystem__read_text_file", {"path": str(work / "files/hello.txt")})
        assert text(read) == "hello from the filesystem server\n"
        status = await client.call_tool("git__git_status", {"repo_path": str(work / "repo")})
        assert not status.is_error and "readme.md" in text(status)

        # An upstream isError stays an error result, with the upstream's text.
        outside = await client.call_tool("filesystem__read_text_file", {"path": "/etc/hostname"})
        assert outside.is_error and "outside allowed directories" in text(outside).lower().replace("denied - path ", "")


async def test_a_discovered_tool_is_callable_at_once_without_a_relist(url: str, work: Path) -> None:
    # A client that never lists again after discovering (none of them has to): the answer
    # carried the schema. A unique short name finds the full one.
    async with connect(url, "legacy") as client:
        found = await client.call_tool(DISCOVERY, {"toolNames": ["read_text_file"]})
        assert not found.is_error, text(found)
        assert [tool["name"] for tool in json.loads(text(found))["tools"]] == ["filesystem__read_text_file"]
        read = await client.call_tool("filesystem__read_text_file", {"path": str(work / "files/hello.txt")})
        assert text(read) == "hello from the filesystem server\n"

        # `echo` ends three servers' tools: the error names them.
        ambiguous = await client.call_tool(DISCOVERY, {"toolNames": ["echo"]})
        [error] = json.loads(text(ambiguous))["errors"]
        assert error.startswith("'echo' is the end of several tools' names: [everything__echo, faulty__echo, modern__echo]"), error
        # An unknown name gets the closest names, not the catalog.
        unknown = await client.call_tool(DISCOVERY, {"toolNames": ["everything__ecko"]})
        [error] = json.loads(text(unknown))["errors"]
        assert error.startswith("Unknown tool 'everything__ecko'. Closest of the "), error
        assert "[everything__echo, " in error, error


async def test_memory_keeps_its_state_across_calls_and_clients(url: str) -> None:
    changes = ListChanges()
    async with connect(url, "legacy", changes) as client:
        await discover(client, changes, "memory__create_entities", "memory__read_graph")
        created = await client.call_tool("memory__create_entities", {"entities": [
            {"name": "lazytool", "entityType": "project", "observations": ["serves tools lazily"]},
        ]})
        assert not created.is_error, text(created)
    changes = ListChanges()
    async with connect(url, "legacy", changes) as other:
        await discover(other, changes, "memory__read_graph")
        graph = await other.call_tool("memory__read_graph", {})
        assert "serves tools lazily" in text(graph)


async def test_invalid_arguments_are_stopped_before_forwarding(url: str, work: Path) -> None:
    changes = ListChanges()
    async with connect(url, "legacy", changes) as client:
        await discover(client, changes, "faulty__echo")
        before = (work / "faulty.log").read_text().count("call echo")
        invalid = await client.call_tool("faulty__echo", {"text": 42})
        assert invalid.is_error and "text" in text(invalid)
        missing = await client.call_tool("faulty__echo", {})
        assert missing.is_error and "text" in text(missing)
        assert (work / "faulty.log").read_text().count("call echo") == before
        fine = await client.call_tool("faulty__echo", {"text": "hi"})
        assert text(fine) == "hi"
        assert (work / "faulty.log").read_text().count("call echo") == before + 1


async def test_content_blocks_and_is_error_pass_through(url: str) -> None:
    changes = ListChanges()
    async with connect(url, "legacy", changes) as client:
        await discover(client, changes, "faulty__image", "faulty__fail")
        image = await client.call_tool("faulty__image", {})
        assert not image.is_error
        kinds = [block.type for block in image.content]
        assert kinds == ["text", "image"]
        assert image.content[1].mime_type == "image/png"
        failed = await client.call_tool("faulty__fail", {})
        assert failed.is_error and text(failed) == "the upstream refused"


async def test_a_crash_mid_session_is_an_error_then_a_restart(url: str, work: Path) -> None:
    changes = ListChanges()
    async with connect(url, "legacy", changes) as client:
        await discover(client, changes, "faulty__crash", "faulty__echo")
        starts = len(started_pids(work))
        with anyio.fail_after(TIMEOUT):
            crashed = await client.call_tool("faulty__crash", {})
        assert crashed.is_error
        # Calls answer errors in bounded time until the restart (after its backoff) succeeds.
        deadline = time.monotonic() + TIMEOUT
        while True:
            with anyio.fail_after(TIMEOUT):
                again = await client.call_tool("faulty__echo", {"text": "back"})
            if not again.is_error:
                break
            assert "faulty" in text(again)
            assert time.monotonic() < deadline, text(again)
            await anyio.sleep(0.5)
        assert text(again) == "back"
        assert len(started_pids(work)) == starts + 1
        # The rest of the gateway never noticed.
        now = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
        assert not now.is_error


async def test_a_hanging_call_times_out_as_an_error(url: str) -> None:
    changes = ListChanges()
    async with connect(url, "legacy", changes) as client:
        await discover(client, changes, "faulty__slow")
        with anyio.fail_after(TIMEOUT):
            slow = await client.call_tool("faulty__slow", {"seconds": 3600})
        assert slow.is_error and "did not answer within" in text(slow)


async def test_20_concurrent_calls(url: str) -> None:
    changes = ListChanges()
    async with connect(url, "legacy", changes) as client:
        await discover(client, changes, "everything__echo", "faulty__echo")
        results: dict[int, str] = {}

        async def one(index: int) -> None:
            tool, key = ("everything__echo", "message") if index % 2 else ("faulty__echo", "text")
            result = await client.call_tool(tool, {key: f"call {index}"})
            assert not result.is_error, text(result)
            results[index] = text(result)

        with anyio.fail_after(TIMEOUT):
            async with anyio.create_task_group() as group:
                for index in range(20):
                    group.start_soon(one, index)
        assert all(f"call {index}" in results[index] for index in range(20))


# faulty speaks 2025-11-25 (a `list_changed` notification), modern 2026-07-28 (the
# notification on a `subscriptions/listen` stream the gateway opened).
@pytest.mark.parametrize("server", ["faulty", "modern"])
async def test_upstream_list_changed_refreshes_the_catalog(url: str, server: str) -> None:
    changes = ListChanges()
    async with connect(url, "legacy", changes) as client:
        assert f"{server}__extra" not in lazy_names(await client.list_tools())
        await discover(client, changes, f"{server}__grow")
        grown = await client.call_tool(f"{server}__grow", {})
        assert text(grown) == "grown"
        # The gateway lists the upstream again and tells its client.
        await changes.wait()
        assert f"{server}__extra" in lazy_names(await client.list_tools())
        assert f"{server}__grow" in names(await client.list_tools())
        await discover(client, changes, f"{server}__extra")
        assert text(await client.call_tool(f"{server}__extra", {})) == "extra ran"


async def test_the_stateless_flow_calls_through(url: str) -> None:
    async with connect(url, MODERN) as client:
        assert client.protocol_version == MODERN
        listed = await client.list_tools()
        assert names(listed) == ["time__get_current_time", DISCOVERY, CALL]
        assert listed.ttl_ms is not None
        found = await client.call_tool(DISCOVERY, {"toolNames": ["time__convert_time"]})
        [schema] = json.loads(text(found))["tools"]
        assert "source_timezone" in schema["inputSchema"]["properties"]
        converted = await client.call_tool(CALL, {"name": "time__convert_time", "arguments": {
            "source_timezone": "UTC", "time": "12:00", "target_timezone": "Europe/Paris"}})
        assert not converted.is_error, text(converted)
        assert json.loads(text(converted))["target"]["timezone"] == "Europe/Paris"
        invalid = await client.call_tool(CALL, {"name": "time__convert_time", "arguments": {"time": "12:00"}})
        assert invalid.is_error and "source_timezone" in text(invalid)


def test_check_reports_every_server(work: Path) -> None:
    checked = subprocess.run(
        [str(GATEWAY), "--config", str(work / "gateway.json"), "--check"],
        capture_output=True, text=True, env=environment(work), timeout=TIMEOUT * 2,
    )
    assert checked.returncode == 1, checked.stdout
    lines = {line.split(":")[0]: line for line in checked.stdout.splitlines()}
    for server in [*REAL, "faulty", "modern"]:
        assert re.search(r": \d+ tools, \d+ tokens", lines[server]), lines[server]
    # Each upstream is spoken to in the newest protocol it has: the PyPI servers and
    # modern_server.py (Python SDK 2.x) answer the 2026-07-28 probe, the npm ones and
    # faulty_server.py only `initialize`.
    for server in ["time", "git", "modern"]:
        assert lines[server].endswith(f"(MCP {MODERN})"), lines[server]
    for server in ["everything", "memory", "filesystem", "faulty"]:
        assert lines[server].endswith("(MCP 2025-11-25)"), lines[server]
    assert "No such file" in lines["missing"]
    assert "within" in lines["hangs"]
    assert "FAILED" in lines["garbage"]
    assert lines["total"].startswith("total: ")


def test_a_server_too_slow_for_the_probe_is_started_again_in_2026_07_28(tmp_path: Path) -> None:
    """A 2026-07-28 server that reads nothing for 12 s answers the `server/discover` probe
    after its 10 s and refuses the `initialize` sent then (the Python SDK does, -32022): the
    late discover result fails that `initialize` at once, and a second start in 2026-07-28
    joins."""
    marker = tmp_path / "slept"
    config = {"mcpServers": {
        "modern": {"command": sys.executable, "args": [str(MODERN_SERVER), str(marker)]},
    }}
    (tmp_path / "gateway.json").write_text(json.dumps(config))
    checked = subprocess.run(
        [str(GATEWAY), "--config", str(tmp_path / "gateway.json"), "--check"],
        capture_output=True, text=True, timeout=TIMEOUT * 2,
    )
    assert marker.exists(), "the first start did not sleep"
    assert checked.returncode == 0, checked.stdout + checked.stderr[-2000:]
    [line] = [line for line in checked.stdout.splitlines() if line.startswith("modern:")]
    assert re.search(r": 2 tools, \d+ tokens", line) and line.endswith(f"(MCP {MODERN})"), line


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_failures_say_why_in_the_servers_own_words(tmp_path: Path) -> None:
    config = {"mcpServers": {
        # The server's own reason is on its stderr: it ends in the failure line.
        "git": {"command": str(UPSTREAMS / "venv/bin/mcp-server-git"), "args": ["--repository"]},
        "files": node_server("server-filesystem", str(tmp_path / "no-such-dir")),
        "down": {"url": f"http://127.0.0.1:{closed_port()}/mcp?api_key=${{GATEWAY_SECRET}}"},
    }}
    (tmp_path / "gateway.json").write_text(json.dumps(config))
    checked = subprocess.run(
        [str(GATEWAY), "--config", str(tmp_path / "gateway.json"), "--check"],
        capture_output=True, text=True, timeout=TIMEOUT, env=os.environ | {"GATEWAY_SECRET": "s3cret-value"},
    )
    assert checked.returncode == 1, checked.stdout
    lines = {line.split(":")[0]: line for line in checked.stdout.splitlines()}
    assert "exited, or closed its output, before the MCP handshake; its last stderr lines: " in lines["git"], lines["git"]
    assert "Option '--repository' requires an argument" in lines["git"], lines["git"]
    assert "None of the specified directories are accessible" in lines["files"], lines["files"]
    assert re.search(r"cannot reach http://127\.0\.0\.1:\d+/mcp\?api_key=\*\*\*: connection refused$", lines["down"]), lines["down"]
    assert "s3cret-value" not in checked.stdout + checked.stderr
    assert "rmcp::" not in checked.stdout + checked.stderr


def test_the_command_line_has_help_version_and_log_levels(tmp_path: Path) -> None:
    helped = subprocess.run([str(GATEWAY), "--help"], capture_output=True, text=True, timeout=TIMEOUT)
    assert helped.returncode == 0
    for flag in ["--config <FILE>", "--check", "--http <ADDR|PORT>", "--token-file <PATH>", "--quiet", "--verbose", "RUST_LOG"]:
        assert flag in helped.stdout, flag
    version = subprocess.run([str(GATEWAY), "--version"], capture_output=True, text=True, timeout=TIMEOUT)
    assert version.returncode == 0 and re.fullmatch(r"lazytool-gateway \d+\.\d+\.\d+\n", version.stdout), version.stdout
    wrong = subprocess.run([str(GATEWAY), "--config"], capture_output=True, text=True, timeout=TIMEOUT)
    assert wrong.returncode == 2 and "--help" in wrong.stderr, wrong.stderr

    config = {"mcpServers": {"faulty": {"command": sys.executable, "args": [str(FAULTY), "ok", str(tmp_path / "faulty.log")]}}}
    (tmp_path / "gateway.json").write_text(json.dumps(config))

    def logged(*flags: str, rust_log: str | None = None) -> str:
        env = {key: value for key, value in os.environ.items() if key != "RUST_LOG"}
        if rust_log is not None:
            env["RUST_LOG"] = rust_log
        checked = subprocess.run(
            [str(GATEWAY), "--config", str(tmp_path / "gateway.json"), "--check", *flags],
            capture_output=True, text=True, timeout=TIMEOUT, env=env,
        )
        assert checked.returncode == 0, checked.stderr
        return checked.stderr

    # --check's report is the output: its log has warnings only, unless asked.
    assert logged() == ""
    assert " INFO lazytool::" in logged("-v")
    assert logged("-q") == ""
    assert re.search(r" (DEBUG|TRACE) ", logged("-vv"))
    assert logged(rust_log="off") == ""
    # RUST_LOG wins over -v.
    assert " INFO " not in logged("-v", rust_log="lazytool=warn")


def test_the_inspector_cli_runs_the_gateway_as_documented(tmp_path: Path) -> None:
    """The MCP Inspector's CLI opens a new session per run: a lazy tool is never callable
    from it, so the guide (clients.md) has it list and call with `"eager": ["*"]`."""
    assert INSPECTOR.is_file(), f"{INSPECTOR} is missing: run tests/mcp/gateway/install-upstreams"
    faulty = {"command": sys.executable, "args": [str(FAULTY), "ok", str(tmp_path / "faulty.log")]}

    def inspect(config: dict, *method: str) -> dict:
        (tmp_path / "gateway.json").write_text(json.dumps(config))
        ran = subprocess.run(
            [str(INSPECTOR), "--cli", *method, "--", str(GATEWAY), "--config", str(tmp_path / "gateway.json"), "-q"],
            capture_output=True, text=True, timeout=TIMEOUT,
        )
        assert ran.returncode == 0, ran.stderr
        return json.loads(ran.stdout)

    lazy = inspect({"mcpServers": {"faulty": faulty}}, "--method", "tools/list")
    assert [tool["name"] for tool in lazy["tools"]] == [DISCOVERY]
    eager = {"mcpServers": {"faulty": faulty}, "lazytool": {"servers": {"faulty": {"eager": ["*"]}}}}
    listed = inspect(eager, "--method", "tools/list")
    assert "faulty__echo" in [tool["name"] for tool in listed["tools"]]
    assert DISCOVERY not in [tool["name"] for tool in listed["tools"]]
    called = inspect(eager, "--method", "tools/call", "--tool-name", "faulty__echo", "--tool-arg", "text=hi")
    assert called["content"] == [{"type": "text", "text": "hi"}] and not called["isError"]


def test_check_is_a_report_with_plurals_right(tmp_path: Path) -> None:
    config = {"mcpServers": {
        "faulty": {"command": sys.executable, "args": [str(FAULTY), "ok", str(tmp_path / "faulty.log")]},
        "one": {"command": sys.executable, "args": [str(FAULTY), "ok", str(tmp_path / "one.log")]},
    }, "lazytool": {"servers": {"one": {"allow": ["echo"]}}}}
    (tmp_path / "gateway.json").write_text(json.dumps(config))
    checked = subprocess.run(
        [str(GATEWAY), "--config", str(tmp_path / "gateway.json"), "--check"],
        capture_output=True, text=True, timeout=TIMEOUT,
    )
    assert checked.returncode == 0, checked.stderr
    assert checked.stderr == "", checked.stderr
    lines = checked.stdout.splitlines()
    assert re.fullmatch(r"faulty: 6 tools, \d+ tokens when sent eagerly \(MCP 2025-11-25\)", lines[0]), lines
    assert re.fullmatch(r"one: 1 tool, \d+ tokens when sent eagerly \(MCP 2025-11-25\)", lines[1]), lines
    assert re.fullmatch(r"total: 7 tools, \d+ tokens eagerly; the first request carries \d+ tokens of tools", lines[2]), lines


def test_lock_takes_quiet_and_config_after_the_command(tmp_path: Path) -> None:
    config = {"mcpServers": {"faulty": {"command": sys.executable, "args": [str(FAULTY), "ok", str(tmp_path / "faulty.log")]}}}
    (tmp_path / "gateway.json").write_text(json.dumps(config))
    locked = subprocess.run(
        [str(GATEWAY), "lock", "-q", "--config", str(tmp_path / "gateway.json")],
        capture_output=True, text=True, timeout=TIMEOUT,
    )
    assert locked.returncode == 0, locked.stderr
    assert locked.stderr == "", locked.stderr
    assert (tmp_path / "lazytool.lock").is_file()
    missing = subprocess.run([str(GATEWAY), "lock", "-q"], capture_output=True, text=True, timeout=TIMEOUT)
    assert missing.returncode == 2 and "--config <FILE>" in missing.stderr, missing.stderr


@pytest.mark.parametrize("flags", [[], ["-v"]])
async def test_serving_logs_each_call_only_when_asked(tmp_path: Path, flags: list[str]) -> None:
    config = {"mcpServers": {"faulty": {"command": sys.executable, "args": [str(FAULTY), "ok", str(tmp_path / "faulty.log")]}}}
    (tmp_path / "gateway.json").write_text(json.dumps(config))
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(tmp_path / "gateway.json"), *flags])
    with open(tmp_path / "stderr.log", "w") as errlog:
        async with stdio_client(parameters, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.call_tool(DISCOVERY, {"toolNames": ["faulty__echo"]})
                await session.list_tools()
                assert text(await session.call_tool("faulty__echo", {"text": "hi"})) == "hi"
    logged = (tmp_path / "stderr.log").read_text()
    assert "the upstream server is running" in logged, logged
    per_call = ["execute_tool{", "lazytool::discovery"]
    if flags:
        assert all(line in logged for line in per_call), logged
    else:
        assert not any(line in logged for line in per_call), logged


def test_a_bad_config_points_at_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "mcp.json"
    bad.write_text('{\n  "mcpServers": {\n    "time": {"comand": "uvx"},\n    "git": {"command": "uvx"}\n    "x": {}\n  }\n}\n')
    checked = subprocess.run([str(GATEWAY), "--config", str(bad)], capture_output=True, text=True, timeout=TIMEOUT)
    assert checked.returncode == 1
    assert checked.stderr == f"lazytool-gateway: {bad} has 1 problem:\n  {bad}:4:30: $: not valid JSON: expected comma\n", checked.stderr
    bad.write_text(bad.read_text().replace('"uvx"}\n    "x"', '"uvx"},\n    "x"'))
    checked = subprocess.run([str(GATEWAY), "--config", str(bad)], capture_output=True, text=True, timeout=TIMEOUT)
    assert checked.returncode == 1
    assert checked.stderr.splitlines()[1:] == [
        f"  {bad}:3:5: $.mcpServers.time: needs `command` (a child process) or `url` (streamable HTTP); is `comand` a typo of `command`?",
        f"  {bad}:5:5: $.mcpServers.x: needs `command` (a child process) or `url` (streamable HTTP)",
    ], checked.stderr


def test_a_bad_config_lists_every_problem(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({
        "mcpServers": {"a": {"args": ["x"]}, "b": {"command": 3}, "c": {"url": "ftp://x"}},
        "lazytool": {"mode": "everything", "servers": {"zzz": {}}},
    }))
    checked = subprocess.run([str(GATEWAY), "--config", str(bad)], capture_output=True, text=True, timeout=TIMEOUT)
    assert checked.returncode == 1
    for path in ["$.lazytool.mode", "$.lazytool.servers.zzz", "$.mcpServers.a", "$.mcpServers.b.command", "$.mcpServers.c.url"]:
        assert path in checked.stderr, checked.stderr


async def test_stdio_serves_and_stops_its_children(tmp_path: Path) -> None:
    config = {"mcpServers": {"faulty": {"command": sys.executable, "args": [str(FAULTY), "ok", str(tmp_path / "faulty.log")]}}}
    (tmp_path / "gateway.json").write_text(json.dumps(config))
    changes = ListChanges()
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(tmp_path / "gateway.json")])
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write, message_handler=changes.handle) as session:
            await session.initialize()
            listed = await session.list_tools()
            assert names(listed) == [DISCOVERY]
            assert lazy_names(listed) == [f"faulty__{name}" for name in sorted(["echo", "crash", "grow", "slow", "image", "fail"])]
            await session.call_tool(DISCOVERY, {"toolNames": ["faulty__echo"]})
            await session.list_tools()
            assert text(await session.call_tool("faulty__echo", {"text": "stdio"})) == "stdio"
    [pid] = started_pids(tmp_path)
    assert not alive(pid)



DOWN = re.compile(
    r"the MCP server `time` failed to start: cannot start `\S*/mcp-server-tme`: No such file or directory[^;]*; "
    r"(its next start attempt is in \d+\.\d s|its next start attempt is due now|it is being started again now)"
)


@pytest.mark.parametrize("mode", ["names", "search"])
async def test_a_server_that_failed_to_start_says_why_instead_of_unknown_tool(tmp_path: Path, mode: str) -> None:
    config = {
        "mcpServers": {
            "memory": node_server("server-memory") | {"env": {"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}},
            # A typo in the command: mcp-server-time.
            "time": {"command": str(UPSTREAMS / "venv/bin/mcp-server-tme"), "args": ["--local-timezone", "UTC"]},
        },
        "lazytool": {"mode": mode},
    }
    (tmp_path / "gateway.json").write_text(json.dumps(config))
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(tmp_path / "gateway.json"), "-q"])
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            found = await session.call_tool(DISCOVERY, {"toolNames": ["time__get_current_time"]})
            assert not found.is_error, text(found)
            [error] = json.loads(text(found))["errors"]
            assert error.startswith("'time__get_current_time' is not available now: "), error
            assert DOWN.search(error), error
            assert "Unknown tool" not in error, error
            if mode == "search":
                searched = json.loads(text(await session.call_tool(DISCOVERY, {"query": "current time"})))
                notes = [note for note in searched.get("errors", []) if note.startswith("The MCP server `time`")]
                assert len(notes) == 1 and DOWN.search(notes[0].replace("The", "the", 1)), searched
                assert notes[0].endswith("none of its tools is searched until it starts."), notes
            called = await session.call_tool("time__get_current_time", {"timezone": "UTC"})
            assert called.is_error, text(called)
            assert text(called).startswith("Error: 'time__get_current_time' is not available now: "), text(called)
            assert DOWN.search(text(called)), text(called)
            # The good server is served, and a name of no server stays an unknown tool.
            listed = await session.list_tools()
            assert DISCOVERY in names(listed)
            memory = await session.call_tool(DISCOVERY, {"toolNames": ["memory__read_graph"]})
            assert [tool["name"] for tool in json.loads(text(memory))["tools"]] == ["memory__read_graph"], text(memory)
            with pytest.raises(Exception, match="unknown tool 'weather__today'"):
                unknown = await session.call_tool("weather__today", {})
                raise AssertionError(text(unknown))


@pytest.fixture
def everything_over_http() -> Iterator[str]:
    """server-everything serving streamable HTTP on a free port of 127.0.0.1; its URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = node_server("server-everything", "streamableHttp")
    process = subprocess.Popen([server["command"], *server["args"]], env=os.environ | {"PORT": str(port)},
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        await_line(process, f"listening on port {port}", "server-everything did not listen")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=TIMEOUT)


async def test_a_streamable_http_upstream(tmp_path: Path, everything_over_http: str) -> None:
    """A real server over streamable HTTP (npm server-everything), reached in 2025-11-25 after
    its answer to the 2026-07-28 probe, served on stdio."""
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({"mcpServers": {"everything": {"url": everything_over_http}}}))
    checked = subprocess.run([str(GATEWAY), "--config", str(config), "--check"], capture_output=True, text=True, timeout=TIMEOUT)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert re.search(r"^everything: \d+ tools, \d+ tokens when sent eagerly \(MCP 2025-11-25\)$", checked.stdout, re.M), checked.stdout
    changes = ListChanges()
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(config)])
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write, message_handler=changes.handle) as session:
            await session.initialize()
            assert "everything__echo" in lazy_names(await session.list_tools())
            found = await session.call_tool(DISCOVERY, {"toolNames": ["everything__echo"]})
            assert not found.is_error, text(found)
            await session.list_tools()
            echoed = await session.call_tool("everything__echo", {"message": "over HTTP"})
            assert not echoed.is_error and "over HTTP" in text(echoed)
            invalid = await session.call_tool("everything__echo", {"message": 3})
            assert invalid.is_error and "message" in text(invalid)

def process_children() -> dict[int, list[int]]:
    """Each process's children, from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # The command name, in parentheses, may hold spaces: the fields after it are fixed.
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    return children


def descendants(children: dict[int, list[int]], root: int) -> set[int]:
    """Every process below `root`."""
    found, queue = set(), [root]
    while queue:
        for child in children.get(queue.pop(), []):
            if child not in found:
                found.add(child)
                queue.append(child)
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_killed_gateway_leaves_no_upstream_behind(tmp_path: Path) -> None:
    """SIGKILL, which no clean-up code sees: a child that ignores the end of its input dies by
    the parent-death signal; a grandchild (a server behind `sh -c`), and the real servers,
    exit at the end of their input."""
    (tmp_path / "files").mkdir()
    config = {"mcpServers": {
        "stubborn": {"command": sys.executable, "args": [str(FAULTY), "stubborn", str(tmp_path / "stubborn.log")]},
        "wrapped": {"command": "sh", "args": ["-c", f"'{sys.executable}' '{FAULTY}' ok '{tmp_path / 'wrapped.log'}'; exit 0"]},
        "filesystem": node_server("server-filesystem", str(tmp_path / "files")),
        "time": {"command": str(UPSTREAMS / "venv/bin/mcp-server-time")},
    }}
    (tmp_path / "gateway.json").write_text(json.dumps(config))
    process = subprocess.Popen(
        [str(GATEWAY), "--config", str(tmp_path / "gateway.json"), "--http", "127.0.0.1:0"],
        stderr=subprocess.PIPE, text=True,
    )
    try:
        await_line(process, r"at (http://\S+/mcp)", "the gateway did not say where it serves")
        children = process_children()
        below = descendants(children, process.pid)
        [stubborn] = started_pids_in(tmp_path / "stubborn.log")
        [wrapped] = started_pids_in(tmp_path / "wrapped.log")
        assert {stubborn, wrapped} <= below
        assert wrapped not in children[process.pid], "the wrapped server should be a grandchild"
        assert len(below) >= 5, below
    finally:
        process.kill()
        process.wait(timeout=TIMEOUT)
    for pid in below:
        assert not alive(pid), f"{pid} ({Path(f'/proc/{pid}/cmdline').read_text()!r}) outlived the gateway"


async def test_http_serving_drains_a_call_in_flight_and_reports_health(tmp_path: Path) -> None:
    """`--http` with lazytool-mcp's serving flags: `/healthz` and `/readyz` answer without a
    token, `/metrics` (with it) says which upstreams are listed, and SIGTERM lets a call in
    flight return its real result before the gateway exits 0."""
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({
        "mcpServers": {"faulty": {"command": sys.executable, "args": [str(FAULTY), "ok"]}},
        "lazytool": {"servers": {"faulty": {"eager": ["slow"]}}},
    }))
    process = subprocess.Popen(
        [str(GATEWAY), "--config", str(config), "--http", "127.0.0.1:0", "--token", TOKEN,
         "--drain-timeout", "20s", "--max-sessions", "50"],
        stderr=subprocess.PIPE, text=True,
    )
    try:
        url = await_line(process, r"at (http://\S+/mcp)", "the gateway did not say where it serves")[1]
        base = url.removesuffix("/mcp")

        def get(path: str, token: str | None = None) -> tuple[int, str]:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            request = urllib.request.Request(base + path, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                    return answer.status, answer.read().decode()
            except urllib.error.HTTPError as error:
                return error.code, ""

        assert get("/healthz")[0] == 200 and get("/readyz")[0] == 200
        assert get("/metrics")[0] == 401
        status, metrics = get("/metrics", TOKEN)
        assert status == 200 and 'lazytool_gateway_upstream_listed{server="faulty"} 1' in metrics, metrics
        # A 2026-07-28 call, a request of its own: a stateful client would also hold a GET
        # stream, which the drain ends and the official client then fails to reopen.
        headers = AUTHORIZED | {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "faulty__slow"}
        results = []

        async def slow_call() -> None:
            results.append(await raw_post(url, modern_call("faulty__slow", {"seconds": 2}), headers))

        with anyio.fail_after(TIMEOUT):
            async with anyio.create_task_group() as group:
                group.start_soon(slow_call)
                await anyio.sleep(0.7)
                process.send_signal(signal.SIGTERM)
        [answer] = results
        assert answer.status_code == 200, answer.text
        assert answer.json()["result"]["content"][0]["text"] == "done", answer.text
        assert process.wait(timeout=TIMEOUT) == 0
    finally:
        process.kill()
        process.wait()
