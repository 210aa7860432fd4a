//! Streamed responses: golden streams of each provider, in the shapes of its API reference
//! (OpenAI "Streaming" guides for Chat Completions and Responses, Anthropic "Streaming
//! messages", Gemini `streamGenerateContent` with `alt=sse` and Vertex AI's
//! `streamFunctionCallArguments`), and the errors of truncated and malformed streams.
//! `stream_properties.rs` checks any split of a stream against the complete response.

use lazytool_runtime::ToolCall;
use lazytool_runtime::provider::{
    AssembleCalls, StreamError, StreamErrorKind, anthropic, gemini, openai_chat, openai_responses,
};
use serde_json::{Value, json};

/// Every call the stream holds, with the event that completed each (counted from 1; the
/// end of the stream is `events.len() + 1`).
fn completions(
    mut assembler: impl AssembleCalls,
    events: &[Value],
) -> Result<Vec<(usize, ToolCall)>, StreamError> {
    let mut calls = Vec::new();
    for (at, event) in events.iter().enumerate() {
        calls.extend(
            assembler
                .push(event)?
                .into_iter()
                .map(|call| (at + 1, call)),
        );
    }
    let end = events.len() + 1;
    calls.extend(assembler.finish()?.into_iter().map(|call| (end, call)));
    Ok(calls)
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments,
    }
}

fn chat_chunk(delta: Value, finish_reason: Value) -> Value {
    json!({
        "id": "chatcmpl-7x2", "object": "chat.completion.chunk", "created": 1735689600,
        "model": "gpt-4o-2024-08-06", "system_fingerprint": "fp_f3927aa00d",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}]
    })
}

fn chat_fragment(index: u64, arguments: &str) -> Value {
    chat_chunk(
        json!({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]}),
        Value::Null,
    )
}

/// Two parallel calls whose fragments interleave, text before them, and the usage chunk
/// (`stream_options.include_usage`) after the finish.
fn chat_golden() -> Vec<Value> {
    vec![
        chat_chunk(
            json!({"role": "assistant", "content": "", "refusal": null}),
            Value::Null,
        ),
        chat_chunk(json!({"content": "Let me check both."}), Value::Null),
        chat_chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_k3Jd9", "type": "function",
                "function": {"name": "get_weather", "arguments": ""}}]}),
            Value::Null,
        ),
        chat_fragment(0, "{\"city\": \"Lis"),
        chat_chunk(
            json!({"tool_calls": [{"index": 1, "id": "call_p0Qw2", "type": "function",
                "function": {"name": "get_time", "arguments": "{\"zone\""}}]}),
            Value::Null,
        ),
        chat_fragment(0, "bon\", \"unit\": \"c"),
        chat_fragment(1, ": \"Europe/Lisbon\"}"),
        chat_fragment(0, "\"}"),
        chat_chunk(json!({}), json!("tool_calls")),
        json!({"id": "chatcmpl-7x2", "object": "chat.completion.chunk", "choices": [],
            "usage": {"prompt_tokens": 81, "completion_tokens": 42, "total_tokens": 123}}),
    ]
}

#[test]
fn openai_chat_golden_stream() {
    let calls = completions(openai_chat::StreamAssembler::new(), &chat_golden()).expect("valid");
    assert_eq!(
        calls,
        [
            (
                9,
                call(
                    "call_k3Jd9",
                    "get_weather",
                    json!("{\"city\": \"Lisbon\", \"unit\": \"c\"}")
                )
            ),
            (
                9,
                call(
                    "call_p0Qw2",
                    "get_time",
                    json!("{\"zone\": \"Europe/Lisbon\"}")
                )
            ),
        ]
    );
}

#[test]
fn openai_chat_streams_of_compatible_servers() {
    // Every call at index 0 with its own id, the id and name repeated in each fragment.
    let fragment = |id: &str, name: &str, arguments: &str| {
        chat_chunk(
            json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
                "function": {"name": name, "arguments": arguments}}]}),
            Value::Null,
        )
    };
    let events = [
        fragment("call_a", "now", ""),
        fragment("call_a", "now", "{}"),
        fragment("call_b", "add", "{\"a\": 1,"),
        fragment("call_b", "add", " \"b\": 2}"),
        chat_chunk(json!({}), json!("stop")),
    ];
    let calls = openai_chat::StreamAssembler::new()
        .assemble(&events)
        .expect("valid");
    assert_eq!(
        calls,
        [
            call("call_a", "now", json!("{}")),
            call("call_b", "add", json!("{\"a\": 1, \"b\": 2}")),
        ]
    );
}

