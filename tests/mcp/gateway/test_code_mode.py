"""lazytool-gateway in code mode (`"mode": "code"`) in front of real servers
(@modelcontextprotocol/server-everything from npm, mcp-server-time from PyPI), driven by the
official MCP Python SDK over stdio and streamable HTTP, stateful and stateless (the gateway built
with `--features code-mode`, as `.ci/run` builds it): a client sees
`__lazy__code__` and discovery, and one script fans out over the tools of both servers, each
call through the server's `McpSource`: a locked server starts on its first call from a
script, and a tool whose definition differs from the lock is refused to the script. Hostile
scripts end in errors naming their limit, in worker processes the gateway kills, while the
gateway (the same process) answers everyone else.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_gateway import DISCOVERY, GATEWAY, MODERN, UPSTREAMS, node_server, text  # noqa: E402
from test_lock import children, digest, lock, serving  # noqa: E402
from test_mcp_http import await_line, connect, names  # noqa: E402

import bearer_client  # noqa: E402

CODE = "__lazy__code__"
WORKER = "lazytool-code-worker"

pytestmark = pytest.mark.anyio

# Both servers at once: everything's echo and get-sum (a name JavaScript must quote) beside
# time's conversion.
FAN_OUT = """
const [echoed, sum, converted] = await Promise.all([
  tools.everything__echo({ message: "from a script" }),
  tools["everything__get-sum"]({ a: 2, b: 3 }),
  tools.time__convert_time({ source_timezone: "UTC", time: "12:00", target_timezone: "Europe/Paris" }),
]);
return { echoed, sum, paris: converted.target.timezone };
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module", autouse=True)
def built_with_code_mode(tmp_path_factory: pytest.TempPathFactory) -> None:
    config = write_config(tmp_path_factory.mktemp("code"))
    checked = check(config)
    assert "runs no scripts" not in checked.stderr, (
        "this gateway was built without code mode: run `cargo build -p lazytool-gateway --features code-mode`")


