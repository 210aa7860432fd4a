"""Both binaries serving HTTP under pressure from a misbehaving client of our own, on 127.0.0.1
and bounded in count: started with a low open-file limit (soft 64, hard 256), each raises it
to the hard limit, and connections that never finish their headers (more than the cap, and
more than even the raised limit, so that accepting runs out of descriptors) never keep a
normal client from being answered within 5 s.
A flood of handshakes against the gateway grows its memory only up to its default bound of
sessions.
"""

import http.client
import json
import os
import re
import resource
import socket
import subprocess
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
GATEWAY = Path(os.environ.get("LAZYTOOL_GATEWAY", ROOT / "target/debug/lazytool-gateway"))
SERVER = Path(os.environ.get("LAZYTOOL_MCP_SERVER", ROOT / "target/debug/examples/mcp_server"))
TIMEOUT = 30
SERVED_WITHIN = 5
SOFT, HARD = 64, 256
HELD = 600
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "flood", "version": "1"}}})
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def low_open_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (SOFT, HARD))


def command(binary: str, tmp_path: Path) -> list[str]:
    if binary == "mcp_server":
        assert SERVER.is_file(), f"{SERVER} is missing: run `cargo build --example mcp_server` first"
        return [str(SERVER), "--http", "127.0.0.1:0"]
    assert GATEWAY.is_file(), f"{GATEWAY} is missing: run `cargo build -p lazytool-gateway` first"
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({"mcpServers": {}}))
    return [str(GATEWAY), "--config", str(config), "--http", "127.0.0.1:0"]


def started(argv: list[str], env: dict[str, str] | None = None) -> tuple[subprocess.Popen, str, int]:
    """The process, its base URL and port, once it says where it serves."""
    process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, preexec_fn=low_open_files, env=env)
    assert process.stderr is not None
    for line in process.stderr:
        found = re.search(r"at (http://127\.0\.0\.1:(\d+))/mcp", line)
        if found:
            threading.Thread(target=process.stderr.read, daemon=True).start()
            return process, found[1], int(found[2])
    pytest.fail(f"{argv[0]} did not say where it serves")


@pytest.fixture(params=["mcp_server", "lazytool-gateway"])
def serving(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[subprocess.Popen, str, int]]:
    process, base, port = started(command(request.param, tmp_path))
    try:
        yield process, base, port
    finally:
        process.kill()
        process.wait(timeout=TIMEOUT)


def soft_open_files(pid: int) -> int:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    pytest.fail("no open-file limit in /proc")


def test_held_connections_never_lock_a_normal_client_out(serving: tuple[subprocess.Popen, str, int]) -> None:
    process, base, port = serving
    assert soft_open_files(process.pid) == HARD, "the soft open-file limit is raised to the hard one"
    attack = []
    try:
        for _ in range(HELD):
            held = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
            try:
                held.sendall(b"POST /mcp HTTP/1.1\r\nX-Slow: ")
            except OSError:
                pass  # already closed to make room for the next one
            attack.append(held)
        with urllib.request.urlopen(base + "/healthz", timeout=SERVED_WITHIN) as answer:
            assert answer.status == 200
        request = urllib.request.Request(base + "/mcp", data=INITIALIZE.encode(), headers=MCP_HEADERS)
        with urllib.request.urlopen(request, timeout=SERVED_WITHIN) as answer:
            assert answer.status == 200 and answer.headers["Mcp-Session-Id"]
    finally:
        for held in attack:
            held.close()


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    pytest.fail("no VmRSS in /proc")


def test_a_flood_of_handshakes_stays_within_the_default_bound_of_sessions(tmp_path: Path) -> None:
    """10,000 `initialize`s without DELETE: past the default 1,000 sessions, each new one
    closes the least recently used; the memory of those closed is given back (it once grew
    by 12 KB a session: +50 MB over 4,000).

    The resident size keeps settling well past the bound, as the allocator's free lists
    fragment: from 2,000 to 6,000 handshakes it grew by 20-25 MB in runs without any leak
    (one failed CI at 25.4 MB), from 6,000 to 10,000 by 3-7 MB, and it levels off near
    132 MB by 40,000 (2026-12-03, this machine). So the window measured starts at 6,000,
    where a leak of even 5 KB a session would still cross the bound."""
    help_text = subprocess.run([str(GATEWAY), "--help"], capture_output=True, text=True, timeout=TIMEOUT).stdout
    assert "default 1000" in help_text, help_text
    # Two malloc arenas, not glibc's default of eight per core: under load more of the
    # runtime's threads contend and each new arena keeps its own freed pages, which grew the
    # resident size by up to 40 MB with no memory held (a run beside two builds failed). What
    # this test looks for, memory a closed session keeps, grows in any number of arenas.
    env = {**os.environ, "MALLOC_ARENA_MAX": "2"}
    process, _, port = started(command("lazytool-gateway", tmp_path), env)
    try:
        client = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)

        def handshakes(count: int) -> None:
            for _ in range(count):
                client.request("POST", "/mcp", INITIALIZE, MCP_HEADERS)
                answer = client.getresponse()
                answer.read()
                assert answer.status == 200, answer.status

        handshakes(6_000)
        settled = rss_kb(process.pid)
        handshakes(4_000)
        grown = rss_kb(process.pid) - settled
        assert grown < 20_000, f"4,000 more handshakes past the bound grew the gateway by {grown} KB"
    finally:
        process.kill()
        process.wait(timeout=TIMEOUT)
