//! `provider::async_openai` (feature `async-openai`): async-openai 0.43's own types against
//! lazytool's JSON renderings, byte for byte, a loop through discovery written with
//! async-openai's types only, and the golden Chat Completions stream of `streams.rs` read by
//! async-openai and assembled by lazytool.

use ::async_openai::types::chat::{
    ChatCompletionRequestMessage, CreateChatCompletionResponse, CreateChatCompletionStreamResponse,
};
use ::async_openai::types::responses::{InputItem, OutputItem};
use lazytool_runtime::provider::openai_chat::OpenAiChatOptions;
use lazytool_runtime::provider::{AssembleCalls, async_openai, openai_chat, openai_responses};
use lazytool_runtime::{
    Content, ContentPart, DISCOVERY_TOOL_NAME, DynamicTool, Registry, ToolCall, ToolResult,
};
use serde_json::{Value, json};

fn registry() -> Registry {
    let forecast = DynamicTool::new(
        "get_forecast",
        "Tomorrow's weather in a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"},
            "days": {"type": "integer", "minimum": 1}}, "required": ["city"]}),
        |arguments, _| async move {
            Ok::<_, String>(json!(format!(
                "sun in {}",
                arguments["city"].as_str().unwrap_or("?")
            )))
        },
    )
    .lazy(true);
    let time = DynamicTool::new(
        "get_time",
        "The current time.",
        json!({"type": "object"}),
        |_, _| async { Ok::<_, String>(json!("12:00")) },
    );
    // Free-form input: never strict.
    let note = DynamicTool::new(
        "save_note",
        "Saves a note.",
        json!({"type": "object", "properties": {"body": {}}}),
        |_, _| async { Ok::<_, String>(json!("saved")) },
    )
    .lazy(true);
    Registry::builder()
        .without_inventory()
        .tools([forecast, time, note])
        .build()
        .expect("the tools register")
}

#[test]
fn tools_are_lazytools_renderings_in_async_openais_types() {
    let session = registry().session();
    let mut every: Vec<_> = session
        .deferrable_tools()
        .into_iter()
        .map(|(tool, _)| tool)
        .collect();
    every.push(session.active_tools()[1].clone());
    for strict in [false, true] {
        let options = OpenAiChatOptions { strict };
        let typed = serde_json::to_value(async_openai::chat::tools(&every, &options));
        assert_eq!(
            typed.ok(),
            Some(openai_chat::render_tools(&every, &options))
        );
        let typed = serde_json::to_value(async_openai::responses::tools(&every, &options));
        assert_eq!(
            typed.ok(),
            Some(openai_responses::render_tools(&every, &options))
        );
    }
}

#[test]
fn results_are_lazytools_renderings_in_async_openais_types() {
    let call = ToolCall {
        id: "call_1".into(),
        name: "get_forecast".into(),
        arguments: json!("{}"),
    };
    let image = Content::new([
        ContentPart::text("a chart"),
        ContentPart::image("iVBORw0KGgo=", "image/png"),
    ]);
    for result in [
        ToolResult::success(json!({"temperature": 21.5})),
        ToolResult::success(json!("sunny")),
        ToolResult::error(
            lazytool_runtime::ToolErrorKind::ToolFailed,
            "Error: offline",
        ),
        ToolResult::from(image),
    ] {
        let message = serde_json::to_value(async_openai::chat::tool_message(&call, &result));
        assert_eq!(
            message.ok(),
            Some(openai_chat::tool_result_message(&call, &result))
        );
        let item = serde_json::to_value(async_openai::responses::tool_output(&call, &result));
        assert_eq!(
            item.ok(),
            Some(openai_responses::tool_result_item(&call, &result))
        );
    }
}

/// A Chat Completions response as the API documents it, read by async-openai.
fn chat_response(calls: Value) -> CreateChatCompletionResponse {
    serde_json::from_value(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1735689600,
        "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null,
            "message": {"role": "assistant", "content": null, "refusal": null, "tool_calls": calls}}]
    }))
    .expect("async-openai reads the documented response")
}

fn function_call(id: &str, name: &str, arguments: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
}

