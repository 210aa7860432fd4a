//! Streams split every way: for random calls, every provider's stream, cut into random
//! pieces (arguments split at any character, fragments of parallel calls interleaved, parts
//! spread over chunks, Gemini arguments streamed path by path), assembles to exactly the calls
//! its complete response gives `parse_tool_calls`. Every prefix of such a stream is an error
//! after a prefix of the calls, and arbitrary events never panic.

use lazytool_runtime::ToolCall;
use lazytool_runtime::provider::{
    AssembleCalls, StreamError, anthropic, gemini, openai_chat, openai_responses,
};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// What a stream is built from: the calls, and random choices for every split.
#[derive(Clone, Debug)]
struct Plan {
    calls: Vec<Planned>,
    /// Drawn from in turn wherever the stream builder has to choose.
    choices: Vec<usize>,
}

#[derive(Clone, Debug)]
struct Planned {
    id: String,
    name: String,
    arguments: Map<String, Value>,
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1.0e9..1.0e9_f64).prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-zA-Z_ é'\\\\]{1,6}", inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn plan() -> impl Strategy<Value = Plan> {
    let call = (
        "[a-z][a-z_]{0,10}",
        prop::collection::btree_map("[a-zA-Z_ é]{1,8}", value(), 0..5),
    );
    (
        prop::collection::vec(call, 1..5),
        prop::collection::vec(any::<usize>(), 64),
    )
        .prop_map(|(calls, choices)| Plan {
            calls: calls
                .into_iter()
                .enumerate()
                .map(|(index, (name, arguments))| Planned {
                    id: format!("call_{index}"),
                    name,
                    arguments: arguments.into_iter().collect(),
                })
                .collect(),
            choices,
        })
}

/// The random choices of a plan, each below a bound, cycling through the drawn numbers.
struct Choices<'p> {
    drawn: &'p [usize],
    next: usize,
}

impl Choices<'_> {
    fn below(&mut self, bound: usize) -> usize {
        let value = self.drawn[self.next % self.drawn.len()].wrapping_add(self.next / 64);
        self.next += 1;
        if bound == 0 { 0 } else { value % bound }
    }

    fn coin(&mut self) -> bool {
        self.below(2) == 1
    }

    /// `text` cut at random character boundaries into one or more pieces.
    fn split(&mut self, text: &str) -> Vec<String> {
        let boundaries: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .chain([text.len()])
            .collect();
        let mut cuts: Vec<usize> = (0..self.below(5))
            .map(|_| boundaries[self.below(boundaries.len())])
            .collect();
        cuts.extend([0, text.len()]);
        cuts.sort_unstable();
        cuts.dedup();
        cuts.windows(2)
            .map(|window| text[window[0]..window[1]].to_owned())
            .collect::<Vec<_>>()
            .into_iter()
            .chain(text.is_empty().then(String::new))
            .collect()
    }

    /// The sequences merged in a random order that keeps each one's own order.
    fn interleave<T>(&mut self, sequences: Vec<Vec<T>>) -> Vec<T> {
        let mut queues: Vec<std::collections::VecDeque<T>> =
            sequences.into_iter().map(Into::into).collect();
        let mut merged = Vec::new();
        loop {
            let open: Vec<usize> = (0..queues.len())
                .filter(|&queue| !queues[queue].is_empty())
                .collect();
            if open.is_empty() {
                return merged;
            }
            let queue = open[self.below(open.len())];
            merged.extend(queues[queue].pop_front());
        }
    }

    /// The items grouped into consecutive, non-empty chunks.
    fn chunks<T>(&mut self, items: Vec<T>) -> Vec<Vec<T>> {
        let mut chunks: Vec<Vec<T>> = Vec::new();
        for item in items {
            match chunks.last_mut() {
                Some(chunk) if self.coin() => chunk.push(item),
                _ => chunks.push(vec![item]),
            }
        }
        chunks
    }
}

fn arguments_text(call: &Planned) -> String {
    Value::Object(call.arguments.clone()).to_string()
}

fn chat_stream(plan: &Plan, choices: &mut Choices<'_>) -> (Vec<Value>, Value) {
    let fragments: Vec<Vec<Value>> = (plan.calls.iter().enumerate())
        .map(|(index, call)| {
            let mut fragments = vec![json!({"index": index, "id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": ""}})];
            for piece in choices.split(&arguments_text(call)) {
                fragments.push(json!({"index": index, "function": {"arguments": piece}}));
            }
            fragments
        })
        .collect();
    let merged = choices.interleave(fragments);
    let chunk = |delta: Value, finish: Value| {
        json!({"object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut events = vec![chunk(
        json!({"role": "assistant", "content": null}),
        Value::Null,
    )];
    for fragments in choices.chunks(merged) {
        events.push(chunk(json!({"tool_calls": fragments}), Value::Null));
    }
    events.push(chunk(json!({}), json!("tool_calls")));
    let calls: Vec<Value> = (plan.calls.iter())
        .map(|call| {
            json!({"id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": arguments_text(call)}})
        })
        .collect();
    let complete = json!({"object": "chat.completion", "choices": [{"index": 0,
        "message": {"role": "assistant", "content": null, "tool_calls": calls},
        "finish_reason": "tool_calls"}]});
    (events, complete)
}

