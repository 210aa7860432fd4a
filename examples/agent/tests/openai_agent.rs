//! The agent loop against a scripted Chat Completions server on 127.0.0.1 that streams its
//! replies as server-sent events: what each request carries, how an early call to a lazy
//! tool is refused, how discovery unlocks it, and what a broken stream gives.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::State as AxumState;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use lazytool_examples_agent::{AgentConfig, AgentError, AgentEvent, run_agent};
use lazytool_runtime::{DISCOVERY_TOOL_NAME, Registry, tool};
use serde::Serialize;
use serde_json::{Value, json};

#[derive(Serialize)]
struct Product {
    id: u32,
    name: &'static str,
    price: f64,
}

const PRODUCTS: [(u32, &str, f64); 2] = [(1, "Aero 13", 999.0), (2, "Forge 16", 1800.0)];

/// Lists every product with its id, name and price.
#[tool(name = "getProducts")]
fn get_products() -> Vec<Product> {
    PRODUCTS
        .iter()
        .map(|&(id, name, price)| Product { id, name, price })
        .collect()
}

/// Compares products side by side.
#[tool(lazy, name = "compareProducts", rename_all = "camelCase")]
fn compare_products(
    /// The ids of the products to compare.
    #[schemars(length(min = 2))]
    product_ids: Vec<u32>,
) -> Vec<u32> {
    product_ids
}

/// Computes the monthly payment at 0% interest.
#[tool(lazy, name = "calculateFinancing", rename_all = "camelCase")]
fn calculate_financing(
    /// The product's id.
    product_id: u32,
    /// The number of monthly installments.
    months: u32,
) -> Result<Value, String> {
    let (_, _, price) = PRODUCTS
        .iter()
        .find(|(id, _, _)| *id == product_id)
        .ok_or_else(|| format!("no product with id {product_id}"))?;
    if months == 0 {
        return Err("months must be at least 1".to_owned());
    }
    Ok(
        json!({"productId": product_id, "months": months, "monthlyPayment": price / f64::from(months)}),
    )
}

const FINANCING_ERROR: &str = "Error: Tool 'calculateFinancing' must be discovered first. Call __lazy__tool__discovery__ with toolNames: ['calculateFinancing'] to discover it.";

/// Every request body the scripted model received.
type Requests = Arc<Mutex<Vec<Value>>>;

/// A scripted model: the n-th request gets the n-th response, later ones a 418.
#[derive(Clone)]
struct Model {
    requests: Requests,
    script: Arc<Vec<Value>>,
    replies: Replies,
}

/// A `chat.completion` whose message calls tools: `(call id, tool name, arguments)`.
fn tool_calls(calls: &[(&str, &str, Value)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, arguments)| {
            json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()}
            })
        })
        .collect();
    json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": null, "tool_calls": calls, "refusal": null},
            "finish_reason": "tool_calls"
        }]
    })
}

fn answer(text: &str) -> Value {
    json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": text, "refusal": null},
            "finish_reason": "stop"
        }]
    })
}

fn discover_financing() -> Value {
    json!({"toolNames": ["calculateFinancing"]})
}

fn financing_arguments() -> Value {
    json!({"productId": 2, "months": 12})
}

