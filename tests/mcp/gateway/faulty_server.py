"""A small MCP server on stdio (newline-delimited JSON-RPC, standard library only) that
misbehaves on purpose, for the gateway's fault tests.

    faulty_server.py MODE [STATE_FILE]

MODE is one of:
- ``ok``: tools ``echo`` and ``crash`` (exits at once, mid-call) and ``grow`` (adds a tool
  ``extra`` and sends ``notifications/tools/list_changed``), plus ``slow`` (answers after
  ``seconds``) and ``image`` (a text and an image block) and ``fail`` (``isError``).
  Tools are listed three to a page. With STATE_FILE, every start appends ``started PID`` to
  it, every call ``call NAME`` and every ``notifications/cancelled`` ``cancelled ID``.
- ``stubborn``: ``ok``, but it does not exit at the end of its input.
- ``hang``: reads its input and never answers, not even ``initialize``.
- ``garbage``: answers every message with a line that is not JSON.
- ``catalog``: serves the tools of the ``tools/list``-shaped JSON file given instead of
  STATE_FILE (each call answers with the tool's name), for the gateway's figures.
"""

import json
import os
import sys
import threading
import time

MODE = sys.argv[1]
STATE = sys.argv[2] if len(sys.argv) > 2 else None
OBJECT = {"type": "object"}
TOOLS = [
    {"name": "echo", "description": "Returns its text.", "inputSchema": {
        "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "crash", "description": "Exits the server mid-call.", "inputSchema": OBJECT},
    {"name": "grow", "description": "Adds the tool `extra`.", "inputSchema": OBJECT},
    {"name": "slow", "description": "Answers after a while.", "inputSchema": {
        "type": "object", "properties": {"seconds": {"type": "number"}}, "required": ["seconds"]}},
    {"name": "image", "description": "A text and an image.", "inputSchema": OBJECT},
    {"name": "fail", "description": "Always fails.", "inputSchema": OBJECT},
]
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="


WRITING = threading.Lock()


def send(message: dict) -> None:
    with WRITING:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def answer(request: dict, result: dict) -> None:
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def text(value: str, error: bool = False) -> dict:
    return {"content": [{"type": "text", "text": value}], "isError": error}


def record(line: str) -> None:
    if STATE and MODE != "catalog":
        with open(STATE, "a") as state:
            state.write(line + "\n")


def call(request: dict, tools: list) -> None:
    name = request["params"]["name"]
    record(f"call {name}")
    arguments = request["params"].get("arguments") or {}
    if name == "echo":
        answer(request, text(arguments["text"]))
    elif name == "crash":
        sys.exit(3)
    elif name == "grow":
        tools.append({"name": "extra", "description": "Appeared later.", "inputSchema": OBJECT})
        answer(request, text("grown"))
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    elif name == "slow":
        # In its own thread: the server keeps answering while this call hangs.
        def later() -> None:
            time.sleep(arguments["seconds"])
            answer(request, text("done"))

        threading.Thread(target=later, daemon=True).start()
    elif name == "image":
        answer(request, {"content": [{"type": "text", "text": "a pixel"},
                                     {"type": "image", "data": PIXEL, "mimeType": "image/png"}]})
    elif name == "fail":
        answer(request, text("the upstream refused", error=True))
    elif name == "extra":
        answer(request, text("extra ran"))
    elif MODE == "catalog":
        answer(request, text(name))
    else:
        send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32602, "message": f"unknown tool {name}"}})


def main() -> None:
    if MODE == "catalog":
        with open(STATE) as catalog:
            tools = json.load(catalog)["tools"]
    else:
        record(f"started {os.getpid()}")
        tools = list(TOOLS)
    for line in sys.stdin:
        if MODE == "hang":
            continue
        if MODE == "garbage":
            sys.stdout.write("this is not JSON {\n")
            sys.stdout.flush()
            continue
        request = json.loads(line)
        method = request.get("method")
        if "id" not in request:
            if method == "notifications/cancelled":
                record(f"cancelled {request['params'].get('requestId')}")
            continue
        if method == "initialize":
            answer(request, {"protocolVersion": "2025-11-25", "serverInfo": {"name": "faulty", "version": "1"},
                             "capabilities": {"tools": {"listChanged": True}}})
        elif method == "tools/list":
            start = int((request.get("params") or {}).get("cursor") or 0)
            page = {"tools": tools[start:start + 3]}
            if start + 3 < len(tools):
                page["nextCursor"] = str(start + 3)
            answer(request, page)
        elif method == "tools/call":
            call(request, tools)
        elif method == "ping":
            answer(request, {})
        else:
            send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": method}})
    if MODE == "stubborn":
        time.sleep(3600)


main()