fn content(message: &ChatCompletionRequestMessage) -> String {
    let value = serde_json::to_value(message).unwrap_or_default();
    value["content"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn a_chat_loop_through_discovery_in_async_openais_types() {
    let session = registry().session();
    let options = OpenAiChatOptions::default();
    let names = |tools: &[::async_openai::types::chat::ChatCompletionTools]| -> Vec<String> {
        let value = serde_json::to_value(tools).unwrap_or_default();
        value
            .as_array()
            .into_iter()
            .flatten()
            .map(|tool| {
                tool["function"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect()
    };
    let first = async_openai::chat::tools(&session.active_tools(), &options);
    assert_eq!(names(&first), ["get_time", DISCOVERY_TOOL_NAME]);

    let discover = chat_response(json!([function_call(
        "call_1",
        DISCOVERY_TOOL_NAME,
        r#"{"toolNames":["get_forecast"]}"#
    )]));
    let messages = async_openai::chat::run_turn(&session, &discover.choices[0].message, 4).await;
    assert!(content(&messages[0]).contains(r#""name":"get_forecast""#));
    let second = async_openai::chat::tools(&session.active_tools(), &options);
    assert_eq!(
        names(&second),
        ["get_time", DISCOVERY_TOOL_NAME, "get_forecast"]
    );

    // A call, an argument error, an unknown tool, arguments that are not JSON, and a custom
    // tool's free-form input: one result each, in order, errors the model can act on.
    let turn = chat_response(json!([
        function_call("call_2", "get_forecast", r#"{"city":"Oslo"}"#),
        function_call("call_3", "get_forecast", r#"{"days":2}"#),
        function_call("call_4", "get_weather", "{}"),
        function_call("call_5", "get_time", "{not json"),
        // async-openai 0.43 reads a custom call's fields from `custom_tool` (the API
        // reference writes `custom`).
        {"id": "call_6", "type": "custom", "custom_tool": {"name": "get_time", "input": "now"}},
    ]));
    let messages = async_openai::chat::run_turn(&session, &turn.choices[0].message, 4).await;
    let texts: Vec<String> = messages.iter().map(content).collect();
    assert_eq!(texts.len(), 5, "{texts:?}");
    assert_eq!(texts[0], "sun in Oslo");
    assert!(
        texts[1].contains("city"),
        "the missing argument is named: {}",
        texts[1]
    );
    assert!(
        texts[2].starts_with("Error: unknown tool 'get_weather'"),
        "{}",
        texts[2]
    );
    assert!(texts[3].starts_with("Error:"), "{}", texts[3]);
    assert!(texts[4].starts_with("Error:"), "{}", texts[4]);
    let ids: Vec<Value> = messages
        .iter()
        .map(|message| serde_json::to_value(message).unwrap_or_default()["tool_call_id"].clone())
        .collect();
    assert_eq!(ids, ["call_2", "call_3", "call_4", "call_5", "call_6"]);
}

#[tokio::test]
async fn a_responses_turn_in_async_openais_types() {
    let session = registry().session();
    let output: Vec<OutputItem> = serde_json::from_value(json!([
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "id": "fc_1", "call_id": "call_7", "name": "get_time",
         "arguments": "{}", "status": "completed"},
        {"type": "function_call", "id": "fc_2", "call_id": "call_8", "name": "get_forecast",
         "arguments": r#"{"city":"Oslo"}"#, "status": "completed"}
    ]))
    .expect("async-openai reads the documented output items");
    let items: Vec<InputItem> = async_openai::responses::run_turn(&session, &output, 4).await;
    let items = serde_json::to_value(&items).unwrap_or_default();
    assert_eq!(
        items[0],
        json!({"type": "function_call_output", "call_id": "call_7", "output": "12:00"})
    );
    let refusal = items[1]["output"].as_str().unwrap_or_default();
    assert!(refusal.contains("must be discovered first"), "{refusal}");
}

/// `streams.rs`'s golden Chat Completions stream (two interleaved calls, in the shape of
/// OpenAI's streaming guide), without its usage-only chunk (async-openai requires `created`
/// and `model` in every chunk).
fn chat_golden() -> Vec<Value> {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-7x2", "object": "chat.completion.chunk", "created": 1735689600,
            "model": "gpt-4o-2024-08-06", "system_fingerprint": "fp_f3927aa00d",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]})
    };
    let fragment = |index: u64, arguments: &str| {
        chunk(
            json!({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]}),
            Value::Null,
        )
    };
    vec![
        chunk(
            json!({"role": "assistant", "content": "", "refusal": null}),
            Value::Null,
        ),
        chunk(json!({"content": "Let me check both."}), Value::Null),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_k3Jd9", "type": "function",
            "function": {"name": "get_weather", "arguments": ""}}]}),
            Value::Null,
        ),
        fragment(0, "{\"city\": \"Lis"),
        chunk(
            json!({"tool_calls": [{"index": 1, "id": "call_p0Qw2", "type": "function",
            "function": {"name": "get_time", "arguments": "{\"zone\""}}]}),
            Value::Null,
        ),
        fragment(0, "bon\", \"unit\": \"c"),
        fragment(1, ": \"Europe/Lisbon\"}"),
        fragment(0, "\"}"),
        chunk(json!({}), json!("tool_calls")),
    ]
}

#[test]
fn async_openais_stream_chunks_assemble_into_the_same_calls() {
    let assemble = |events: &[Value]| {
        let mut assembler = openai_chat::StreamAssembler::new();
        let mut calls = Vec::new();
        for event in events {
            calls.extend(assembler.push(event).expect("a valid stream"));
        }
        calls.extend(assembler.finish().expect("a complete stream"));
        calls
    };
    let golden = chat_golden();
    let through_async_openai: Vec<Value> = golden
        .iter()
        .map(|event| {
            let chunk: CreateChatCompletionStreamResponse =
                serde_json::from_value(event.clone()).expect("async-openai reads the chunk");
            serde_json::to_value(chunk).expect("and writes it back")
        })
        .collect();
    let calls = assemble(&through_async_openai);
    assert_eq!(calls, assemble(&golden));
    assert_eq!(calls.len(), 2);
    assert_eq!(
        calls[0].arguments,
        json!("{\"city\": \"Lisbon\", \"unit\": \"c\"}")
    );
}

#[test]
fn the_stated_async_openai_version_is_the_locked_one() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let read = |path: &str| std::fs::read_to_string(format!("{root}/{path}")).unwrap_or_default();
    let lock = read("Cargo.lock");
    let entry = "name = \"async-openai\"\nversion = \"";
    let locked = lock
        .find(entry)
        .and_then(|at| lock[at + entry.len()..].split('"').next())
        .unwrap_or_default();
    let supported = async_openai::ASYNC_OPENAI_VERSION;
    assert!(
        locked.starts_with(&format!("{supported}.")),
        "{locked} is locked, {supported} stated"
    );
    assert!(read("README.md").contains(&format!("supported: async-openai {supported}")));
    assert!(
        read("lazytool-runtime/src/guide/async_openai.md")
            .contains(&format!("async-openai {supported}**"))
    );
    assert!(
        read("lazytool-runtime/Cargo.toml")
            .contains(&format!("async-openai = {{ version = \"~{supported}.0\""))
    );
}
