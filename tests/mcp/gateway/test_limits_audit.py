"""Limits per principal and per upstream server, and the audit trail: lazytool-gateway --http
in front of the real @modelcontextprotocol/server-everything, driven by the official MCP
Python SDK client. A principal over its rate limit gets a JSON-RPC error with its retry time
(429 and Retry-After on the wire) while another principal's calls succeed; a server's limit
of calls in flight refuses a second call while the first runs; /metrics counts both; the
audit file has one line per call with its fields, rotates at its size, and holds none of the
secrets the configuration and the clients used.
"""

import hashlib
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_mcp_http import MODERN, await_line, modern_call, raw_post  # noqa: E402

import bearer_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
GATEWAY = Path(os.environ.get("LAZYTOOL_GATEWAY", ROOT / "target/debug/lazytool-gateway"))
UPSTREAMS = ROOT / "target/gateway-upstreams"
TIMEOUT = 60
TOKENS = {"alice": "alice-token-7d2e91", "bob": "bob-token-40c3aa", "carol": "carol-token-e95b07"}
# Secrets the configuration holds, which the audit trail must not.
ENV_SECRET = "env-secret-b81f3c"
URL_PASSWORD = "url-password-5a90de"
URL_QUERY = "url-query-secret-c2e4f1"
ARGUMENT_SECRET = "argument-secret-91ab0d"
SECRETS = [*TOKENS.values(), ENV_SECRET, URL_PASSWORD, URL_QUERY, ARGUMENT_SECRET]
ECHO = "everything__echo"
SLOW = "everything__trigger-long-running-operation"
CALL_FIELDS = [
    "time", "event", "principal", "session", "client", "server", "tool", "outcome", "errorKind",
    "durationMs", "argumentBytes", "resultBytes", "argumentsSha256",
]

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def everything() -> dict:
    script = UPSTREAMS / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
    assert script.is_file(), f"{script} is missing: run tests/mcp/gateway/install-upstreams"
    return {"command": "node", "args": [str(script)], "env": {"UNUSED_SECRET": "${AUDIT_TEST_SECRET}"}}


def config(audit: dict) -> dict:
    return {
        "mcpServers": {
            "everything": everything(),
            # Never reachable: only here so that its URL's secrets are in the configuration.
            "remote": {"url": f"http://user:{URL_PASSWORD}@127.0.0.1:9/mcp?key={URL_QUERY}"},
        },
        "lazytool": {
            "startTimeoutMs": 20000,
            "servers": {"everything": {"eager": ["*"], "limits": {"maxInFlight": 1}}},
            # One call every 100 s, three at once: the fourth call within the test is refused.
            "limits": {"principals": {"alice": {"perSecond": 0.01, "burst": 3}}},
            "audit": audit,
        },
    }


def environment() -> dict[str, str]:
    return os.environ | {"AUDIT_TEST_SECRET": ENV_SECRET}


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert GATEWAY.is_file(), f"{GATEWAY} is missing: run `cargo build -p lazytool-gateway` first"
    work = tmp_path_factory.mktemp("limits")
    (work / "gateway.json").write_text(json.dumps(config({"maxBytes": 10_000_000})))
    principals = {name: {"tokens": [token]} for name, token in TOKENS.items()}
    (work / "principals.json").write_text(json.dumps({"principals": principals}))
    return work


@pytest.fixture(scope="module")
def url(work: Path) -> Iterator[str]:
    argv = [str(GATEWAY), "--config", str(work / "gateway.json"), "--http", "127.0.0.1:0",
            "--principals", str(work / "principals.json"), "--audit", str(work / "audit.jsonl")]
    process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, env=environment())
    try:
        yield await_line(process, r"at (http://\S+/mcp)", "the gateway did not say where it serves")[1]
    finally:
        process.terminate()
        process.wait(timeout=TIMEOUT)


def connect(url: str, who: str):
    """A legacy (session) client of the principal `who`."""
    return bearer_client.connect(url, TOKENS[who])


