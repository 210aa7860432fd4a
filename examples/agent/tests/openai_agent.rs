//! The agent loop against a scripted Chat Completions server on 127.0.0.1: what each request
//! carries, how an early call to a lazy tool is refused, and how discovery unlocks it.

use std::sync::{Arc, Mutex};

use axum::extract::State as AxumState;
use axum::http::StatusCode;
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

async fn scripted_model(
    AxumState(model): AxumState<Model>,
    Json(body): Json<Value>,
) -> (StatusCode, Json<Value>) {
    let index = {
        let mut requests = model.requests.lock().unwrap_or_else(|p| p.into_inner());
        requests.push(body);
        requests.len() - 1
    };
    match model.script.get(index) {
        Some(response) => (StatusCode::OK, Json(response.clone())),
        None => (
            StatusCode::IM_A_TEAPOT,
            Json(json!({"error": "off script"})),
        ),
    }
}

/// Serves `script` on a random port; returns the base URL and the recorded requests.
async fn serve(script: Vec<Value>) -> (String, Requests) {
    let model = Model {
        requests: Requests::default(),
        script: Arc::new(script),
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
