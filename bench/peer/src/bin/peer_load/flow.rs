//! What a client sends, per flow: the requests' bodies and headers as the official clients
//! write them.

use serde_json::{Value, json};

/// The protocol version of the handshake flows.
pub const HANDSHAKE_VERSION: &str = "2025-11-25";
/// The protocol version of the stateless flow.
pub const STATELESS_VERSION: &str = "2026-07-28";

const CLIENT_NAME: &str = "lazytool-bench-peer";

/// How a client speaks to a server.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Flow {
    /// 2025-11-25: `initialize` once per connection, the session's `Mcp-Session-Id` on every
    /// later request, `DELETE` at the end.
    Stateful,
    /// 2025-11-25 against a server without sessions (the TypeScript SDK's stateless mode):
    /// `initialize` once per connection, then calls that carry no session.
    Sessionless,
    /// 2026-07-28: no handshake; every call carries its protocol version, client info and
    /// capabilities in `_meta`, and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
    /// headers (what the Python SDK 2.3 client sends with `mode="2026-07-28"`).
    Stateless,
}

impl Flow {
    /// Whether the connection starts with `initialize` and `notifications/initialized`.
    pub fn has_handshake(self) -> bool {
        self != Flow::Stateless
    }

    /// The `MCP-Protocol-Version` every request after the handshake carries.
    pub fn protocol_version(self) -> &'static str {
        match self {
            Flow::Stateful | Flow::Sessionless => HANDSHAKE_VERSION,
            Flow::Stateless => STATELESS_VERSION,
        }
    }

    /// The name the table prints.
    pub fn label(self) -> &'static str {
        match self {
            Flow::Stateful => "stateful",
            Flow::Sessionless => "sessionless",
            Flow::Stateless => "stateless",
        }
    }
}

/// The body of `initialize`.
pub fn initialize(id: u64) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "initialize",
        "params": {
            "protocolVersion": HANDSHAKE_VERSION,
            "capabilities": {},
            "clientInfo": {"name": CLIENT_NAME, "version": "0"},
        },
    })
}

/// The body of `notifications/initialized`.
pub fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

/// The body of `tools/call add {a, b}` in `flow`.
pub fn call_add(flow: Flow, id: u64, a: i64, b: i64) -> Value {
    let mut params = json!({"name": "add", "arguments": {"a": a, "b": b}});
    if flow == Flow::Stateless {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
            "io.modelcontextprotocol/clientInfo": {"name": CLIENT_NAME, "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        });
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}
