//! The gateway searching by meaning (`lazytool.search.embeddings`) in front of
//! tests/mcp/gateway/shifting_server.py, with a fake OpenAI-compatible embeddings endpoint of
//! the test's own on 127.0.0.1 that knows `qar` to mean what `doomed` means: the search finds
//! by meaning what its words miss, and a second start with the same cache embeds no tool.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lazytool_runtime::DISCOVERY_TOOL_NAME;
use serde_json::{Value, json};
use support::{Scratch, WATCHDOG, gateway_command};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader as AsyncBufReader};

/// Every text the endpoint was asked to embed.
type Texts = Arc<Mutex<Vec<String>>>;

/// The fake endpoint: each word is an axis (`qar` is `doomed`'s), stopped when dropped.
struct Endpoint {
    url: String,
    texts: Texts,
    stop: Arc<AtomicBool>,
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn vector(text: &str) -> Vec<f32> {
    let mut vector = vec![0.0f32; 64];
    vector[0] = 0.01;
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let word = word.to_lowercase();
        let word = if word == "qar" {
            "doomed".to_owned()
        } else {
            word
        };
        let hash = word
            .bytes()
            .fold(7u64, |hash, byte| hash.wrapping_mul(31) + u64::from(byte));
        vector[1 + (hash % 63) as usize] += 1.0;
    }
    vector
}

fn serve(stream: TcpStream, texts: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(&stream);
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let request: Value = serde_json::from_slice(&body).unwrap_or_default();
    let input: Vec<String> = (request["input"].as_array().into_iter().flatten())
        .filter_map(|text| text.as_str().map(str::to_owned))
        .collect();
    let data: Vec<Value> = (input.iter().enumerate())
        .map(|(index, text)| json!({"index": index, "embedding": vector(text)}))
        .collect();
    if let Ok(mut texts) = texts.lock() {
        texts.extend(input);
    }
    let reply = json!({"data": data}).to_string();
    let mut stream = &stream;
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
        reply.len()
    );
}

impl Endpoint {
    fn start() -> Endpoint {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let url = format!("http://{}", listener.local_addr().expect("bound"));
        listener.set_nonblocking(true).expect("nonblocking");
        let (texts, stop): (Texts, _) = (Arc::default(), Arc::new(AtomicBool::new(false)));
        let (seen, stopped) = (Arc::clone(&texts), Arc::clone(&stop));
        std::thread::spawn(move || {
            let deadline = Instant::now() + WATCHDOG;
            while !stopped.load(Ordering::SeqCst) && Instant::now() < deadline {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let _ = stream.set_nonblocking(false);
                        serve(stream, &seen);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Endpoint { url, texts, stop }
    }

    fn texts(&self) -> Vec<String> {
        self.texts
            .lock()
            .map(|texts| texts.clone())
            .unwrap_or_default()
    }
}

fn write_config(dir: &Scratch, url: &str) -> PathBuf {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/mcp/gateway/shifting_server.py");
    let config = json!({
        "mcpServers": {"shifting": {"command": "python3", "args": [script.display().to_string()]}},
        "lazytool": {"mode": "search", "search": {"embeddings": {
            "url": url, "model": "fake", "queryTimeoutMs": 60000, "cacheDir": dir.0.join("vectors").display().to_string(),
        }}},
    });
    let path = dir.0.join("mcp.json");
    std::fs::write(&path, config.to_string()).expect("writes the config");
    path
}

/// Searches `query` through the discovery tool of a gateway serving `config` on stdio,
/// until `shifting__doomed` is found (the vectors are computed in the background) or the
/// watchdog ends it; the names the last search found.
async fn search_until_found(config: &std::path::Path, query: &str) -> String {
    let mut child = gateway_command(&["--config", &config.display().to_string()])
        .stdin(Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = AsyncBufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut ask = async |id: u64, method: &str, params: Value| -> Value {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        (stdin.write_all(format!("{message}\n").as_bytes()).await).expect("the gateway reads");
        loop {
            let line = tokio::time::timeout(WATCHDOG, lines.next_line())
                .await
                .expect("an answer")
                .expect("readable")
                .expect("a line");
            let message: Value = serde_json::from_str(&line).expect("JSON-RPC");
            if message["id"] == json!(id) {
                return message;
            }
        }
    };
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    assert!(ask(1, "initialize", init).await["result"].is_object());
    let deadline = Instant::now() + WATCHDOG;
    let mut id = 1;
    loop {
        id += 1;
        let params = json!({"name": DISCOVERY_TOOL_NAME, "arguments": {"query": query}});
        let answer = ask(id, "tools/call", params).await;
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if text.contains("shifting__doomed") || Instant::now() > deadline {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn the_gateway_finds_by_meaning_and_a_second_start_embeds_no_tool() {
    let dir = Scratch::new("embeddings", "meaning");
    let endpoint = Endpoint::start();
    let config = write_config(&dir, &endpoint.url);
    let found = search_until_found(&config, "qar").await;
    assert!(found.contains("shifting__doomed"), "{found}");
    let texts = endpoint.texts();
    assert!(
        texts
            .iter()
            .any(|text| text.starts_with("shifting doomed: ")),
        "{texts:?}"
    );
    assert!(texts.iter().any(|text| text == "qar"), "{texts:?}");

    // The same tools again: their vectors come from the cache, only the query is embedded.
    let again = Endpoint::start();
    let config = write_config(&dir, &again.url);
    let found = search_until_found(&config, "qar").await;
    assert!(found.contains("shifting__doomed"), "{found}");
    assert_eq!(again.texts(), ["qar"]);
}
