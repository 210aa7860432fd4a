//! The ceiling of the peer benchmark: a bare hyper 1 server that answers the stateless
//! (2026-07-28) `tools/call add {a, b}` with the bytes and headers lazytool answers it with
//! (`content-type: application/json`, the body chunked, as lazytool's streamed answer is),
//! and nothing else: no MCP, no guard, no dispatch. What any Rust server on hyper must pay
//! for one request and one answer on this machine.
//!
//! The body is lazytool's answer as a fixed template; only the request's `id` and the sum
//! are written into it, because the load generator checks every answer (a constant body
//! would count as an error). Anything but a `POST` to `/mcp` whose body has an `id` and
//! integer `a` and `b` is answered `400` with the reason.
//!
//! ```sh
//! hyper_add [PORT]     # prints `listening http://127.0.0.1:PORT/mcp` on stdout
//! ```

use std::io::Write;

use bytes::Bytes;
use serde::Deserialize;

#[path = "../bare_server.rs"]
mod bare_server;
#[path = "../listener.rs"]
mod listener;

#[derive(Deserialize)]
struct Call {
    id: u64,
    params: Params,
}

#[derive(Deserialize)]
struct Params {
    arguments: Arguments,
}

#[derive(Deserialize)]
struct Arguments {
    a: i64,
    b: i64,
}

/// lazytool's answer to `add`, byte for byte, with `id` and `sum` written in.
fn answer_body(id: u64, sum: i64) -> Bytes {
    let mut body = Vec::with_capacity(160);
    // Writing to a Vec cannot fail.
    let _ = write!(
        body,
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","content":[{{"type":"text","text":"{sum}"}}],"isError":false}}}}"#
    );
    Bytes::from(body)
}

/// The answer to a request's body: `add`'s, or why it is none.
fn answer(body: &[u8]) -> Result<Bytes, String> {
    let call: Call = serde_json::from_slice(body)
        .map_err(|error| format!("not a tools/call of add with integers a and b: {error}"))?;
    let Arguments { a, b } = call.params.arguments;
    let sum = a
        .checked_add(b)
        .ok_or_else(|| format!("{a} + {b} overflows a 64-bit integer"))?;
    Ok(answer_body(call.id, sum))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    bare_server::serve("hyper_add", answer).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_is_lazytools_answer() {
        // What lazytool_add answered `add(2, -5)` with id 7 (curl, stateless call).
        assert_eq!(
            answer_body(7, -3),
            Bytes::from_static(
                br#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"-3"}],"isError":false}}"#
            )
        );
    }
}