def metrics(url: str, who: str) -> str:
    request = urllib.request.Request(url.removesuffix("/mcp") + "/metrics",
                                     headers={"Authorization": f"Bearer {TOKENS[who]}"})
    with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
        return answer.read().decode()


def sample(text: str, name: str, **labels: str) -> float:
    """The value of the sample `name{labels}` in Prometheus text (0 when absent)."""
    for line in text.splitlines():
        if line.startswith(name + "{") and all(f'{key}="{value}"' in line for key, value in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def audit_lines(path: Path, until=lambda lines: True) -> list[dict]:
    """The audit file's lines, once `until` holds of them (or after 30 s): the writer thread
    writes them a moment after the calls."""
    deadline = time.monotonic() + 30
    while True:
        lines = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
        if until(lines) or time.monotonic() > deadline:
            return lines
        time.sleep(0.1)


async def test_a_principal_over_its_rate_gets_a_retry_time_and_others_are_served(url: str) -> None:
    async with connect(url, "alice") as alice, connect(url, "bob") as bob:
        for n in range(3):
            assert not (await alice.call_tool(ECHO, {"message": f"alice {n}"})).is_error
        with pytest.raises(MCPError) as refused:
            await alice.call_tool(ECHO, {"message": "alice over"})
        assert refused.value.code == -32000
        assert refused.value.message.startswith("rate limit of principal `alice` reached (0.01 calls/s, burst 3); retry in "), refused.value.message
        data = refused.value.data
        assert data["limit"] == "rate" and data["scope"] == "principal" and data["name"] == "alice"
        assert 1 <= data["retryAfterSeconds"] <= 100, data
        # Bob is not limited, and Alice's limit takes nothing from him.
        for n in range(6):
            assert not (await bob.call_tool(ECHO, {"message": f"bob {n}"})).is_error

    # On the wire: 429, Retry-After, and the JSON-RPC error with the call's id.
    headers = {"Authorization": f"Bearer {TOKENS['alice']}", "MCP-Protocol-Version": MODERN,
               "Mcp-Method": "tools/call", "Mcp-Name": ECHO}
    answer = await raw_post(url, modern_call(ECHO, {"message": "raw"}), headers)
    assert answer.status_code == 429
    assert 1 <= int(answer.headers["Retry-After"]) <= 100
    body = answer.json()
    assert body["id"] == 7 and body["error"]["data"]["name"] == "alice", body

    text = metrics(url, "bob")
    assert sample(text, "lazytool_principal_limit_refused_total", principal="alice", limit="rate") >= 2, text
    assert sample(text, "lazytool_principal_limit_refused_total", principal="bob") == 0
    assert sample(text, "lazytool_http_refused_total", reason="call_limit") >= 2


async def test_a_servers_limit_of_calls_in_flight_refuses_a_second_call(url: str) -> None:
    started = anyio.Event()

    async def progressed(progress: float, total: float | None, message: str | None) -> None:
        started.set()

    async with connect(url, "carol") as carol, connect(url, "bob") as bob:
        async with anyio.create_task_group() as running:
            slow = {}

            async def run_slow() -> None:
                slow["result"] = await carol.call_tool(SLOW, {"duration": 6, "steps": 3}, progress_callback=progressed)

            running.start_soon(run_slow)
            # Its first progress: the call is upstream, holding the server's one place.
            with anyio.fail_after(TIMEOUT):
                await started.wait()
            with pytest.raises(MCPError) as refused:
                await bob.call_tool(ECHO, {"message": "while busy"})
            assert refused.value.message.startswith("in-flight limit of server `everything` reached (1 call in flight); retry in 1 s"), refused.value.message
            assert refused.value.data == {"limit": "in_flight", "scope": "server", "name": "everything",
                                          "maxInFlight": 1, "retryAfterSeconds": 1}
        assert not slow["result"].is_error
        # Its place freed with its answer.
        assert not (await bob.call_tool(ECHO, {"message": "after"})).is_error
    text = metrics(url, "bob")
    assert sample(text, "lazytool_gateway_upstream_limit_refused_total", server="everything", limit="in_flight") == 1, text


def sha256_of(value: dict) -> str:
    """The SHA-256 of canonical JSON, as the audit trail and the lock compute it."""
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


async def test_the_audit_file_has_a_line_per_call_and_no_secret(url: str, work: Path) -> None:
    marker = f"audited {time.time_ns()}"
    async with connect(url, "bob") as bob:
        for n in range(3):
            await bob.call_tool(ECHO, {"message": f"{marker} {n}"})
        await bob.call_tool(ECHO, {"message": ARGUMENT_SECRET})
        await bob.call_tool("everything__get-sum", {"a": 2, "b": 3})
    # A stateless (2026-07-28) call: no session, its client named in its own `_meta`.
    headers = {"Authorization": f"Bearer {TOKENS['bob']}", "MCP-Protocol-Version": MODERN,
               "Mcp-Method": "tools/call", "Mcp-Name": "everything__get-sum"}
    stateless = await raw_post(url, modern_call("everything__get-sum", {"a": 1, "b": 1}), headers)
    assert stateless.status_code == 200 and "result" in stateless.json(), stateless.text
    lines = audit_lines(work / "audit.jsonl", lambda lines: any(line.get("client") == "raw" for line in lines))
    calls = [line for line in lines if line["event"] == "call"]
    for n in range(3):
        arguments = {"message": f"{marker} {n}"}
        [line] = [line for line in calls if line["argumentsSha256"] == sha256_of(arguments)]
        assert list(line)[:len(CALL_FIELDS)] == CALL_FIELDS, line
        assert line["principal"] == "bob" and line["server"] == "everything" and line["tool"] == ECHO
        assert line["outcome"] == "ok" and line["errorKind"] is None
        assert line["session"] and line["client"], line
        assert line["argumentBytes"] == len(json.dumps(arguments, separators=(",", ":")))
        assert line["resultBytes"] > 0 and line["durationMs"] >= 0
        assert "arguments" not in line  # values only when configured
        assert line["time"].endswith("Z") and "T" in line["time"]
    # Bob's echoes: 6 in the first test, 2 in the second (one refused), 4 here.
    assert [line["tool"] for line in calls if line["principal"] == "bob"].count(ECHO) == 6 + 2 + 4
    refused = [line for line in calls if line["outcome"] == "refused"]
    assert {(line["principal"], line["errorKind"], line["limit"]["scope"]) for line in refused} == {
        ("alice", "rate_limit", "principal"), ("bob", "in_flight_limit", "server")}
    assert sum(line["principal"] == "alice" for line in refused) == 2
    [raw] = [line for line in calls if line["client"] == "raw"]
    assert (raw["principal"], raw["session"], raw["tool"], raw["outcome"]) == ("bob", None, "everything__get-sum", "ok"), raw
    logins = [line for line in lines if line["event"] == "login"]
    assert {line["principal"] for line in logins} >= {"alice", "bob", "carol"}
    # A login names the session it opened, as its calls do.
    assert all(line["session"] and line["client"] and line["protocolVersion"] for line in logins), logins
    assert {line["session"] for line in calls if line["principal"] == "bob" and line["session"]} <= {line["session"] for line in logins}
    text = (work / "audit.jsonl").read_text()
    for secret in SECRETS:
        assert secret not in text, f"the audit trail holds the secret {secret!r}"


async def test_a_refused_token_is_audited_without_the_token(url: str, work: Path) -> None:
    wrong = "wrong-token-3e7a55"
    answer = await raw_post(url, modern_call(ECHO, {}), {"Authorization": f"Bearer {wrong}"})
    assert answer.status_code == 401
    lines = audit_lines(work / "audit.jsonl", lambda lines: any(line["event"] == "refusal" for line in lines))
    refusal = [line for line in lines if line["event"] == "refusal"][-1]
    assert refusal["reason"] == "unauthorized" and refusal["path"] == "/mcp", refusal
    assert wrong not in (work / "audit.jsonl").read_text()


async def test_the_audit_file_rotates_at_its_size_on_stdio(tmp_path: Path) -> None:
    (tmp_path / "gateway.json").write_text(json.dumps(config({"path": "audit.jsonl", "maxBytes": 2000, "keep": 2})))
    params = StdioServerParameters(command=str(GATEWAY), args=["--config", str(tmp_path / "gateway.json")],
                                   env=environment())
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for n in range(20):
            assert not (await session.call_tool(ECHO, {"message": f"rotated {n:02}"})).is_error
    last = sha256_of({"message": "rotated 19"})
    audit_lines(tmp_path / "audit.jsonl", lambda lines: any(line.get("argumentsSha256") == last for line in lines))
    files = [tmp_path / name for name in ["audit.jsonl.2", "audit.jsonl.1", "audit.jsonl"]]
    assert not (tmp_path / "audit.jsonl.3").exists()
    lines = []
    for file in files:
        assert 0 < file.stat().st_size <= 2000, file
        lines += [json.loads(line) for line in file.read_text().splitlines()]
    echoes = [line for line in lines if line["event"] == "call"]
    # The oldest lines went with the files past `keep`; what is kept is the latest, in order.
    messages = [line["argumentsSha256"] for line in echoes]
    expected = [sha256_of({"message": f"rotated {n:02}"}) for n in range(20)]
    assert 0 < len(messages) < 20 and messages == expected[-len(messages):]
    assert all(line["principal"] == "anonymous" and line["session"] is None for line in echoes)


def test_audit_to_stdout_is_refused_when_mcp_is_on_stdio(tmp_path: Path) -> None:
    (tmp_path / "gateway.json").write_text(json.dumps({"mcpServers": {}}))
    done = subprocess.run([str(GATEWAY), "--config", str(tmp_path / "gateway.json"), "--audit", "-"],
                          capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert "--audit - writes to stdout, where MCP is served on stdio" in done.stderr, done.stderr


async def test_a_call_refused_by_the_lock_is_a_pin_event(tmp_path: Path) -> None:
    """A tool whose definition changed against the lock: its call is refused, written as a
    `pin` event and as a refused call line."""
    time_server = {"command": str(UPSTREAMS / "venv/bin/mcp-server-time"), "args": ["--local-timezone", "UTC"]}
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({"mcpServers": {"time": time_server},
                                  "lazytool": {"startTimeoutMs": 20000, "servers": {"time": {"eager": ["*"]}}}}))
    locked = subprocess.run([str(GATEWAY), "--config", str(config), "lock"], capture_output=True, text=True, timeout=TIMEOUT * 2)
    assert locked.returncode == 0, locked.stderr
    path = tmp_path / "lazytool.lock"
    file = json.loads(path.read_text())
    pinned = file["servers"]["time"]["tools"]["get_current_time"]
    pinned["definition"]["description"] = "Get the current time."
    pinned["sha256"] = sha256_of(pinned["definition"])
    path.write_text(json.dumps(file, indent=2))

    params = StdioServerParameters(command=str(GATEWAY), args=["--config", str(config), "--audit", str(tmp_path / "audit.jsonl")])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        blocked = await session.call_tool("time__get_current_time", {"timezone": "UTC"})
        assert blocked.is_error
    lines = audit_lines(tmp_path / "audit.jsonl", lambda lines: any(line["event"] == "call" for line in lines))
    [pin] = [line for line in lines if line["event"] == "pin"]
    assert (pin["server"], pin["tool"], pin["outcome"]) == ("time", "time__get_current_time", "refused"), pin
    [call] = [line for line in lines if line["event"] == "call"]
    assert (call["outcome"], call["errorKind"], call["server"]) == ("refused", "pin", "time"), call
