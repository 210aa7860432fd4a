"""The hostile-upstream figures of BENCHMARKS.md's "Gateway" section, measured in one run:

    cargo build --release -p lazytool-gateway
    target/mcp-venv/bin/python tests/mcp/gateway/hostile_figures.py

- the gateway's resident memory (`VmRSS` now, `VmHWM` its peak; children not counted) at
  rest, after hostile_server.py writes a 300 MiB stderr line and 200 MiB more in 1 KiB lines,
  and after a client discovers its 1,000,000-character description and lists again; the
  bytes of the gateway's own log, and of those answers;
- the time from SIGTERM (and from the end of stdin) to the gateway's exit, and to the moment
  every process it started, a grandchild included, is gone: median and worst of ten, on
  stdio with the stdin left open and with `--http`.
"""

import json
import os
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
from test_gateway import ROOT, UPSTREAMS, descendants, process_children  # noqa: E402
from test_hostile import HOSTILE, ready_on_stdio  # noqa: E402
from test_mcp_http import await_line  # noqa: E402

GATEWAY = ROOT / "target/release/lazytool-gateway"
DISCOVERY = "__lazy__tool__discovery__"
RUNS = 10


def memory_kib(pid: int) -> tuple[int, int]:
    """`VmRSS` and `VmHWM` of `pid`, in KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    return tuple(int(re.search(rf"{field}:\s+(\d+) kB", status)[1]) for field in ("VmRSS", "VmHWM"))


def mib(kib: int) -> str:
    return f"{kib / 1024:.1f} MiB"


def config(work: Path, name: str, hostile_env: dict, http_time: bool = True) -> Path:
    servers = {"hostile": {"command": sys.executable, "args": [str(HOSTILE), str(work / f"{name}.log")], "env": hostile_env}}
    if http_time:
        servers["time"] = {"command": str(UPSTREAMS / "venv/bin/mcp-server-time")}
    path = work / f"{name}.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def stderr_flood(work: Path) -> None:
    flood = {"HOSTILE_STDERR_MB": "300", "HOSTILE_STDERR_LINES": "204800", "HOSTILE_STDERR_LINE_BYTES": "1023"}
    log_path = work / "flood-gateway.log"
    with log_path.open("w") as log:
        process = subprocess.Popen([str(GATEWAY), "--config", str(config(work, "flood", flood, False))],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
        ready_on_stdio(process)
        rest = memory_kib(process.pid)
        started = time.monotonic()
        # The flood is over when the log has not grown for two seconds after its first report.
        size, still_since = -1, time.monotonic()
        while time.monotonic() - still_since < 2 or "not logged" not in log_path.read_text():
            time.sleep(0.25)
            if log_path.stat().st_size != size:
                size, still_since = log_path.stat().st_size, time.monotonic()
        flooded = memory_kib(process.pid)
        process.terminate()
        process.wait(timeout=60)
    print(f"stderr flood (300 MiB line + 200 MiB in 1 KiB lines, over in {time.monotonic() - started - 2:.1f} s): "
          f"VmRSS {mib(rest[0])} at rest, {mib(flooded[0])} after, peak {mib(flooded[1])}; "
          f"gateway log {log_path.stat().st_size / 1024:.0f} KiB")


async def description_flood(work: Path) -> None:
    parameters = StdioServerParameters(command=str(GATEWAY), args=["--config", str(config(work, "huge", {}, False))])
    async with stdio_client(parameters, errlog=(work / "huge-gateway.log").open("w")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            first = await session.list_tools()
            found = await session.call_tool(DISCOVERY, {"toolNames": ["hostile__huge", "hostile__tagged"]})
            later = await session.list_tools()
            now, peak = memory_kib(gateway_child())
    answer = found.content[0].text
    print(f"description flood (a 1,000,000-character description): first list {len(first.model_dump_json()):,} bytes, "
          f"discovery answer {len(answer):,} bytes, the list after it {len(later.model_dump_json()):,} bytes; "
          f"VmRSS {mib(now)}, peak {mib(peak)}")


def gateway_child() -> int:
    """The gateway the SDK's stdio client started: a child of this process."""
    def is_gateway(pid: int) -> bool:
        try:
            return Path(f"/proc/{pid}/exe").resolve() == GATEWAY.resolve()
        except OSError:
            return False
    [pid] = [child for child in process_children().get(os.getpid(), []) if is_gateway(child)]
    return pid


def gone(pids: set[int]) -> bool:
    for pid in pids:
        status = Path(f"/proc/{pid}/status")
        try:
            if "State:\tZ" not in status.read_text():
                return False
        except OSError:
            continue
    return True


def stop_times(work: Path, how: str) -> tuple[list[float], list[float]]:
    exits, cleans = [], []
    for run in range(RUNS):
        path = config(work, f"stop-{run}", {"HOSTILE_SPAWN": "1"})
        command = [str(GATEWAY), "--config", str(path)]
        http = how == "SIGTERM --http"
        if http:
            command += ["--http", "127.0.0.1:0"]
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE if http else subprocess.DEVNULL, text=True)
        if http:
            await_line(process, r"at (http://\S+/mcp)", "the gateway did not serve")
        else:
            ready_on_stdio(process)
        below = descendants(process_children(), process.pid)
        started = time.monotonic()
        if how == "end of stdin":
            process.stdin.close()
        else:
            process.terminate()
        process.wait(timeout=60)
        exits.append(time.monotonic() - started)
        while not gone(below):
            time.sleep(0.005)
        cleans.append(time.monotonic() - started)
    return exits, cleans


def summary(label: str, times: list[float]) -> str:
    return f"{label} median {statistics.median(times) * 1000:.0f} ms, worst {max(times) * 1000:.0f} ms"


async def main() -> None:
    assert GATEWAY.is_file(), f"{GATEWAY} is missing: cargo build --release -p lazytool-gateway"
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        stderr_flood(work)
        await description_flood(work)
        for how in ["SIGTERM", "end of stdin", "SIGTERM --http"]:
            exits, cleans = stop_times(work, how)
            print(f"{how} (hostile with a grandchild, and mcp-server-time), {RUNS} runs: "
                  f"{summary('exit', exits)}; {summary('every process gone', cleans)}")


if __name__ == "__main__":
    anyio.run(main)
