"""Runs the official MCP conformance suite's scenarios one at a time, with the
expected-failures baseline (baseline.yml, its `server:` and `client:` lists).

usage: python3 run.py SERVER_BINARY SUITE_DIR            # server scenarios (scenarios.txt)
       python3 run.py --client CLIENT_BINARY SUITE_DIR   # client scenarios (client-scenarios.txt)

SERVER_BINARY is the built `mcp_conformance` example, served over HTTP for every scenario;
CLIENT_BINARY is the built `mcp_conformance_client` example, which the suite runs once per
scenario against a test server of its own. SUITE_DIR is where `npm ci` installed
`package.json` of this folder (`.ci/run` uses `target/conformance`). Prints one line per
scenario and exits non-zero if any scenario failed unexpectedly or a baseline entry passed.
"""

import re
import subprocess
import sys
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
TIMEOUT = 120


def scenarios(listing: str) -> list[str]:
    lines = (HERE / listing).read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def expected_failures() -> set[str]:
    lines = (HERE / "baseline.yml").read_text().splitlines()
    return {line.strip()[2:].strip() for line in lines if line.strip().startswith("- ")}


def start(binary: str) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen([binary, "--http", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    for line in server.stderr:
        found = re.search(r"serving at (http://\S+)", line)
        if found:
            # Keep draining its log, or the server blocks once the pipe is full.
            threading.Thread(target=server.stderr.read, daemon=True).start()
            return server, found.group(1)
    server.kill()
    sys.exit(f"{binary} did not say where it serves")


def main() -> int:
    client = sys.argv[1] == "--client"
    binary, suite = sys.argv[1 + client], Path(sys.argv[2 + client]).resolve()
    cli = suite / "node_modules/@modelcontextprotocol/conformance/dist/index.js"
    expected = expected_failures()
    if client:
        server, target = None, ["client", "--command", str(Path(binary).resolve())]
    else:
        server, url = start(binary)
        target = ["server", "--url", url]
    listed = scenarios("client-scenarios.txt" if client else "scenarios.txt")
    passed, failed, expected_failed = [], [], []
    try:
        for scenario in listed:
            command = ["node", str(cli), *target, "--scenario", scenario,
                       "--expected-failures", str(HERE / "baseline.yml")]
            run = subprocess.run(command, cwd=suite, capture_output=True, text=True, timeout=TIMEOUT)
            output = re.sub(r"\x1b\[[0-9;]*m", "", run.stdout + run.stderr)
            checks = re.findall(r"Passed: (\d+)/(\d+)", output)
            summary = f"{checks[-1][0]}/{checks[-1][1]} checks" if checks else "no checks"
            if run.returncode != 0:
                failed.append(scenario)
                print(f"FAILED             {scenario} ({summary})\n{output}")
            elif scenario in expected:
                expected_failed.append(scenario)
                print(f"expected failure   {scenario} ({summary}; reason in baseline.yml)")
            else:
                passed.append(scenario)
                print(f"passed             {scenario} ({summary})")
    finally:
        if server:
            server.terminate()
            server.wait(timeout=TIMEOUT)
    side = "client" if client else "server"
    print(f"conformance ({side}): {len(listed)} scenarios, {len(passed)} passed, "
          f"{len(expected_failed)} expected failures, {len(failed)} unexpected")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
