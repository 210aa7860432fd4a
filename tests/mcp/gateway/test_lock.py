"""lazytool-gateway with a lock file in front of the real servers (tests/mcp/gateway's five,
installed by install-upstreams), driven by the official MCP Python SDK over streamable HTTP:
`lock` pins them; serving lists every tool with no server running (the process tree is
checked); a call starts its server alone; a server stopped after its idle timeout starts
again on the next call; a real server whose definition differs from the lock is blocked,
and `lock --update` prints the diff and accepts it; server-everything's prompts are pinned and
listed from the lock, a changed one is refused, a tool not in the lock answers isError naming
it, and `lock --update` shows and accepts both.
"""

import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_gateway import DISCOVERY, GATEWAY, TIMEOUT, lazy_names, node_server, text, UPSTREAMS  # noqa: E402
from test_mcp_http import TOKEN, await_line, connect, names  # noqa: E402

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def servers(work: Path) -> dict:
    (work / "files").mkdir(exist_ok=True)
    if not (work / "repo").exists():
        subprocess.run(["git", "init", "-q", str(work / "repo")], check=True)
    return {
        "everything": node_server("server-everything"),
        "memory": node_server("server-memory") | {"env": {"MEMORY_FILE_PATH": str(work / "memory.jsonl")}},
        "filesystem": node_server("server-filesystem", str(work / "files")),
        "time": {"command": str(UPSTREAMS / "venv/bin/mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        "git": {"command": str(UPSTREAMS / "venv/bin/mcp-server-git"), "args": ["--repository", str(work / "repo")]},
    }


def write_config(work: Path, settings: dict | None = None) -> Path:
    path = work / "gateway.json"
    config = {"mcpServers": servers(work), "lazytool": {"startTimeoutMs": 20000, "servers": settings or {}}}
    path.write_text(json.dumps(config))
    return path


def lock(config: Path, *update: str) -> subprocess.CompletedProcess:
    args = [str(GATEWAY), "--config", str(config), "lock"]
    if update:
        args += ["--update", *update]
    return subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT * 2)


def children(pid: int, running: str = "") -> list[int]:
    """The processes whose parent is `pid` and whose command line holds `running` (exited
    ones awaiting their parent left out)."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
        except OSError:
            continue
        if fields.get("PPid", "").strip() != str(pid) or fields.get("State", "").startswith("Z"):
            continue
        try:
            command = (status.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if running in command:
            found.append(int(status.parent.name))
    return found


def wait_for(condition, failure: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, failure
        time.sleep(0.05)


@contextmanager
def serving(config: Path) -> Iterator[tuple[subprocess.Popen, str]]:
    process = subprocess.Popen(
        [str(GATEWAY), "--config", str(config), "--http", "127.0.0.1:0", "--token", TOKEN],
        stderr=subprocess.PIPE, text=True,
    )
    try:
        url = await_line(process, r"at (http://\S+/mcp)", "the gateway did not say where it serves")[1]
        yield process, url
    finally:
        process.terminate()
        process.wait(timeout=TIMEOUT)


async def test_a_locked_gateway_lists_every_tool_with_no_server_running(tmp_path: Path) -> None:
    config = write_config(tmp_path, {"time": {"eager": ["*"]}})
    locked = lock(config)
    assert locked.returncode == 0, locked.stderr
    for server in ["everything", "memory", "filesystem", "time", "git"]:
        assert f"\n{server}: pinned: " in "\n" + locked.stdout, locked.stdout
    pinned = json.loads((tmp_path / "lazytool.lock").read_text())
    assert sorted(pinned["servers"]) == ["everything", "filesystem", "git", "memory", "time"]
    assert "get_current_time" in pinned["servers"]["time"]["tools"]

    with serving(config) as (process, url):
        async with connect(url, "legacy") as client:
            listed = await client.list_tools()
            assert "time__get_current_time" in names(listed)
            lazy = lazy_names(listed)
            for server in ["everything", "memory", "filesystem", "git"]:
                assert any(name.startswith(f"{server}__") for name in lazy), server
            assert children(process.pid) == [], "listed from the lock: no server started"

            now = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
            assert not now.is_error and json.loads(text(now))["timezone"] == "UTC"
            assert len(children(process.pid)) == 1, "the call started its server alone"

            found = await client.call_tool(DISCOVERY, {"toolNames": ["git__git_status"]})
            assert not found.is_error, text(found)
            status = await client.call_tool("git__git_status", {"repo_path": str(tmp_path / "repo")})
            assert not status.is_error, text(status)
            assert len(children(process.pid)) == 2


async def test_an_idle_server_stops_and_the_next_call_starts_it(tmp_path: Path) -> None:
    # Only `time` is locked: the others start at once, as without a lock.
    config = write_config(tmp_path, {"time": {"eager": ["*"], "idleTimeoutMs": 500}})
    assert lock(config, "time").returncode == 0
    with serving(config) as (process, url):
        async with connect(url, "legacy") as client:
            assert not (await client.call_tool("time__get_current_time", {"timezone": "UTC"})).is_error
            assert len(children(process.pid)) == 5
            [first] = children(process.pid, "mcp-server-time")
            wait_for(lambda: children(process.pid, "mcp-server-time") == [], "the idle server was not stopped")
            again = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
            assert not again.is_error, text(again)
            [second] = children(process.pid, "mcp-server-time")
            assert second != first


def digest(definition: dict) -> str:
    canonical = json.dumps(definition, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


async def test_a_real_servers_changed_definition_is_blocked_until_accepted(tmp_path: Path) -> None:
    config = write_config(tmp_path, {"time": {"eager": ["*"]}})
    assert lock(config, "time").returncode == 0
    # What the user approved differs from what the server says now: a rug pull, seen from
    # the other side.
    path = tmp_path / "lazytool.lock"
    file = json.loads(path.read_text())
    pinned = file["servers"]["time"]["tools"]["get_current_time"]
    live_description = pinned["definition"]["description"]
    pinned["definition"]["description"] = "Get the current time."
    pinned["sha256"] = digest(pinned["definition"])
    path.write_text(json.dumps(file, indent=2))

    with serving(config) as (process, url):
        async with connect(url, "legacy") as client:
            listed = await client.list_tools()
            [tool] = [tool for tool in listed.tools if tool.name == "time__get_current_time"]
            assert tool.description == "Get the current time.", "the approved definition is listed"
            blocked = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
            assert blocked.is_error
            assert text(blocked) == (
                "the tool `get_current_time` of the MCP server `time` is blocked: its description changed since "
                f"it was approved in the lock; to accept the change, run `lazytool-gateway --config {config} lock --update time`"
            )
            converted = await client.call_tool("time__convert_time", {
                "source_timezone": "UTC", "time": "12:00", "target_timezone": "Europe/Paris"})
            assert not converted.is_error, "unchanged tools keep working: " + text(converted)

    checked = subprocess.run([str(GATEWAY), "--config", str(config), "--check"], capture_output=True, text=True, timeout=TIMEOUT * 2)
    assert checked.returncode == 1
    assert "  get_current_time: differs from the lock: its description changed; blocked" in checked.stdout, checked.stdout

    updated = lock(config, "time")
    assert updated.returncode == 0, updated.stderr
    assert '-        "description": "Get the current time.",' in updated.stdout, updated.stdout
    assert f'+        "description": {json.dumps(live_description, ensure_ascii=False)},' in updated.stdout, updated.stdout
    with serving(config) as (process, url):
        async with connect(url, "legacy") as client:
            now = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
            assert not now.is_error, text(now)


async def test_a_real_servers_prompts_are_pinned_and_a_tool_not_in_the_lock_is_refused(tmp_path: Path) -> None:
    config = write_config(tmp_path, {"everything": {"eager": ["*"]}})
    locked = lock(config, "everything")
    assert locked.returncode == 0, locked.stderr
    assert " prompts" in locked.stdout, locked.stdout
    path = tmp_path / "lazytool.lock"
    file = json.loads(path.read_text())
    entry = file["servers"]["everything"]
    assert "simple-prompt" in entry["prompts"], entry.get("prompts")
    for pinned in entry["prompts"].values():
        assert pinned["sha256"] == digest(pinned["definition"])
    # Approved before the server had `get-sum`, and with another prompt text: the tool is
    # new, the prompt changed.
    del entry["tools"]["get-sum"]
    prompt = entry["prompts"]["simple-prompt"]
    prompt["definition"]["description"] = "A prompt."
    prompt["sha256"] = digest(prompt["definition"])
    path.write_text(json.dumps(file, indent=2))

    with serving(config) as (process, url):
        async with connect(url, "legacy") as client:
            prompts = await client.list_prompts()
            listed = {prompt.name: prompt for prompt in prompts.prompts}
            assert listed["everything__simple-prompt"].description == "A prompt.", "listed from the lock"
            # The other servers, not in the lock, started at once.
            assert children(process.pid, "server-everything") == [], "listed from the lock: not started"

            echoed = await client.call_tool("everything__echo", {"message": "hi"})
            assert not echoed.is_error, text(echoed)
            summed = await client.call_tool("everything__get-sum", {"a": 1, "b": 2})
            assert summed.is_error
            assert text(summed) == (
                "the tool `get-sum` of the MCP server `everything` is blocked: it is new (not in the lock) since "
                f"it was approved in the lock; to accept the change, run `lazytool-gateway --config {config} lock --update everything`"
            )
            with pytest.raises(Exception, match="the prompt `simple-prompt` of the MCP server `everything` is blocked: its description changed"):
                await client.get_prompt("everything__simple-prompt", {})

    checked = subprocess.run([str(GATEWAY), "--config", str(config), "--check"], capture_output=True, text=True, timeout=TIMEOUT * 2)
    assert checked.returncode == 1
    assert "  prompt simple-prompt: differs from the lock: its description changed; blocked" in checked.stdout, checked.stdout

    updated = lock(config, "everything")
    assert updated.returncode == 0, updated.stderr
    assert '-        "description": "A prompt.",' in updated.stdout, updated.stdout
    assert '+    "get-sum": {' in updated.stdout, updated.stdout
    accepted = json.loads(path.read_text())["servers"]["everything"]
    assert accepted["prompts"]["simple-prompt"]["definition"]["description"] != "A prompt."
