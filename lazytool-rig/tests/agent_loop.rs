//! rig's own agent loop (rig-agent's `Agent::prompt(..).run()`) over a lazytool registry,
//! against a scripted model under rig's OpenAI Chat wire: what each request carries, and
//! what the model reads back for every kind of call.

use std::sync::{Arc, Mutex};

use lazytool_rig::{LazyTools, ScriptedChat};
use lazytool_runtime::{DISCOVERY_TOOL_NAME, DiscoveryMode, Registry, SessionOptions, tool};
use rig_agent::AgentBuilder;
use serde_json::{Value, json};

/// Lists the products with their ids and prices.
#[tool(name = "getProducts")]
fn get_products() -> Value {
    json!([{"id": 1, "name": "Aero 13 laptop", "price": 999.0}])
}

/// Computes the monthly payment for a product bought in installments.
#[tool(lazy, name = "calculateFinancing", rename_all = "camelCase")]
fn calculate_financing(
    /// The product's id.
    product_id: u32,
    /// The number of monthly installments.
    #[schemars(range(min = 1, max = 60))]
    months: u32,
) -> Value {
    json!({"productId": product_id, "monthly": 999.0 / f64::from(months)})
}

/// Checks how many of a product the warehouse holds.
#[tool(lazy, name = "checkStock", rename_all = "camelCase")]
fn check_stock(
    /// The product's id.
    product_id: u32,
) -> Result<u32, String> {
    Err(format!("the warehouse is offline (product {product_id})"))
}

/// The text of every tool-result message of a request after the first `skip` messages.
fn tool_results(request: &Value, skip: usize) -> Vec<String> {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    messages
        .iter()
        .skip(skip)
        .filter(|message| message["role"] == "tool")
        .map(|message| match &message["content"] {
            Value::String(text) => text.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|part| part["text"].as_str())
                .collect::<Vec<_>>()
                .join(""),
            other => other.to_string(),
        })
        .collect()
}

/// A model that plays `replies` in order, one per request, then answers "done".
fn scripted(replies: Vec<Value>) -> ScriptedChat {
    let replies = Arc::new(Mutex::new(replies.into_iter()));
    ScriptedChat::new(move |_| {
        let next = replies.lock().ok().and_then(|mut replies| replies.next());
        next.unwrap_or_else(|| ScriptedChat::text("done"))
    })
}

fn registry() -> Registry {
    Registry::from_inventory().expect("the test's tools register")
}