fn responses_stream(plan: &Plan, choices: &mut Choices<'_>) -> (Vec<Value>, Value) {
    let mut events =
        vec![json!({"type": "response.created", "response": {"status": "in_progress"}})];
    let mut items = Vec::new();
    for (index, call) in plan.calls.iter().enumerate() {
        if choices.coin() {
            let message = json!({"id": format!("msg_{index}"), "type": "message", "content": []});
            events.push(json!({"type": "response.output_item.added", "item": message}));
            events.push(json!({"type": "response.output_text.delta", "delta": "…"}));
            events.push(json!({"type": "response.output_item.done", "item": message}));
        }
        let item = |arguments: &str| {
            json!({"type": "function_call", "id": format!("fc_{index}"), "call_id": call.id,
                "name": call.name, "arguments": arguments})
        };
        let arguments = arguments_text(call);
        events.push(
            json!({"type": "response.output_item.added", "output_index": index,
            "item": item("")}),
        );
        for piece in choices.split(&arguments) {
            events.push(json!({"type": "response.function_call_arguments.delta",
                "item_id": format!("fc_{index}"), "output_index": index, "delta": piece}));
        }
        if choices.coin() {
            events.push(json!({"type": "response.function_call_arguments.done",
                "item_id": format!("fc_{index}"), "output_index": index, "arguments": arguments}));
        }
        events.push(
            json!({"type": "response.output_item.done", "output_index": index,
            "item": item(&arguments)}),
        );
        items.push(item(&arguments));
    }
    events.push(json!({"type": "response.completed", "response": {"status": "completed"}}));
    (events, json!({"object": "response", "output": items}))
}

fn anthropic_stream(plan: &Plan, choices: &mut Choices<'_>) -> (Vec<Value>, Value) {
    let mut events = vec![json!({"type": "message_start", "message": {"content": []}})];
    let mut blocks = Vec::new();
    for (index, call) in plan.calls.iter().enumerate() {
        events.push(json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}}));
        if choices.coin() {
            events.push(json!({"type": "ping"}));
        }
        for piece in choices.split(&arguments_text(call)) {
            events.push(json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": piece}}));
        }
        events.push(json!({"type": "content_block_stop", "index": index}));
        blocks.push(json!({"type": "tool_use", "id": call.id, "name": call.name,
            "input": call.arguments}));
    }
    events.push(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}));
    events.push(json!({"type": "message_stop"}));
    (
        events,
        json!({"type": "message", "role": "assistant", "content": blocks}),
    )
}

