//! `Session::from_history`: discovery state rebuilt from message histories of every supported
//! format.

use lazytool_runtime::{DISCOVERY_TOOL_NAME, Registry, Session, tool};
use serde_json::{Value, json};

/// Get all products from the catalog.
#[tool(name = "getProducts")]
async fn get_products() -> Vec<u32> {
    vec![1, 2]
}

/// Compare two or more products side by side.
#[tool(lazy, name = "compareProducts")]
async fn compare_products(ids: Vec<u32>) -> Vec<u32> {
    ids
}

/// Calculate monthly payment plans for a product.
#[tool(lazy, name = "calculateFinancing")]
async fn calculate_financing(months: u32) -> u32 {
    months
}

fn registry() -> Registry {
    Registry::from_inventory().expect("valid tools")
}

/// What the discovery tool answers for `names`, as text.
fn discovery_text(names: &[&str]) -> String {
    let tools: Vec<Value> = names
        .iter()
        .map(|name| json!({"name": name, "description": "d", "inputSchema": {"type": "object"}}))
        .collect();
    json!({ "tools": tools }).to_string()
}

fn discovered(history: &[Value]) -> Vec<String> {
    Session::from_history(&registry(), history)
        .discovered()
        .tools
}

#[test]
fn openai_chat_completions() {
    let history = [
        json!({"role": "system", "content": "You are a shop assistant."}),
        json!({"role": "user", "content": "Compare the desk and the chair."}),
        json!({"role": "assistant", "content": null, "tool_calls": [{
            "id": "call_abc", "type": "function",
            "function": {"name": DISCOVERY_TOOL_NAME, "arguments": "{\"toolNames\":[\"compareProducts\"]}"}
        }]}),
        json!({"role": "tool", "tool_call_id": "call_abc", "content": discovery_text(&["compareProducts"])}),
        json!({"role": "assistant", "content": "Here is the comparison."}),
    ];
    assert_eq!(discovered(&history), ["compareProducts"]);
}

#[test]
fn tanstack_camel_case() {
    let history = [
        json!({"role": "user", "content": "Financing?"}),
        json!({"role": "assistant", "content": "", "toolCalls": [{
            "id": "tc_1", "type": "function",
            "function": {"name": DISCOVERY_TOOL_NAME, "arguments": "{\"toolNames\":[\"calculateFinancing\",\"compareProducts\"]}"}
        }]}),
        json!({"role": "tool", "toolCallId": "tc_1",
               "content": discovery_text(&["calculateFinancing", "compareProducts"])}),
    ];
    assert_eq!(
        discovered(&history),
        ["calculateFinancing", "compareProducts"]
    );
}

/// TanStack `UIMessage`s, read as its `chat()` converts them: a `tool-call` part is a call
/// once its input is complete (or it has an `output`), a `tool-result` part counts when
/// `complete` or `error`, an `output` counts when no such part answers the call, and only
/// assistant messages carry tool parts.
#[test]
fn tanstack_ui_messages() {
    let call = |id: &str, state: &str| {
        json!({"type": "tool-call", "id": id, "name": DISCOVERY_TOOL_NAME,
            "arguments": "{\"toolNames\":[\"compareProducts\"]}", "state": state})
    };
    let result = |id: &str, state: &str, names: &[&str]| json!({"type": "tool-result", "toolCallId": id, "content": discovery_text(names), "state": state});
    let assistant = |parts: Vec<Value>| json!({"id": "m", "role": "assistant", "parts": parts});
    let user =
        json!({"id": "u", "role": "user", "parts": [{"type": "text", "content": "Compare."}]});

    let answered = [
        user.clone(),
        assistant(vec![
            call("t1", "complete"),
            result("t1", "complete", &["compareProducts"]),
        ]),
    ];
    assert_eq!(discovered(&answered), ["compareProducts"]);

    let mut with_output = call("t1", "input-complete");
    with_output["output"] = json!({"tools": [{"name": "calculateFinancing"}]});
    assert_eq!(
        discovered(&[user.clone(), assistant(vec![with_output.clone()])]),
        ["calculateFinancing"]
    );
    // A tool-result part answering the call wins over its output.
    assert_eq!(
        discovered(&[
            user.clone(),
            assistant(vec![
                with_output,
                result("t1", "complete", &["compareProducts"])
            ])
        ]),
        ["compareProducts"]
    );

    for ignored in [
        assistant(vec![
            call("t1", "input-streaming"),
            result("t1", "complete", &["compareProducts"]),
        ]),
        assistant(vec![
            call("t1", "complete"),
            result("t1", "streaming", &["compareProducts"]),
        ]),
        json!({"role": "user", "parts": [call("t1", "complete"), result("t1", "complete", &["compareProducts"])]}),
    ] {
        assert!(discovered(&[user.clone(), ignored]).is_empty());
    }

    // A compaction marker in a TanStack text part (`content`, not `text`).
    let summary = json!({"id": "s", "role": "user",
        "parts": [{"type": "text", "content": financing_marker()}]});
    assert_eq!(discovered(&[summary]), ["calculateFinancing"]);
}

