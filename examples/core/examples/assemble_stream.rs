//! Assembles the tool calls of a streamed model response, as an agent loop does while the
//! response arrives.
//!
//! `cargo run --example assemble_stream -- PROVIDER < events.jsonl`
//!
//! PROVIDER is `openai-chat`, `openai-responses`, `anthropic` or `gemini`. Standard input
//! holds the stream's event payloads, one JSON object per line (the `data:` of each
//! server-sent event; blank lines and OpenAI's `[DONE]` are skipped). Each tool call is
//! printed as soon as the stream completes it, as one JSON line
//! `{"id": ..., "name": ..., "arguments": {...}}` (`id` is `null` for a Gemini call that
//! came without one). A malformed or truncated stream prints an error on standard error and
//! exits with status 1, after the calls it completed.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use lazytool_runtime::ToolCall;
use lazytool_runtime::provider::{AssembleCalls, anthropic, gemini, openai_chat, openai_responses};
use serde_json::{Value, json};

const PROVIDERS: &str = "openai-chat, openai-responses, anthropic or gemini";

fn assembler(provider: &str) -> Option<Box<dyn AssembleCalls>> {
    Some(match provider {
        "openai-chat" => Box::new(openai_chat::StreamAssembler::new()),
        "openai-responses" => Box::new(openai_responses::StreamAssembler::new()),
        "anthropic" => Box::new(anthropic::StreamAssembler::new()),
        "gemini" => Box::new(gemini::StreamAssembler::new()),
        _ => return None,
    })
}

/// A call as one output line: OpenAI's JSON-encoded arguments decoded (the assembler has
/// checked that they are an object).
fn line(provider: &str, call: &ToolCall) -> Value {
    let arguments = match &call.arguments {
        Value::String(text) if text.trim().is_empty() => json!({}),
        Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        other => other.clone(),
    };
    let id = if provider == "gemini" && gemini::is_synthesized_id(&call.id) {
        Value::Null
    } else {
        json!(call.id)
    };
    json!({"id": id, "name": call.name, "arguments": arguments})
}

fn main() -> ExitCode {
    let provider = std::env::args().nth(1).unwrap_or_default();
    let Some(mut assembler) = assembler(&provider) else {
        eprintln!("usage: assemble_stream PROVIDER < events.jsonl  (PROVIDER: {PROVIDERS})");
        return ExitCode::from(2);
    };
    let mut stdout = std::io::stdout().lock();
    let mut print = |calls: Vec<ToolCall>| {
        for call in &calls {
            // A closed stdout (`| head`) is no error of the stream's.
            let _ = writeln!(stdout, "{}", line(&provider, call));
        }
    };
    for (number, text) in std::io::stdin().lock().lines().enumerate() {
        let text = match text {
            Ok(text) => text,
            Err(error) => {
                eprintln!("error: cannot read standard input: {error}");
                return ExitCode::FAILURE;
            }
        };
        let text = text.trim();
        if text.is_empty() || text == "[DONE]" {
            continue;
        }
        let event: Value = match serde_json::from_str(text) {
            Ok(event) => event,
            Err(error) => {
                eprintln!("error: line {} is not JSON: {error}", number + 1);
                return ExitCode::FAILURE;
            }
        };
        match assembler.push(&event) {
            Ok(calls) => print(calls),
            Err(error) => {
                eprintln!("error: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    match assembler.finish() {
        Ok(calls) => {
            print(calls);
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
