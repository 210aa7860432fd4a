"""Two replicas (of `mcp_server`, or of `lazytool-gateway` in front of it) over streamable
HTTP and a balancer in front of them, for test_replicas.py: each process on 127.0.0.1 on a free port, its log read on, stopped by
`Cluster.close` (the test's fixture) whatever happens.

The balancers run the configurations next to this file, the ones the guide's "Running replicas"
(lazytool-mcp/src/guide/replicas.md) quotes: haproxy.cfg as it is (haproxy reads the addresses from the environment), nginx.conf
inside a minimal main configuration of the test's own (paths in the test's directory).
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from shutil import which

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# await_line(process, pattern, failure): a server's log read up to a line, then on.
from test_mcp_http import TOKEN, await_line  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
SERVER = Path(os.environ.get("LAZYTOOL_MCP_SERVER", ROOT / "target/debug/examples/mcp_server"))
GATEWAY = Path(os.environ.get("LAZYTOOL_GATEWAY", ROOT / "target/debug/lazytool-gateway"))
HAPROXY_CONFIG = Path(__file__).with_name("haproxy.cfg")
# Round robin for every request, sessions too: for replicas sharing their sessions in Redis.
HAPROXY_SHARED_CONFIG = Path(__file__).with_name("haproxy-shared.cfg")
NGINX_CONFIG = Path(__file__).with_name("nginx.conf")
# The name clients use for the service: the balancers forward it in `Host`, and the replicas
# accept it with `--allowed-host` (they accept only loopback names otherwise).
PUBLIC_HOST = "mcp.example.test"
HEADERS = {"Authorization": f"Bearer {TOKEN}", "Host": PUBLIC_HOST}
TIMEOUT = 20


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=TIMEOUT)


def mcp_server() -> list[str]:
    """`mcp_server` with its `wait` tool, to keep calls in flight."""
    assert SERVER.is_file(), f"{SERVER} is missing: run `cargo build --example mcp_server` first"
    return [str(SERVER), "--wait-tool"]


def gateway(work: Path, lazytool: dict | None = None) -> list[str]:
    """`lazytool-gateway` in front of `mcp_server` (server `shop`) over stdio, with `lazytool`
    as its configuration's `lazytool` section."""
    assert GATEWAY.is_file(), f"{GATEWAY} is missing: run `cargo build -p lazytool-gateway` first"
    config = work / "gateway.json"
    servers = {"shop": {"command": mcp_server()[0], "args": mcp_server()[1:]}}
    config.write_text(json.dumps({"mcpServers": servers} | ({"lazytool": lazytool} if lazytool else {})))
    return [str(GATEWAY), "--config", str(config)]


class Replica:
    """One `program --http ADDR` on a port of its own: the one the system gives its first start
    (port 0, read from its log, so that no other process can take it between a probe and the
    bind), bound again when restarted."""

    def __init__(self, name: str, program: list[str]) -> None:
        self.name = name
        self.program = program
        self.address = "127.0.0.1:0"
        self.process: subprocess.Popen | None = None

    @property
    def base(self) -> str:
        return f"http://{self.address}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [*self.program, "--http", self.address, "--token", TOKEN, "--allowed-host", PUBLIC_HOST,
             "--drain-timeout", "10s"],
            stderr=subprocess.PIPE,
            text=True,
        )
        serving = await_line(self.process, r"at http://(\S+)/mcp", f"{self.name} did not say where it serves")
        self.address = serving[1]

    def terminate(self) -> int:
        """SIGTERM, then the exit status once the drain is over."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=TIMEOUT)

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base}/readyz", timeout=TIMEOUT) as answer:
                return answer.status == 200
        except OSError:
            return False

    def readiness(self) -> tuple[int, dict]:
        """`GET /readyz`: its status and its JSON body."""
        try:
            with urllib.request.urlopen(f"{self.base}/readyz", timeout=TIMEOUT) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as answer:
            return answer.code, json.loads(answer.read())

    def metrics(self) -> dict[str, float]:
        """`GET /metrics`, each sample by its name with labels."""
        request = urllib.request.Request(f"{self.base}/metrics", headers=HEADERS)
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            text = answer.read().decode()
        samples = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                samples[name] = float(value)
        return samples

    def posts(self) -> int:
        """The `POST /mcp` requests this process answered."""
        return int(sum(value for name, value in self.metrics().items()
                       if name.startswith("lazytool_http_requests_total{") and 'method="POST"' in name))

    def sessions(self) -> int:
        return int(self.metrics()["lazytool_http_sessions"])

    def close(self) -> None:
        if self.process is not None:
            stop(self.process)


class Haproxy:
    """haproxy running haproxy.cfg in the foreground, plus a stats socket to read the servers'
    states from."""

    def __init__(self, work: Path, front: str, replicas: list[Replica], config: Path = HAPROXY_CONFIG) -> None:
        self.socket = work / "haproxy.sock"
        stats = work / "stats.cfg"
        stats.write_text(f"global\n    stats socket {self.socket} level admin\n")
        environment = os.environ | {"MCP_FRONT": front} | {
            f"MCP_REPLICA_{index}": replica.address for index, replica in enumerate(replicas, 1)
        }
        self.process = subprocess.Popen(
            ["haproxy", "-db", "-f", str(config), "-f", str(stats)],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def states(self) -> dict[str, str]:
        """Each server's status as haproxy sees it (`UP`, `DOWN`, `UP 1/2`...)."""
        with socket.socket(socket.AF_UNIX) as stats:
            stats.connect(str(self.socket))
            stats.sendall(b"show stat\n")
            text = b"".join(iter(lambda: stats.recv(65536), b"")).decode()
        header, *rows = [line.split(",") for line in text.splitlines() if line]
        columns = {name.lstrip("# "): index for index, name in enumerate(header)}
        return {row[columns["svname"]]: row[columns["status"]] for row in rows
                if row[columns["pxname"]] == "replicas" and row[columns["svname"]] != "BACKEND"}

    def serving(self) -> bool:
        """Whether haproxy came up with both replicas UP; `False` when it stopped (its front
        port taken, say)."""
        return came_up(self.process, lambda: self.wait_until({"replica1": "UP", "replica2": "UP"}))

    def wait_until(self, wanted: dict[str, str]) -> None:
        deadline = time.monotonic() + TIMEOUT
        states: dict[str, str] | str = "no stats socket"
        while time.monotonic() < deadline:
            assert self.process.poll() is None, "haproxy stopped"
            try:
                states = self.states()
                if all(states.get(server) == state for server, state in wanted.items()):
                    return
            except OSError as error:
                states = str(error)
            time.sleep(0.05)
        pytest.fail(f"haproxy did not see {wanted}: {states}")

    def close(self) -> None:
        stop(self.process)


