"""`add(a, b)` served by the official MCP Python SDK (mcp 2.3.0) over streamable HTTP.

One endpoint serves both flows, as the SDK does by default: sessions for clients up to
2025-11-25 (`stateless_http=False`), and 2026-07-28 requests on the SDK's stateless path.
Answers are JSON (`json_response=True`), as lazytool's are. uvicorn with its defaults.

    python python_server.py [PORT]     # prints `listening http://127.0.0.1:PORT/mcp`
"""

import socket
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer

server = MCPServer("peer-python")


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


def main() -> None:
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    # IPPROTO_TCP spelled out: asyncio sets TCP_NODELAY only on sockets whose `proto` says TCP
    # (uvicorn's own binding gets it from getaddrinfo); with proto 0 every answer on a
    # kept-alive connection waited ~40 ms for the client's delayed ACK.
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    print(f"listening http://127.0.0.1:{listener.getsockname()[1]}/mcp", flush=True)
    app = server.streamable_http_app(json_response=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[listener])


if __name__ == "__main__":
    main()
