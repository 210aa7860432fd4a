"""Identities held on every request (issue 49): lazytool-gateway with the real OpenID Connect
provider of test_oidc.py (npm oidc-provider, its own keys), static principals from a
`--principals` file beside it, driven by the official Python SDK and by raw HTTP.

- A stateful session is held to the claims of the token each request carries: a principal
  that loses a group loses its tools at the next request (`tools/list` shrinks, the client
  hears `notifications/tools/list_changed`, a call of a discovered tool answers as an unknown
  tool) and gets them back with a token that grants them; a reload of the rules (SIGHUP) does
  the same to live sessions.
- A static principal and an issuer's subject of the same name are two principals: separate
  sessions, limits (`oidc:NAME` in `lazytool.limits`) and audit lines.
- The protected-resource metadata is behind the Host check; its `resource` comes from
  `--public-url`, else from the forwarded headers of a `--trusted-proxy` only.
- Failed authentication is limited per client address (`--max-failed-auth-per-minute`):
  past it, 429 with `Retry-After` before the token is looked at, other addresses unaffected,
  the audit line sampled.
"""

import asyncio
import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from test_oidc import AUDIENCE, GATEWAY, INITIALIZE, TIMEOUT, UPSTREAMS, issuer, signed  # noqa: F401
import sys

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_mcp_http import ListChanges, names  # noqa: E402

