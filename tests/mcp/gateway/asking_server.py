"""A small MCP server on stdio (newline-delimited JSON-RPC, standard library only, protocol
2025-11-25 with the handshake) that asks its client things during a call, for the tests of
requests passed on through McpSource and the gateway (lazytool-mcp/tests/upstream_requests.rs).

    asking_server.py [STATE_FILE]

Tools:
- ``capabilities``: the client capabilities its ``initialize`` announced, as JSON text.
- ``ask``: reports progress (when the call has a progress token), asks the client for a
  sampling (``sampling/createMessage``) and an elicitation (``elicitation/create``), and
  answers with both answers (results or errors) as JSON text:
  ``{"sampling": ..., "elicitation": ...}``.
- ``ask_together``: once two calls of it are running, each asks for a sampling, and once
  both were answered, each answers with its answer: ``{"sampling": ...}``.

With STATE_FILE, right after ``notifications/initialized`` it sends a
``sampling/createMessage`` outside any call, and appends the answer (a result or an error)
to STATE_FILE as a JSON line.
"""

import json
import sys
import threading

STATE = sys.argv[1] if len(sys.argv) > 1 else None
OBJECT = {"type": "object"}
TOOLS = [
    {"name": "capabilities", "description": "What the client announced.", "inputSchema": OBJECT},
    {"name": "ask", "description": "Asks the client during the call.", "inputSchema": OBJECT},
    {"name": "ask_together", "description": "Asks once two such calls are running.", "inputSchema": OBJECT},
]
SAMPLING = {
    "messages": [{"role": "user", "content": {"type": "text", "text": "What is 2 + 2?"}}],
    "maxTokens": 16,
}
ELICITATION = {
    "message": "Who are you?",
    "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
}

together = threading.Barrier(2)
write_lock = threading.Lock()
pending = {}
pending_lock = threading.Lock()
next_id = [0]
announced = {}


def send(message):
    with write_lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def ask(method, params):
    """Sends a request to the client and waits for its answer (result or error)."""
    with pending_lock:
        next_id[0] += 1
        request_id = f"upstream-{next_id[0]}"
        done = threading.Event()
        pending[request_id] = [done, None]
    send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    done.wait()
    with pending_lock:
        return pending.pop(request_id)[1]


def progress(token, value, message):
    if token is not None:
        send({"jsonrpc": "2.0", "method": "notifications/progress",
              "params": {"progressToken": token, "progress": value, "total": 3, "message": message}})


def record(answer):
    if STATE:
        with open(STATE, "a", encoding="utf-8") as state:
            state.write(json.dumps(answer) + "\n")


def text_result(request_id, value):
    send({"jsonrpc": "2.0", "id": request_id,
          "result": {"content": [{"type": "text", "text": json.dumps(value)}]}})


def call(request_id, params):
    name = params.get("name")
    token = (params.get("_meta") or {}).get("progressToken")
    if name == "capabilities":
        text_result(request_id, announced)
    elif name == "ask":
        progress(token, 1, "asking for a sampling")
        sampling = ask("sampling/createMessage", SAMPLING)
        progress(token, 2, "asking for an elicitation")
        elicitation = ask("elicitation/create", ELICITATION)
        progress(token, 3, "done")
        text_result(request_id, {"sampling": sampling, "elicitation": elicitation})
    elif name == "ask_together":
        together.wait()
        answer = ask("sampling/createMessage", SAMPLING)
        # Neither call ends before both requests were answered: a call that ended first
        # would leave the other alone in flight, and its request unambiguous.
        together.wait()
        text_result(request_id, {"sampling": answer})
    else:
        send({"jsonrpc": "2.0", "id": request_id,
              "error": {"code": -32602, "message": f"unknown tool {name}"}})


def main():
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        request_id = message.get("id")
        if method is None and request_id is not None:
            with pending_lock:
                if request_id in pending:
                    answer = {"error": message["error"]} if "error" in message else message["result"]
                    pending[request_id][1] = answer
                    pending[request_id][0].set()
        elif method == "initialize":
            announced.update(message["params"].get("capabilities", {}))
            send({"jsonrpc": "2.0", "id": request_id, "result": {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "asking", "version": "1.0.0"}}})
        elif method == "notifications/initialized" and STATE:
            threading.Thread(target=lambda: record(ask("sampling/createMessage", SAMPLING)),
                             daemon=True).start()
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": TOOLS}})
        elif method == "tools/call":
            threading.Thread(target=call, args=(request_id, message["params"]), daemon=True).start()
        elif request_id is not None:
            send({"jsonrpc": "2.0", "id": request_id,
                  "error": {"code": -32601, "message": f"method not found: {method}"}})


main()
