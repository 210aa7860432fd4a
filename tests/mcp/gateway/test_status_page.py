"""`lazytool-gateway --http --status-page`: the read-only page at /status, in front of the real
@modelcontextprotocol/server-everything held to a lock whose `echo` was approved with another
description, driven by the official MCP Python SDK client. The page is behind the same
tokens as /mcp, off unless asked for, loads nothing from elsewhere, and shows (parsed here
from its HTML) each server's state, tools and token cost, the pending definition change with
the command that approves it, calls and errors per server and per principal over the last
minutes, and the limits hit.
"""

import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_mcp_http import await_line  # noqa: E402

import bearer_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
GATEWAY = Path(os.environ.get("LAZYTOOL_GATEWAY", ROOT / "target/debug/lazytool-gateway"))
UPSTREAMS = ROOT / "target/gateway-upstreams"
TIMEOUT = 60
# Debian's chromium (`.ci/run` installs it); a machine without it skips the screenshot, CI
# never does (LAZYTOOL_REQUIRE_CHROMIUM=1).
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HEADLESS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"]
SCREENSHOT = ROOT / "target/status-page.png"
EVE = '<script>alert("eve")</script>'
TOKENS = {"alice": "alice-token-c0ffee01", "bob": "bob-token-be7a9912", EVE: "eve-token-5d1e0a77"}

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def config() -> dict:
    script = UPSTREAMS / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
    assert script.is_file(), f"{script} is missing: run tests/mcp/gateway/install-upstreams"
    return {
        "mcpServers": {"everything": {"command": "node", "args": [str(script)]}},
        "lazytool": {
            "startTimeoutMs": 30000,
            "servers": {"everything": {"eager": ["*"], "limits": {"maxInFlight": 4}}},
            # alice: one call, then refused for 100 s.
            "limits": {"principals": {"alice": {"perSecond": 0.01, "burst": 1}}},
        },
    }


