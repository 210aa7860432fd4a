//! The bare hyper 1 server that `hyper_add` (the ceiling) and `floor_add` (the floor) share:
//! `POST /mcp` only, the body read whole, the answer one chunk of JSON framed `Transfer-Encoding:
//! chunked` as lazytool frames its answers, anything refused `400` with the reason. No guard,
//! router, session or handler: only what the two binaries' `answer` functions do on top.

use std::convert::Infallible;
use std::io::Write;
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

use crate::listener;

/// The one path served.
const PATH: &str = "/mcp";

/// What a server answers a request's body with: the answer's JSON, or why it refuses it.
pub type Answer = fn(&[u8]) -> Result<Bytes, String>;

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

async fn respond(request: Request<Incoming>, answer: Answer) -> Response<Chunked> {
    if request.method() != Method::POST || request.uri().path() != PATH {
        return refused(format!(
            "only POST {PATH} is served, not {} {}",
            request.method(),
            request.uri().path()
        ));
    }
    let body = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) => return refused(format!("the body could not be read: {error}")),
    };
    match answer(&body) {
        Ok(json) => {
            let mut response = Response::new(Chunked(Some(json)));
            response
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            response
        }
        Err(reason) => refused(reason),
    }
}

fn refused(reason: String) -> Response<Chunked> {
    let mut response = Response::new(Chunked(Some(Bytes::from(reason))));
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response
}

/// Serves `answer` on [`listener::bind`]'s listener, after printing `listening
/// http://127.0.0.1:PORT/mcp`; `name` prefixes what goes wrong.
pub async fn serve(name: &'static str, answer: Answer) -> Result<(), Box<dyn std::error::Error>> {
    let listener = listener::bind().await?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "listening http://{}{PATH}", listener.local_addr()?)?;
    stdout.flush()?;
    loop {
        let (stream, _) = listener.accept().await?;
        if let Err(error) = stream.set_nodelay(true) {
            eprintln!("{name}: TCP_NODELAY not set: {error}");
        }
        tokio::spawn(async move {
            let service = service_fn(move |request| async move {
                Ok::<_, Infallible>(respond(request, answer).await)
            });
            let served = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
            if let Err(error) = served {
                eprintln!("{name}: connection: {error}");
            }
        });
    }
}