/// The server-sent events of a scripted `chat.completion`, as OpenAI streams it: a role
/// chunk, the text in two pieces, each call's first fragment and its arguments in three
/// pieces, the finish, the usage chunk, `[DONE]`. `cut` leaves out the finish and what
/// follows (a connection that drops).
fn sse(completion: &Value, cut: bool) -> String {
    let message = &completion["choices"][0]["message"];
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-test", "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut chunks = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    if let Some(text) = message["content"].as_str() {
        let middle = text
            .char_indices()
            .nth(text.chars().count() / 2)
            .map_or(0, |(at, _)| at);
        for piece in [&text[..middle], &text[middle..]] {
            chunks.push(chunk(json!({"content": piece}), Value::Null));
        }
    }
    for (index, call) in message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        chunks.push(chunk(
            json!({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                "function": {"name": call["function"]["name"], "arguments": ""}}]}),
            Value::Null,
        ));
        let arguments: Vec<char> = call["function"]["arguments"]
            .as_str()
            .unwrap_or("")
            .chars()
            .collect();
        for piece in arguments.chunks(arguments.len().div_ceil(3).max(1)) {
            let piece: String = piece.iter().collect();
            chunks.push(chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                Value::Null,
            ));
        }
    }
    if !cut {
        chunks.push(chunk(
            json!({}),
            completion["choices"][0]["finish_reason"].clone(),
        ));
        chunks.push(json!({"id": "chatcmpl-test", "object": "chat.completion.chunk",
            "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}));
    }
    let mut events: String = chunks
        .iter()
        .map(|chunk| format!("data: {chunk}\n\n"))
        .collect();
    if !cut {
        events.push_str("data: [DONE]\n\n");
    }
    events
}

/// `text` sent in frames of 7 bytes, so that events and UTF-8 characters span frames.
fn framed(text: String) -> Body {
    let frames: Vec<Result<Vec<u8>, Infallible>> = text
        .into_bytes()
        .chunks(7)
        .map(|frame| Ok(frame.to_vec()))
        .collect();
    Body::from_stream(futures_util::stream::iter(frames))
}

/// How the scripted model answers a request for a streamed reply.
#[derive(Clone, Copy, PartialEq)]
enum Replies {
    Streamed,
    /// The whole `chat.completion` as JSON, as a server that ignores `"stream"` does.
    Whole,
    /// The stream is cut before its finish.
    Cut,
}

async fn scripted_model(AxumState(model): AxumState<Model>, Json(body): Json<Value>) -> Response {
    let index = {
        let mut requests = model.requests.lock().unwrap_or_else(|p| p.into_inner());
        requests.push(body);
        requests.len() - 1
    };
    let Some(completion) = model.script.get(index) else {
        return (
            StatusCode::IM_A_TEAPOT,
            Json(json!({"error": "off script"})),
        )
            .into_response();
    };
    match model.replies {
        Replies::Whole => Json(completion.clone()).into_response(),
        replies => (
            [(header::CONTENT_TYPE, "text/event-stream")],
            framed(sse(completion, replies == Replies::Cut)),
        )
            .into_response(),
    }
}

/// Serves `script`, streamed, on a random port; returns the base URL and the recorded
/// requests.
async fn serve(script: Vec<Value>) -> (String, Requests) {
    serve_replies(script, Replies::Streamed).await
}

async fn serve_replies(script: Vec<Value>, replies: Replies) -> (String, Requests) {
    let model = Model {
        requests: Requests::default(),
        script: Arc::new(script),
        replies,
    };
    let requests = model.requests.clone();
    let app = Router::new()
        .route("/v1/chat/completions", post(scripted_model))
        .with_state(model);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1");
    let address = listener.local_addr().expect("local address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{address}/v1"), requests)
}

fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|tool| tool["function"]["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn discovery_unlocks_a_lazy_tool_on_the_next_turn() {
    // Turn 1 calls a lazy tool too early, turn 2 discovers it, turn 3 calls it, turn 4
    // answers.
    let (base_url, requests) = serve(vec![
        tool_calls(&[("call_1", "calculateFinancing", financing_arguments())]),
        tool_calls(&[("call_2", DISCOVERY_TOOL_NAME, discover_financing())]),
        tool_calls(&[("call_3", "calculateFinancing", financing_arguments())]),
        answer("Forge 16 costs $150 a month over 12 months."),
    ])
    .await;
    let config = AgentConfig::new(base_url, "scripted");
    let registry = Registry::from_inventory().expect("valid tools");
    let mut events = Vec::new();

    let outcome = run_agent(
        &config,
        &registry,
        "Finance the Forge 16 over 12 months",
        |e| events.push(e),
    )
    .await
    .expect("the run finishes");

    assert_eq!(
        outcome.answer,
        "Forge 16 costs $150 a month over 12 months."
    );
    assert_eq!(outcome.turns, 4);

    let requests = requests.lock().unwrap_or_else(|p| p.into_inner()).clone();
    assert_eq!(requests.len(), 4);
    let before = ["getProducts", DISCOVERY_TOOL_NAME];
    let after = ["getProducts", DISCOVERY_TOOL_NAME, "calculateFinancing"];
    let carried: Vec<Vec<String>> = requests.iter().map(tool_names).collect();
    assert_eq!(carried, [&before[..], &before, &after, &after]);
    for request in &requests {
        assert_eq!(request["model"], "scripted");
        assert_eq!(request["stream"], true);
    }
    // The discovery tool lists the lazy tools by name.
    let discovery = &requests[0]["tools"][1]["function"];
    assert_eq!(discovery["name"], DISCOVERY_TOOL_NAME);
    let listing = discovery["description"].as_str().unwrap_or_default();
    assert!(
        listing.contains("[calculateFinancing, compareProducts]"),
        "{listing}"
    );

    // Each request carries the history so far; the refusal went back to the model.
    let messages = requests[1]["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(
        messages[1]["content"],
        "Finance the Forge 16 over 12 months"
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_1", "content": FINANCING_ERROR})
    );
    assert_eq!(requests[3]["messages"].as_array().map(Vec::len), Some(8));
    assert_eq!(outcome.messages.len(), 9);

    let calls: Vec<(&str, &str, bool)> = events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::ToolCall {
                name,
                result,
                is_error,
                ..
            } => Some((name.as_str(), result.as_str(), *is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0], ("calculateFinancing", FINANCING_ERROR, true));
    let (name, discovered, is_error) = calls[1];
    assert_eq!((name, is_error), (DISCOVERY_TOOL_NAME, false));
    let discovered: Value = serde_json::from_str(discovered).expect("discovery result is JSON");
    assert_eq!(discovered["tools"][0]["name"], "calculateFinancing");
    let (name, financing, is_error) = calls[2];
    assert_eq!((name, is_error), ("calculateFinancing", false));
    let financing: Value = serde_json::from_str(financing).expect("financing result is JSON");
    assert_eq!(
        financing,
        json!({"productId": 2, "months": 12, "monthlyPayment": 150.0})
    );

    assert_eq!(
        events.first(),
        Some(&AgentEvent::Request {
            turn: 1,
            tools: before.map(str::to_owned).to_vec(),
        })
    );
    assert_eq!(
        events.last(),
        Some(&AgentEvent::Answer {
            turn: 4,
            text: outcome.answer.clone(),
        })
    );
}

/// A tool discovered in a turn is callable from the next turn only, even when the model
/// asks for the discovery and the call in one response.
#[tokio::test]
async fn calls_of_a_turn_are_gated_by_the_state_at_its_start() {
    let (base_url, requests) = serve(vec![
        tool_calls(&[
            ("call_1", DISCOVERY_TOOL_NAME, discover_financing()),
            ("call_2", "calculateFinancing", financing_arguments()),
        ]),
        tool_calls(&[("call_3", "calculateFinancing", financing_arguments())]),
        answer("done"),
    ])
    .await;
    let config = AgentConfig::new(base_url, "scripted");
    let registry = Registry::from_inventory().expect("valid tools");
    let mut calls = Vec::new();
    let outcome = run_agent(&config, &registry, "finance it", |event| {
        if let AgentEvent::ToolCall {
            turn,
            name,
            is_error,
            ..
        } = event
        {
            calls.push((turn, name, is_error));
        }
    })
    .await
    .expect("the run finishes");
    assert_eq!(outcome.answer, "done");
    assert_eq!(
        calls,
        [
            (1, DISCOVERY_TOOL_NAME.to_owned(), false),
            (1, "calculateFinancing".to_owned(), true),
            (2, "calculateFinancing".to_owned(), false),
        ]
    );
    let requests = requests.lock().unwrap_or_else(|p| p.into_inner()).clone();
    assert_eq!(
        requests[1]["messages"][4],
        json!({"role": "tool", "tool_call_id": "call_2", "content": FINANCING_ERROR})
    );
    assert_eq!(
        tool_names(&requests[1]),
        ["getProducts", DISCOVERY_TOOL_NAME, "calculateFinancing"]
    );
}

#[tokio::test]
async fn a_turn_limit_and_http_errors_end_the_run() {
    let registry = Registry::from_inventory().expect("valid tools");
    let looping = tool_calls(&[("call_1", "getProducts", json!({}))]);
    let (base_url, _) = serve(vec![looping.clone(), looping.clone(), looping]).await;
    let config = AgentConfig {
        max_turns: 2,
        ..AgentConfig::new(base_url, "scripted")
    };
    let error = run_agent(&config, &registry, "hi", |_| {})
        .await
        .expect_err("two turns are not enough");
    assert!(
        matches!(error, AgentError::TooManyTurns { max_turns: 2 }),
        "{error}"
    );

    let (base_url, _) = serve(Vec::new()).await;
    let config = AgentConfig::new(base_url, "scripted");
    let error = run_agent(&config, &registry, "hi", |_| {})
        .await
        .expect_err("off script");
    match error {
        AgentError::Status { status, body } => {
            assert_eq!(status, 418);
            assert!(body.contains("off script"), "{body}");
        }
        other => panic!("unexpected error: {other}"),
    }
}

/// The streamed reply's text and calls go back into the history as one assistant message;
/// a server that answers with a whole completion works too.
#[tokio::test]
async fn streamed_and_whole_replies_give_the_same_history() {
    let script = || {
        vec![
            tool_calls(&[
                ("call_1", "getProducts", json!({})),
                ("call_2", DISCOVERY_TOOL_NAME, discover_financing()),
            ]),
            answer("Thé Forge 16 costs $1800."),
        ]
    };
    let registry = Registry::from_inventory().expect("valid tools");
    let mut histories = Vec::new();
    for replies in [Replies::Streamed, Replies::Whole] {
        let (base_url, _) = serve_replies(script(), replies).await;
        let config = AgentConfig::new(base_url, "scripted");
        let outcome = run_agent(&config, &registry, "price?", |_| {})
            .await
            .expect("the run finishes");
        assert_eq!(outcome.answer, "Thé Forge 16 costs $1800.");
        histories.push(outcome.messages);
    }
    assert_eq!(histories[0], histories[1]);
    let history = &histories[0];
    assert_eq!(
        history[2],
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "getProducts", "arguments": "{}"}},
            {"id": "call_2", "type": "function", "function": {"name": DISCOVERY_TOOL_NAME,
                "arguments": discover_financing().to_string()}}
        ]})
    );
    assert_eq!(history[3]["tool_call_id"], "call_1");
    assert_eq!(history[4]["tool_call_id"], "call_2");
    assert_eq!(
        history[5],
        json!({"role": "assistant", "content": "Thé Forge 16 costs $1800."})
    );
}

#[tokio::test]
async fn a_stream_cut_before_its_finish_ends_the_run() {
    let (base_url, _) = serve_replies(
        vec![tool_calls(&[("call_1", "getProducts", json!({}))])],
        Replies::Cut,
    )
    .await;
    let config = AgentConfig::new(base_url, "scripted");
    let registry = Registry::from_inventory().expect("valid tools");
    let error = run_agent(&config, &registry, "hi", |_| {})
        .await
        .expect_err("a truncated stream");
    assert!(matches!(error, AgentError::Stream(_)), "{error}");
    assert!(
        error
            .to_string()
            .contains("the stream ended before a `finish_reason` with a tool call still open"),
        "{error}"
    );
}
