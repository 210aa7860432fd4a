"""An MCP server built on the official Python SDK's low-level `Server` (mcp.server.lowlevel)
that registers `resources/list` and no `resources/templates/list`: it announces `resources`
and answers `resources/templates/list` with -32601 (method not found), as any such server
does. It offers the tool ``echo``, the resource ``note://readme`` and the prompt ``greet``,
on stdio, for the gateway's tests (test_templateless.py).
"""

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

README = "note://readme"


async def list_tools(ctx, params) -> types.ListToolsResult:
    schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    return types.ListToolsResult(tools=[types.Tool(name="echo", description="Returns its text.", input_schema=schema)])


async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    text = (params.arguments or {}).get("text", "")
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


async def list_resources(ctx, params) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[types.Resource(name="readme", uri=README, mime_type="text/plain")])


async def read_resource(ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    contents = types.TextResourceContents(uri=str(params.uri), mime_type="text/plain", text="read me first")
    return types.ReadResourceResult(contents=[contents])


async def list_prompts(ctx, params) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[types.Prompt(name="greet", description="Says hello.")])


async def get_prompt(ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    message = types.PromptMessage(role="user", content=types.TextContent(type="text", text="hello"))
    return types.GetPromptResult(messages=[message])


server = Server(
    "templateless",
    version="1.0.0",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_resources=list_resources,
    on_read_resource=read_resource,
    on_list_prompts=list_prompts,
    on_get_prompt=get_prompt,
)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