DISCOVERY = "__lazy__tool__discovery__"
STATIC_DANA = "static-token-of-dana-7c1e"
METADATA = "/.well-known/oauth-protected-resource/mcp"
RULES = [
    {"when": {"groups": "admins"}},
    {"when": {"groups": "readers"}, "allow": ["time__get_current_time"]},
]

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Gateway:
    """lazytool-gateway over HTTP with the provider's issuer, `extra` flags, and a config
    reloadable on SIGHUP; its URL, log and audit trail."""

    def __init__(self, work: Path, issuer: str, extra: list[str], lazytool: dict, servers: dict | None = None) -> None:
        self.work, self.issuer = work, issuer
        work.mkdir(parents=True, exist_ok=True)
        self.servers = servers if servers is not None else {
            "time": {"command": str(UPSTREAMS / "venv/bin/mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        }
        self.write(lazytool)
        (work / "principals.json").write_text(json.dumps({"principals": {"dana": {"tokens": [STATIC_DANA]}}}))
        self.log_path = work / "gateway.log"
        with self.log_path.open("w") as sink:
            self.process = subprocess.Popen(
                [str(GATEWAY), "--config", str(work / "gateway.json"), "--http", "127.0.0.1:0", "-vv",
                 "--oidc-issuer", issuer, "--audience", AUDIENCE, "--principals", str(work / "principals.json"),
                 "--audit", str(work / "audit.jsonl"), *extra],
                stderr=sink,
            )
        deadline = time.monotonic() + TIMEOUT
        found = None
        while found is None and time.monotonic() < deadline and self.process.poll() is None:
            found = re.search(r"at (http://\S+/mcp)", self.log_path.read_text())
            time.sleep(0.1)
        assert found, f"the gateway did not say where it serves:\n{self.log_path.read_text()}"
        self.url = found[1]

    def write(self, lazytool: dict) -> None:
        eager = {"servers": {"time": {"eager": ["get_current_time"]}}} if "time" in self.servers else {}
        config = {"mcpServers": self.servers, "lazytool": {
            "oidc": {"issuer": "https://replaced-by-the-flag.example", "audience": "replaced", "rules": RULES},
            **eager,
            **lazytool,
        }}
        (self.work / "gateway.json").write_text(json.dumps(config))

    def reload(self, lazytool: dict) -> None:
        mark = len(self.log_path.read_text())
        self.write(lazytool)
        os.kill(self.process.pid, signal.SIGHUP)
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if "the configuration is reloaded" in self.log_path.read_text()[mark:]:
                return
            time.sleep(0.1)
        raise AssertionError(f"no reload:\n{self.log_path.read_text()[mark:]}")

    def audit(self, wanted: int, event: str = "call") -> list[dict]:
        """The audit trail's lines of `event` once there are `wanted` (the writer may lag)."""
        deadline = time.monotonic() + TIMEOUT
        lines: list[dict] = []
        while time.monotonic() < deadline:
            path = self.work / "audit.jsonl"
            text = path.read_text() if path.exists() else ""
            lines = [json.loads(line) for line in text.splitlines() if f'"event":"{event}"' in line]
            if len(lines) >= wanted:
                return lines
            time.sleep(0.1)
        return lines

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=TIMEOUT)


@contextmanager
def gateway(tmp_path: Path, issuer: str, *extra: str, servers: dict | None = None, **lazytool: object) -> Iterator[Gateway]:
    assert GATEWAY.is_file(), f"{GATEWAY} is missing: run `cargo build -p lazytool-gateway` first"
    served = Gateway(tmp_path, issuer, list(extra), dict(lazytool), servers)
    try:
        yield served
    finally:
        served.stop()


class Bearer(httpx2.Auth):
    """A bearer token the test may swap between requests of one session."""

    def __init__(self, token: str) -> None:
        self.token = token

    def auth_flow(self, request):
        request.headers["Authorization"] = f"Bearer {self.token}"
        yield request


async def dana(issuer: str, groups: list[str]) -> str:
    """An access token of the provider for subject `dana` in `groups`."""
    now = int(time.time())
    return await signed(issuer, {"iss": issuer, "aud": AUDIENCE, "sub": "dana", "exp": now + 300, "scope": "mcp", "groups": groups})


async def test_a_session_is_held_to_the_claims_of_each_requests_token(tmp_path: Path, issuer: str) -> None:
    """An admin's session discovers a tool; the next request's token no longer says
    `admins`: the tools go (list_changed, an empty list, the discovered tool unknown); a
    token of `readers` gives back what readers may use; an admin's token all of it."""
    with gateway(tmp_path, issuer) as served:
        auth = Bearer(await dana(issuer, ["admins"]))
        changes = ListChanges()
        http = create_mcp_http_client(auth=auth)
        async with http, Client(streamable_http_client(served.url, http_client=http), mode="legacy",
                                message_handler=changes.handle) as client:
            found = await client.call_tool(DISCOVERY, {"toolNames": ["time__convert_time"]})
            assert not found.is_error, found
            await changes.wait()
            assert {"time__get_current_time", "time__convert_time"} <= set(names(await client.list_tools()))

            auth.token = await dana(issuer, ["staff"])
            assert names(await client.list_tools()) == []
            await changes.wait()
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("time__convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "UTC"})
            with pytest.raises(MCPError) as missing:
                await client.call_tool("time__no_such_tool", {})
            assert unknown.value.code == missing.value.code
            assert str(unknown.value).replace("time__convert_time", "NAME") == str(missing.value).replace("time__no_such_tool", "NAME")

            auth.token = await dana(issuer, ["readers"])
            assert names(await client.list_tools()) == ["time__get_current_time"]
            await changes.wait()
            result = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
            assert not result.is_error, result

            auth.token = await dana(issuer, ["admins"])
            listed = set(names(await client.list_tools()))
            assert "time__get_current_time" in listed and DISCOVERY in listed, listed
            await changes.wait()
        # The discovery, then three changes of the tokens' claims: each announced.
        assert changes.count >= 4, changes.count


async def test_a_reload_of_the_rules_reaches_live_sessions(tmp_path: Path, issuer: str) -> None:
    """SIGHUP with a rule denying admins `time__*`: the admin's live session loses them at
    its next request, and hears of it."""
    with gateway(tmp_path, issuer) as served:
        token = await dana(issuer, ["admins"])
        changes = ListChanges()
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with http, Client(streamable_http_client(served.url, http_client=http), mode="legacy",
                                message_handler=changes.handle) as client:
            assert "time__get_current_time" in names(await client.list_tools())
            served.reload({"oidc": {"issuer": "https://replaced-by-the-flag.example", "audience": "replaced",
                                    "rules": [{"when": {"groups": "admins"}, "deny": ["time__*"]},
                                              {"when": {"groups": "admins"}}]}})
            listed = names(await client.list_tools())
            assert not [name for name in listed if name.startswith("time__")], listed
            await changes.wait()
            with pytest.raises(MCPError):
                await client.call_tool("time__get_current_time", {"timezone": "UTC"})


async def post(url: str, token: str, body: bytes, session: str | None = None, **client: object) -> httpx2.Response:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "Authorization": f"Bearer {token}", "MCP-Protocol-Version": "2025-11-25"}
    if session:
        headers["Mcp-Session-Id"] = session
    async with httpx2.AsyncClient(timeout=TIMEOUT, **client) as http:
        return await http.post(url, content=body, headers=headers)


def call(tool: str, arguments: dict, id: int = 2) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments}}).encode()


