//! One client's HTTP/1.1 connection (`TCP_NODELAY` on) and the requests of its flow.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderValue};
use hyper::{Method, Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;

use crate::answer::{self, CallError};
use crate::flow::{self, Flow};

const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";

/// Where the server listens.
#[derive(Clone, Debug)]
pub struct Target {
    authority: String,
    path: String,
}

impl Target {
    /// The target of `url` (`http://HOST:PORT/PATH`).
    pub fn parse(url: &str) -> Result<Self, String> {
        let uri: Uri = url.parse().map_err(|error| format!("`{url}`: {error}"))?;
        if uri.scheme_str() != Some("http") {
            return Err(format!("`{url}`: only http:// URLs are served here"));
        }
        let authority = uri
            .authority()
            .ok_or_else(|| format!("`{url}` has no host"))?
            .to_string();
        Ok(Target {
            authority,
            path: uri.path().to_owned(),
        })
    }
}

/// An open connection, past its flow's handshake.
pub struct Connection {
    sender: SendRequest<Full<Bytes>>,
    target: Target,
    flow: Flow,
    session: Option<HeaderValue>,
    /// Set once the protocol version is known: after `initialize`, or from the start.
    negotiated: bool,
    next_id: u64,
}

impl Connection {
    /// Connects and, for the handshake flows, initializes (a stateful flow must get a
    /// session id).
    pub async fn open(target: &Target, flow: Flow) -> Result<Self, CallError> {
        let stream = TcpStream::connect(&target.authority)
            .await
            .map_err(transport)?;
        stream.set_nodelay(true).map_err(transport)?;
        let (sender, connection) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(transport)?;
        tokio::spawn(connection);
        let mut opened = Connection {
            sender,
            target: target.clone(),
            flow,
            session: None,
            negotiated: !flow.has_handshake(),
            next_id: 0,
        };
        if flow.has_handshake() {
            opened.initialize().await?;
        }
        Ok(opened)
    }

    /// Calls `add(a, b)` and checks the answer is `a + b`.
    pub async fn call_add(&mut self, a: i64, b: i64) -> Result<(), CallError> {
        let id = self.id();
        let mut request = self.request(Method::POST, Some(&flow::call_add(self.flow, id, a, b)))?;
        if self.flow == Flow::Stateless {
            let headers = request.headers_mut();
            headers.insert("mcp-method", HeaderValue::from_static("tools/call"));
            headers.insert("mcp-name", HeaderValue::from_static("add"));
        }
        let (status, content_type, _, body) = self.send(request).await?;
        expect_status(status, StatusCode::OK, &body)?;
        let response = answer::response(content_type.as_deref(), &body, id)?;
        answer::check_sum(&response, a.wrapping_add(b))
    }

    /// Ends the session, if any (`DELETE`).
    pub async fn close(mut self) -> Result<(), CallError> {
        if self.flow != Flow::Stateful || self.session.is_none() {
            return Ok(());
        }
        let request = self.request(Method::DELETE, None)?;
        let (status, _, _, body) = self.send(request).await?;
        if status.is_success() || status == StatusCode::METHOD_NOT_ALLOWED {
            Ok(())
        } else {
            Err(CallError::Status(status.as_u16(), answer::excerpt(&body)))
        }
    }

    async fn initialize(&mut self) -> Result<(), CallError> {
        let id = self.id();
        let request = self.request(Method::POST, Some(&flow::initialize(id)))?;
        let (status, content_type, session, body) = self.send(request).await?;
        expect_status(status, StatusCode::OK, &body)?;
        let response = answer::response(content_type.as_deref(), &body, id)?;
        if let Some(error) = response.get("error") {
            return Err(CallError::Refused(error.to_string()));
        }
        match (self.flow, session) {
            (Flow::Stateful, None) => {
                return Err(CallError::Protocol(
                    "initialize gave no Mcp-Session-Id".to_owned(),
                ));
            }
            (Flow::Stateful, session) => self.session = session,
            _ => {}
        }
        self.negotiated = true;
        let request = self.request(Method::POST, Some(&flow::initialized()))?;
        let (status, _, _, body) = self.send(request).await?;
        expect_status(status, StatusCode::ACCEPTED, &body)
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// A request with the headers every request of the flow carries.
    fn request(
        &self,
        method: Method,
        body: Option<&Value>,
    ) -> Result<Request<Full<Bytes>>, CallError> {
        let mut builder = Request::builder()
            .method(method)
            .uri(self.target.path.as_str())
            .header(HOST, self.target.authority.as_str())
            .header(ACCEPT, "application/json, text/event-stream");
        if let Some(session) = &self.session {
            builder = builder.header(SESSION_ID, session);
        }
        if self.negotiated {
            builder = builder.header(PROTOCOL_VERSION, self.flow.protocol_version());
        }
        let body = match body {
            Some(body) => {
                builder = builder.header(CONTENT_TYPE, "application/json");
                Bytes::from(
                    serde_json::to_vec(body)
                        .map_err(|error| CallError::Protocol(error.to_string()))?,
                )
            }
            None => Bytes::new(),
        };
        builder
            .body(Full::new(body))
            .map_err(|error| CallError::Protocol(error.to_string()))
    }

    /// Sends `request` and reads the whole answer: status, content type, session id, body.
    async fn send(
        &mut self,
        request: Request<Full<Bytes>>,
    ) -> Result<(StatusCode, Option<String>, Option<HeaderValue>, Bytes), CallError> {
        self.sender.ready().await.map_err(transport)?;
        let response = self.sender.send_request(request).await.map_err(transport)?;
        let status = response.status();
        let headers = response.headers();
        let content_type = headers
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let session = headers.get(SESSION_ID).cloned();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(transport)?
            .to_bytes();
        Ok((status, content_type, session, body))
    }
}

fn expect_status(status: StatusCode, expected: StatusCode, body: &[u8]) -> Result<(), CallError> {
    if status == expected {
        Ok(())
    } else {
        Err(CallError::Status(status.as_u16(), answer::excerpt(body)))
    }
}

fn transport(error: impl std::fmt::Display) -> CallError {
    CallError::Transport(error.to_string())
}