fn responses_event(kind: &str, sequence_number: u64, fields: Value) -> Value {
    let mut event = json!({"type": kind, "sequence_number": sequence_number});
    if let (Some(event), Value::Object(fields)) = (event.as_object_mut(), fields) {
        event.extend(fields);
    }
    event
}

fn function_item(index: u64, name: &str, arguments: &str, status: &str) -> Value {
    json!({"id": format!("fc_68a{index}"), "type": "function_call", "status": status,
        "arguments": arguments, "call_id": format!("call_Zq{index}"), "name": name})
}

/// A reasoning item, then two function calls with argument deltas.
fn responses_golden() -> Vec<Value> {
    let response = |status: &str| {
        json!({"id": "resp_68a", "object": "response", "status": status, "model": "gpt-5",
            "output": [], "parallel_tool_calls": true})
    };
    let mut events = vec![
        responses_event(
            "response.created",
            0,
            json!({"response": response("in_progress")}),
        ),
        responses_event(
            "response.in_progress",
            1,
            json!({"response": response("in_progress")}),
        ),
        responses_event(
            "response.output_item.added",
            2,
            json!({"output_index": 0,
            "item": {"id": "rs_68a", "type": "reasoning", "summary": []}}),
        ),
        responses_event(
            "response.output_item.done",
            3,
            json!({"output_index": 0,
            "item": {"id": "rs_68a", "type": "reasoning", "summary": []}}),
        ),
    ];
    let mut sequence = 4;
    for (index, name, pieces) in [
        (
            1,
            "search_docs",
            ["{\"query\":\"stre", "aming\",\"limit\":", "5}"],
        ),
        (2, "get_weather", ["{\"city\"", ":\"Zürich", "\"}"]),
    ] {
        let arguments = pieces.concat();
        let mut next = |kind: &str, fields: Value| {
            sequence += 1;
            events.push(responses_event(kind, sequence, fields));
        };
        next(
            "response.output_item.added",
            json!({"output_index": index, "item": function_item(index, name, "", "in_progress")}),
        );
        for piece in pieces {
            next(
                "response.function_call_arguments.delta",
                json!({"item_id": format!("fc_68a{index}"), "output_index": index,
                    "delta": piece, "obfuscation": "x9"}),
            );
        }
        next(
            "response.function_call_arguments.done",
            json!({"item_id": format!("fc_68a{index}"), "output_index": index,
                "arguments": arguments}),
        );
        next(
            "response.output_item.done",
            json!({"output_index": index,
                "item": function_item(index, name, &arguments, "completed")}),
        );
    }
    events.push(responses_event(
        "response.completed",
        sequence + 1,
        json!({"response": response("completed")}),
    ));
    events
}

#[test]
fn openai_responses_golden_stream() {
    let events = responses_golden();
    let calls = completions(openai_responses::StreamAssembler::new(), &events).expect("valid");
    assert_eq!(
        calls,
        [
            (
                10,
                call(
                    "call_Zq1",
                    "search_docs",
                    json!("{\"query\":\"streaming\",\"limit\":5}")
                )
            ),
            (
                16,
                call("call_Zq2", "get_weather", json!("{\"city\":\"Zürich\"}"))
            ),
        ]
    );
}

#[test]
fn openai_responses_client_tool_search_is_a_discovery_call() {
    let item = json!({"type": "tool_search_call", "id": "tsc_1", "call_id": "call_s1",
        "execution": "client", "status": "completed", "arguments": {"query": "weather"}});
    let events = [
        json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        json!({"type": "response.completed", "response": {"status": "completed"}}),
    ];
    let calls = openai_responses::StreamAssembler::new()
        .assemble(&events)
        .expect("valid");
    assert_eq!(
        calls,
        [call(
            "call_s1",
            lazytool_runtime::DISCOVERY_TOOL_NAME,
            json!({"query": "weather"})
        )]
    );
}

fn anthropic_delta(index: u64, partial_json: &str) -> Value {
    json!({"type": "content_block_delta", "index": index,
        "delta": {"type": "input_json_delta", "partial_json": partial_json}})
}

