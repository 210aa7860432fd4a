"""The official Python SDK's client over streamable HTTP, sending a bearer token: `connect`."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


@asynccontextmanager
async def connect(url: str, token: str) -> AsyncIterator[Client]:
    """A legacy (session) client of the gateway at `url` whose requests carry `token`."""
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http, Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
        yield client
