"""A 2026-07-28 MCP server on stdio built with the official Python SDK (``MCPServer``) whose
tool ``greet`` needs the user's name (elicitation) and a sampled answer before it runs: on
2026-07-28 the SDK asks for both in an ``input_required`` result and runs the tool when the
call comes back with the answers.

    modern_asking_server.py
"""

from typing import Annotated

from mcp.server.mcpserver import Elicit, MCPServer, Resolve, Sample
from mcp_types import CreateMessageResult, SamplingMessage, TextContent
from pydantic import BaseModel

server = MCPServer("modern-asking")


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("Who are you?", Name)


def ask_sum() -> Sample:
    question = SamplingMessage(role="user", content=TextContent(type="text", text="what is 2 + 2?"))
    return Sample([question], max_tokens=16)


@server.tool()
def greet(name: Annotated[Name, Resolve(ask_name)], answer: Annotated[CreateMessageResult, Resolve(ask_sum)]) -> str:
    """Greets the user with a sum."""
    return f"hello {name.name}, 2 + 2 = {answer.content.text}"


server.run()
