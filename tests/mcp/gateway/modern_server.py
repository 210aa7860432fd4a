"""A 2026-07-28 MCP server on stdio built with the official Python SDK (``MCPServer``), whose
tool list changes: ``grow`` adds the tool ``extra`` and announces it to ``subscriptions/listen``
subscribers, the 2026-07-28 way of sending ``notifications/tools/list_changed``.

    modern_server.py
"""

from mcp.server.mcpserver import Context, MCPServer

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