/// The compaction marker of a session that discovered `calculateFinancing`.
fn financing_marker() -> String {
    let session = registry().session();
    let discovery = session.call(
        DISCOVERY_TOOL_NAME,
        json!({"toolNames": ["calculateFinancing"]}),
    );
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(discovery);
    session.compaction_marker()
}

#[test]
fn anthropic_messages_with_string_and_block_content() {
    let history = [
        json!({"role": "user", "content": "Compare them, then finance the desk."}),
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Let me load the tools."},
            {"type": "tool_use", "id": "toolu_01", "name": DISCOVERY_TOOL_NAME,
             "input": {"toolNames": ["compareProducts"]}}
        ]}),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": discovery_text(&["compareProducts"])}
        ]}),
        json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_02", "name": DISCOVERY_TOOL_NAME,
             "input": {"toolNames": ["calculateFinancing"]}}
        ]}),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_02",
             "content": [{"type": "text", "text": discovery_text(&["calculateFinancing"])}]}
        ]}),
    ];
    assert_eq!(
        discovered(&history),
        ["compareProducts", "calculateFinancing"]
    );
}

#[test]
fn openai_responses_items() {
    let history = [
        json!({"role": "user", "content": "Finance the desk over 12 months."}),
        json!({"type": "reasoning", "id": "rs_1", "summary": []}),
        json!({"type": "function_call", "id": "fc_1", "call_id": "call_9",
               "name": DISCOVERY_TOOL_NAME, "arguments": "{\"toolNames\":[\"calculateFinancing\"]}"}),
        json!({"type": "function_call_output", "call_id": "call_9",
               "output": discovery_text(&["calculateFinancing"])}),
    ];
    assert_eq!(discovered(&history), ["calculateFinancing"]);
}

#[test]
fn gemini_parts_with_and_without_ids() {
    let history = [
        json!({"role": "user", "parts": [{"text": "Compare and finance."}]}),
        json!({"role": "model", "parts": [
            {"functionCall": {"name": DISCOVERY_TOOL_NAME, "args": {"toolNames": ["compareProducts"]}}}
        ]}),
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": DISCOVERY_TOOL_NAME,
             "response": {"result": {"tools": [{"name": "compareProducts"}]}}}}
        ]}),
        json!({"role": "model", "parts": [
            {"functionCall": {"id": "g-2", "name": DISCOVERY_TOOL_NAME, "args": {"toolNames": ["calculateFinancing"]}}}
        ]}),
        json!({"role": "user", "parts": [
            {"functionResponse": {"id": "g-2", "name": DISCOVERY_TOOL_NAME,
             "response": {"result": discovery_text(&["calculateFinancing"])}}}
        ]}),
    ];
    assert_eq!(
        discovered(&history),
        ["compareProducts", "calculateFinancing"]
    );
}