/// Text, a ping, a call with streamed input and a call without input.
fn anthropic_golden() -> Vec<Value> {
    let tool_use = |index: u64, id: &str, name: &str| {
        json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})
    };
    vec![
        json!({"type": "message_start", "message": {"id": "msg_01Xf", "type": "message",
            "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": {"input_tokens": 472, "output_tokens": 2}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "ping"}),
        json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": "Checking the forecast."}}),
        json!({"type": "content_block_stop", "index": 0}),
        tool_use(1, "toolu_01Ab", "get_forecast"),
        anthropic_delta(1, ""),
        anthropic_delta(1, "{\"city\": \"Ky"),
        anthropic_delta(1, "oto\", \"days\": [1, "),
        anthropic_delta(1, "2]}"),
        json!({"type": "content_block_stop", "index": 1}),
        tool_use(2, "toolu_01Cd", "get_time"),
        anthropic_delta(2, ""),
        json!({"type": "content_block_stop", "index": 2}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
            "usage": {"output_tokens": 89}}),
        json!({"type": "message_stop"}),
    ]
}

#[test]
fn anthropic_golden_stream() {
    let calls = completions(anthropic::StreamAssembler::new(), &anthropic_golden()).expect("valid");
    assert_eq!(
        calls,
        [
            (
                11,
                call(
                    "toolu_01Ab",
                    "get_forecast",
                    json!({"city": "Kyoto", "days": [1, 2]})
                )
            ),
            (14, call("toolu_01Cd", "get_time", json!({}))),
        ]
    );
}

fn gemini_chunk(parts: Value, finish_reason: Option<&str>) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    if let Some(reason) = finish_reason {
        candidate["finishReason"] = json!(reason);
    }
    json!({"candidates": [candidate], "modelVersion": "gemini-2.5-flash",
        "responseId": "Xq7cZ", "usageMetadata": {"promptTokenCount": 30, "totalTokenCount": 42}})
}

/// Thought text, then whole calls across two chunks (one with an id, one without args).
fn gemini_golden() -> Vec<Value> {
    vec![
        gemini_chunk(
            json!([{"text": "The user wants two cities.", "thought": true}]),
            None,
        ),
        gemini_chunk(
            json!([{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
                "thoughtSignature": "CiQBjz1rX"}]),
            None,
        ),
        gemini_chunk(
            json!([
                {"functionCall": {"id": "fc-9", "name": "get_weather", "args": {"city": "Bergen"}}},
                {"functionCall": {"name": "now"}}
            ]),
            Some("STOP"),
        ),
    ]
}

#[test]
fn gemini_golden_stream() {
    let calls = completions(gemini::StreamAssembler::new(), &gemini_golden()).expect("valid");
    assert_eq!(
        calls,
        [
            (
                2,
                call("gemini-call-0", "get_weather", json!({"city": "Oslo"}))
            ),
            (3, call("fc-9", "get_weather", json!({"city": "Bergen"}))),
            (3, call("gemini-call-2", "now", json!({}))),
        ]
    );
}

fn gemini_partial(arguments: Value, will_continue: bool) -> Value {
    let mut function_call = json!({"partialArgs": arguments});
    if will_continue {
        function_call["willContinue"] = json!(true);
    }
    gemini_chunk(json!([{"functionCall": function_call}]), None)
}

/// Arguments streamed with `streamFunctionCallArguments`: nested paths, a string over
/// three pieces, numbers, booleans and nulls, quoted names, a part ending the call.
#[test]
fn gemini_streamed_arguments_golden_stream() {
    let events = [
        gemini_chunk(
            json!([{"functionCall": {"name": "plan_trip", "willContinue": true}}]),
            None,
        ),
        gemini_partial(
            json!([{"jsonPath": "$.trip.city", "stringValue": "São ", "willContinue": true}]),
            true,
        ),
        gemini_partial(
            json!([{"jsonPath": "$.trip.city", "stringValue": "Paulo", "willContinue": true}]),
            true,
        ),
        gemini_partial(
            json!([{"jsonPath": "$.trip.city", "stringValue": ""}]),
            true,
        ),
        gemini_partial(
            json!([
                {"jsonPath": "$.trip.stops[0].nights", "numberValue": 2},
                {"jsonPath": "$.trip.stops[1].nights", "numberValue": 1.5},
                {"jsonPath": "$['flex days']", "boolValue": true},
                {"jsonPath": "$.budget", "nullValue": "NULL_VALUE"}
            ]),
            true,
        ),
        gemini_chunk(json!([{"functionCall": {"willContinue": true}}]), None),
        gemini_chunk(json!([{"functionCall": {}}]), Some("STOP")),
    ];
    let calls = completions(gemini::StreamAssembler::new(), &events).expect("valid");
    assert_eq!(
        calls,
        [(
            7,
            call(
                "gemini-call-0",
                "plan_trip",
                json!({
                    "trip": {"city": "São Paulo", "stops": [{"nights": 2}, {"nights": 1.5}]},
                    "flex days": true,
                    "budget": null
                })
            )
        )]
    );
}

