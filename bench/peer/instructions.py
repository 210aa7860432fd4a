#!/usr/bin/env python3
"""Instructions per call of peer servers under callgrind: the difference of a short and a long
run of one load (valgrind's callgrind counts every thread's instructions; start-up cancels out).

    python3 bench/peer/instructions.py NAME=BINARY... [--flows stateful,stateless] [--clients 1]

Run `bash bench/peer.sh` once first: it builds the servers and the load generator
(target/bench-peer/release). Needs valgrind. Deterministic to about a percent, unlike
requests/s on a shared machine; it counts no kernel time and no waiting.
"""
import argparse
import glob
import json
import os
import signal
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOAD = os.path.join(ROOT, "target/bench-peer/release/peer_load")


def run(binary: str, flow: str, clients: str, seconds: float) -> tuple[int, int]:
    """(instructions, calls) of one run of `binary` under callgrind."""
    out = os.path.join(tempfile.mkdtemp(prefix="peer-ir-"), "callgrind.out")
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = server.stdout.readline().split()[1]
        load = subprocess.run(
            [LOAD, "run", "--url", url, "--server", "x", "--flow", flow, "--clients", clients,
             "--seconds", str(seconds), "--warmup", "0"],
            capture_output=True, text=True, check=True)
        calls = json.loads(load.stdout.strip().splitlines()[-1])["calls"]
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=120)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    total = 0
    for path in glob.glob(out + "*"):
        for line in open(path, errors="replace"):
            if line.startswith("summary:"):
                total += int(line.split()[1])
                break
    return total, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("servers", nargs="+", help="NAME=BINARY")
    parser.add_argument("--flows", default="stateful,stateless")
    parser.add_argument("--clients", default="1")
    parser.add_argument("--short", type=float, default=2.0, help="seconds")
    parser.add_argument("--long", type=float, default=6.0, help="seconds")
    args = parser.parse_args()
    for flow in args.flows.split(","):
        for clients in args.clients.split(","):
            for server in args.servers:
                name, binary = server.split("=", 1)
                short, short_calls = run(binary, flow, clients, args.short)
                long, long_calls = run(binary, flow, clients, args.long)
                per_call = (long - short) / max(1, long_calls - short_calls)
                print(f"{flow} {clients} {name}: {per_call:,.0f} instructions per call "
                      f"(calls {short_calls}, {long_calls})", flush=True)


if __name__ == "__main__":
    main()
