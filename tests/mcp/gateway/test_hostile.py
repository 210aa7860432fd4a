"""lazytool-gateway in front of an upstream that attacks its client (hostile_server.py) beside a
real one (PyPI mcp-server-time, and npm server-everything over streamable HTTP), driven by the
official MCP Python SDK: what the guide's "faults stay with their server" promises, seen from
a client of the gateway binary. `lazytool-mcp/tests/hostile.rs` checks the same upstream in
front of `McpSource` and `McpCatalog` one fault at a time.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time
import unicodedata
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from test_gateway import (  # noqa: F401 (everything_over_http is a fixture)
    DISCOVERY,
    GATEWAY,
    TIMEOUT,
    UPSTREAMS,
    alive,
    await_line,
    descendants,
    everything_over_http,
    lazy_names,
    process_children,
    text,
)
from test_mcp_http import ListChanges

HOSTILE = Path(__file__).with_name("hostile_server.py")
SECRET = "s3cret-api-key-7d1e"
LEFT_OUT = ["bad_type", "bad_pattern", "dangling_ref", "__lazy__tool__discovery__", "__lazy__tool__call__"]

pytestmark = pytest.mark.anyio


def hostile(state: Path, **env: str) -> dict:
    return {"command": sys.executable, "args": [str(HOSTILE), str(state)], "env": env}


def time_server() -> dict:
    return {"command": str(UPSTREAMS / "venv/bin/mcp-server-time"), "args": ["--local-timezone", "UTC"]}


def write_config(path: Path, upstreams: dict, **lazytool: object) -> Path:
    path.write_text(json.dumps({"mcpServers": upstreams, "lazytool": lazytool}))
    return path


def pids(state: Path, kind: str) -> list[int]:
    lines = state.read_text().splitlines() if state.exists() else []
    return [int(line.split()[1]) for line in lines if line.startswith(kind + " ")]


def hidden(character: str) -> bool:
    """A character a model reads and a person does not see: tag characters, bidi controls,
    zero-width and other format characters, C0 and C1 controls other than newline and tab."""
    return unicodedata.category(character) in ("Cf", "Cc") and character not in "\n\t"


def test_check_reports_what_was_left_out_and_cleaned(tmp_path: Path) -> None:
    """Unservable tools (schemas that do not compile; with an empty prefix, lazytool's own
    reserved names) are left out with their reason, hidden text is cleaned and counted; the
    hostile server and the real one next to it both list their tools."""
    config = write_config(tmp_path / "gateway.json", {
        "hostile": hostile(tmp_path / "hostile.log"),
        "time": time_server(),
    }, servers={"hostile": {"prefix": ""}})
    checked = subprocess.run([str(GATEWAY), "--config", str(config), "--check"],
                             capture_output=True, text=True, timeout=TIMEOUT)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = checked.stdout
    assert re.search(r"^hostile: 8 tools", report, re.M), report
    assert re.search(r"^time: 2 tools", report, re.M), report
    for tool in LEFT_OUT:
        assert re.search(rf"^  {re.escape(tool)}: left out: ", report, re.M), report
    assert re.search(r"^  tagged: cleaned: .*tag character", report, re.M), report
    assert re.search(r"^  huge: cleaned: .*cut by 997,952 characters", report, re.M), report
    assert not any(hidden(character) for character in report), repr(report)


async def test_a_hostile_upstream_leaves_the_others_serving(tmp_path: Path) -> None:
    """Over stdio: the hostile server's servable tools are offered, cleaned and bounded; a tool
    that cannot be served arriving on a relist is left out while the other server's tools keep
    working; an answer that is not JSON-RPC fails its call at once, not at the call timeout."""
    config = write_config(tmp_path / "gateway.json", {
        "hostile": hostile(tmp_path / "hostile.log"),
        "time": time_server(),
    }, callTimeoutMs=120_000)
    changes = ListChanges()
    log = (tmp_path / "gateway.log").open("w")
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(config)])
    async with stdio_client(parameters, errlog=log) as (read, write):
        async with ClientSession(read, write, message_handler=changes.handle) as session:
            await session.initialize()
            listed = await session.list_tools()
            offered = lazy_names(listed)
            assert "hostile__echo" in offered and "time__get_current_time" in offered, offered
            for tool in ["bad_type", "bad_pattern", "dangling_ref"]:
                assert f"hostile__{tool}" not in offered, offered
            assert not any(hidden(character) for character in listed.model_dump_json()), "hidden text listed"

            found = await session.call_tool(DISCOVERY, {"toolNames": ["hostile__tagged", "hostile__huge"]})
            assert not found.is_error, text(found)
            assert not any(hidden(character) for character in text(found)), repr(text(found))
            tools = {tool["name"]: tool for tool in json.loads(text(found))["tools"]}
            assert tools["hostile__tagged"]["description"].startswith("Adds numbers.")
            assert "2J" not in tools["hostile__tagged"]["description"]
            assert tools["hostile__tagged"]["inputSchema"]["properties"]["mode"]["enum"] == ["fast", "slow"]
            assert len(tools["hostile__huge"]["description"]) <= 2100
            assert len(text(found)) < 10_000
            await changes.wait()

            await session.call_tool(DISCOVERY, {"toolNames": ["hostile__poison", "hostile__junk", "time__get_current_time"]})
            await changes.wait()
            await session.list_tools()
            poisoned = await session.call_tool("hostile__poison", {})
            assert not poisoned.is_error, text(poisoned)
            await changes.wait()
            offered = lazy_names(await session.list_tools())
            assert "hostile__late_good" in offered and "hostile__late_bad" not in offered, offered

            now = await session.call_tool("time__get_current_time", {"timezone": "UTC"})
            assert not now.is_error and "datetime" in text(now), text(now)

            started = time.monotonic()
            junk = await session.call_tool("hostile__junk", {})
            assert junk.is_error and "not a JSON-RPC message" in text(junk), text(junk)
            assert time.monotonic() - started < 100, "the call waited for its timeout"
            echoed = await session.call_tool(DISCOVERY, {"toolNames": ["hostile__echo"]})
            assert not echoed.is_error
    log.close()
    assert "late_bad" in (tmp_path / "gateway.log").read_text()


async def test_secrets_in_an_upstream_url_reach_no_output(tmp_path: Path, everything_over_http: str) -> None:
    """A `${VAR}` in a server's URL: `--check`, the log and the error of a call to that server
    once it is down never show it."""
    config = write_config(tmp_path / "gateway.json", {
        "remote": {"url": everything_over_http + "?api_key=${REMOTE_KEY}"},
    }, callTimeoutMs=20_000)
    environment = os.environ | {"REMOTE_KEY": SECRET}
    checked = subprocess.run([str(GATEWAY), "--config", str(config), "--check"],
                             capture_output=True, text=True, timeout=TIMEOUT, env=environment)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert SECRET not in checked.stdout + checked.stderr

    log = (tmp_path / "gateway.log").open("w")
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(config)], env=environment)
    async with stdio_client(parameters, errlog=log) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool(DISCOVERY, {"toolNames": ["remote__echo"]})
            await session.list_tools()
            echoed = await session.call_tool("remote__echo", {"message": "up"})
            assert not echoed.is_error, text(echoed)
            down = subprocess.run(["pkill", "-f", "server-everything/dist/index.js streamableHttp"], check=False)
            assert down.returncode == 0, "server-everything was not running"
            time.sleep(0.5)
            failed = await session.call_tool("remote__echo", {"message": "down"})
            assert failed.is_error, text(failed)
            assert SECRET not in text(failed), text(failed)
    log.close()
    assert SECRET not in (tmp_path / "gateway.log").read_text()


def ready_on_stdio(process: subprocess.Popen) -> None:
    """Waits until the gateway answers an `initialize` on its stdin (its servers started)."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}) + "\n")
    process.stdin.flush()
    assert '"id":1' in process.stdout.readline()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "end of stdin", "SIGTERM --http", "SIGINT --http"])
