//! The HTTP embedder against a fake endpoint of the test's own on 127.0.0.1: answers,
//! failures, late answers, vectors of the wrong shape.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::discovery::{Embeddings, HttpEmbedder, TestEmbedder};
use crate::{DynamicTool, Registry};

const WAIT: Duration = Duration::from_secs(30);

/// What the fake endpoint does with a query (a request of one text without `:`).
#[derive(Clone, Copy)]
enum Query {
    Answer,
    Late,
    ThreeWide,
    TooLarge,
    Status500,
}

/// Each request's `Authorization` header and body.
type Requests = Arc<Mutex<Vec<(Option<String>, Value)>>>;

/// A fake `/v1/embeddings` endpoint, stopped when dropped (or after a minute).
struct Endpoint {
    url: String,
    stop: Arc<AtomicBool>,
    requests: Requests,
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

impl Endpoint {
    fn start(query: Query) -> Endpoint {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let url = format!("http://{}", listener.local_addr().expect("bound"));
        listener.set_nonblocking(true).expect("nonblocking");
        let stop = Arc::new(AtomicBool::new(false));
        let requests: Requests = Arc::default();
        let (stopped, seen) = (Arc::clone(&stop), Arc::clone(&requests));
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            while !stopped.load(Ordering::SeqCst) && Instant::now() < deadline {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let seen = Arc::clone(&seen);
                        std::thread::spawn(move || answer(stream, query, &seen));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Endpoint {
            url,
            stop,
            requests,
        }
    }
}

fn answer(stream: TcpStream, query: Query, seen: &Mutex<Vec<(Option<String>, Value)>>) {
    let _ = stream.set_nonblocking(false);
    let mut reader = BufReader::new(&stream);
    let (mut length, mut authorization) = (0, None);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("authorization:") {
            authorization = Some(line["authorization:".len()..].trim().to_owned());
        }
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let request: Value = serde_json::from_slice(&body).unwrap_or_default();
    if let Ok(mut seen) = seen.lock() {
        seen.push((authorization, request.clone()));
    }
    let texts: Vec<String> = (request["input"].as_array().into_iter().flatten())
        .filter_map(|text| text.as_str().map(str::to_owned))
        .collect();
    let is_query = texts.len() == 1 && !texts[0].contains(':');
    let embedder = TestEmbedder::new().same(["car", "automobile"]);
    let mut data: Vec<Value> = texts
        .iter()
        .enumerate()
        .map(|(index, text)| json!({"object": "embedding", "index": index, "embedding": embedder.vector(text)}))
        .collect();
    // Out of order, as an endpoint may answer: the index says which is which.
    data.reverse();
    let mut status = "200 OK";
    let mut reply = json!({"object": "list", "data": data, "model": request["model"]}).to_string();
    if is_query {
        match query {
            Query::Answer => {}
            Query::Late => std::thread::sleep(Duration::from_secs(3)),
            Query::ThreeWide => {
                reply = json!({"data": [{"index": 0, "embedding": [0.1, 0.2, 0.3]}]}).to_string();
            }
            Query::TooLarge => {
                // A number JSON holds but an f32 does not.
                let mut vector: Vec<f64> = embedder
                    .vector(&texts[0])
                    .into_iter()
                    .map(f64::from)
                    .collect();
                vector[0] = 1e39;
                reply = json!({"data": [{"index": 0, "embedding": vector}]}).to_string();
            }
            Query::Status500 => {
                status = "500 Internal Server Error";
                reply = "boom".to_owned();
            }
        }
    }
    let mut stream = &stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
        reply.len()
    );
}

fn registry(embedder: HttpEmbedder, query_timeout: Duration) -> Registry {
    let tool = |name: &str, description: &str| {
        DynamicTool::new(name, description, json!({"type": "object"}), |_, _| async {
            Ok::<_, String>(json!(null))
        })
        .lazy(true)
    };
    Registry::builder()
        .without_inventory()
        .tools([
            tool(
                "rent_automobile",
                "Reserve an automobile for a number of days.",
            ),
            tool("book_hotel", "Reserve a hotel room for a number of nights."),
        ])
        .embeddings(Embeddings::new(embedder).with_query_timeout(query_timeout))
        .build()
        .expect("valid tools")
}

fn first(registry: &Registry, query: &str) -> Option<String> {
    registry
        .search(query, 1)
        .first()
        .map(|tool| tool.name().to_owned())
}

fn warning(registry: &Registry) -> String {
    registry
        .embeddings()
        .and_then(Embeddings::last_warning)
        .unwrap_or_default()
}

#[test]
fn an_openai_compatible_endpoint_gives_the_vectors() {
    let endpoint = Endpoint::start(Query::Answer);
    let embedder = HttpEmbedder::new(&endpoint.url, "mini")
        .expect("valid")
        .with_max_batch(1)
        .with_api_key_env("CARGO_PKG_NAME")
        .expect("cargo sets it");
    let registry = registry(embedder, WAIT);
    assert!(registry.wait_for_embeddings(WAIT), "{}", warning(&registry));
    assert_eq!(
        first(&registry, "my car").as_deref(),
        Some("rent_automobile")
    );
    assert_eq!(warning(&registry), "");
    let requests = endpoint.requests.lock().expect("requests").clone();
    // One request per tool (batches of one), then the query's.
    assert_eq!(requests.len(), 3);
    for (authorization, request) in &requests {
        assert_eq!(authorization.as_deref(), Some("Bearer lazytool-runtime"));
        assert_eq!(request["model"], "mini");
        assert_eq!(request["input"].as_array().map(Vec::len), Some(1));
    }
    assert_eq!(requests[2].1["input"], json!(["my car"]));
}

#[test]
fn an_endpoint_that_fails_leaves_the_lexical_search_with_a_warning() {
    // Only the late endpoint meets the short timeout: the others answer within the long
    // one however loaded the machine. Which of the query's timeout and the HTTP client's own
    // fires first is a race ("no query vector within 300 ms", "no query vector: no answer
    // within 300 ms"): both name the bound.
    let short = Duration::from_millis(300);
    let cases = [
        (Query::Late, "within 300 ms", short),
        (
            Query::ThreeWide,
            "bad query vector: vector 0 has 3 dimensions, not 512",
            WAIT,
        ),
        (Query::TooLarge, "not a finite number", WAIT),
        (
            Query::Status500,
            "answered 500 Internal Server Error: boom",
            WAIT,
        ),
    ];
    for (query, reason, timeout) in cases {
        let endpoint = Endpoint::start(query);
        let embedder = HttpEmbedder::new(&endpoint.url, "mini").expect("valid");
        let registry = registry(embedder, timeout);
        assert!(registry.wait_for_embeddings(WAIT), "{}", warning(&registry));
        assert_eq!(
            first(&registry, "hotel for tonight").as_deref(),
            Some("book_hotel")
        );
        let warning = warning(&registry);
        assert!(warning.starts_with("embedder mini: "), "{warning}");
        assert!(warning.contains(reason), "{warning}");
    }
}

#[test]
fn an_unreachable_endpoint_leaves_the_lexical_search_with_a_warning() {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let embedder = HttpEmbedder::new(&url, "mini")
        .expect("valid")
        .with_timeout(Duration::from_secs(5));
    let registry = registry(embedder, Duration::from_secs(1));
    assert!(!registry.wait_for_embeddings(WAIT));
    assert_eq!(first(&registry, "hotel").as_deref(), Some("book_hotel"));
    assert_eq!(
        warning(&registry),
        format!(
            "embedder mini: cannot embed the tools: {url}/v1/embeddings: cannot connect; lexical search only"
        )
    );
}
