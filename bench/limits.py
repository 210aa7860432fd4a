"""Load with one client over its rate limit (issue 39): 8 clients of lazytool-gateway --http,
each its own principal, call `everything__echo` of the real server-everything in a loop.
Run A: clients c0..c6 alone. Run B: the same, and c7 over its limit (5 calls/s, burst 5)
calling as fast as it is answered. The figures: the seven others' calls, successes and
latency (p50, p95) in each run, and what c7 got. A benchmark, not a test: nothing is
asserted.

    target/mcp-venv/bin/python bench/limits.py [--seconds 10]

Needs target/debug/lazytool-gateway (or LAZYTOOL_GATEWAY) and tests/mcp/gateway/install-upstreams.
The gateway binds 127.0.0.1 on a free port and is stopped when the script ends.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import anyio
import httpx2

ROOT = Path(__file__).resolve().parents[1]
GATEWAY = Path(os.environ.get("LAZYTOOL_GATEWAY", ROOT / "target/debug/lazytool-gateway"))
EVERYTHING = ROOT / "target/gateway-upstreams/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
MODERN = "2026-07-28"
ECHO = "everything__echo"
CLIENTS = [f"c{n}" for n in range(8)]
LIMITED = "c7"


def body(n: int) -> bytes:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": ECHO, "arguments": {"message": f"call {n}"}, "_meta": meta}
    return json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}).encode()


def start(work: Path) -> tuple[subprocess.Popen, str]:
    config = {
        "mcpServers": {"everything": {"command": "node", "args": [str(EVERYTHING)]}},
        "lazytool": {
            "servers": {"everything": {"eager": ["*"]}},
            "limits": {"principals": {LIMITED: {"perSecond": 5, "burst": 5}}},
        },
    }
    (work / "gateway.json").write_text(json.dumps(config))
    principals = {name: {"tokens": [f"token-{name}"]} for name in CLIENTS}
    (work / "principals.json").write_text(json.dumps({"principals": principals}))
    argv = [str(GATEWAY), "--config", str(work / "gateway.json"), "--http", "127.0.0.1:0",
            "--principals", str(work / "principals.json")]
    process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    for line in process.stderr:
        found = re.search(r"at (http://\S+/mcp)", line)
        if found:
            threading.Thread(target=process.stderr.read, daemon=True).start()
            return process, found[1]
    raise SystemExit("the gateway did not say where it serves")


async def client(url: str, name: str, until: float, results: dict) -> None:
    headers = {"Authorization": f"Bearer token-{name}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": MODERN,
               "Mcp-Method": "tools/call", "Mcp-Name": ECHO}
    latencies, ok, refused, failed = [], 0, 0, 0
    async with httpx2.AsyncClient(timeout=30) as http:
        n = 0
        while time.monotonic() < until:
            n += 1
            began = time.perf_counter()
            answer = await http.post(url, content=body(n), headers=headers)
            took = time.perf_counter() - began
            if answer.status_code == 429:
                refused += 1
                continue
            if answer.status_code == 200 and "result" in answer.json():
                ok += 1
                latencies.append(took)
            else:
                failed += 1
    results[name] = {"ok": ok, "refused": refused, "failed": failed, "latencies": latencies}


async def run(url: str, names: list[str], seconds: float) -> dict:
    results: dict = {}
    until = time.monotonic() + seconds
    async with anyio.create_task_group() as group:
        for name in names:
            group.start_soon(client, url, name, until, results)
    return results


def summary(results: dict, names: list[str]) -> str:
    latencies = sorted(t for name in names for t in results[name]["latencies"])
    ok = sum(results[name]["ok"] for name in names)
    calls = ok + sum(results[name]["failed"] + results[name]["refused"] for name in names)
    p50 = statistics.median(latencies) * 1000
    p95 = latencies[int(len(latencies) * 0.95)] * 1000
    return f"{calls} calls, {ok} ok ({100 * ok / calls:.1f}%), p50 {p50:.2f} ms, p95 {p95:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    arguments = parser.parse_args()
    seconds, rounds = arguments.seconds, arguments.rounds
    others = CLIENTS[:-1]
    with tempfile.TemporaryDirectory() as work:
        process, url = start(Path(work))
        try:
            anyio.run(run, url, others, 2.0)  # warm up: the upstream started, caches filled
            for round in range(rounds):
                alone = anyio.run(run, url, others, seconds)
                print(f"round {round + 1} A, c0-c6 alone:        {summary(alone, others)}")
                crowded = anyio.run(run, url, CLIENTS, seconds)
                print(f"round {round + 1} B, with c7 over limit: {summary(crowded, others)}")
                limited = crowded[LIMITED]
                print(f"           c7: {limited['ok']} ok, {limited['refused']} refused (429), {limited['failed']} failed")
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