/// What assembling `events` fails with, and the calls completed before.
fn failure(assembler: &mut dyn AssembleCalls, events: &[Value]) -> (Vec<String>, StreamError) {
    let mut completed = Vec::new();
    for event in events {
        match assembler.push(event) {
            Ok(calls) => completed.extend(calls.into_iter().map(|call| call.name)),
            Err(error) => return (completed, error),
        }
    }
    let error = assembler
        .finish()
        .expect_err("the stream is truncated or malformed");
    (completed, error)
}

fn assert_error(error: &StreamError, kind: StreamErrorKind, event: Option<usize>, text: &str) {
    assert_eq!(error.kind(), kind, "{error}");
    assert_eq!(error.event(), event, "{error}");
    assert!(error.to_string().contains(text), "{error}");
}

/// A stream cut off: its assembler, its events, the calls completed before, the error.
type Cut = (
    Box<dyn AssembleCalls>,
    Vec<Value>,
    &'static [&'static str],
    &'static str,
);

#[test]
fn truncated_streams_are_errors_after_the_calls_they_completed() {
    let cases: [Cut; 4] = [
        (
            Box::new(openai_chat::StreamAssembler::new()),
            chat_golden()[..8].to_vec(),
            &[],
            "OpenAI Chat Completions stream, at its end: the stream ended before a `finish_reason` with 2 tool calls still open",
        ),
        (
            Box::new(openai_responses::StreamAssembler::new()),
            responses_golden()[..12].to_vec(),
            &["search_docs"],
            "before `response.completed` (inside the function call `get_weather`)",
        ),
        (
            Box::new(anthropic::StreamAssembler::new()),
            anthropic_golden()[..13].to_vec(),
            &["get_forecast"],
            "before `message_stop` (inside the tool_use get_time (toolu_01Cd))",
        ),
        (
            Box::new(gemini::StreamAssembler::new()),
            gemini_golden()[..2].to_vec(),
            &["get_weather"],
            "the stream ended before a `finishReason`",
        ),
    ];
    for (mut assembler, events, completed, text) in cases {
        let (done, error) = failure(assembler.as_mut(), &events);
        assert_eq!(done, completed);
        assert_error(&error, StreamErrorKind::Truncated, None, text);
    }
}

#[test]
fn stops_at_a_token_limit_inside_a_call_are_errors() {
    let mut chat = chat_golden();
    chat[8] = chat_chunk(json!({}), json!("length"));
    let (_, error) = failure(&mut openai_chat::StreamAssembler::new(), &chat);
    assert_error(
        &error,
        StreamErrorKind::Truncated,
        Some(9),
        "the model stopped (`finish_reason` \"length\") inside the tool calls get_weather, get_time",
    );

    let mut anthropic = anthropic_golden();
    anthropic.drain(9..14);
    anthropic[9] = json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}});
    let (_, error) = failure(&mut anthropic::StreamAssembler::new(), &anthropic);
    assert_error(
        &error,
        StreamErrorKind::Truncated,
        Some(11),
        "the message stopped (`stop_reason` \"max_tokens\") inside the tool_use get_forecast (toolu_01Ab)",
    );

    let responses = [
        json!({"type": "response.output_item.added", "output_index": 0,
            "item": function_item(0, "search", "", "in_progress")}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 0,
            "item_id": "fc_68a0", "delta": "{\"q"}),
        json!({"type": "response.incomplete", "response": {"status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"}}}),
    ];
    let (_, error) = failure(&mut openai_responses::StreamAssembler::new(), &responses);
    assert_error(
        &error,
        StreamErrorKind::Truncated,
        Some(3),
        "`response.incomplete` (\"max_output_tokens\") while the function call `search` is open",
    );

    let gemini = [
        gemini_chunk(
            json!([{"functionCall": {"name": "plan", "willContinue": true}}]),
            None,
        ),
        gemini_chunk(
            json!([{"functionCall": {"partialArgs": [{"jsonPath": "$.a", "stringValue": "x",
                "willContinue": true}], "willContinue": true}}]),
            Some("MAX_TOKENS"),
        ),
    ];
    let (_, error) = failure(&mut gemini::StreamAssembler::new(), &gemini);
    assert_error(
        &error,
        StreamErrorKind::Truncated,
        Some(2),
        "`finishReason` \"MAX_TOKENS\") inside the function call `plan`",
    );
}

