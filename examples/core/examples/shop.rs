//! The shop demo: a scripted model shops with one eager and two lazy tools, offline.
//!
//! `cargo run --example shop`
//!
//! Each turn the history is turned back into a session with `Session::from_history` (the
//! stateless way, as TanStack AI does), the tools for the request are rendered in OpenAI Chat
//! format, and the scripted model answers. It calls a lazy tool before discovering it, reads
//! the error, discovers, calls, and in a later turn uses the discovered tool again without
//! rediscovering it. Every turn prints the tools sent and what they cost in tokens
//! (`o200k_base`) against sending every tool eagerly.

use lazytool_runtime::provider::openai_chat::{self, OpenAiChatOptions};
use lazytool_runtime::tokens::count_json_tokens;
use lazytool_runtime::{DISCOVERY_TOOL_NAME, Registry, Session, ToolDefinition};
use serde_json::{Value, json};

/// What the scripted model says, turn by turn: tool calls (name, arguments) or a final text.
enum Reply {
    Calls(Vec<(&'static str, Value)>),
    Text(&'static str),
}

fn script() -> Vec<(Option<&'static str>, Reply)> {
    vec![
        (
            Some(
                "Compare the standing desk with the office chair, and what would the desk cost per month over 12 months?",
            ),
            Reply::Calls(vec![("getProducts", json!({}))]),
        ),
        (
            None,
            // Too early: calculateFinancing is lazy and not discovered yet.
            Reply::Calls(vec![(
                "calculateFinancing",
                json!({"productId": 1, "months": 12}),
            )]),
        ),
        (
            None,
            Reply::Calls(vec![(
                DISCOVERY_TOOL_NAME,
                json!({"toolNames": ["compareProducts", "calculateFinancing"]}),
            )]),
        ),
        (
            None,
            Reply::Calls(vec![
                ("compareProducts", json!({"productIds": [1, 2]})),
                ("calculateFinancing", json!({"productId": 1, "months": 12})),
            ]),
        ),
        (
            None,
            Reply::Text(
                "The office chair is $250 cheaper than the standing desk. Financed over 12 months, the desk costs $41.58 a month.",
            ),
        ),
        (
            Some("And the chair over 6 months?"),
            // Discovered two turns ago: called directly, no rediscovery.
            Reply::Calls(vec![(
                "calculateFinancing",
                json!({"productId": 2, "months": 6}),
            )]),
        ),
        (
            None,
            Reply::Text("The office chair is $41.50 a month over 6 months."),
        ),
    ]
}

fn tools_tokens(tools: &[ToolDefinition]) -> usize {
    if tools.is_empty() {
        return 0;
    }
    count_json_tokens(&openai_chat::render_tools(
        tools,
        &OpenAiChatOptions::default(),
    ))
}

fn shorten(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        text.to_owned()
    } else {
        let cut: String = text.chars().take(limit).collect();
        format!("{cut}…")
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry: Registry = lazytool_examples_core::registry()?;
    let every_tool: Vec<ToolDefinition> = registry.tools().map(|tool| tool.definition()).collect();
    let eager_tokens = tools_tokens(&every_tool);

    let mut history: Vec<Value> = vec![json!({
        "role": "system",
        "content": "You are the shop's assistant. Use the tools to answer."
    })];
    let (mut lazy_total, mut eager_total) = (0, 0);

    for (turn, (user, reply)) in script().into_iter().enumerate() {
        println!("\n── turn {} {}", turn + 1, "─".repeat(60));
        if let Some(user) = user {
            println!("user: {user}");
            history.push(json!({"role": "user", "content": user}));
        }

        let session = Session::from_history(&registry, &history);
        let tools = session.active_tools();
        let sent = tools_tokens(&tools);
        lazy_total += sent;
        eager_total += eager_tokens;
        let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
        println!("tools sent: {}", names.join(", "));
        println!(
            "tools payload: {sent} tokens (every tool eagerly: {eager_tokens} tokens, {:+} tokens)",
            sent as i64 - eager_tokens as i64
        );

        match reply {
            Reply::Text(text) => {
                println!("model: {text}");
                history.push(json!({"role": "assistant", "content": text}));
            }
            Reply::Calls(calls) => {
                let tool_calls: Vec<Value> = calls
                    .iter()
                    .enumerate()
                    .map(|(index, (name, arguments))| {
                        json!({
                            "id": format!("call_{}_{index}", turn + 1),
                            "type": "function",
                            "function": {"name": name, "arguments": arguments.to_string()}
                        })
                    })
                    .collect();
                let message =
                    json!({"role": "assistant", "content": null, "tool_calls": tool_calls});
                history.push(message.clone());
                for call in openai_chat::parse_tool_calls(&message)? {
                    let result = session.call(&call.name, call.arguments.clone()).await;
                    let arguments = call.arguments.as_str().unwrap_or_default();
                    println!("model calls {}({arguments})", call.name);
                    let marker = if result.is_error() { "error" } else { "result" };
                    println!("  {marker}: {}", shorten(&result.text(), 160));
                    history.push(openai_chat::tool_result_message(&call, &result));
                }
            }
        }
    }

    println!("\n── totals {}", "─".repeat(60));
    println!(
        "tools payload over the conversation: {lazy_total} tokens lazily, {eager_total} tokens eagerly"
    );
    let saved = eager_total.saturating_sub(lazy_total);
    println!(
        "saved {saved} tokens ({:.0}%); with three small tools the discovery tool costs almost \
         what it saves, with large tool sets the savings exceed 90% (see the README)",
        100.0 * saved as f64 / eager_total.max(1) as f64
    );
    Ok(())
}