def test_the_gateway_exits_promptly_and_leaves_nothing_behind(tmp_path: Path, how: str) -> None:
    """With its stdin left open, the gateway exits on SIGTERM or SIGINT (Ctrl-C) with status 0,
    and so it does at the end of its input: every process it started, grandchildren of a
    server included, is gone."""
    state = tmp_path / "hostile.log"
    config = write_config(tmp_path / "gateway.json", {
        "hostile": hostile(state, HOSTILE_SPAWN="1"),
        "time": time_server(),
    })
    command = [str(GATEWAY), "--config", str(config)]
    http = how.endswith("--http")
    if http:
        command += ["--http", "127.0.0.1:0"]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE if http else subprocess.DEVNULL, text=True)
    try:
        if http:
            await_line(process, r"at (http://\S+/mcp)", "the gateway did not say where it serves")
        else:
            ready_on_stdio(process)
        below = descendants(process_children(), process.pid)
        [grandchild] = pids(state, "grandchild")
        assert grandchild in below and len(below) >= 3, below
        started = time.monotonic()
        if how == "end of stdin":
            assert process.stdin is not None
            process.stdin.close()
        else:
            process.send_signal(signal.SIGTERM if how.startswith("SIGTERM") else signal.SIGINT)
        # A bound that only a gateway waiting for its client would reach (it used to wait for
        # its stdin to close): BENCHMARKS.md measures the time itself.
        code = process.wait(timeout=20)
        print(f"{how}: exited in {time.monotonic() - started:.2f} s")
    finally:
        process.kill()
        process.wait()
    assert code == 0
    for pid in below:
        assert not alive(pid), f"{pid} outlived the gateway"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_flood_of_stderr_stays_bounded(tmp_path: Path) -> None:
    """A 100 MiB stderr line without a newline, then 100,000 lines: the gateway's peak memory
    stays small (the line is cut, not buffered) and its own log does not repeat the flood."""
    state = tmp_path / "hostile.log"
    config = write_config(tmp_path / "gateway.json", {
        "hostile": hostile(state, HOSTILE_STDERR_MB="100", HOSTILE_STDERR_LINES="100000"),
    })
    log = (tmp_path / "gateway.log").open("w")
    process = subprocess.Popen([str(GATEWAY), "--config", str(config)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        ready_on_stdio(process)
        flooded = False
        deadline = time.monotonic() + TIMEOUT
        while not flooded and time.monotonic() < deadline:
            time.sleep(0.5)
            flooded = "stderr lines not logged" in (tmp_path / "gateway.log").read_text()
        assert flooded, "the flood was not reported"
        peak_kib = int(re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{process.pid}/status").read_text())[1])
        print(f"peak RSS after the flood: {peak_kib / 1024:.1f} MiB")
        assert peak_kib < 80 * 1024, f"{peak_kib} KiB"
    finally:
        process.terminate()
        process.wait(timeout=TIMEOUT)
        log.close()
    assert (tmp_path / "gateway.log").stat().st_size < 1 << 20
    assert "[line cut at 4096 bytes]" in (tmp_path / "gateway.log").read_text()


def test_the_token_comes_from_a_file_or_the_environment(tmp_path: Path) -> None:
    """`--token-file` and `LAZYTOOL_TOKEN` instead of a token in the process list."""
    config = write_config(tmp_path / "gateway.json", {"time": time_server()})
    (tmp_path / "token").write_text(SECRET + "\n")
    for extra, environment in [
        (["--token-file", str(tmp_path / "token")], os.environ),
        ([], os.environ | {"LAZYTOOL_TOKEN": SECRET}),
    ]:
        process = subprocess.Popen([str(GATEWAY), "--config", str(config), "--http", "127.0.0.1:0", *extra],
                                   stderr=subprocess.PIPE, text=True, env=environment)
        try:
            url = await_line(process, r"at (http://\S+/mcp)", "the gateway did not say where it serves")[1]
            assert SECRET not in Path(f"/proc/{process.pid}/cmdline").read_text()
            assert post_initialize(url, None) == 401
            assert post_initialize(url, "wrong") == 401
            assert post_initialize(url, SECRET) == 200
        finally:
            process.terminate()
            process.wait(timeout=TIMEOUT)


def test_a_bad_http_flag_file_stops_the_gateway_before_any_server_starts(tmp_path: Path) -> None:
    """A `--token-file` or `--principals` that cannot be read is reported at once, and no
    upstream was started for nothing."""
    state = tmp_path / "hostile.log"
    config = write_config(tmp_path / "gateway.json", {"hostile": hostile(state)})
    (tmp_path / "principals.json").write_text("{ not json")
    for flag, path in [("--token-file", tmp_path / "missing-token"),
                       ("--principals", tmp_path / "principals.json")]:
        done = subprocess.run([str(GATEWAY), "--config", str(config), "--http", "127.0.0.1:0", flag, str(path)],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT)
        assert done.returncode != 0, done.stderr
        assert str(path) in done.stderr, done.stderr
        assert pids(state, "started") == [], state.read_text()


def post_initialize(url: str, token: str | None) -> int:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}})
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=body.encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code
