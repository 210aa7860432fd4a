//! A rig agent with one eager and two lazy lazytool tools, run by rig's own multi-turn loop.
//!
//! `cargo run -p lazytool-rig --example rig_agent` runs it offline against a scripted model
//! (rig's OpenAI Chat wire over `ScriptedChat`). With `OPENAI_API_KEY` (or `OPENAI_BASE_URL`,
//! for any OpenAI-compatible Chat Completions server, such as `http://localhost:11434/v1`)
//! set, it asks that endpoint instead (`OPENAI_MODEL`, default `gpt-4o-mini`):
//! `OPENAI_API_KEY=sk-... cargo run -p lazytool-rig --example rig_agent -- "your question"`.

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use lazytool_rig::{LazyTools, ScriptedChat};
use lazytool_runtime::tokens::count_json_tokens;
use lazytool_runtime::{DISCOVERY_TOOL_NAME, Registry, tool};
use rig_agent::AgentBuilder;
use rig_agent::agent::{
    AgentHook, DispatchAction, DispatchEvent, HookContext, OutcomeAction, OutcomeEvent,
};
use rig_core::DynModel;
use rig_core::operation::Completion;
use rig_core::providers::openai::OpenAIConfig;
use serde_json::{Value, json};

const PRICES: [(u32, &str, f64); 2] =
    [(1, "Aero 13 laptop", 999.0), (2, "Forge 16 laptop", 1799.0)];

fn price(id: u32) -> Result<f64, String> {
    PRICES
        .iter()
        .find(|(product, _, _)| *product == id)
        .map(|(_, _, price)| *price)
        .ok_or_else(|| format!("no product with id {id}; the ids are 1 and 2"))
}

/// Lists every product in the shop with its id, name and price in USD.
#[tool(name = "getProducts")]
fn get_products() -> Value {
    json!(PRICES.map(|(id, name, price)| json!({"id": id, "name": name, "price": price})))
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
    let monthly = (price(product_id)? / f64::from(months) * 100.0).round() / 100.0;
    Ok(json!({"productId": product_id, "months": months, "monthlyPayment": monthly}))
}

/// Checks how many units of a product the warehouse holds.
#[tool(lazy, name = "checkStock", rename_all = "camelCase")]
fn check_stock(
    /// The product's id.
    product_id: u32,
) -> Result<u32, String> {
    price(product_id).map(|_| 3)
}

/// The scripted model: discovers the financing tool, calls it with an argument error, repairs
/// it, then answers with what the last tool result said.
fn script() -> ScriptedChat {
    let turn = AtomicUsize::new(0);
    ScriptedChat::new(move |request| match turn.fetch_add(1, Ordering::SeqCst) {
        0 => ScriptedChat::tool_calls(&[(
            "call_1",
            DISCOVERY_TOOL_NAME,
            r#"{"toolNames":["calculateFinancing"]}"#,
        )]),
        1 => ScriptedChat::tool_calls(&[(
            "call_2",
            "calculateFinancing",
            r#"{"productId":1,"months":0}"#,
        )]),
        2 => ScriptedChat::tool_calls(&[(
            "call_3",
            "calculateFinancing",
            r#"{"productId":1,"months":24}"#,
        )]),
        _ => {
            let last = request["messages"]
                .as_array()
                .and_then(|messages| messages.last());
            let result = last
                .map(|message| message["content"].to_string())
                .unwrap_or_default();
            ScriptedChat::text(format!("Over 24 months the Aero 13 costs {result}."))
        }
    })
}

/// Prints each request's tools and each tool call's result as rig's loop runs.
struct Printer;

impl AgentHook for Printer {
    async fn on_dispatch(&self, ctx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        if let Some(request) = event.completion_request() {
            let names: Vec<&str> = request
                .tools
                .iter()
                .map(|tool| tool.name.as_str())
                .collect();
            println!(
                "[turn {}] request with tools: {}",
                ctx.turn(),
                names.join(", ")
            );
        }
        DispatchAction::proceed()
    }

    async fn on_outcome(&self, _ctx: &HookContext, event: OutcomeEvent<'_>) -> OutcomeAction {
        if let (Some(name), Some(result)) = (event.tool_name(), event.tool_result()) {
            let marker = if result.is_error() { " (error)" } else { "" };
            let arguments = event.tool_args().unwrap_or_default();
            println!(
                "  call {name}({arguments}){marker} -> {}",
                result.output().render()
            );
        }
        OutcomeAction::proceed()
    }
}

/// The endpoint the environment names, if any.
fn endpoint() -> Option<(DynModel<Completion>, String)> {
    let var = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
    let (key, base_url) = (var("OPENAI_API_KEY"), var("OPENAI_BASE_URL"));
    if key.is_none() && base_url.is_none() {
        return None;
    }
    let model = var("OPENAI_MODEL").unwrap_or_else(|| "gpt-4o-mini".to_owned());
    let mut config = OpenAIConfig::new(key.unwrap_or_else(|| "unused".to_owned()));
    if let Some(base_url) = &base_url {
        config = config.with_base_url(base_url);
    }
    let described = format!(
        "{model} at {}",
        base_url.as_deref().unwrap_or("api.openai.com")
    );
    Some((config.client().chat(model).into(), described))
}

/// The tokens of the tools of rig's first request, lazy through lazytool and eager.
async fn first_request_tokens(
    registry: &Registry,
) -> Result<(usize, usize), Box<dyn std::error::Error>> {
    let tokens = |chat: &ScriptedChat| count_json_tokens(&chat.requests()[0]["tools"]);
    let lazy = ScriptedChat::new(|_| ScriptedChat::text("done"));
    let tools = LazyTools::new(registry.session());
    tools
        .attach(AgentBuilder::new(lazy.model()))
        .build()
        .prompt("hi")
        .run()
        .await?;
    let eager = ScriptedChat::new(|_| ScriptedChat::text("done"));
    let every: Vec<_> = tools
        .tools()
        .into_iter()
        .filter(|tool| tool.name() != DISCOVERY_TOOL_NAME)
        .collect();
    AgentBuilder::new(eager.model())
        .dynamic_tools(every)
        .build()
        .prompt("hi")
        .run()
        .await?;
    Ok((tokens(&lazy), tokens(&eager)))
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::from_inventory()?;
    let prompt = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    let prompt = if prompt.trim().is_empty() {
        "What does the Aero 13 cost per month over 24 months?".to_owned()
    } else {
        prompt
    };
    let (lazy, eager) = first_request_tokens(&registry).await?;
    println!(
        "first request's tools: {lazy} tokens lazy, {eager} given to rig eagerly (o200k_base)"
    );

    let (model, described) = match endpoint() {
        Some(endpoint) => endpoint,
        None => (
            script().model(),
            "a scripted model (set OPENAI_API_KEY or OPENAI_BASE_URL for a real one)".to_owned(),
        ),
    };
    println!("model: {described}\nuser: {prompt}");
    let lazy = LazyTools::new(registry.session());
    let agent = lazy
        .attach(AgentBuilder::new(model).preamble(
            "You are a shop assistant. Use the tools; a tool only listed by the discovery tool \
             must be discovered first.",
        ))
        .add_hook(Printer)
        .build();
    let response = agent.prompt(prompt).max_turns(8).run().await?;
    println!("answer: {}", response.output());
    println!("discovered: {:?}", lazy.session().discovered().tools);
    Ok(())
}