#[test]
fn invalid_arguments_are_errors() {
    let mut anthropic = anthropic_golden();
    anthropic[9] = anthropic_delta(1, "2]");
    let (_, error) = failure(&mut anthropic::StreamAssembler::new(), &anthropic);
    assert_error(
        &error,
        StreamErrorKind::InvalidArguments,
        Some(11),
        "the arguments of `get_forecast` are not valid JSON",
    );

    let mut chat = chat_golden();
    chat[7] = chat_fragment(0, "\"");
    let (_, error) = failure(&mut openai_chat::StreamAssembler::new(), &chat);
    assert_error(
        &error,
        StreamErrorKind::InvalidArguments,
        Some(9),
        "the arguments of `get_weather` are not valid JSON",
    );

    let events = [
        json!({"type": "response.output_item.done", "output_index": 0,
            "item": function_item(0, "search", "[1, 2]", "completed")}),
    ];
    let (_, error) = failure(&mut openai_responses::StreamAssembler::new(), &events);
    assert_error(
        &error,
        StreamErrorKind::InvalidArguments,
        Some(1),
        "the arguments of `search` are not a JSON object: [1,2]",
    );
}

#[test]
fn errors_the_provider_sends_in_the_stream() {
    let cases: [(Box<dyn AssembleCalls>, Value, &str); 4] = [
        (
            Box::new(openai_chat::StreamAssembler::new()),
            json!({"error": {"message": "The server had an error", "type": "server_error"}}),
            "The server had an error",
        ),
        (
            Box::new(openai_responses::StreamAssembler::new()),
            json!({"type": "error", "code": "rate_limit_exceeded", "message": "Slow down",
                "param": null, "sequence_number": 1}),
            "Slow down",
        ),
        (
            Box::new(anthropic::StreamAssembler::new()),
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
            "Overloaded",
        ),
        (
            Box::new(gemini::StreamAssembler::new()),
            json!({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}),
            "The model is overloaded.",
        ),
    ];
    for (mut assembler, event, message) in cases {
        let error = assembler.push(&event).expect_err("an error event");
        assert_error(&error, StreamErrorKind::Provider, Some(1), message);
        // The stream is over: later events get the same error.
        assert_eq!(assembler.push(&json!({})), Err(error.clone()));
        assert_eq!(assembler.finish(), Err(error));
    }
    let failed = json!({"type": "response.failed", "response": {"status": "failed",
        "error": {"code": "server_error", "message": "Something went wrong"}}});
    let error = openai_responses::StreamAssembler::new()
        .push(&failed)
        .expect_err("a failed response");
    assert_error(
        &error,
        StreamErrorKind::Provider,
        Some(1),
        "Something went wrong",
    );
    let blocked = json!({"promptFeedback": {"blockReason": "SAFETY"}});
    let error = gemini::StreamAssembler::new()
        .push(&blocked)
        .expect_err("a blocked prompt");
    assert_error(
        &error,
        StreamErrorKind::Provider,
        Some(1),
        "the prompt was blocked (`blockReason` \"SAFETY\")",
    );
}