#[tokio::test]
async fn discovery_calls_and_bad_input_in_rigs_loop() {
    let chat = scripted(vec![
        ScriptedChat::tool_calls(&[(
            "c1",
            DISCOVERY_TOOL_NAME,
            r#"{"toolNames":["calculateFinancing","checkStock"]}"#,
        )]),
        // An argument error the model then repairs.
        ScriptedChat::tool_calls(&[("c2", "calculateFinancing", r#"{"productId":1,"months":0}"#)]),
        ScriptedChat::tool_calls(&[("c3", "calculateFinancing", r#"{"productId":1,"months":24}"#)]),
        // The tool's own error.
        ScriptedChat::tool_calls(&[("c4", "checkStock", r#"{"productId":1}"#)]),
        // A tool that does not exist, and arguments that are not JSON.
        ScriptedChat::tool_calls(&[("c5", "orderProduct", r#"{"productId":1}"#)]),
        ScriptedChat::tool_calls(&[("c6", "getProducts", "{not json")]),
    ]);
    let lazy = LazyTools::new(registry().session());
    let agent = lazy.attach(AgentBuilder::new(chat.model())).build();
    let response = agent
        .prompt("What does the Aero cost per month over 24 months?")
        .max_turns(10)
        .run()
        .await
        .expect("the run ends with the model's answer");
    assert_eq!(response.output(), "done");

    let requests = chat.requests();
    assert_eq!(requests.len(), 7);
    // The first request carries the eager tool and the discovery tool only.
    assert_eq!(
        ScriptedChat::tool_names(&requests[0]),
        ["getProducts", DISCOVERY_TOOL_NAME]
    );
    // After the discovery: the discovered tools (every lazy tool: no discovery tool).
    assert_eq!(
        ScriptedChat::tool_names(&requests[1]),
        ["getProducts", "calculateFinancing", "checkStock"]
    );
    let discovery = &tool_results(&requests[1], 0)[0];
    assert!(
        discovery.contains(r#""name":"calculateFinancing""#),
        "{discovery}"
    );

    let answer = |turn: usize| tool_results(&requests[turn], 0).pop().unwrap_or_default();
    let invalid = answer(2);
    assert!(
        invalid.contains("months"),
        "the argument error names the field: {invalid}"
    );
    assert!(invalid.contains('1'), "and its bound: {invalid}");
    assert_eq!(answer(3), r#"{"productId":1,"monthly":41.625}"#);
    assert!(
        answer(4).contains("the warehouse is offline (product 1)"),
        "{}",
        answer(4)
    );
    let unknown = answer(5);
    assert!(
        unknown.contains("orderProduct") && unknown.contains("getProducts"),
        "lazytool's unknown-tool error lists the tools: {unknown}"
    );
    let malformed = answer(6);
    assert!(
        malformed.contains("{not json"),
        "rig quotes the arguments: {malformed}"
    );
    // Every call was answered: one result per call, in order.
    assert_eq!(tool_results(&requests[6], 0).len(), 6);
    // The session saw the discoveries rig's loop made.
    assert_eq!(
        lazy.session().discovered().tools,
        ["calculateFinancing", "checkStock"]
    );
}

#[tokio::test]
async fn a_lazy_tool_called_before_its_discovery_gets_the_gating_error() {
    let chat = scripted(vec![ScriptedChat::tool_calls(&[(
        "c1",
        "calculateFinancing",
        r#"{"productId":1,"months":24}"#,
    )])]);
    let lazy = LazyTools::new(registry().session());
    let agent = lazy.attach(AgentBuilder::new(chat.model())).build();
    let response = agent.prompt("Finance it.").max_turns(5).run().await;
    assert_eq!(response.expect("no failed run").output(), "done");
    let requests = chat.requests();
    let refusal = tool_results(&requests[1], 0).pop().unwrap_or_default();
    assert_eq!(
        refusal,
        "Error: Tool 'calculateFinancing' must be discovered first. Call \
         __lazy__tool__discovery__ with toolNames: ['calculateFinancing'] to discover it."
    );
    // Still lazy: the next request did not carry it.
    assert_eq!(
        ScriptedChat::tool_names(&requests[1]),
        ["getProducts", DISCOVERY_TOOL_NAME]
    );
}

#[tokio::test]
async fn search_mode_discovers_by_query() {
    let chat = scripted(vec![ScriptedChat::tool_calls(&[(
        "c1",
        DISCOVERY_TOOL_NAME,
        r#"{"query":"monthly installments payment"}"#,
    )])]);
    let session = registry().session_with(SessionOptions::new().mode(DiscoveryMode::Search));
    let lazy = LazyTools::new(session);
    let agent = lazy.attach(AgentBuilder::new(chat.model())).build();
    agent
        .prompt("Finance it.")
        .max_turns(5)
        .run()
        .await
        .expect("no failed run");
    let requests = chat.requests();
    assert_eq!(
        ScriptedChat::tool_names(&requests[0]),
        ["getProducts", DISCOVERY_TOOL_NAME]
    );
    let parameters = &requests[0]["tools"][1]["function"]["parameters"]["properties"];
    assert!(
        parameters.get("query").is_some(),
        "search mode's input: {parameters}"
    );
    assert!(
        ScriptedChat::tool_names(&requests[1]).contains(&"calculateFinancing".to_owned()),
        "{:?}",
        ScriptedChat::tool_names(&requests[1])
    );
}
