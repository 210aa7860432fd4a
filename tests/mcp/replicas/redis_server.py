"""A `redis-server` of the test's own for the replicas' shared store: on a free port of
127.0.0.1, without persistence (`--save '' --appendonly no`), killed at the end. Absent, the
test is skipped with the reason, unless LAZYTOOL_REQUIRE_REDIS=1 (.ci/run installs it from
Debian's packages), which fails it.
"""

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from shutil import which

import pytest

TIMEOUT = 20


class RedisServer:
    """`redis-server --port PORT`, in the foreground, its working directory `work`."""

    def __init__(self, work: Path) -> None:
        self.work = work
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.process: subprocess.Popen | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Starts it (empty) on its port, and waits until it answers PING."""
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.work)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + TIMEOUT
        while not self.answers():
            assert self.process.poll() is None, "redis-server stopped at start"
            assert time.monotonic() < deadline, f"redis-server did not answer within {TIMEOUT} s"
            time.sleep(0.05)

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as connection:
                connection.sendall(b"PING\r\n")
                return connection.recv(7) == b"+PONG\r\n"
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL, as if its machine went away."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=TIMEOUT)


def redis_server(work: Path) -> Iterator[RedisServer]:
    """The fixture's body: a server for the test, killed after it."""
    if not which("redis-server"):
        if os.environ.get("LAZYTOOL_REQUIRE_REDIS") == "1":
            pytest.fail("redis-server is not installed and LAZYTOOL_REQUIRE_REDIS=1")
        pytest.skip("redis-server is not installed (.ci/run installs it from Debian's packages)")
    server = RedisServer(work)
    try:
        yield server
    finally:
        server.kill()