/// A JSONPath member selector for `name`.
fn member(name: &str) -> String {
    let plain = name
        .chars()
        .enumerate()
        .all(|(at, c)| c == '_' || c.is_ascii_alphabetic() || (at > 0 && c.is_ascii_digit()));
    if plain {
        format!(".{name}")
    } else {
        format!("['{}']", name.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// The `partialArgs` that stream `value` at `path`; `None` when it holds an empty object or
/// array, which no leaf can create.
fn partial_args(path: &str, value: &Value, choices: &mut Choices<'_>) -> Option<Vec<Value>> {
    Some(match value {
        Value::Object(object) if object.is_empty() => return None,
        Value::Array(items) if items.is_empty() => return None,
        Value::Object(object) => {
            let mut pieces = Vec::new();
            for (name, value) in object {
                pieces.extend(partial_args(
                    &format!("{path}{}", member(name)),
                    value,
                    choices,
                )?);
            }
            pieces
        }
        Value::Array(items) => {
            let mut pieces = Vec::new();
            for (index, value) in items.iter().enumerate() {
                pieces.extend(partial_args(&format!("{path}[{index}]"), value, choices)?);
            }
            pieces
        }
        Value::String(text) => {
            let pieces = choices.split(text);
            let last = pieces.len() - 1;
            (pieces.into_iter().enumerate())
                .map(|(at, piece)| {
                    let mut arg = json!({"jsonPath": path, "stringValue": piece});
                    if at < last {
                        arg["willContinue"] = json!(true);
                    }
                    arg
                })
                .collect()
        }
        Value::Number(_) => vec![json!({"jsonPath": path, "numberValue": value})],
        Value::Bool(_) => vec![json!({"jsonPath": path, "boolValue": value})],
        Value::Null => vec![json!({"jsonPath": path, "nullValue": "NULL_VALUE"})],
    })
}

/// The parts of one call: whole, or its arguments streamed (when they can be).
fn gemini_parts(call: &Planned, with_id: bool, choices: &mut Choices<'_>) -> Vec<Value> {
    let mut head = json!({"name": call.name});
    if with_id {
        head["id"] = json!(call.id);
    }
    let streamed = if choices.coin() {
        partial_args("$", &Value::Object(call.arguments.clone()), choices)
    } else {
        None
    };
    let Some(pieces) = streamed else {
        head["args"] = json!(call.arguments);
        return vec![json!({"functionCall": head})];
    };
    head["willContinue"] = json!(true);
    let mut parts = vec![json!({"functionCall": head})];
    for group in choices.chunks(pieces) {
        parts.push(json!({"functionCall": {"partialArgs": group, "willContinue": true}}));
    }
    let ends_in_last_piece = parts.len() > 1 && choices.coin();
    match parts.last_mut() {
        Some(last) if ends_in_last_piece => {
            if let Some(call) = last["functionCall"].as_object_mut() {
                call.remove("willContinue");
            }
        }
        _ => parts.push(json!({"functionCall": {}})),
    }
    parts
}

fn gemini_stream(plan: &Plan, choices: &mut Choices<'_>) -> (Vec<Value>, Value) {
    let mut parts = vec![json!({"text": "Thinking.", "thought": true})];
    let mut complete = Vec::new();
    for call in &plan.calls {
        let with_id = choices.coin();
        parts.extend(gemini_parts(call, with_id, choices));
        let mut whole = json!({"name": call.name, "args": call.arguments});
        if with_id {
            whole["id"] = json!(call.id);
        }
        complete.push(json!({"functionCall": whole}));
    }
    let mut events: Vec<Value> = (choices.chunks(parts).into_iter())
        .map(|parts| json!({"candidates": [{"index": 0, "content": {"role": "model", "parts": parts}}]}))
        .collect();
    if let Some(last) = events.last_mut() {
        last["candidates"][0]["finishReason"] = json!("STOP");
    }
    let complete = json!({"candidates": [{"index": 0, "finishReason": "STOP",
        "content": {"role": "model", "parts": complete}}]});
    (events, complete)
}

type Builder = fn(&Plan, &mut Choices<'_>) -> (Vec<Value>, Value);
type Parser = fn(&Value) -> Result<Vec<ToolCall>, lazytool_runtime::provider::ParseError>;
type NewAssembler = fn() -> Box<dyn AssembleCalls>;

fn providers() -> [(&'static str, Builder, Parser, NewAssembler); 4] {
    [
        (
            "openai_chat",
            chat_stream,
            openai_chat::parse_tool_calls,
            || Box::new(openai_chat::StreamAssembler::new()),
        ),
        (
            "openai_responses",
            responses_stream,
            openai_responses::parse_tool_calls,
            || Box::new(openai_responses::StreamAssembler::new()),
        ),
        (
            "anthropic",
            anthropic_stream,
            anthropic::parse_tool_calls,
            || Box::new(anthropic::StreamAssembler::new()),
        ),
        ("gemini", gemini_stream, gemini::parse_tool_calls, || {
            Box::new(gemini::StreamAssembler::new())
        }),
    ]
}

fn assemble(
    mut assembler: Box<dyn AssembleCalls>,
    events: &[Value],
) -> Result<Vec<ToolCall>, StreamError> {
    let mut calls = Vec::new();
    for event in events {
        calls.extend(assembler.push(event)?);
    }
    calls.extend(assembler.finish()?);
    Ok(calls)
}

/// A provider's stream of `plan`, and the calls its complete response holds.
fn stream_of(
    plan: &Plan,
    build: Builder,
    parse: Parser,
) -> (Choices<'_>, Vec<Value>, Vec<ToolCall>) {
    let mut choices = Choices {
        drawn: &plan.choices,
        next: 0,
    };
    let (events, complete) = build(plan, &mut choices);
    let expected = parse(&complete).expect("the complete response parses");
    (choices, events, expected)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn any_split_gives_the_calls_of_the_complete_response(plan in plan()) {
        for (provider, build, parse, assembler) in providers() {
            let (_, events, expected) = stream_of(&plan, build, parse);
            prop_assert_eq!(expected.len(), plan.calls.len());
            let assembled = assemble(assembler(), &events);
            prop_assert_eq!(assembled, Ok(expected), "{} stream: {:#?}", provider, events);
        }
    }

    #[test]
    fn every_prefix_is_an_error_after_a_prefix_of_the_calls(plan in plan()) {
        for (provider, build, parse, assembler) in providers() {
            let (mut choices, events, expected) = stream_of(&plan, build, parse);
            let cut = choices.below(events.len());
            let mut assembler = assembler();
            let mut completed = Vec::new();
            let mut error = None;
            for event in &events[..cut] {
                match assembler.push(event) {
                    Ok(calls) => completed.extend(calls),
                    Err(failure) => { error = Some(failure); break; }
                }
            }
            let error = error.or_else(|| assembler.finish().err());
            prop_assert!(error.is_some(), "{} stream cut at {} of {} was accepted", provider, cut, events.len());
            prop_assert_eq!(&completed[..], &expected[..completed.len()]);
        }
    }

    #[test]
    fn arbitrary_events_never_panic(events in prop::collection::vec(value(), 0..8), typed in prop::collection::vec(("[a-z_.]{0,40}", value()), 0..8)) {
        let typed: Vec<Value> = typed.into_iter().map(|(kind, mut value)| {
            if let Value::Object(object) = &mut value {
                object.insert("type".to_owned(), json!(kind));
            }
            value
        }).collect();
        for (_, _, _, assembler) in providers() {
            let _ = assemble(assembler(), &events);
            let _ = assemble(assembler(), &typed);
        }
    }
}