def write_config(work: Path, code: dict | None = None) -> Path:
    path = work / "gateway.json"
    lazytool = {"mode": "code", "startTimeoutMs": 20000, "servers": {"time": {"eager": ["*"]}}}
    if code is not None:
        lazytool["code"] = code
    path.write_text(json.dumps({
        "mcpServers": {
            "everything": node_server("server-everything"),
            "time": {"command": str(UPSTREAMS / "venv/bin/mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        },
        "lazytool": lazytool,
    }))
    return path


def servers(pid: int) -> list[int]:
    """The gateway's upstream servers: its children that are no script workers."""
    workers = set(children(pid, WORKER))
    return [child for child in children(pid) if child not in workers]


def state(pid: int) -> str:
    """A process's state letter (R running, S sleeping, ...), "" once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def assert_no_worker_spins(gateway: int) -> None:
    """After the answers: every worker left is idle, waiting for its next script."""
    for _ in range(200):
        busy = [worker for worker in children(gateway, WORKER) if state(worker) == "R"]
        if not busy:
            return
        time.sleep(0.05)
    raise AssertionError(f"workers still running after their answers: {busy}")


# Each is a script a model steered by hostile text might write, and what its error says.
HOSTILE = [
    # QuickJS does not poll its interrupt inside these builtins: the worker is killed.
    ("return Array.prototype.join.call({ length: 2 ** 53 - 1 }, '');", "wall time limit of 2s"),
    ("return [].sort.call({ length: 2 ** 32 - 1 });", "wall time limit of 2s"),
    # An argument whose length alone would take 154 GB to copy.
    ("const a = []; a.length = 2 ** 31 - 1; return await tools.everything__echo(a);", "larger than the limit"),
    # 2^60 leaves from 61 levels of shared children.
    ("let x = 'leaf'; for (let i = 0; i < 61; i++) x = [x, x]; return await tools.everything__echo({ message: x });",
     "larger than the limit"),
    # Values JSON cannot carry are errors, never a successful null.
    ("const o = {}; o.self = o; return o;", "not JSON: circular"),
    ("return 10n;", "a BigInt is not JSON"),
    ("return '\\ud800';", "lone surrogate"),
    # An interrupt inside a getter the host reads cannot be caught.
    ("for (;;) try { await tools.everything__echo({ get message() { for (;;) {} } }); } catch {}", "wall time limit of 2s"),
    ("let s = 'x'; while (true) s = s.repeat(2);", "memory limit of 16 MiB"),
]


def assert_fanned_out(result) -> None:
    assert not result.is_error, text(result)
    answer = {"echoed": "Echo: from a script", "sum": "The sum of 2 and 3 is 5.", "paris": "Europe/Paris"}
    assert result.structured_content == answer, result
    assert json.loads(text(result)) == answer


async def test_stateful_http_a_script_fans_out_over_locked_servers_started_on_first_use(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    assert lock(config).returncode == 0
    # time's get_current_time differs from what was approved: blocked, for scripts too.
    path = tmp_path / "lazytool.lock"
    file = json.loads(path.read_text())
    pinned = file["servers"]["time"]["tools"]["get_current_time"]
    pinned["definition"]["description"] = "Get the current time."
    pinned["sha256"] = digest(pinned["definition"])
    path.write_text(json.dumps(file, indent=2))

    with serving(config) as (process, url):
        async with connect(url, "legacy") as client:
            listed = await client.list_tools()
            assert names(listed) == [DISCOVERY, CODE]
            [code] = [tool for tool in listed.tools if tool.name == CODE]
            assert "time__convert_time(args: {" in code.description, code.description
            assert "everything__echo" in code.description, "the lazy tools by name"
            assert servers(process.pid) == [], "listed from the lock: no server started"

            found = await client.call_tool(DISCOVERY, {"toolNames": ["everything__echo", "everything__get-sum"]})
            assert not found.is_error, text(found)
            assert "everything__echo(args: {" in text(found), "declarations: " + text(found)
            assert servers(process.pid) == [], "discovery reads the lock"

            assert_fanned_out(await client.call_tool(CODE, {"code": FAN_OUT}))
            assert len(servers(process.pid)) == 2, "the script's calls started both servers"
            assert len(children(process.pid, WORKER)) == 1, "the script ran in a worker, kept for the next"

            blocked = await client.call_tool(CODE, {"code": "return await tools.time__get_current_time({ timezone: 'UTC' });"})
            assert blocked.is_error
            assert "the tool `get_current_time` of the MCP server `time` is blocked: its description changed" in text(blocked), text(blocked)

            # Code mode alone: a tool called by name is refused, naming the code tool.
            with pytest.raises(Exception, match=f"in this conversation tools run from scripts: call {CODE}"):
                await client.call_tool("time__convert_time", {
                    "source_timezone": "UTC", "time": "12:00", "target_timezone": "Europe/Paris"})


async def test_stateless_http_a_script_calls_lazy_tools_without_discovery(tmp_path: Path) -> None:
    with serving(write_config(tmp_path)) as (_, url):
        async with connect(url, MODERN) as client:
            assert client.protocol_version == MODERN
            assert names(await client.list_tools()) == [DISCOVERY, CODE]
            assert_fanned_out(await client.call_tool(CODE, {"code": FAN_OUT}))


async def test_stdio_a_script_fans_out_within_the_configured_limits(tmp_path: Path) -> None:
    config = write_config(tmp_path, {"maxToolCalls": 3})
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(config), "-q"])
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            assert names(await session.list_tools()) == [DISCOVERY, CODE]
            await session.call_tool(DISCOVERY, {"toolNames": ["everything__echo", "everything__get-sum"]})
            assert_fanned_out(await session.call_tool(CODE, {"code": FAN_OUT}))
            four = await session.call_tool(CODE, {"code": "for (let i = 0; i < 4; i++) await tools.everything__echo({ message: `${i}` });"})
            assert four.is_error
            assert text(four) == "Error: the script reached its limit of 3 tool calls and was stopped.", text(four)
            broken = await session.call_tool(CODE, {"code": "return 1 +;"})
            assert broken.is_error and "syntax error at line 1, column" in text(broken), text(broken)


def check(config: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(GATEWAY), "--config", str(config), "--check"], capture_output=True, text=True, timeout=60)


def test_bad_code_settings_are_problems_of_the_config(tmp_path: Path) -> None:
    config = write_config(tmp_path, {"maxToolCalls": 0, "wallTime": 5})
    settings = json.loads(config.read_text())
    checked = check(config)
    assert checked.returncode == 1
    assert "$.lazytool.code.maxToolCalls: expected a positive whole number of calls, found 0" in checked.stderr, checked.stderr
    assert "$.lazytool.code.wallTime: unknown key: did you mean `wallTimeMs`?" in checked.stderr, checked.stderr
    settings["lazytool"]["mode"] = "search"
    settings["lazytool"]["code"] = {}
    config.write_text(json.dumps(settings))
    checked = check(config)
    assert checked.returncode == 1
    assert '$.lazytool.code: applies only with `"mode": "code"`' in checked.stderr, checked.stderr



HOSTILE_LIMITS = {"wallTimeMs": 2000, "maxMemoryBytes": 16 << 20}
MEANWHILE = "return await tools.everything__echo({ message: 'meanwhile' });"


async def assert_hostile_scripts_end_while_others_are_answered(run, answer_others, alive) -> None:
    """Each of `HOSTILE` through `run` ends in an error naming its limit, while
    `answer_others` is answered (before the script ends, where it runs to its wall time), and
    the gateway stays `alive`."""
    for code, error in HOSTILE:
        ended = anyio.Event()
        results = {}

        async def hostile() -> None:
            results["hostile"] = await run(code)
            ended.set()

        async with anyio.create_task_group() as group:
            group.start_soon(hostile)
            await answer_others()
            if "wall time" in error:
                assert not ended.is_set(), f"{code}: ended before the others were answered"
        result = results["hostile"]
        assert result.is_error and error in text(result), f"{code}: {text(result)}"
        assert alive(), "the gateway is the same process"


async def test_stdio_hostile_scripts_end_in_errors_and_the_gateway_answers_meanwhile(tmp_path: Path) -> None:
    config = write_config(tmp_path, HOSTILE_LIMITS)
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(config), "-q"])
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            [gateway] = [child for child in children(os.getpid()) if str(GATEWAY) in Path(f"/proc/{child}/cmdline").read_text()]
            await session.call_tool(DISCOVERY, {"toolNames": ["everything__echo"]})

            async def answer_others() -> None:
                # The same client's other requests: the gateway's own workers are free.
                await session.send_ping()
                answered = await session.call_tool(CODE, {"code": MEANWHILE})
                assert text(answered) == "Echo: meanwhile", text(answered)

            await assert_hostile_scripts_end_while_others_are_answered(
                lambda code: session.call_tool(CODE, {"code": code}), answer_others,
                lambda: Path(f"/proc/{gateway}").exists())
            assert_no_worker_spins(gateway)
            after = await session.call_tool(CODE, {"code": "return await tools.everything__echo({ message: 'after' });"})
            assert text(after) == "Echo: after"


async def test_http_another_client_is_answered_while_a_hostile_script_runs(tmp_path: Path) -> None:
    config = write_config(tmp_path, HOSTILE_LIMITS | {"recycleAfterScripts": 1})
    with serving(config) as (process, url):
        async with connect(url, "legacy") as hostile, connect(url, "legacy") as other:
            await hostile.call_tool(DISCOVERY, {"toolNames": ["everything__echo"]})
            await other.call_tool(DISCOVERY, {"toolNames": ["everything__echo"]})

            async def answer_others() -> None:
                assert names(await other.list_tools()) == [DISCOVERY, CODE]
                answered = await other.call_tool(CODE, {"code": MEANWHILE})
                assert text(answered) == "Echo: meanwhile", text(answered)

            await assert_hostile_scripts_end_while_others_are_answered(
                lambda code: hostile.call_tool(CODE, {"code": code}), answer_others,
                lambda: process.poll() is None)
            # Each worker was ended after its one script: none holds a script's memory now.
            for _ in range(200):
                if not children(process.pid, WORKER):
                    break
                time.sleep(0.05)
            assert children(process.pid, WORKER) == []

async def test_http_the_code_tool_is_offered_only_to_a_principal_that_may_call_a_tool(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    principals = tmp_path / "principals.json"
    principals.write_text(json.dumps({"principals": {
        "reader": {"tokens": ["reader-token"], "allow": ["time__*"]},
        "nobody": {"tokens": ["nobody-token"], "deny": ["*"]},
    }}))
    argv = [str(GATEWAY), "--config", str(config), "--http", "127.0.0.1:0", "--principals", str(principals)]
    process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    try:
        url = await_line(process, r"at (http://\S+/mcp)", "the gateway did not say where it serves")[1]
        async with bearer_client.connect(url, "reader-token") as reader:
            [code] = [tool for tool in (await reader.list_tools()).tools if tool.name == CODE]
            assert "time__convert_time(args: {" in code.description, code.description
            assert "everything__" not in code.description, "declarations list only what the reader may call"
            refused = await reader.call_tool(CODE, {"code": "return await tools.everything__echo({ message: 'x' });"})
            assert refused.is_error, text(refused)
            converted = await reader.call_tool(CODE, {"code": (
                "return (await tools.time__convert_time({ source_timezone: 'UTC', time: '12:00', "
                "target_timezone: 'Europe/Paris' })).target.timezone;")})
            assert text(converted) == "Europe/Paris", text(converted)
        async with bearer_client.connect(url, "nobody-token") as nobody:
            assert CODE not in names(await nobody.list_tools()), "no tool to call: no code tool"
            with pytest.raises(Exception, match="unknown tool"):
                await nobody.call_tool(CODE, {"code": "return 1;"})
    finally:
        process.terminate()
        process.wait(timeout=60)
