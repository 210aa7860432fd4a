"""The gateway as a team's service (issue 39): identities from a real OpenID Connect provider
(npm oidc-provider, pinned in oidc/, started here on a free port of 127.0.0.1), the
gateway's `--oidc-issuer`/`--audience` with rules over claims in its config, in front of real
upstream servers (npm server-everything, PyPI mcp-server-time), driven by the official
Python SDK, whose OAuth client logs in by itself through the RFC 9728 metadata."""

import asyncio
import base64
import hashlib
import hmac
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import jwt
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.auth import TokenStorage
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from mcp.shared.exceptions import MCPError

from bearer_client import connect

ROOT = Path(__file__).resolve().parents[3]
GATEWAY = Path(os.environ.get("LAZYTOOL_GATEWAY", ROOT / "target/debug/lazytool-gateway"))
UPSTREAMS = ROOT / "target/gateway-upstreams"
PROVIDER_DIR = ROOT / "target/gateway-oidc"
PROVIDER_SCRIPT = Path(__file__).with_name("oidc") / "provider.mjs"
AUDIENCE = "lazytool"
STATIC_TOKEN = "static-token-of-the-ops-team"
DISCOVERY = "__lazy__tool__discovery__"
CALL = "__lazy__tool__call__"
TIMEOUT = 60
INITIALIZE = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}).encode()

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def issuer() -> Iterator[str]:
    """oidc-provider on a free port; it exits when its standard input closes."""
    assert (PROVIDER_DIR / "node_modules/oidc-provider").is_dir(), \
        f"{PROVIDER_DIR} is missing: run tests/mcp/gateway/install-upstreams"
    shutil.copy(PROVIDER_SCRIPT, PROVIDER_DIR / "provider.mjs")
    process = subprocess.Popen(
        ["node", str(PROVIDER_DIR / "provider.mjs"), AUDIENCE],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("issuer "), f"the provider said {line!r}"
        yield line.split()[1]
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def node_server(package: str, *args: str) -> dict:
    script = UPSTREAMS / "node_modules/@modelcontextprotocol" / package / "dist/index.js"
    assert script.is_file(), f"{script} is missing: run tests/mcp/gateway/install-upstreams"
    return {"command": "node", "args": [str(script), *args]}


@contextmanager
def serving(issuer: str, work: Path, mode: str = "names", sections: dict | None = None,
            oidc: dict | None = None) -> Iterator[tuple[str, Path]]:
    """The gateway with the provider's issuer (flags) and rules (config), any more `oidc`
    settings, and any other `lazytool` `sections`; its URL and log."""
    assert GATEWAY.is_file(), f"{GATEWAY} is missing: run `cargo build -p lazytool-gateway` first"
    config = {
        "mcpServers": {
            "everything": node_server("server-everything"),
            "time": {"command": str(UPSTREAMS / "venv/bin/mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        },
        "lazytool": {
            "mode": mode,
            "servers": {"everything": {"eager": ["echo"]}, "time": {"eager": ["get_current_time"]}},
            "oidc": {
                "issuer": "https://replaced-by-the-flag.example",
                "audience": "replaced-by-the-flag",
                "requiredScopes": ["mcp"],
                "rules": [
                    {"when": {"groups": "admins"}},
                    {"when": {"scope": "tools:read"}, "allow": ["time__*", "everything__get-sum"]},
                    {"when": {"sub": "reader"}, "deny": ["everything__get-sum"]},
                ],
                **(oidc or {}),
            },
            **(sections or {}),
        },
    }
    (work / "gateway.json").write_text(json.dumps(config))
    log = work / "gateway.log"
    with log.open("w") as sink:
        process = subprocess.Popen(
            [str(GATEWAY), "--config", str(work / "gateway.json"), "--http", "127.0.0.1:0", "-vv",
             "--oidc-issuer", issuer, "--audience", AUDIENCE, "--token", STATIC_TOKEN,
             # Floods of bad tokens are these tests' input; test_identities.py limits them.
             "--max-failed-auth-per-minute", "0"],
            stderr=sink,
        )
    # For a test that reloads the configuration (SIGHUP).
    (work / "gateway.pid").write_text(str(process.pid))
    try:
        deadline = time.monotonic() + TIMEOUT
        found = None
        while found is None and time.monotonic() < deadline and process.poll() is None:
            found = re.search(r"at (http://\S+/mcp)", log.read_text())
            time.sleep(0.1)
        assert found, f"the gateway did not say where it serves:\n{log.read_text()}"
        yield found[1], log
    finally:
        process.terminate()
        process.wait(timeout=TIMEOUT)


@pytest.fixture(scope="module")
def gateway(issuer: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    with serving(issuer, tmp_path_factory.mktemp("oidc")) as served:
        yield served


async def token_of(issuer: str, client: str, scope: str = "mcp") -> str:
    """A client_credentials token of `client`, as the provider issues it."""
    data = {"grant_type": "client_credentials", "resource": "http://127.0.0.1/mcp"}
    if scope:
        data["scope"] = scope
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        answer = await http.post(f"{issuer}/token", auth=(client, f"{client}-secret"), data=data)
        assert answer.status_code == 200, answer.text
        return answer.json()["access_token"]


async def signed(issuer: str, claims: dict, alg: str = "RS256", kid: str | None = None,
                 typ: str | None = "at+jwt") -> str:
    """A token signed with the provider's own key, of any claims and `typ` (None: no `typ`)."""
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        answer = await http.post(f"{issuer}/test/sign", json={"alg": alg, "kid": kid, "typ": typ, "claims": claims})
        return answer.json()["token"]


async def id_token_of(issuer: str, login: str) -> str:
    """A real ID token of the provider: the authorization code flow (with PKCE and a
    `nonce`) of the client whose id is the gateway's audience, so that the ID token's `aud`
    names the gateway, through the provider's development login and consent pages."""
    redirect_uri = "http://127.0.0.1/callback"
    verifier = b64(os.urandom(32))
    params = {
        "client_id": AUDIENCE, "response_type": "code", "scope": "openid", "redirect_uri": redirect_uri,
        "state": "state", "nonce": b64(os.urandom(12)),
        "code_challenge": b64(hashlib.sha256(verifier.encode()).digest()), "code_challenge_method": "S256",
    }
    async with httpx2.AsyncClient(timeout=TIMEOUT, follow_redirects=False) as http:
        answer = await http.get(f"{issuer}/auth", params=params)
        for _ in range(10):
            assert answer.is_redirect, (answer.status_code, answer.text)
            location = str(answer.url.join(answer.headers["location"]))
            if location.startswith(redirect_uri):
                code = httpx2.URL(location).params["code"]
                break
            if "/interaction/" in location:
                page = await http.get(location)
                prompt = re.search(r'name="prompt" value="(\w+)"', page.text)
                assert prompt, page.text
                answer = await http.post(location, data={"prompt": prompt[1], "login": login, "password": "any"})
            else:
                answer = await http.get(location)
        else:
            raise AssertionError("the provider never redirected back with a code")
        answer = await http.post(f"{issuer}/token", auth=(AUDIENCE, f"{AUDIENCE}-secret"), data={
            "grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "code_verifier": verifier,
        })
        assert answer.status_code == 200, answer.text
        return answer.json()["id_token"]


async def jwks_fetches(issuer: str) -> int:
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        return (await http.get(f"{issuer}/test/jwks-fetches")).json()["fetches"]


async def post(url: str, token: str | None, body: bytes = INITIALIZE) -> httpx2.Response:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        return await http.post(url, content=body, headers=headers)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Memory(TokenStorage):
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def listed(url: str, token: str) -> dict[str, str]:
    """The tools `token`'s principal is listed, each with its description."""
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        return {tool.name: tool.description or "" for tool in (await client.list_tools()).tools}


async def test_tokens_of_different_claims_see_different_tools(gateway: tuple[str, Path], issuer: str) -> None:
    """`groups: admins` sees every tool (the lazy ones behind discovery); scope `tools:read`
    the time server's and `everything__get-sum`, less what a rule on its `sub` denies (that
    one), its discovery tool naming its lazy tools only; a token no rule applies to sees
    none; the static `--token` still sees everything."""
    url, _ = gateway
    admin = await listed(url, await token_of(issuer, "admin"))
    reader = await listed(url, await token_of(issuer, "reader", "mcp tools:read"))
    nobody = await listed(url, await token_of(issuer, "nobody"))
    static = await listed(url, STATIC_TOKEN)
    assert {"time__get_current_time", "everything__echo", DISCOVERY} <= set(admin), admin
    assert "everything__get-sum" in admin[DISCOVERY] and "time__convert_time" in admin[DISCOVERY]
    # The official client speaks 2026-07-28: lazy tools are run through __lazy__tool__call__.
    assert set(reader) == {"time__get_current_time", DISCOVERY, CALL}, reader
    assert "time__convert_time" in reader[DISCOVERY] and "everything__" not in reader[DISCOVERY], reader
    assert nobody == {}, nobody
    assert static == admin


async def test_discovery_hides_what_a_principal_may_not_see(gateway: tuple[str, Path], issuer: str) -> None:
    """Discovering a lazy tool the principal may not use, or calling it through
    `__lazy__tool__call__`, answers as for one that does not exist, naming none of the hidden
    tools."""
    url, _ = gateway
    token = await token_of(issuer, "reader", "mcp tools:read")
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        outcomes = []
        for tool, arguments in [(DISCOVERY, lambda name: {"toolNames": [name]}),
                                (CALL, lambda name: {"name": name, "arguments": {"a": 1, "b": 2}})]:
            for name in ["everything__get-sum", "everything__no-such-tool"]:
                try:
                    result = await client.call_tool(tool, arguments(name))
                    outcomes.append(json.dumps(result.model_dump(mode="json")).replace(name, "NAME"))
                except MCPError as error:
                    outcomes.append(f"{error.code} {error}".replace(name, "NAME"))
    discovered_hidden, discovered_missing, called_hidden, called_missing = outcomes
    assert discovered_hidden == discovered_missing, outcomes
    assert called_hidden == called_missing, outcomes
    assert "time__convert_time" in discovered_hidden, outcomes
    assert all("everything__" not in outcome for outcome in outcomes), outcomes


async def test_a_tool_hidden_from_a_principal_behaves_as_unknown(gateway: tuple[str, Path], issuer: str) -> None:
    """Calling a tool a principal may not see answers as a tool that does not exist does."""
    url, _ = gateway
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {await token_of(issuer, 'reader', 'mcp tools:read')}"})
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        allowed = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
        with pytest.raises(MCPError) as hidden:
            await client.call_tool("everything__echo", {"message": "hi"})
        with pytest.raises(MCPError) as missing:
            await client.call_tool("everything__no_such_tool", {"message": "hi"})
    assert not allowed.is_error
    assert hidden.value.code == missing.value.code
    assert str(hidden.value).replace("everything__echo", "NAME") == str(missing.value).replace("everything__no_such_tool", "NAME")
    assert "everything__" not in str(hidden.value).replace("everything__echo", "")


async def test_the_metadata_names_the_issuer(gateway: tuple[str, Path], issuer: str) -> None:
    """RFC 9728: the metadata at the well-known path and its /mcp-suffixed form."""
    url, _ = gateway
    base = url.removesuffix("/mcp")
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]:
            answer = await http.get(base + path)
            assert answer.status_code == 200, (path, answer.text)
            metadata = answer.json()
            assert metadata["resource"] == url
            assert metadata["authorization_servers"] == [issuer]
            assert metadata["scopes_supported"] == ["mcp"]


async def test_each_bad_token_gets_its_refusal(gateway: tuple[str, Path], issuer: str) -> None:
    """Each bad input of the issue: a 401 (403 for a missing scope) whose reason says what
    was wrong with that token, `WWW-Authenticate` pointing at the metadata; the gateway
    serves on, and its log holds none of the tokens."""
    url, log = gateway
    metadata = url.removesuffix("/mcp") + "/.well-known/oauth-protected-resource/mcp"
    now = int(time.time())
    good = {"iss": issuer, "aud": AUDIENCE, "sub": "mallory", "exp": now + 300, "scope": "mcp", "groups": ["admins"]}
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        keys = (await http.get(f"{issuer}/jwks")).json()["keys"]
    rsa = next(key for key in keys if key["kty"] == "RSA")
    public_pem = jwt.algorithms.RSAAlgorithm.from_jwk(json.dumps(rsa)).public_bytes(
        encoding=__import__("cryptography.hazmat.primitives.serialization", fromlist=["Encoding"]).Encoding.PEM,
        format=__import__("cryptography.hazmat.primitives.serialization", fromlist=["PublicFormat"]).PublicFormat.SubjectPublicKeyInfo,
    )
    confused_head = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": rsa["kid"]}).encode()) + "." + b64(json.dumps(good).encode())
    confused = confused_head + "." + b64(hmac.new(public_pem, confused_head.encode(), hashlib.sha256).digest())
    cases = [
        ("expired", await signed(issuer, good | {"exp": now - 600}), 401, "has expired"),
        ("not yet valid", await signed(issuer, good | {"nbf": now + 600}, "ES256"), 401, "not valid yet"),
        ("wrong audience", await token_of(issuer, "stranger"), 401, "not for this server"),
        ("wrong issuer", await signed(issuer, good | {"iss": "https://evil.example"}, "EdDSA"), 401, "issuer (`iss`) is not"),
        ("unsigned", b64(b'{"alg":"none","typ":"JWT"}') + "." + b64(json.dumps(good).encode()) + ".", 401, "unsigned"),
        ("alg confusion", confused, 401, "shared secret (HS256)"),
        ("huge", "a" * 20_000, 401, "over the 16384 this server reads"),
        ("malformed claims", await signed(issuer, good | {"exp": "tomorrow"}), 401, "`exp` claim"),
        ("malformed subject", await signed(issuer, good | {"sub": {"id": 7}}), 401, "claims are malformed"),
        ("no scope", await token_of(issuer, "unscoped", ""), 403, "lacks the scope `mcp`"),
        ("not a JWT", "not-a-known-token", 401, "neither a token this server knows nor a JWT"),
    ]
    answer = await post(url, None)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == f'Bearer scope="mcp", resource_metadata="{metadata}"'
    for what, token, status, reason in cases:
        answer = await post(url, token)
        assert answer.status_code == status, (what, answer.status_code, answer.text)
        challenge = answer.headers["www-authenticate"]
        error = "insufficient_scope" if status == 403 else "invalid_token"
        assert f'error="{error}"' in challenge and f'resource_metadata="{metadata}"' in challenge, (what, challenge)
        assert reason in answer.json()["error"]["message"], (what, answer.text)
        assert reason.replace('"', "'") in challenge, (what, challenge)
        assert "mallory" not in answer.text and "admins" not in answer.text, (what, answer.text)
    # Still serving, and nothing secret in the log.
    assert (await post(url, await token_of(issuer, "admin"))).status_code == 200
    logged = log.read_text()
    for what, token, _, _ in cases:
        assert token[-40:] not in logged, f"the log holds the {what} token"


async def test_a_flood_of_unknown_keys_fetches_the_key_set_at_most_once_per_ten_seconds(
        gateway: tuple[str, Path], issuer: str) -> None:
    """200 tokens naming keys the issuer never had, 20 at a time: each a 401; the provider
    counts the key set's fetches, at most one per 10 s begun.

    An unknown key first makes the gateway fetch the key set again (a token a second until
    it does: a fetch of an earlier test less than 10 s ago holds the next one back), then the
    flood begins right after that fetch: it may cause one more per 10 s that have passed."""
    url, _ = gateway
    now = int(time.time())
    claims = {"iss": issuer, "aud": AUDIENCE, "sub": "flood", "exp": now + 300, "scope": "mcp"}
    tokens = [await signed(issuer, claims, kid=f"rotated-{n}") for n in range(200)]
    before = await jwks_fetches(issuer)
    deadline = time.monotonic() + 15
    fetched_after = time.monotonic()
    while await jwks_fetches(issuer) == before:
        assert time.monotonic() < deadline, "an unknown key never made the gateway fetch the key set"
        # The fetch this token causes, if it does, is at this time or later.
        fetched_after = time.monotonic()
        assert (await post(url, await signed(issuer, claims, kid="warm-up"))).status_code == 401
        await asyncio.sleep(1)
    before = await jwks_fetches(issuer)
    for batch in range(0, len(tokens), 20):
        answers = await asyncio.gather(*(post(url, token) for token in tokens[batch:batch + 20]))
        for answer in answers:
            assert answer.status_code == 401, answer.text
            assert "not in the issuer's key set" in answer.json()["error"]["message"], answer.text
    elapsed = time.monotonic() - fetched_after
    fetched = await jwks_fetches(issuer) - before
    assert fetched <= int(elapsed // 10), (fetched, elapsed)


async def test_the_python_sdk_logs_in_by_itself(gateway: tuple[str, Path], issuer: str) -> None:
    """The official client, given only its client credentials and the issuer it trusts: the
    gateway's 401 leads it to the metadata, the metadata to the issuer, the issuer to a
    token; then it lists and calls."""
    url, _ = gateway
    auth = ClientCredentialsOAuthProvider(
        server_url=url, storage=Memory(), client_id="admin", client_secret="admin-secret",
        scope="mcp", issuer=issuer,
    )
    http = create_mcp_http_client(auth=auth)
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        listed = await client.list_tools()
        assert "time__get_current_time" in {tool.name for tool in listed.tools}
        result = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
        assert not result.is_error, result
    assert auth.context.current_tokens is not None
    assert jwt.decode(auth.context.current_tokens.access_token, options={"verify_signature": False})["aud"] == AUDIENCE


async def test_prompts_and_resources_follow_the_rules_and_hidden_ones_are_unknown(
        gateway: tuple[str, Path], issuer: str) -> None:
    """The same globs decide prompts (by name) and resources (by URI): the admin lists
    server-everything's, the reader none; getting or reading one it may not see fails as
    getting or reading one that does not exist."""
    url, _ = gateway

    async def session(client_id: str, scope: str):
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {await token_of(issuer, client_id, scope)}"})
        return http, Client(streamable_http_client(url, http_client=http))

    admin_http, admin = await session("admin", "mcp")
    async with admin_http, admin:
        prompts = (await admin.list_prompts()).prompts
        resources = (await admin.list_resources()).resources
        templates = (await admin.list_resource_templates()).resource_templates
    assert prompts and resources and templates
    reader_http, reader = await session("reader", "mcp tools:read")
    async with reader_http, reader:
        assert (await reader.list_prompts()).prompts == []
        assert (await reader.list_resources()).resources == []
        assert (await reader.list_resource_templates()).resource_templates == []
        with pytest.raises(MCPError) as hidden_prompt:
            await reader.get_prompt(prompts[0].name, {})
        with pytest.raises(MCPError) as missing_prompt:
            await reader.get_prompt("everything__no-such-prompt", {})
        with pytest.raises(MCPError) as hidden_resource:
            await reader.read_resource(str(resources[0].uri))
        with pytest.raises(MCPError) as missing_resource:
            await reader.read_resource("demo://no/such/resource")
    assert hidden_prompt.value.code == missing_prompt.value.code
    assert str(hidden_prompt.value).replace(prompts[0].name, "NAME") == \
        str(missing_prompt.value).replace("everything__no-such-prompt", "NAME")
    assert hidden_resource.value.code == missing_resource.value.code
    assert str(hidden_resource.value).replace(str(resources[0].uri), "URI") == \
        str(missing_resource.value).replace("demo://no/such/resource", "URI")


async def test_search_finds_only_what_the_principal_may_use(issuer: str, tmp_path: Path) -> None:
    """In search mode the admin's query finds `everything__get-sum`; the reader's same query,
    and a query naming it, find only its own lazy tools."""
    with serving(issuer, tmp_path, mode="search") as (url, _):
        found = {}
        for client_id, scope in [("admin", "mcp"), ("reader", "mcp tools:read")]:
            http = create_mcp_http_client(headers={"Authorization": f"Bearer {await token_of(issuer, client_id, scope)}"})
            async with http, Client(streamable_http_client(url, http_client=http)) as client:
                texts = []
                for query in ["sum of two numbers", "everything__get-sum", "convert time between timezones"]:
                    result = await client.call_tool(DISCOVERY, {"query": query})
                    text = " ".join(part.text for part in result.content if isinstance(part, types.TextContent))
                    # An answer may quote the query; what it finds is what counts.
                    texts.append(text.replace(query, "QUERY"))
                found[client_id] = texts
    assert "everything__get-sum" in found["admin"][0], found["admin"]
    assert all("everything__" not in text for text in found["reader"]), found["reader"]
    assert "time__convert_time" in found["reader"][2], found["reader"]


async def test_a_reload_applies_new_rules_to_the_next_request(issuer: str, tmp_path: Path) -> None:
    """A rule added to `lazytool.oidc` and SIGHUP: a token no rule applied to sees what the
    new rule allows from its next request; the issuer (from the flag) is the same, so the
    reload is accepted."""
    with serving(issuer, tmp_path) as (url, log):
        token = await token_of(issuer, "nobody")
        assert await listed(url, token) == {}
        path = tmp_path / "gateway.json"
        config = json.loads(path.read_text())
        config["lazytool"]["oidc"]["rules"].append({"when": {"sub": "nobody"}, "allow": ["time__*"]})
        path.write_text(json.dumps(config))
        os.kill(int((tmp_path / "gateway.pid").read_text()), signal.SIGHUP)
        deadline = time.monotonic() + TIMEOUT
        while "the configuration is reloaded" not in log.read_text():
            assert time.monotonic() < deadline and "refused" not in log.read_text(), log.read_text()
            await asyncio.sleep(0.1)
        assert "settings=lazytool.oidc" in log.read_text()
        assert "time__get_current_time" in await listed(url, token)


async def test_a_team_setup_limits_and_audits_the_tokens_principal(issuer: str, tmp_path: Path) -> None:
    """The team setup of the gateway guide's team chapter, end to end: a principal from the
    provider's token (its `sub`, written `oidc:SUB`) over `lazytool.limits`' rate gets the JSON-RPC error naming
    it and when to retry, and the audit trail names it in its login, its calls and the
    refusal, with no token in it."""
    audit = tmp_path / "audit.jsonl"
    sections = {"limits": {"perPrincipal": {"perSecond": 0.01, "burst": 2}}, "audit": {"path": str(audit)}}
    with serving(issuer, tmp_path, sections=sections) as (url, _):
        token = await token_of(issuer, "admin")
        async with connect(url, token) as client:
            for n in range(2):
                assert not (await client.call_tool("everything__echo", {"message": f"call {n}"})).is_error
            with pytest.raises(MCPError) as refused:
                await client.call_tool("everything__echo", {"message": "over"})
    assert refused.value.code == -32000
    assert refused.value.message.startswith("rate limit of principal `oidc:admin` reached (0.01 calls/s, burst 2); retry in "), refused.value.message
    assert refused.value.data["name"] == "oidc:admin" and refused.value.data["retryAfterSeconds"] >= 1, refused.value.data

    deadline = time.monotonic() + 30
    while not (audit.exists() and '"outcome":"refused"' in audit.read_text()) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    text = audit.read_text()
    lines = [json.loads(line) for line in text.splitlines()]
    logins = [line for line in lines if line["event"] == "login"]
    calls = [line for line in lines if line["event"] == "call"]
    assert [line["principal"] for line in logins] == ["oidc:admin"], lines
    assert [(line["principal"], line["tool"], line["outcome"]) for line in calls] == [
        ("oidc:admin", "everything__echo", "ok"), ("oidc:admin", "everything__echo", "ok"),
        ("oidc:admin", "everything__echo", "refused")], calls
    assert calls[2]["errorKind"] == "rate_limit", calls[2]
    assert token not in text and token.split(".")[2] not in text


async def test_an_id_token_of_the_provider_is_no_access_token(gateway: tuple[str, Path], issuer: str) -> None:
    """A real ID token, from a person's login through the authorization code flow, of the
    client whose id is the gateway's audience: issuer, audience, signature and expiry all
    fit, yet it was meant for that client, not for the gateway: 401, saying so, and the
    gateway's log holds no part of it."""
    url, log = gateway
    token = await id_token_of(issuer, "alice")
    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["aud"] == AUDIENCE and claims["iss"] == issuer and "nonce" in claims, claims
    answer = await post(url, token)
    assert answer.status_code == 401, answer.text
    reason = "an ID token is not an access token (the token carries `nonce`)"
    assert reason in answer.json()["error"]["message"], answer.text
    assert 'error="invalid_token"' in answer.headers["www-authenticate"]
    assert reason in answer.headers["www-authenticate"]
    assert token.split(".")[1] not in log.read_text() and token.split(".")[2] not in log.read_text()


async def test_tokens_of_other_types_than_access_tokens_are_refused(gateway: tuple[str, Path], issuer: str) -> None:
    """By default a token's `typ` may be at+jwt (the provider's own access tokens), JWT or
    none; a DPoP proof, a logout token or a security event token is refused, whatever it
    claims. No token, accepted or refused, reaches the gateway's log."""
    url, log = gateway
    real = await token_of(issuer, "admin")
    assert jwt.get_unverified_header(real)["typ"] == "at+jwt"
    claims = {"iss": issuer, "aud": AUDIENCE, "sub": "admin", "exp": int(time.time()) + 300, "scope": "mcp"}
    tokens = [real]
    assert (await post(url, real)).status_code == 200
    for typ in ["JWT", "application/at+jwt", None]:
        tokens.append(await signed(issuer, claims, typ=typ))
        answer = await post(url, tokens[-1])
        assert answer.status_code == 200, (typ, answer.text)
    for typ in ["dpop+jwt", "logout+jwt", "secevent+jwt"]:
        tokens.append(await signed(issuer, claims, typ=typ))
        answer = await post(url, tokens[-1])
        assert answer.status_code == 401, (typ, answer.text)
        reason = f"the token's type (`typ`: {typ}) is not an access token's; this server accepts at+jwt, JWT or none"
        assert reason in answer.json()["error"]["message"], answer.text
    logged = log.read_text()
    assert all(token.split(".")[2] not in logged for token in tokens)


async def test_a_rule_matches_a_claims_whole_value(gateway: tuple[str, Path], issuer: str) -> None:
    """`padded`'s `groups` is the string "staff admins": the rule `{"groups": "admins"}`
    does not apply to it (only `scope` and `scp` are lists of words), and no other rule
    does, so it sees nothing, while `admin` (`groups: ["admins"]`) sees everything."""
    url, _ = gateway
    token = await token_of(issuer, "padded")
    assert jwt.decode(token, options={"verify_signature": False})["groups"] == "staff admins"
    assert await listed(url, token) == {}
    assert "time__get_current_time" in await listed(url, await token_of(issuer, "admin"))


async def test_access_tokens_only_accepts_the_providers_access_tokens(issuer: str, tmp_path: Path) -> None:
    """`"tokenTypes": ["at+jwt"]`: the provider's real access tokens (oidc-provider 9.13.3
    gives its JWT access tokens `typ: at+jwt`, RFC 9068) serve as before; the same claims as
    a plain `JWT`, or with no `typ`, are refused."""
    with serving(issuer, tmp_path, oidc={"tokenTypes": ["at+jwt"]}) as (url, _):
        token = await token_of(issuer, "admin")
        assert jwt.get_unverified_header(token)["typ"] == "at+jwt"
        assert "time__get_current_time" in await listed(url, token)
        claims = {"iss": issuer, "aud": AUDIENCE, "sub": "admin", "exp": int(time.time()) + 300, "scope": "mcp"}
        for typ, reason in [("JWT", "the token's type (`typ`: JWT) is not at+jwt"),
                            (None, "the token has no type (`typ`)")]:
            answer = await post(url, await signed(issuer, claims, typ=typ))
            assert answer.status_code == 401, (typ, answer.text)
            assert reason in answer.json()["error"]["message"], answer.text
            assert "only access tokens of type at+jwt" in answer.headers["www-authenticate"]


def test_an_issuer_in_the_clear_stops_the_gateway_before_it_serves(tmp_path: Path) -> None:
    """An issuer over plain http (not on loopback), from `--oidc-issuer` or from the
    configuration: the gateway exits at once, naming it, before fetching anything."""
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({"mcpServers": {}, "lazytool": {"oidc": {"issuer": "https://id.example", "audience": "a"}}}))
    flag = subprocess.run(
        [str(GATEWAY), "--config", str(config), "--http", "127.0.0.1:0",
         "--oidc-issuer", "http://id.example", "--audience", AUDIENCE],
        capture_output=True, text=True, timeout=TIMEOUT,
    )
    assert flag.returncode != 0
    assert "--oidc-issuer: the issuer `http://id.example` is not an https:// URL" in flag.stderr, flag.stderr
    config.write_text(json.dumps({"mcpServers": {}, "lazytool": {"oidc": {"issuer": "http://id.example", "audience": "a"}}}))
    configured = subprocess.run(
        [str(GATEWAY), "--config", str(config), "--http", "127.0.0.1:0"],
        capture_output=True, text=True, timeout=TIMEOUT,
    )
    assert configured.returncode != 0
    assert "$.lazytool.oidc.issuer: the issuer `http://id.example` is not an https:// URL" in configured.stderr, \
        configured.stderr
