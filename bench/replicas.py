"""Calls a second through one and two replicas sharing their sessions and limits in Redis
(issue 49): `lazytool-gateway --http` with `lazytool.shared.redis` and a principal limit high
enough never to refuse (so that every call is admitted through the store), in front of the
shop (`mcp_server --wait-tool`, stdio), behind haproxy round robin without sticky sessions
(tests/mcp/replicas/haproxy-shared.cfg). Each client holds one 2025-11-25 session, discovers
`shop__getProducts` once and then calls it back to back; its requests land on either replica.
One replica and two are measured in alternated rounds in one run. A benchmark, not a test:
nothing is asserted.

    target/mcp-venv/bin/python bench/replicas.py [--seconds 5] [--clients 8] [--rounds 2]

Needs redis-server and haproxy (Debian's packages), target/release/lazytool-gateway and
target/release/examples/mcp_server (`cargo build --release -p lazytool-gateway` and
`cargo build --release -p lazytool-examples-mcp --example mcp_server`), or LAZYTOOL_GATEWAY and
LAZYTOOL_MCP_SERVER. Every process binds 127.0.0.1 on a free port and is stopped at the end.
"""

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import anyio
import httpx2

ROOT = Path(__file__).resolve().parents[1]
GATEWAY = Path(os.environ.get("LAZYTOOL_GATEWAY", ROOT / "target/release/lazytool-gateway"))
SHOP = Path(os.environ.get("LAZYTOOL_MCP_SERVER", ROOT / "target/release/examples/mcp_server"))
HAPROXY_CONFIG = ROOT / "tests/mcp/replicas/haproxy-shared.cfg"
TOKEN = "bench-token"
HOST = "mcp.example.test"
LEGACY = "2025-11-25"
TOOL = "shop__getProducts"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(predicate, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"{what} did not come up within {timeout} s")
        time.sleep(0.05)


def answers(port: int, probe: bytes, expected: bytes) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(probe)
            return connection.recv(len(expected)) == expected
    except OSError:
        return False


class Processes:
    def __init__(self) -> None:
        self.running: list[subprocess.Popen] = []

    def start(self, argv: list[str], **kwargs) -> subprocess.Popen:
        process = subprocess.Popen(argv, **kwargs)
        self.running.append(process)
        return process

    def stop_all(self) -> None:
        for process in reversed(self.running):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
        self.running.clear()


def gateway(processes: Processes, work: Path, redis_url: str) -> str:
    config = work / "gateway.json"
    config.write_text(json.dumps({
        "mcpServers": {"shop": {"command": str(SHOP), "args": ["--wait-tool"]}},
        "lazytool": {
            "shared": {"redis": redis_url},
            "limits": {"perPrincipal": {"perSecond": 1_000_000, "burst": 1_000_000, "maxInFlight": 10_000}},
        },
    }))
    log = (work / f"gateway-{time.monotonic_ns()}.log").open("w")
    process = processes.start([str(GATEWAY), "--config", str(config), "--http", "127.0.0.1:0", "--token", TOKEN,
                               "--allowed-host", HOST], stderr=log)
    found: list[str] = []

    def serving() -> bool:
        assert process.poll() is None, "the gateway stopped"
        found[:] = re.findall(r"at http://(\S+)/mcp", Path(log.name).read_text())
        return bool(found)

    wait_for(serving, "a gateway")
    return found[0]


def haproxy(processes: Processes, replicas: list[str]) -> str:
    front = f"127.0.0.1:{free_port()}"
    environment = os.environ | {"MCP_FRONT": front, "MCP_REPLICA_1": replicas[0], "MCP_REPLICA_2": replicas[-1]}
    processes.start(["haproxy", "-db", "-f", str(HAPROXY_CONFIG)], env=environment,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def ready() -> bool:
        try:
            return httpx2.get(f"http://{front}/readyz", timeout=1).status_code == 200
        except httpx2.HTTPError:
            return False

    wait_for(ready, "haproxy")
    return f"http://{front}/mcp"


def headers(session: str | None) -> dict[str, str]:
    base = {"Authorization": f"Bearer {TOKEN}", "Host": HOST, "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": LEGACY}
    return base | ({"Mcp-Session-Id": session} if session else {})


async def client(url: str, seconds: float, latencies: list[float], failures: list[str]) -> None:
    async with httpx2.AsyncClient(timeout=30) as http:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
        answer = await http.post(url, content=json.dumps(initialize), headers=headers(None))
        session = answer.headers["mcp-session-id"]
        await http.post(url, content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                        headers=headers(session))
        discover = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "__lazy__tool__discovery__", "arguments": {"toolNames": [TOOL]}}}
        await http.post(url, content=json.dumps(discover), headers=headers(session))
        call = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": TOOL, "arguments": {}}})
        ends = time.monotonic() + seconds
        while time.monotonic() < ends:
            started = time.perf_counter()
            answer = await http.post(url, content=call, headers=headers(session))
            if answer.status_code != 200 or '"result"' not in answer.text or '"isError":true' in answer.text:
                failures.append(f"{answer.status_code} {answer.text[-300:]!r}")
            latencies.append(time.perf_counter() - started)


async def load(url: str, clients: int, seconds: float) -> dict:
    latencies: list[float] = []
    failures: list[str] = []
    started = time.monotonic()
    async with anyio.create_task_group() as group:
        for _ in range(clients):
            group.start_soon(client, url, seconds, latencies, failures)
    elapsed = time.monotonic() - started
    for failure in failures[:3]:
        print(f"failed: {failure}", flush=True)
    ordered = sorted(latencies)
    return {
        "calls": len(latencies),
        "per_second": len(latencies) / elapsed,
        "p50_ms": 1000 * statistics.median(ordered),
        "p99_ms": 1000 * ordered[int(0.99 * (len(ordered) - 1))],
        "failed": len(failures),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    arguments = parser.parse_args()
    for needed in (GATEWAY, SHOP):
        if not needed.is_file():
            raise SystemExit(f"{needed} is missing (see the docstring)")
    processes = Processes()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        try:
            redis_port = free_port()
            processes.start(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(work)], stdout=subprocess.DEVNULL)
            wait_for(lambda: answers(redis_port, b"PING\r\n", b"+PONG"), "redis-server")
            redis_url = f"redis://127.0.0.1:{redis_port}"
            for round_number in range(1, arguments.rounds + 1):
                for count in (1, 2):
                    replicas = [gateway(processes, work, redis_url) for _ in range(count)]
                    url = haproxy(processes, replicas)
                    anyio.run(load, url, arguments.clients, 0.5)  # warm-up
                    result = anyio.run(load, url, arguments.clients, arguments.seconds)
                    rows.append((round_number, count, result))
                    print(json.dumps({"round": round_number, "replicas": count} | result), flush=True)
                    processes.stop_all()
                    processes.start(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                                     "--appendonly", "no", "--dir", str(work)], stdout=subprocess.DEVNULL)
                    wait_for(lambda: answers(redis_port, b"PING\r\n", b"+PONG"), "redis-server")
        finally:
            processes.stop_all()
    print("\n| round | replicas | calls/s | p50 | p99 | failed |\n|---|---|---|---|---|---|")
    for round_number, count, result in rows:
        print(f"| {round_number} | {count} | {result['per_second']:,.0f} | {result['p50_ms']:.2f} ms "
              f"| {result['p99_ms']:.2f} ms | {result['failed']} |")


if __name__ == "__main__":
    main()