class Nginx:
    """nginx running nginx.conf (its `upstream` and `server` blocks) inside a minimal main
    configuration: in the foreground, logs and temporary files in `work`."""

    def __init__(self, work: Path, front: str, replicas: list[Replica]) -> None:
        block = NGINX_CONFIG.read_text().replace("${MCP_FRONT}", front)
        for index, replica in enumerate(replicas, 1):
            block = block.replace(f"${{MCP_REPLICA_{index}}}", replica.address)
        unexpanded = re.findall(r"\$\{[A-Z0-9_]+\}", block)
        assert not unexpanded, f"nginx.conf names {unexpanded}"
        main = work / "nginx-main.conf"
        main.write_text(
            f"daemon off;\nmaster_process on;\nworker_processes 1;\npid {work}/nginx.pid;\n"
            f"error_log {work}/nginx-error.log warn;\n"
            "events { worker_connections 256; }\n"
            "http {\n    log_format upstreams '$status $request_time $upstream_addr $upstream_status';\n"
            f"    access_log {work}/nginx-access.log upstreams;\n    client_body_temp_path {work}/body;\n"
            f"    proxy_temp_path {work}/proxy;\n{block}\n}}\n"
        )
        # As root, nginx's workers run as `nobody`: they must reach the temporary directories.
        work.chmod(0o755)
        self.process = subprocess.Popen(
            ["nginx", "-p", str(work), "-c", str(main)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.front = front

    def serving(self) -> bool:
        """Whether nginx answers at its front; `False` when another process holds the port
        (nginx retries its bind for a while, then stops)."""
        if not came_up(self.process, lambda: wait_for_port(self.front, self.process)):
            return False
        try:
            with urllib.request.urlopen(f"http://{self.front}/", timeout=5) as answer:
                server = answer.headers.get("Server", "")
        except urllib.error.HTTPError as answer:
            server = answer.headers.get("Server", "")
        except OSError:
            server = ""
        return server.startswith("nginx")

    def close(self) -> None:
        stop(self.process)


class Cluster:
    """Two replicas of `program` and a balancer (`haproxy` or `nginx`) at `url`; `upstream` is
    the name of the server the replicas serve the shop's tools of (a gateway's `shop`), or None
    when they serve them themselves."""

    def __init__(self, work: Path, balancer: str, program: list[str], upstream: str | None = None,
                 haproxy_config: Path = HAPROXY_CONFIG) -> None:
        if not which(balancer):
            if os.environ.get("LAZYTOOL_REQUIRE_BALANCERS"):
                pytest.fail(f"`{balancer}` is not installed and LAZYTOOL_REQUIRE_BALANCERS is set")
            pytest.skip(f"`{balancer}` is not installed (.ci/run installs it from Debian's packages)")
        self.upstream = upstream
        self.haproxy_config = haproxy_config
        self.replicas = [Replica("replica1", program), Replica("replica2", program)]
        self.balancer: Haproxy | Nginx | None = None
        try:
            for replica in self.replicas:
                replica.start()
            self.url = self.start_balancer(work, balancer)
        except BaseException:
            self.close()
            raise

    def start_balancer(self, work: Path, balancer: str) -> str:
        """The balancer on a free port, and its URL. The balancers take their port from their
        configuration, and `free_port` only finds one that was free a moment ago: when another
        process took it first, the balancer stops, and it starts again on another."""
        for _ in range(5):
            front = f"127.0.0.1:{free_port()}"
            if balancer == "haproxy":
                self.balancer = Haproxy(work, front, self.replicas, self.haproxy_config)
            else:
                self.balancer = Nginx(work, front, self.replicas)
            if self.balancer.serving():
                return f"http://{front}/mcp"
            self.balancer.close()
            self.balancer = None
        pytest.fail(f"{balancer} stopped at start on five free ports in a row")

    def close(self) -> None:
        if self.balancer is not None:
            self.balancer.close()
        for replica in self.replicas:
            replica.close()


def came_up(process: subprocess.Popen, wait) -> bool:
    """`wait()` passed: `True`; it failed because `process` stopped: `False`; any other failure
    is raised."""
    try:
        wait()
    except AssertionError:
        if process.poll() is not None:
            return False
        raise
    return True


def wait_for_port(address: str, process: subprocess.Popen) -> None:
    host, port = address.rsplit(":", 1)
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        assert process.poll() is None, "the balancer stopped"
        try:
            socket.create_connection((host, int(port)), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    pytest.fail(f"nothing listens at {address}")