async def test_a_static_principal_and_an_issuers_subject_of_one_name_share_nothing(tmp_path: Path, issuer: str) -> None:
    """Static `dana` (from --principals) and the issuer's `dana` (`oidc:dana`): the one's
    session refuses the other's token; `lazytool.limits.principals.dana` limits the static
    one only and `oidc:dana` the issuer's; the audit trail names each as it is written."""
    limits = {"principals": {"dana": {"perSecond": 0.001, "burst": 1}, "oidc:dana": {"perSecond": 0.001, "burst": 2}}}
    with gateway(tmp_path, issuer, limits=limits) as served:
        oidc_dana = await dana(issuer, ["admins"])
        opened = await post(served.url, STATIC_DANA, INITIALIZE)
        assert opened.status_code == 200, opened.text
        session = opened.headers["mcp-session-id"]
        initialized = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
        assert (await post(served.url, STATIC_DANA, initialized, session)).status_code == 202
        listing = json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}).encode()
        borrowed = await post(served.url, oidc_dana, listing, session)
        assert "belongs to another principal" in borrowed.text, borrowed.text

        now = call("time__get_current_time", {"timezone": "UTC"})
        assert "error" not in (await post(served.url, STATIC_DANA, now, session)).text
        static_refused = await post(served.url, STATIC_DANA, now, session)
        assert static_refused.status_code == 429, static_refused.text
        assert "principal `dana`" in static_refused.text, static_refused.text

        http = create_mcp_http_client(headers={"Authorization": f"Bearer {oidc_dana}"})
        async with http, Client(streamable_http_client(served.url, http_client=http), mode="legacy") as client:
            for _ in range(2):
                assert not (await client.call_tool("time__get_current_time", {"timezone": "UTC"})).is_error
            with pytest.raises(MCPError, match="principal `oidc:dana`"):
                await client.call_tool("time__get_current_time", {"timezone": "UTC"})
        principals = {line["principal"] for line in served.audit(5)}
        assert principals == {"dana", "oidc:dana"}, principals
        logins = {line["principal"] for line in served.audit(2, "login")}
        assert logins == {"dana", "oidc:dana"}, logins


async def metadata(url: str, host: str | None = None, **headers: str) -> httpx2.Response:
    if host:
        headers["Host"] = host
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        return await http.get(url.removesuffix("/mcp") + METADATA, headers=headers)