#[test]
fn malformed_events_are_errors_that_say_what_is_wrong() {
    let malformed = |mut assembler: Box<dyn AssembleCalls>, events: &[Value], text: &str| {
        let error = events
            .iter()
            .find_map(|event| assembler.push(event).err())
            .unwrap_or_else(|| assembler.finish().expect_err("malformed"));
        assert_eq!(error.kind(), StreamErrorKind::Malformed, "{error}");
        assert!(error.to_string().contains(text), "{error}");
    };
    malformed(
        Box::new(openai_chat::StreamAssembler::new()),
        &[json!("[DONE]")],
        "event 1: the chunk is not a JSON object",
    );
    malformed(
        Box::new(openai_chat::StreamAssembler::new()),
        &[
            chat_fragment(0, "{}"),
            chat_chunk(json!({}), json!("tool_calls")),
        ],
        "event 2: the tool call at index 0 has no id",
    );
    malformed(
        Box::new(openai_chat::StreamAssembler::new()),
        &[
            chat_chunk(json!({}), json!("tool_calls")),
            chat_fragment(0, "{}"),
        ],
        "tool call fragments after `finish_reason` \"tool_calls\"",
    );
    malformed(
        Box::new(openai_responses::StreamAssembler::new()),
        &[
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1",
            "output_index": 0, "delta": "{"}),
        ],
        "`response.function_call_arguments.delta` for a function call that is not open",
    );
    malformed(
        Box::new(openai_responses::StreamAssembler::new()),
        &[
            json!({"type": "response.output_item.added", "output_index": 0,
                "item": function_item(0, "search", "", "in_progress")}),
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc_68a0",
                "output_index": 0, "delta": "{\"q\": 1}"}),
            json!({"type": "response.output_item.done", "output_index": 0,
                "item": function_item(0, "search", "{\"q\": 2}", "completed")}),
        ],
        "the arguments of `search` in `response.output_item.done` differ from those streamed",
    );
    malformed(
        Box::new(openai_responses::StreamAssembler::new()),
        &[
            json!({"type": "response.output_item.done", "output_index": 0,
            "item": {"type": "function_call", "name": "search", "arguments": "{}"}}),
        ],
        "`response.output_item.done` needs a non-empty string at /item/call_id",
    );
    malformed(
        Box::new(anthropic::StreamAssembler::new()),
        &[anthropic_delta(3, "{}")],
        "a delta for content block 3, which is not open",
    );
    malformed(
        Box::new(anthropic::StreamAssembler::new()),
        &[json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "tool_use", "name": "now", "input": {}}})],
        "a `tool_use` block has no `id`",
    );
    malformed(
        Box::new(anthropic::StreamAssembler::new()),
        &[json!({"no": "type"})],
        "the event has no string `type`",
    );
    malformed(
        Box::new(gemini::StreamAssembler::new()),
        &[
            gemini_chunk(
                json!([{"functionCall": {"name": "a", "willContinue": true}}]),
                None,
            ),
            gemini_chunk(json!([{"functionCall": {"name": "b"}}]), None),
        ],
        "the function call `b` started while `a` was still streaming its arguments",
    );
    malformed(
        Box::new(gemini::StreamAssembler::new()),
        &[gemini_partial(
            json!([{"jsonPath": "$.a", "stringValue": "x"}]),
            false,
        )],
        "arguments for a function call that has no name",
    );
    malformed(
        Box::new(gemini::StreamAssembler::new()),
        &[
            gemini_chunk(
                json!([{"functionCall": {"name": "a", "willContinue": true}}]),
                None,
            ),
            gemini_partial(json!([{"jsonPath": "a.b", "numberValue": 1}]), false),
        ],
        "`a.b` is not a JSONPath to one value: it does not start with `$`",
    );
}

#[test]
fn unknown_events_and_other_blocks_are_skipped() {
    let mut anthropic = anthropic_golden();
    anthropic.insert(
        2,
        json!({"type": "future_event", "index": 0, "data": {"any": "thing"}}),
    );
    anthropic.insert(
        3,
        json!({"type": "content_block_start", "index": 9,
        "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}}),
    );
    anthropic.insert(4, anthropic_delta(9, "{\"query\": \"x\"}"));
    anthropic.insert(5, json!({"type": "content_block_stop", "index": 9}));
    let calls = anthropic::StreamAssembler::new()
        .assemble(&anthropic)
        .expect("valid");
    let names: Vec<&str> = calls.iter().map(|call| call.name.as_str()).collect();
    assert_eq!(names, ["get_forecast", "get_time"]);

    let mut responses = responses_golden();
    responses.insert(
        4,
        json!({"type": "response.future_thing", "sequence_number": 99}),
    );
    assert_eq!(
        openai_responses::StreamAssembler::new()
            .assemble(&responses)
            .expect("valid")
            .len(),
        2
    );
}