#[test]
fn only_results_of_real_discovery_calls_count() {
    let history = [
        // A result that answers no call at all.
        json!({"role": "tool", "tool_call_id": "ghost", "content": discovery_text(&["compareProducts"])}),
        // A result of another tool's call that looks like a discovery result.
        json!({"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "getProducts", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": discovery_text(&["calculateFinancing"])}),
        // A result before its call.
        json!({"role": "tool", "tool_call_id": "c2", "content": discovery_text(&["compareProducts"])}),
        json!({"role": "assistant", "tool_calls": [{"id": "c2", "type": "function",
            "function": {"name": DISCOVERY_TOOL_NAME, "arguments": "{}"}}]}),
    ];
    assert!(discovered(&history).is_empty());
}

#[test]
fn malformed_entries_are_skipped_and_vanished_tools_ignored() {
    let history = [
        json!(null),
        json!(42),
        json!("text"),
        json!({"role": "assistant", "tool_calls": "not a list"}),
        json!({"role": "assistant", "tool_calls": [null, 3, {"id": 5}, {"function": {}}]}),
        json!({"role": "tool"}),
        json!({"role": "tool", "tool_call_id": 7, "content": {}}),
        json!({"role": "assistant", "tool_calls": [{"id": "ok", "type": "function",
            "function": {"name": DISCOVERY_TOOL_NAME, "arguments": "{not json"}}]}),
        json!({"role": "tool", "tool_call_id": "ok",
               "content": discovery_text(&["removedLongAgo", "getProducts", "compareProducts"])}),
        json!({"role": "assistant", "tool_calls": [{"id": "bad", "type": "function",
            "function": {"name": DISCOVERY_TOOL_NAME, "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "bad", "content": "Error: toolNames is empty."}),
    ];
    assert_eq!(discovered(&history), ["compareProducts"]);
}

#[test]
fn a_rebuilt_session_lists_and_runs_what_the_history_discovered() {
    let history = [
        json!({"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": DISCOVERY_TOOL_NAME, "arguments": "{\"toolNames\":[\"calculateFinancing\"]}"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": discovery_text(&["calculateFinancing"])}),
    ];
    let session = Session::from_history(&registry(), &history);
    let names: Vec<String> = session.active_tools().into_iter().map(|t| t.name).collect();
    assert_eq!(
        names,
        ["getProducts", DISCOVERY_TOOL_NAME, "calculateFinancing"]
    );
    let result = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(session.call("calculateFinancing", json!({"months": 6})));
    assert_eq!(result.content(), &json!(6));
}

/// The discovery result for `names` as JSON (not text).
fn discovery_json(names: &[&str]) -> Value {
    serde_json::from_str(&discovery_text(names)).expect("JSON")
}

#[test]
fn gemini_calls_without_ids_pair_with_their_responses_in_order_per_name() {
    let history = [
        json!({"role": "model", "parts": [
            {"functionCall": {"name": DISCOVERY_TOOL_NAME, "args": {"toolNames": ["compareProducts"]}}},
            {"functionCall": {"name": "getProducts", "args": {}}},
            {"functionCall": {"name": DISCOVERY_TOOL_NAME, "id": "explicit", "args": {}}},
            {"functionCall": {"name": DISCOVERY_TOOL_NAME, "args": {"toolNames": ["calculateFinancing"]}}}
        ]}),
        json!({"role": "user", "parts": [
            // Answers the first id-less discovery call.
            {"functionResponse": {"name": DISCOVERY_TOOL_NAME, "response": {"output": discovery_text(&["compareProducts"])}}},
            // Answers getProducts, whatever it looks like.
            {"functionResponse": {"name": "getProducts", "response": {"content": discovery_json(&["calculateFinancing"])}}},
            // Answers the call with an explicit id: an error, nothing discovered.
            {"functionResponse": {"name": DISCOVERY_TOOL_NAME, "id": "explicit", "response": {"error": "toolNames is missing"}}},
        ]}),
    ];
    assert_eq!(discovered(&history), ["compareProducts"]);

    let mut answered = history.to_vec();
    answered.push(json!({"role": "user", "parts": [
        {"functionResponse": {"name": DISCOVERY_TOOL_NAME, "response": {"result": discovery_json(&["calculateFinancing"])}}},
        // One response too many: it answers no call.
        {"functionResponse": {"name": DISCOVERY_TOOL_NAME, "response": {"result": discovery_json(&["getProducts"])}}}
    ]}));
    assert_eq!(
        discovered(&answered),
        ["compareProducts", "calculateFinancing"]
    );
}

#[test]
fn gemini_python_snake_case_and_unwrapped_responses() {
    let history = [
        json!({"role": "model", "parts": [
            {"function_call": {"name": DISCOVERY_TOOL_NAME, "args": {}, "id": null}},
            {"function_call": {"name": DISCOVERY_TOOL_NAME, "args": {}, "id": "two"}}
        ]}),
        json!({"role": "user", "parts": [
            {"function_response": {"name": DISCOVERY_TOOL_NAME, "id": null,
                                   "response": discovery_json(&["compareProducts"])}},
            {"function_response": {"name": DISCOVERY_TOOL_NAME, "id": "two",
                                   "response": discovery_text(&["calculateFinancing"])}}
        ]}),
    ];
    assert_eq!(
        discovered(&history),
        ["compareProducts", "calculateFinancing"]
    );
}

#[test]
fn results_as_content_parts_and_objects() {
    let text = discovery_text(&["compareProducts"]);
    let (head, tail) = text.split_at(10);
    let history = [
        json!({"role": "assistant", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": DISCOVERY_TOOL_NAME, "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": DISCOVERY_TOOL_NAME, "arguments": "{}"}}
        ]}),
        // Text split over content parts, non-text parts skipped.
        json!({"role": "tool", "tool_call_id": "a", "content": [
            {"type": "text", "text": head}, {"type": "image_url", "image_url": {"url": "x"}},
            {"type": "text", "text": tail}
        ]}),
        // A result kept as a JSON object (as some frameworks store it).
        json!({"role": "tool", "tool_call_id": "b", "content": discovery_json(&["calculateFinancing"])}),
    ];
    assert_eq!(
        discovered(&history),
        ["compareProducts", "calculateFinancing"]
    );
}

#[test]
fn a_reused_call_id_belongs_to_the_latest_call_before_the_result() {
    let call = |name: &str| {
        json!({"role": "assistant", "tool_calls": [{"id": "same", "type": "function",
            "function": {"name": name, "arguments": "{}"}}]})
    };
    let result = |names: &[&str]| json!({"role": "tool", "tool_call_id": "same", "content": discovery_text(names)});
    let history = [
        call(DISCOVERY_TOOL_NAME),
        result(&["compareProducts"]),
        call("getProducts"),
        result(&["calculateFinancing"]),
    ];
    assert_eq!(discovered(&history), ["compareProducts"]);
    let history = [
        call("getProducts"),
        call(DISCOVERY_TOOL_NAME),
        result(&["calculateFinancing"]),
    ];
    assert_eq!(discovered(&history), ["calculateFinancing"]);
}

#[test]
fn formats_mix_in_one_history() {
    let history = [
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Loading."},
            {"type": "tool_use", "id": "toolu_1", "name": DISCOVERY_TOOL_NAME, "input": {}}
        ]}),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                {"type": "tool_reference", "tool_name": "compareProducts"}
            ]}
        ]}),
        json!({"type": "function_call", "call_id": "fc_1", "name": DISCOVERY_TOOL_NAME, "arguments": "{}"}),
        json!({"type": "function_call_output", "call_id": "fc_1", "output": discovery_text(&["calculateFinancing"])}),
        json!({"role": "assistant", "toolCalls": [{"id": "tc", "name": DISCOVERY_TOOL_NAME, "arguments": {}}]}),
        json!({"role": "tool", "toolCallId": "tc", "content": discovery_text(&["compareProducts"])}),
    ];
    assert_eq!(
        discovered(&history),
        ["compareProducts", "calculateFinancing"]
    );
}
