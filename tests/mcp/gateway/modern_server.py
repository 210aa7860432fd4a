"""A 2026-07-28 MCP server on stdio built with the official Python SDK (``MCPServer``), whose
tool list changes: ``grow`` adds the tool ``extra`` and announces it to ``subscriptions/listen``
subscribers, the 2026-07-28 way of sending ``notifications/tools/list_changed``.

    modern_server.py [SLOW_ONCE_MARKER]

With SLOW_ONCE_MARKER, a path that does not exist yet, its first start creates it and sleeps
12 s before reading anything, as a server slow to start on a loaded machine: its client's
`server/discover` probe (given up on after 10 s) and the `initialize` sent then are read
together, and the SDK answers the probe and refuses `initialize` (-32022: the connection
serves 2026-07-28).
"""

import sys
import time
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer

if len(sys.argv) > 1 and not Path(sys.argv[1]).exists():
    Path(sys.argv[1]).touch()
    time.sleep(12)

server = MCPServer("modern")


def extra() -> str:
    """Appeared later."""
    return "extra ran"


@server.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool `extra`."""
    server.add_tool(extra)
    await ctx.notify_tools_changed()
    return "grown"


@server.tool()
def echo(text: str) -> str:
    """Returns its text."""
    return text


server.run()
