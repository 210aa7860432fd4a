#!/usr/bin/env python3
"""Instructions, allocations and system calls per call of peer servers: the difference of a
short and a long run of one load (start-up cancels out).

    python3 bench/peer/per_call.py NAME=BINARY... [--measure instructions,allocations,syscalls]
        [--flows stateful,stateless] [--clients 1]

Instructions: valgrind's callgrind (every thread's `summary:`). Allocations: valgrind's DHAT
(`Total: ... in N blocks`, every thread). System calls: `strace -f -c` (every thread), each
call's count per request, the six most frequent printed. Run
`bash bench/peer.sh` once first: it builds the servers and the load generator
(target/bench-peer/release). Both tools slow the server down; the counts per call do not
depend on that, nor on the machine's load (but for calls that wait: `futex`, `epoll_wait`).
"""
import argparse
import glob
import json
import os
import re
import signal
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOAD = os.path.join(ROOT, "target/bench-peer/release/peer_load")


def load(url: str, flow: str, clients: str, seconds: float) -> int:
    """Calls made by one run of the load generator against `url`."""
    done = subprocess.run(
        [LOAD, "run", "--url", url, "--server", "x", "--flow", flow, "--clients", clients,
         "--seconds", str(seconds), "--warmup", "0"],
        capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])["calls"]


def under_valgrind(tool: list[str], binary: str, flow: str, clients: str,
                   seconds: float) -> tuple[int, str]:
    """(calls, valgrind's report on stderr) of one run of `binary` under valgrind `tool`."""
    server = subprocess.Popen(
        ["valgrind", *tool, binary],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        calls = load(server.stdout.readline().split()[1], flow, clients, seconds)
    finally:
        # SIGTERM, not SIGINT: a shell running this in the background has its children
        # ignore SIGINT. valgrind writes its report when the server is terminated either way.
        server.send_signal(signal.SIGTERM)
        try:
            _, stderr = server.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            server.kill()
            _, stderr = server.communicate()
    return calls, stderr


def instructions(binary: str, flow: str, clients: str, seconds: float) -> tuple[dict, int]:
    """({"instructions": every thread's}, calls) of one run under callgrind."""
    out = os.path.join(tempfile.mkdtemp(prefix="peer-ir-"), "callgrind.out")
    calls, _ = under_valgrind(["--tool=callgrind", f"--callgrind-out-file={out}"],
                              binary, flow, clients, seconds)
    total = 0
    for path in glob.glob(out + "*"):
        for line in open(path, errors="replace"):
            if line.startswith("summary:"):
                total += int(line.split()[1])
                break
    return {"instructions": total}, calls


def allocations(binary: str, flow: str, clients: str, seconds: float) -> tuple[dict, int]:
    """({"allocations": blocks allocated}, calls) of one run under DHAT."""
    out = os.path.join(tempfile.mkdtemp(prefix="peer-dhat-"), "dhat.out")
    calls, stderr = under_valgrind(["--tool=dhat", f"--dhat-out-file={out}"],
                                   binary, flow, clients, seconds)
    blocks = re.search(r"Total:\s+[\d,]+ bytes in ([\d,]+) blocks", stderr)
    if blocks is None:
        raise SystemExit(f"no DHAT summary from {binary}:\n{stderr}")
    return {"allocations": int(blocks.group(1).replace(",", ""))}, calls


def syscalls(binary: str, flow: str, clients: str, seconds: float) -> tuple[dict, int]:
    """({system call: count}, calls) of one run under `strace -f -c`."""
    out = os.path.join(tempfile.mkdtemp(prefix="peer-strace-"), "strace.out")
    tracer = subprocess.Popen(
        ["strace", "-f", "-c", "-o", out, binary],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        calls = load(tracer.stdout.readline().split()[1], flow, clients, seconds)
    finally:
        # strace (started with the server) blocks the signals that would stop it: the server
        # is killed, and strace writes its summary as the server ends.
        server = subprocess.run(["ps", "-o", "pid=", "--ppid", str(tracer.pid)],
                                capture_output=True, text=True).stdout.split()
        for pid in server:
            os.kill(int(pid), signal.SIGKILL)
        tracer.wait(timeout=120)
    counts = {}
    for line in open(out):
        fields = line.split()
        # % time, seconds, usecs/call, calls, [errors,] syscall
        if len(fields) >= 5 and fields[0][0].isdigit() and fields[-1] != "total":
            counts[fields[-1]] = int(fields[3])
    counts["all"] = sum(counts.values())
    return counts, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("servers", nargs="+", help="NAME=BINARY")
    parser.add_argument("--measure", default="instructions,allocations,syscalls")
    parser.add_argument("--flows", default="stateful,stateless")
    parser.add_argument("--clients", default="1")
    parser.add_argument("--short", type=float, default=2.0, help="seconds")
    parser.add_argument("--long", type=float, default=6.0, help="seconds")
    args = parser.parse_args()
    measures = {"instructions": instructions, "allocations": allocations, "syscalls": syscalls}
    for measure in args.measure.split(","):
        for flow in args.flows.split(","):
            for clients in args.clients.split(","):
                for server in args.servers:
                    name, binary = server.split("=", 1)
                    short, short_calls = measures[measure](binary, flow, clients, args.short)
                    long, long_calls = measures[measure](binary, flow, clients, args.long)
                    calls = max(1, long_calls - short_calls)
                    per_call = {key: (long.get(key, 0) - short.get(key, 0)) / calls
                                for key in long}
                    top = sorted(per_call.items(), key=lambda item: -item[1])[:6]
                    shown = ", ".join(f"{key} {value:.2f}" for key, value in top)
                    print(f"{measure} {flow} {clients} {name}: {shown} per call "
                          f"(calls {short_calls}, {long_calls})", flush=True)


if __name__ == "__main__":
    main()
