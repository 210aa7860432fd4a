"""The figures of BENCHMARKS.md's "Gateway" section, measured in one run against the real
servers that tests/mcp/gateway/install-upstreams installs:

    cargo build --release -p lazytool-gateway && cargo build --release --example token_report
    target/mcp-venv/bin/python tests/mcp/gateway/figures.py

- tool tokens of the first request per discovery mode, against every upstream tool eagerly
  (`lazytool-gateway --check`), on the five servers and on GitHub's 117-tool catalog served
  by one upstream; a 10-request conversation (the `token_report` example on the combined
  catalog the gateway lists);
- the median time of a call through the gateway against the same call made directly to the
  upstream, both over stdio with the official Python SDK client;
- the gateway's resident memory with no upstream and with the five;
- the time from start until the gateway serves, with the five upstreams, against each alone.
"""

import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).parent))
from test_gateway import FAULTY, ROOT, node_server, UPSTREAMS  # noqa: E402
from test_mcp_http import await_line  # noqa: E402

GATEWAY = ROOT / "target/release/lazytool-gateway"
TOKEN_REPORT = ROOT / "target/release/examples/token_report"
CALLS = 300


def real_servers(work: Path) -> dict:
    (work / "files").mkdir(exist_ok=True)
    subprocess.run(["git", "init", "-q", str(work / "repo")], check=True)
    return {
        "everything": node_server("server-everything"),
        "memory": node_server("server-memory") | {"env": {"MEMORY_FILE_PATH": str(work / "memory.jsonl")}},
        "filesystem": node_server("server-filesystem", str(work / "files")),
        "time": {"command": str(UPSTREAMS / "venv/bin/mcp-server-time")},
        "git": {"command": str(UPSTREAMS / "venv/bin/mcp-server-git"), "args": ["--repository", str(work / "repo")]},
    }


def write(work: Path, name: str, config: dict) -> Path:
    path = work / name
    path.write_text(json.dumps(config))
    return path


def check(config: Path) -> tuple[int, int, int]:
    out = subprocess.run([str(GATEWAY), "--config", str(config), "--check"], capture_output=True, text=True).stdout
    found = re.search(r"total: (\d+) tools, (\d+) tokens eagerly; the first request carries (\d+) tokens", out)
    assert found, out
    return int(found[1]), int(found[2]), int(found[3])


def tokens(work: Path, servers: dict, label: str, settings: dict | None = None, listing: str | None = None) -> None:
    for mode in ["names", "search", "auto"]:
        section = {"mode": mode} | ({"servers": settings} if settings else {}) | ({"listing": listing} if listing else {})
        config = write(work, f"{label}-{mode}.json", {"mcpServers": servers, "lazytool": section})
        count, eager, first = check(config)
        print(f"{label}: {count} tools, eager {eager} tokens; {mode}: first request {first} tokens ({100 * first / eager:.1f}%)")


async def combined_catalog(work: Path, servers: dict) -> Path:
    """The five servers' tools as the gateway lists them with every tool eager."""
    every = {name: {"eager": ["*"]} for name in servers}
    config = write(work, "eager.json", {"mcpServers": servers, "lazytool": {"servers": every}})
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(config)])
    async with stdio_client(parameters) as (read, write_stream):
        async with ClientSession(read, write_stream) as session:
            await session.initialize()
            listed = await session.list_tools()
    tools = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed.tools]
    path = work / "combined-catalog.json"
    path.write_text(json.dumps({"tools": tools}))
    return path


async def median_call(parameters: StdioServerParameters, tool: str) -> float:
    async with stdio_client(parameters) as (read, write_stream):
        async with ClientSession(read, write_stream) as session:
            await session.initialize()
            for _ in range(50):
                await session.call_tool(tool, {"text": "warm up"})
            times = []
            for index in range(CALLS):
                started = time.perf_counter()
                result = await session.call_tool(tool, {"text": f"call {index}"})
                times.append(time.perf_counter() - started)
                assert not result.is_error
    return statistics.median(times) * 1000


def rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status)[1])


def serve_until_ready(config: Path) -> tuple[subprocess.Popen, float]:
    started = time.perf_counter()
    process = subprocess.Popen([str(GATEWAY), "--config", str(config), "--http", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
    await_line(process, "serving MCP at", "the gateway did not serve")
    return process, time.perf_counter() - started


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait(timeout=30)


async def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="gateway-figures-"))
    servers = real_servers(work)
    # The grouped listing explicitly: the default is each full name, the "listing names" rows.
    tokens(work, servers, "five servers", listing="grouped")
    tokens(work, servers, "five servers, listing names", listing="names")
    github = {"github": {"command": sys.executable, "args": [str(FAULTY), "catalog", str(ROOT / "data/github-mcp-tools.json")]}}
    tokens(work, github, "GitHub catalog", listing="grouped")
    tokens(work, github, "GitHub catalog, listing names", listing="names")
    tokens(work, github, "GitHub catalog, prefix \"\"", {"github": {"prefix": ""}}, listing="grouped")

    catalog = await combined_catalog(work, servers)
    report = subprocess.run([str(TOKEN_REPORT), str(catalog)], capture_output=True, text=True).stdout.strip().splitlines()
    print(f"10-request conversation on the combined catalog: {report[-1]}")

    faulty = [str(FAULTY), "ok"]
    direct = await median_call(StdioServerParameters(command=sys.executable, args=faulty), "echo")
    eager = {"mcpServers": {"faulty": {"command": sys.executable, "args": faulty}}, "lazytool": {"servers": {"faulty": {"eager": ["echo"]}}}}
    proxied_config = write(work, "proxied.json", eager)
    proxied = await median_call(StdioServerParameters(command=str(GATEWAY), args=["--config", str(proxied_config)]), "faulty__echo")
    print(f"call over stdio, median of {CALLS}: direct {direct:.3f} ms, through the gateway {proxied:.3f} ms, added {proxied - direct:.3f} ms")

    empty, _ = serve_until_ready(write(work, "empty.json", {"mcpServers": {}}))
    base = rss_kib(empty.pid)
    stop(empty)
    five, start_five = serve_until_ready(write(work, "five.json", {"mcpServers": servers}))
    loaded = rss_kib(five.pid)
    stop(five)
    print(f"gateway RSS: {base / 1024:.1f} MiB with no upstream, {loaded / 1024:.1f} MiB with five ({(loaded - base) / 5 / 1024:.2f} MiB per upstream, children not counted)")
    alone = {}
    for name, server in servers.items():
        process, alone[name] = serve_until_ready(write(work, f"alone-{name}.json", {"mcpServers": {name: server}}))
        stop(process)
    slowest = max(alone, key=alone.get)
    print(f"start until serving: five upstreams {start_five:.2f} s; each alone: " + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in alone.items()) + f" (sum {sum(alone.values()):.2f} s, slowest {slowest})")


anyio.run(main)
