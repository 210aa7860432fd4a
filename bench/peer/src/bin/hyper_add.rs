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

use std::convert::Infallible;
use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Deserialize;

const PATH: &str = "/mcp";

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

/// One chunk of unknown length up front, so that hyper frames it `Transfer-Encoding:
/// chunked` as it frames lazytool's answers (a `Full` body would get a `Content-Length`).
struct Chunked(Option<Bytes>);

impl Body for Chunked {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.0.take().map(|data| Ok(Frame::data(data))))
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_none()
    }
}

async fn answer(request: Request<Incoming>) -> Result<Response<Chunked>, Infallible> {
    if request.method() != Method::POST || request.uri().path() != PATH {
        return Ok(refused(format!(
            "only POST {PATH} is served, not {} {}",
            request.method(),
            request.uri().path()
        )));
    }
    let body = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) => return Ok(refused(format!("the body could not be read: {error}"))),
    };
    let call: Call = match serde_json::from_slice(&body) {
        Ok(call) => call,
        Err(error) => {
            return Ok(refused(format!(
                "not a tools/call of add with integers a and b: {error}"
            )));
        }
    };
    let Arguments { a, b } = call.params.arguments;
    let Some(sum) = a.checked_add(b) else {
        return Ok(refused(format!("{a} + {b} overflows a 64-bit integer")));
    };
    let mut response = Response::new(Chunked(Some(answer_body(call.id, sum))));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(response)
}

fn refused(reason: String) -> Response<Chunked> {
    let mut response = Response::new(Chunked(Some(Bytes::from(reason))));
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = match std::env::args().nth(1) {
        Some(port) => port
            .parse()
            .map_err(|_| format!("`{port}` is not a port number"))?,
        None => 0,
    };
    let listener =
        tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "listening http://{}{PATH}", listener.local_addr()?)?;
    stdout.flush()?;
    loop {
        let (stream, _) = listener.accept().await?;
        if let Err(error) = stream.set_nodelay(true) {
            eprintln!("hyper_add: TCP_NODELAY not set: {error}");
        }
        tokio::spawn(async move {
            let served = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service_fn(answer))
                .await;
            if let Err(error) = served {
                eprintln!("hyper_add: connection: {error}");
            }
        });
    }
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