def digest(definition: dict) -> str:
    canonical = json.dumps(definition, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert GATEWAY.is_file(), f"{GATEWAY} is missing: run `cargo build -p lazytool-gateway` first"
    work = tmp_path_factory.mktemp("status")
    (work / "gateway.json").write_text(json.dumps(config()))
    entries = {name: {"tokens": [token]} for name, token in TOKENS.items()}
    (work / "principals.json").write_text(json.dumps({"principals": entries}))
    locked = subprocess.run([str(GATEWAY), "--config", str(work / "gateway.json"), "lock"],
                            capture_output=True, text=True, timeout=TIMEOUT * 2)
    assert locked.returncode == 0, locked.stderr
    # Approved with another description than the server's: a pending change.
    path = work / "lazytool.lock"
    file = json.loads(path.read_text())
    pinned = file["servers"]["everything"]["tools"]["echo"]
    pinned["definition"]["description"] = "Echoes <b>what</b> it is given."
    pinned["sha256"] = digest(pinned["definition"])
    path.write_text(json.dumps(file, indent=2))
    return work


def serve(work: Path, *flags: str) -> subprocess.Popen:
    argv = [str(GATEWAY), "--config", str(work / "gateway.json"), "--http", "127.0.0.1:0",
            "--principals", str(work / "principals.json"), *flags]
    return subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def url(work: Path) -> Iterator[str]:
    process = serve(work, "--status-page")
    try:
        yield await_line(process, r"at (http://\S+/mcp)", "the gateway did not say where it serves")[1]
    finally:
        process.terminate()
        process.wait(timeout=TIMEOUT)


def get(url: str, who: str | None) -> tuple[int, dict, str]:
    headers = {"Authorization": f"Bearer {TOKENS[who]}"} if who else {}
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read().decode()


class Page(HTMLParser):
    """The page's tables as rows of cell texts, keyed by the table's id (or each `details`'
    server), each row with its `data-*` attributes; the pending changes' blocks; every tag
    and attribute seen."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tables: dict[str, list[tuple[dict, list[str]]]] = {}
        self.pending: dict[str, str] = {}
        self.tags: list[tuple[str, dict]] = []
        self._table = self._row = self._cell = self._pending = None
        self._details = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "details":
            self._details = attrs.get("data-server")
        elif tag == "table":
            self._table = attrs.get("id") or f"tools:{self._details}"
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self._row = ({k: v for k, v in attrs.items() if k.startswith("data-")}, [])
        elif tag in ("td", "th") and self._row is not None:
            self._cell = ""
        elif tag == "div" and attrs.get("class") == "pending":
            self._pending = attrs["data-server"]
            self.pending[self._pending] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row[1].append(self._cell)
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if self._row[0]:
                self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        elif tag == "div":
            self._pending = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell += data
        if self._pending:
            self.pending[self._pending] += data

    def row(self, table: str, key: str, name: str) -> list[str]:
        [row] = [cells for data, cells in self.tables[table] if data.get(key) == name]
        return row


def connect(url: str, who: str):
    """A legacy (session) client of the principal `who`."""
    return bearer_client.connect(url, TOKENS[who])


async def test_the_page_shows_servers_pending_changes_calls_and_limits(url: str, work: Path) -> None:
    status = url.removesuffix("/mcp") + "/status"
    code, _, _ = get(status, None)
    assert code == 401, "the page is behind the same tokens as /mcp"

    async with connect(url, "alice") as alice, connect(url, "bob") as bob:
        summed = await alice.call_tool("everything__get-sum", {"a": 2, "b": 3})
        assert not summed.is_error
        with pytest.raises(MCPError, match="rate limit of principal `alice` reached"):
            await alice.call_tool("everything__get-sum", {"a": 2, "b": 3})
        blocked = await bob.call_tool("everything__echo", {"message": "hi"})
        assert blocked.is_error, "echo differs from the lock: blocked"
        bad = await bob.call_tool("everything__get-sum", {"a": "two"})
        assert bad.is_error
    async with connect(url, EVE) as eve:
        assert not (await eve.call_tool("everything__get-sum", {"a": 1, "b": 1})).is_error

    code, headers, html = get(status, "bob")
    assert code == 200, html
    assert headers["content-type"].startswith("text/html")
    assert headers["content-security-policy"].startswith("default-src 'none'")
    page = Page(html)

    # Nothing is loaded from elsewhere: no scripts, links, images or frames, no URL at all.
    for tag, attrs in page.tags:
        assert tag not in ("script", "link", "img", "iframe", "object", "embed"), tag
        assert not {"src", "href", "action"} & attrs.keys(), (tag, attrs)

    state, tools, tokens, calls, errors = page.row("servers", "data-server", "everything")[1:]
    assert state == "running"
    assert int(tools) >= 10 and int(tokens) > 100 * int(tools) // 10
    # alice's and eve's served calls and bob's blocked one are everything's; alice's refused call and
    # bob's invalid arguments never reached a server.
    assert (int(calls), int(errors)) == (3, 0), (calls, errors)

    echo = page.row("tools:everything", "data-tool", "everything__echo")
    assert int(echo[1]) > 10, echo
    assert sum(int(cells[1]) for _, cells in page.tables["tools:everything"]) == int(tokens)

    pending = page.pending["everything"]
    assert "echo" in pending and "description changed" in pending, pending
    # The diff of the approved definition and the one listed now, escaped as text.
    approved = '-  "description": "Echoes <b>what</b> it is given.",'
    assert approved in pending and '+  "description": "Echoes back the input' in pending, pending
    assert f"lazytool-gateway --config {work / 'gateway.json'} lock --update everything" in pending, pending

    alice_row = page.row("principals", "data-principal", "alice")
    assert alice_row[1:] == ["2", "0", "1", "0", "0"], alice_row
    bob_row = page.row("principals", "data-principal", "bob")
    assert bob_row[1:] == ["2", "1", "0", "0", "1"], bob_row
    # A principal's name is text on the page, never markup.
    assert page.row("principals", "data-principal", EVE)[:2] == [EVE, "1"]
    assert page.row("limits", "data-principal", "alice")[1:] == ["1", "0"]
    assert page.row("limits", "data-server", "everything")[1:] == ["0", "0"]


async def test_the_page_is_off_unless_asked_for(work: Path) -> None:
    process = serve(work)
    try:
        url = await_line(process, r"at (http://\S+/mcp)", "the gateway did not say where it serves")[1]
        code, _, _ = get(url.removesuffix("/mcp") + "/status", "bob")
        assert code == 404
    finally:
        process.terminate()
        process.wait(timeout=TIMEOUT)
    refused = subprocess.run([str(GATEWAY), "--config", str(work / "gateway.json"), "--status-page"],
                             capture_output=True, text=True, timeout=TIMEOUT)
    assert refused.returncode != 0 and "--status-page needs --http" in refused.stderr, refused.stderr


async def test_chromium_renders_the_page(url: str, work: Path, tmp_path: Path) -> None:
    if CHROMIUM is None:
        if os.environ.get("LAZYTOOL_REQUIRE_CHROMIUM") == "1":
            pytest.fail("chromium is missing: `apt-get install chromium`")
        pytest.skip("chromium is not installed")
    async with connect(url, "bob") as bob:
        assert not (await bob.call_tool("everything__get-sum", {"a": 1, "b": 2})).is_error
    code, _, html = get(url.removesuffix("/mcp") + "/status", "bob")
    assert code == 200
    # The bytes the gateway served, opened from a file: a browser cannot send the token, and
    # the page needs nothing else.
    page = tmp_path / "status.html"
    page.write_text(html)
    profile = ["--user-data-dir=" + str(tmp_path / "profile")]
    SCREENSHOT.unlink(missing_ok=True)
    shot = subprocess.run([CHROMIUM, *HEADLESS, *profile, "--window-size=1200,1600",
                           f"--screenshot={SCREENSHOT}", page.as_uri()],
                          capture_output=True, text=True, timeout=TIMEOUT * 2)
    assert shot.returncode == 0 and SCREENSHOT.is_file(), shot.stderr
    png = SCREENSHOT.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (1200, 1600)
    dom = subprocess.run([CHROMIUM, *HEADLESS, *profile, "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=TIMEOUT * 2)
    assert dom.returncode == 0, dom.stderr
    # What Chromium built from the page: the same tables, the running server, no script.
    rendered = Page(dom.stdout)
    assert rendered.row("servers", "data-server", "everything")[1] == "running"
    assert rendered.pending["everything"].count("lock --update everything") == 1
    assert not any(tag == "script" for tag, _ in rendered.tags)
