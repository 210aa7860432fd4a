"""The figures of BENCHMARKS.md's "Gateway: servers started on first use" (issue 24), measured
in one run against the real servers that tests/mcp/gateway/install-upstreams installs:

    cargo build --profile dist -p lazytool-gateway
    LAZYTOOL_GATEWAY=target/dist/lazytool-gateway target/mcp-venv/bin/python tests/mcp/gateway/lock_figures.py

(without `LAZYTOOL_GATEWAY`, the `release` build's binary).

The configuration holds the five real servers plus 15 more entries (three more of each,
under other names): 20 servers. With a lock (written by `lazytool-gateway lock` first) and
without (the baseline, in the same run), on stdio:
- the time from spawning the gateway to the answer of its first `tools/list`
  (`initialize`, `notifications/initialized` and `tools/list` written at once);
- the gateway's resident memory (`VmRSS`) and its children's, until a tool is called;
- with the lock, the first-use latency (start + call) of one tool of each of the five
  servers, and the same call again once it runs;
- the gateway's and its children's memory after every server was stopped by its idle
  timeout (`idleTimeoutMs`).
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

sys.path.insert(0, str(Path(__file__).parent))
from test_gateway import ROOT, UPSTREAMS, node_server  # noqa: E402

GATEWAY = Path(os.environ.get("LAZYTOOL_GATEWAY", ROOT / "target/release/lazytool-gateway"))
DISCOVERY = "__lazy__tool__discovery__"
IDLE_MS = 10000
RUNS = int(os.environ.get("LOCK_FIGURES_RUNS", "5"))


def servers(work: Path) -> dict:
    (work / "files").mkdir(exist_ok=True)
    if not (work / "repo").exists():
        subprocess.run(["git", "init", "-q", str(work / "repo")], check=True)
    five = {
        "everything": node_server("server-everything"),
        "memory": node_server("server-memory") | {"env": {"MEMORY_FILE_PATH": str(work / "memory.jsonl")}},
        "filesystem": node_server("server-filesystem", str(work / "files")),
        "time": {"command": str(UPSTREAMS / "venv/bin/mcp-server-time")},
        "git": {"command": str(UPSTREAMS / "venv/bin/mcp-server-git"), "args": ["--repository", str(work / "repo")]},
    }
    more = {f"{name}{copy}": entry for copy in (2, 3, 4) for name, entry in five.items()}
    return five | more


# One tool of each of the five, and its arguments.
CALLS = {
    "everything": ("echo", {"message": "hi"}),
    "memory": ("read_graph", {}),
    "filesystem": ("list_allowed_directories", {}),
    "time": ("get_current_time", {"timezone": "UTC"}),
    "git": ("git_status", {"repo_path": None}),
}


class Gateway:
    """The gateway on stdio, spoken to in raw JSON-RPC lines."""

    def __init__(self, config: Path) -> None:
        self.spawned = time.perf_counter()
        self.process = subprocess.Popen([str(GATEWAY), "--config", str(config), "-q"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.next_id = 0

    def send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict) -> int:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def answer(self, id: int) -> dict:
        while True:
            line = self.process.stdout.readline()
            assert line, "the gateway closed its output"
            message = json.loads(line)
            if message.get("id") == id:
                return message

    def ask(self, method: str, params: dict) -> dict:
        return self.answer(self.request(method, params))

    def first_list(self) -> tuple[float, dict]:
        """Seconds from spawn to the first tools/list answer."""
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "figures", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = self.answer(self.request("tools/list", {}))
        return time.perf_counter() - self.spawned, listed

    def call(self, tool: str, arguments: dict) -> float:
        started = time.perf_counter()
        answer = self.ask("tools/call", {"name": tool, "arguments": arguments})
        elapsed = time.perf_counter() - started
        assert not answer["result"].get("isError"), answer
        return elapsed

    def stop(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)


def rss_mib(pid: int, field: str = "VmRSS") -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(rf"{field}:\s+(\d+) kB", status)
    return int(found[1]) / 1024 if found else 0.0


def kinds(pid: int) -> str:
    """The gateway's resident memory by kind: its heap and stacks (`RssAnon`), and the pages of
    its executable and libraries it has run or read (`RssFile`, shared with the page cache)."""
    return f"(anonymous {rss_mib(pid, 'RssAnon'):.1f}, file-backed {rss_mib(pid, 'RssFile'):.1f})"


def descendants(pid: int) -> list[int]:
    parents: dict[int, int] = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            found = re.search(r"PPid:\s+(\d+)", status.read_text())
        except OSError:
            continue
        if found:
            parents[int(status.parent.name)] = int(found[1])
    family, grew = {pid}, True
    while grew:
        grew = False
        for child, parent in parents.items():
            if parent in family and child not in family:
                family.add(child)
                grew = True
    family.discard(pid)
    return sorted(family)


def memory(pid: int) -> tuple[float, float, int]:
    """The gateway's RSS, its descendants' summed RSS (MiB), and how many descendants."""
    children = descendants(pid)
    return rss_mib(pid), sum(rss_mib(child) for child in children), len(children)


def main() -> None:
    assert GATEWAY.is_file(), f"{GATEWAY} is missing: cargo build --release -p lazytool-gateway"
    work = Path(tempfile.mkdtemp(prefix="lazytool-lock-figures-"))
    every = servers(work)
    settings = {name: {"idleTimeoutMs": IDLE_MS} for name in every}
    config = work / "gateway.json"
    config.write_text(json.dumps({"mcpServers": every, "lazytool": {"startTimeoutMs": 60000, "servers": settings}}))
    unlocked_config = work / "unlocked" / "gateway.json"
    unlocked_config.parent.mkdir()
    unlocked_config.write_text(config.read_text())

    started = time.perf_counter()
    locked = subprocess.run([str(GATEWAY), "--config", str(config), "lock"], capture_output=True, text=True)
    assert locked.returncode == 0, locked.stderr
    print(f"lock: {len(every)} servers pinned in {time.perf_counter() - started:.1f} s")

    firsts = {"locked": [], "unlocked": []}
    rests = {"locked": [], "unlocked": []}
    for run in range(RUNS):
        for label, path in (("locked", config), ("unlocked", unlocked_config)):
            gateway = Gateway(path)
            seconds, listed = gateway.first_list()
            tools = len(listed["result"]["tools"])
            firsts[label].append(seconds)
            rests[label].append(memory(gateway.process.pid))
            if label == "locked" and run == 0:
                print(f"locked, first run: RSS gateway {kinds(gateway.process.pid)}")
            gateway.stop()
    for label in ("locked", "unlocked"):
        median = statistics.median(firsts[label]) * 1000
        own = statistics.median(m[0] for m in rests[label])
        children = statistics.median(m[1] for m in rests[label])
        count = statistics.median(m[2] for m in rests[label])
        print(f"{label}: first tools/list after spawn: median {median:.0f} ms of {RUNS} "
              f"(runs: {', '.join(f'{s * 1000:.0f}' for s in firsts[label])}); "
              f"RSS gateway {own:.1f} MiB, {count:.0f} descendants {children:.1f} MiB")

    gateway = Gateway(config)
    gateway.first_list()
    names = [name for name in CALLS]
    gateway.ask("tools/call", {"name": DISCOVERY, "arguments": {"toolNames": [f"{n}__{CALLS[n][0]}" for n in names]}})
    for name in names:
        tool, arguments = CALLS[name]
        if "repo_path" in arguments:
            arguments = {"repo_path": str(work / "repo")}
        first = gateway.call(f"{name}__{tool}", arguments)
        again = gateway.call(f"{name}__{tool}", arguments)
        print(f"first use of {name} ({tool}): {first * 1000:.0f} ms; the same call again: {again * 1000:.1f} ms")
    own, children, count = memory(gateway.process.pid)
    print(f"after the five calls: RSS gateway {own:.1f} MiB {kinds(gateway.process.pid)}, {count} descendants {children:.1f} MiB")
    deadline = time.monotonic() + IDLE_MS / 1000 + 30
    while descendants(gateway.process.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    own, children, count = memory(gateway.process.pid)
    print(f"after the idle timeout ({IDLE_MS} ms): RSS gateway {own:.1f} MiB {kinds(gateway.process.pid)}, {count} descendants {children:.1f} MiB")
    gateway.stop()


main()
