//! An agent over an OpenAI-compatible endpoint with one eager and two lazy tools.
//!
//! `cargo run --example openai_agent -- "Which laptop is cheaper per month over 24 months?"`
//!
//! Configure with `OPENAI_API_KEY`, `OPENAI_BASE_URL` (default `https://api.openai.com/v1`;
//! any Chat Completions server, such as `http://localhost:11434/v1`) and `OPENAI_MODEL`
//! (default `gpt-4o-mini`).

use std::process::ExitCode;

use lazytool_examples_agent::{AgentConfig, AgentError, AgentEvent, run_agent};
use lazytool_runtime::{Registry, tool};
use serde::Serialize;
use serde_json::Value;

#[derive(Clone, Serialize)]
struct Product {
    id: u32,
    name: &'static str,
    price: f64,
}

const PRODUCTS: &[Product] = &[
    Product {
        id: 1,
        name: "Aero 13 laptop",
        price: 999.0,
    },
    Product {
        id: 2,
        name: "Forge 16 laptop",
        price: 1799.0,
    },
    Product {
        id: 3,
        name: "Pulse wireless headphones",
        price: 249.0,
    },
];

fn product(id: u32) -> Result<&'static Product, String> {
    PRODUCTS
        .iter()
        .find(|product| product.id == id)
        .ok_or_else(|| format!("no product with id {id}"))
}

/// Lists every product in the shop with its id, name and price in USD.
#[tool(name = "getProducts")]
fn get_products() -> Vec<Product> {
    PRODUCTS.to_vec()
}

/// Compares products side by side: price, and the difference to the cheapest of them.
#[tool(lazy, name = "compareProducts", rename_all = "camelCase")]
fn compare_products(
    /// The ids of the products to compare (at least two).
    #[schemars(length(min = 2))]
    product_ids: Vec<u32>,
) -> Result<Value, String> {
    let products = product_ids
        .iter()
        .map(|&id| product(id))
        .collect::<Result<Vec<_>, _>>()?;
    let cheapest = products
        .iter()
        .map(|product| product.price)
        .fold(f64::INFINITY, f64::min);
    let rows: Vec<Value> = products
        .iter()
        .map(|product| {
            serde_json::json!({
                "id": product.id,
                "name": product.name,
                "price": product.price,
                "moreThanCheapest": product.price - cheapest,
            })
        })
        .collect();
    Ok(Value::Array(rows))
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
    let product = product(product_id)?;
    let monthly = (product.price / f64::from(months) * 100.0).round() / 100.0;
    Ok(serde_json::json!({
        "productId": product.id,
        "months": months,
        "monthlyPayment": monthly,
        "total": product.price,
    }))
}

fn print_event(event: AgentEvent) {
    match event {
        AgentEvent::Request { turn, tools } => {
            println!("[turn {turn}] request with tools: {}", tools.join(", "));
        }
        AgentEvent::ToolCall {
            name,
            arguments,
            result,
            is_error,
            ..
        } => {
            let arguments = match arguments {
                Value::String(text) => text,
                other => other.to_string(),
            };
            let marker = if is_error { " (error)" } else { "" };
            println!("  call {name}({arguments}){marker} -> {result}");
        }
        AgentEvent::Answer { turn, text } => println!("[turn {turn}] answer:\n{text}"),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let prompt = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    let prompt = if prompt.trim().is_empty() {
        "Which laptop costs less per month over 24 months, and by how much?".to_owned()
    } else {
        prompt
    };
    let config = match AgentConfig::from_env() {
        Ok(config) => config,
        Err(AgentError::MissingApiKey) => {
            eprintln!(
                "openai_agent needs a model endpoint. Set OPENAI_API_KEY for {}, or point\n\
                 OPENAI_BASE_URL at another OpenAI-compatible server (the key is then optional):\n\n  \
                 OPENAI_API_KEY=sk-... cargo run --example openai_agent -- \"your question\"\n  \
                 OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen2.5 cargo run --example openai_agent -- \"...\"\n\n\
                 OPENAI_MODEL defaults to {}.",
                lazytool_examples_agent::DEFAULT_BASE_URL,
                lazytool_examples_agent::DEFAULT_MODEL,
            );
            return ExitCode::from(2);
        }
        Err(error) => {
            report(&error);
            return ExitCode::from(2);
        }
    };
    let registry = match Registry::from_inventory() {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    println!("model {} at {}", config.model, config.base_url);
    println!("user: {prompt}");
    match run_agent(&config, &registry, &prompt, print_event).await {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            report(&error);
            ExitCode::FAILURE
        }
    }
}

/// Prints an error with its causes (reqwest's own message leaves out why a request failed).
fn report(error: &dyn std::error::Error) {
    eprint!("error: {error}");
    let mut source = error.source();
    while let Some(cause) = source {
        eprint!(": {cause}");
        source = cause.source();
    }
    eprintln!();
}