async def test_the_metadata_is_behind_the_host_check_and_names_the_public_url(tmp_path: Path, issuer: str) -> None:
    """A Host the gateway does not serve gets 403 at the metadata route too; with
    --public-url the metadata and the 401's challenge name it, whatever the headers say."""
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example"}
    with gateway(tmp_path, issuer, "--allowed-host", "tools.example.com", "--public-url", "https://tools.example.com",
                 servers={}) as served:
        assert (await metadata(served.url, "evil.example")).status_code == 403
        answer = await metadata(served.url, "tools.example.com", **forwarded)
        assert answer.status_code == 200, answer.text
        assert answer.json()["resource"] == "https://tools.example.com/mcp"
        async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
            refused = await http.post(served.url, content=INITIALIZE, headers={"Host": "tools.example.com", **forwarded})
        assert refused.status_code == 401
        assert 'resource_metadata="https://tools.example.com/.well-known/oauth-protected-resource/mcp"' in \
            refused.headers["www-authenticate"], refused.headers


async def test_forwarded_headers_count_from_trusted_proxies_only(tmp_path: Path, issuer: str) -> None:
    """With --trusted-proxy naming the loopback, the metadata takes the forwarded scheme and
    host; naming another network, the same headers are ignored."""
    headers = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "tools.example.com"}
    with gateway(tmp_path / "a", issuer, "--trusted-proxy", "127.0.0.1/32", servers={}) as trusting:
        answer = await metadata(trusting.url, **headers)
        assert answer.json()["resource"] == "https://tools.example.com/mcp", answer.text
    with gateway(tmp_path / "b", issuer, "--trusted-proxy", "10.0.0.0/8", servers={}) as wary:
        answer = await metadata(wary.url, **headers)
        assert answer.json()["resource"] == wary.url, answer.text


async def test_a_flood_of_bad_tokens_is_cut_per_client_address(tmp_path: Path, issuer: str) -> None:
    """Five failures a minute per address: the sixth bad token gets 429 with Retry-After
    before its signature is checked, and so does a good token from that address while it is
    blocked; another address (127.0.0.2) is unaffected; behind a trusted proxy, the
    forwarded client counts; 40 refusals leave one sampled audit line."""
    with gateway(tmp_path / "a", issuer, "--max-failed-auth-per-minute", "5", "--trusted-proxy", "127.0.0.3/32",
                 servers={}) as served:
        bad = await signed(issuer, {"iss": issuer, "aud": "someone-else", "sub": "mallory", "exp": int(time.time()) + 300})
        good = await dana(issuer, ["admins"])
        for _ in range(5):
            assert (await post(served.url, bad, INITIALIZE)).status_code == 401
        blocked = await asyncio.gather(*(post(served.url, bad, INITIALIZE) for _ in range(40)))
        assert {answer.status_code for answer in blocked} == {429}
        retry = int(blocked[0].headers["retry-after"])
        assert 1 <= retry <= 61, retry
        assert "failed to authenticate too often" in blocked[0].json()["error"]["message"]
        assert (await post(served.url, good, INITIALIZE)).status_code == 429

        other = httpx2.AsyncHTTPTransport(local_address="127.0.0.2")
        assert (await post(served.url, bad, INITIALIZE, transport=other)).status_code == 401
        other = httpx2.AsyncHTTPTransport(local_address="127.0.0.2")
        assert (await post(served.url, good, INITIALIZE, transport=other)).status_code == 200

        def via_proxy(client: str) -> httpx2.AsyncHTTPTransport:
            return httpx2.AsyncHTTPTransport(local_address="127.0.0.3")

        async def proxied(client: str) -> int:
            headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                       "Authorization": f"Bearer {bad}", "X-Forwarded-For": client}
            async with httpx2.AsyncClient(timeout=TIMEOUT, transport=via_proxy(client)) as http:
                return (await http.post(served.url, content=INITIALIZE, headers=headers)).status_code

        assert [await proxied("198.51.100.1") for _ in range(6)] == [401] * 5 + [429]
        assert await proxied("198.51.100.2") == 401
        time.sleep(0.5)
        sampled = [line for line in served.audit(1, "refusal") if line["reason"] == "too_many_failed_authentications"]
        # One line for 127.0.0.1's 41 refusals, one for the proxied client's one.
        assert len(sampled) == 2, sampled
        assert bad[-40:] not in served.log_path.read_text()
