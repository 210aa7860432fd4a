//! An agent written with async-openai's types and client, one eager and two lazy lazytool
//! tools, through `lazytool_runtime::provider::async_openai`.
//!
//! `cargo run -p lazytool-examples-async-openai --example async_openai_agent` runs it offline
//! against a scripted model. With `OPENAI_API_KEY` (or `OPENAI_BASE_URL`, for any
//! OpenAI-compatible server) set it asks that endpoint (`OPENAI_MODEL`, default
//! `gpt-4o-mini`): `OPENAI_API_KEY=sk-... cargo run -p lazytool-examples-async-openai
//! --example async_openai_agent -- "your question"`.

use std::process::ExitCode;

use lazytool_examples_async_openai::{Event, client_model, reply, run_chat, scripted_model};
use lazytool_runtime::provider::async_openai::chat;
use lazytool_runtime::provider::openai_chat::OpenAiChatOptions;
use lazytool_runtime::tokens::count_json_tokens;
use lazytool_runtime::{DISCOVERY_TOOL_NAME, Registry, tool};
use serde_json::{Value, json};

/// Lists every product in the shop with its id, name and price in USD.
#[tool(name = "getProducts")]
fn get_products() -> Value {
    json!([{"id": 1, "name": "Aero 13 laptop", "price": 999.0}, {"id": 2, "name": "Forge 16 laptop", "price": 1799.0}])
}

/// Computes the monthly payment for buying a product in installments at 0% interest.
#[tool(lazy, name = "calculateFinancing", rename_all = "camelCase")]
fn calculate_financing(
    /// The product's id.
    product_id: u32,
    /// The number of monthly installments.
    #[schemars(range(min = 1, max = 60))]
    months: u32,
) -> Result<Value, String> {
    let price = match product_id {
        1 => 999.0,
        2 => 1799.0,
        other => return Err(format!("no product with id {other}; the ids are 1 and 2")),
    };
    Ok(
        json!({"productId": product_id, "monthlyPayment": (price / f64::from(months) * 100.0_f64).round() / 100.0}),
    )
}

/// Checks how many units of a product the warehouse holds.
#[tool(lazy, name = "checkStock", rename_all = "camelCase")]
fn check_stock(
    /// The product's id.
    product_id: u32,
) -> u32 {
    product_id + 2
}

fn print(event: Event) {
    match event {
        Event::Request { turn, tools } => {
            println!("[turn {turn}] request with tools: {}", tools.join(", "))
        }
        Event::Answered { message } => {
            println!("  {} -> {}", message["tool_call_id"], message["content"])
        }
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let registry = match Registry::from_inventory() {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let prompt = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    let prompt = if prompt.trim().is_empty() {
        "What does the Aero 13 cost per month over 24 months?".to_owned()
    } else {
        prompt
    };

    // What the first request's tools cost, lazy against every tool sent eagerly.
    let session = registry.session();
    let options = OpenAiChatOptions::default();
    let lazy = chat::tools(&session.active_tools(), &options);
    let every: Vec<_> = session
        .deferrable_tools()
        .into_iter()
        .map(|(tool, _)| tool)
        .filter(|tool| tool.name != DISCOVERY_TOOL_NAME)
        .collect();
    let eager = chat::tools(&every, &options);
    let tokens = |tools| count_json_tokens(&serde_json::to_value(tools).unwrap_or_default());
    println!(
        "first request's tools: {} tokens lazy, {} eager (o200k_base)",
        tokens(&lazy),
        tokens(&eager)
    );

    let session = registry.session();
    let outcome = match client_model() {
        Some(client) => {
            let model = std::env::var("OPENAI_MODEL")
                .ok()
                .filter(|model| !model.is_empty())
                .unwrap_or_else(|| "gpt-4o-mini".to_owned());
            println!("model: {model} (async-openai's client)\nuser: {prompt}");
            let chat = client.chat();
            run_chat(
                &session,
                &model,
                &prompt,
                8,
                |request| chat.create(request),
                print,
            )
            .await
        }
        None => {
            println!(
                "model: a script (set OPENAI_API_KEY or OPENAI_BASE_URL for a real one)\nuser: {prompt}"
            );
            let script = scripted_model(|turn| match turn {
                1 => reply(
                    "",
                    &[(
                        "call_1",
                        DISCOVERY_TOOL_NAME,
                        r#"{"toolNames":["calculateFinancing"]}"#,
                    )],
                ),
                2 => reply(
                    "",
                    &[(
                        "call_2",
                        "calculateFinancing",
                        r#"{"productId":1,"months":0}"#,
                    )],
                ),
                3 => reply(
                    "",
                    &[(
                        "call_3",
                        "calculateFinancing",
                        r#"{"productId":1,"months":24}"#,
                    )],
                ),
                _ => reply("The Aero 13 costs $41.63 a month over 24 months.", &[]),
            });
            run_chat(&session, "scripted", &prompt, 8, script, print).await
        }
    };
    match outcome {
        Ok(answer) => {
            println!("answer: {answer}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
