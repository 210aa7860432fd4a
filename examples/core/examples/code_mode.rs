//! One multi-step task solved twice by a scripted model (no network, no model): with direct
//! tool calls, every intermediate result passing through the conversation, then with code
//! mode, one script whose answer alone comes back. Prints the tokens (`o200k_base`, OpenAI
//! Chat format) in context over each conversation and the model round trips.
//!
//! `cargo run -p lazytool-examples-core --features code-mode --example code_mode`
//!
//! The task: "Which in-stock desk is cheapest after its discount, and what do 3 cost?" over
//! a catalog of 60 desks.

use lazytool_runtime::provider::openai_chat::{self, OpenAiChatOptions};
use lazytool_runtime::tokens::count_json_tokens;
use lazytool_runtime::{
    CODE_TOOL_NAME, CodeMode, Registry, Session, SessionOptions, ToolCall, ToolResult, tool,
};
use serde::Serialize;
use serde_json::{Value, json};

#[derive(Serialize, schemars::JsonSchema)]
struct Product {
    sku: String,
    name: String,
    price: f64,
    description: String,
}

/// Lists the products of a category with their prices.
#[tool]
async fn list_products(
    /// The category, such as "desks".
    category: String,
) -> Vec<Product> {
    (0..60)
        .map(|n| Product {
            sku: format!("{category}-{n:03}"),
            name: format!("Desk model {n}"),
            price: 150.0 + f64::from((n * 37) % 400),
            description: "Solid oak top, steel frame, cable tray, adjustable feet.".to_owned(),
        })
        .collect()
}

/// How many units of a product are in stock.
#[tool]
async fn get_stock(sku: String) -> Value {
    let n: u32 = sku
        .rsplit('-')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    json!({"sku": sku, "in_stock": if n.is_multiple_of(3) { 0 } else { n % 7 + 1 }})
}

/// The discount on a product, in percent.
#[tool]
async fn get_discount(sku: String) -> Value {
    let n: u32 = sku
        .rsplit('-')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    json!({"sku": sku, "percent": (n * 13) % 30})
}

const TASK: &str =
    "Which in-stock desk is cheapest after its discount, and what do 3 of them cost?";

const SCRIPT: &str = r#"const products = await tools.list_products({ category: "desks" });
const cheapest = products.sort((a, b) => a.price - b.price).slice(0, 8);
const offers = await Promise.all(cheapest.map(async (p) => {
  const [stock, discount] = await Promise.all([
    tools.get_stock({ sku: p.sku }),
    tools.get_discount({ sku: p.sku }),
  ]);
  return { ...p, in_stock: stock.in_stock, price: p.price * (1 - discount.percent / 100) };
}));
const best = offers.filter((o) => o.in_stock > 0).sort((a, b) => a.price - b.price)[0];
return { sku: best.sku, name: best.name, unit: best.price, three: Math.round(best.price * 300) / 100 };"#;

/// A conversation: its messages, and the tokens of every request sent so far.
struct Conversation<'s> {
    session: &'s Session,
    messages: Vec<Value>,
    tokens: usize,
    requests: usize,
    next_id: usize,
}

impl<'s> Conversation<'s> {
    fn new(session: &'s Session) -> Self {
        Conversation {
            session,
            messages: vec![json!({"role": "user", "content": TASK})],
            tokens: 0,
            requests: 0,
            next_id: 0,
        }
    }

    /// Sends a request (counted), and the model answers with `calls`, which are run.
    async fn turn(&mut self, calls: Vec<(&str, Value)>) -> Vec<ToolResult> {
        let tools = openai_chat::render_tools(
            &self.session.active_definitions(),
            &OpenAiChatOptions::default(),
        );
        self.tokens += count_json_tokens(&tools) + count_json_tokens(&json!(self.messages));
        self.requests += 1;
        let calls: Vec<ToolCall> = calls
            .into_iter()
            .map(|(name, arguments)| {
                self.next_id += 1;
                ToolCall {
                    id: format!("call_{}", self.next_id),
                    name: name.to_owned(),
                    arguments,
                }
            })
            .collect();
        if calls.is_empty() {
            return Vec::new();
        }
        self.messages
            .push(openai_chat::assistant_message("", &calls));
        let results = self.session.call_turn(calls.clone(), 8).await;
        for (call, result) in calls.iter().zip(&results) {
            self.messages
                .push(openai_chat::tool_result_message(call, result));
        }
        results
    }
}

fn field<'v>(value: &'v Value, key: &str) -> &'v Value {
    &value[key]
}

async fn direct(registry: &Registry) -> (usize, usize, Value) {
    let session = registry.session();
    let mut conversation = Conversation::new(&session);
    let listed = conversation
        .turn(vec![("list_products", json!({"category": "desks"}))])
        .await;
    let mut products: Vec<Value> = listed[0].content().as_array().cloned().unwrap_or_default();
    products.sort_by(|a, b| {
        let price = |p: &Value| field(p, "price").as_f64().unwrap_or(f64::MAX);
        price(a).total_cmp(&price(b))
    });
    products.truncate(8);
    let skus: Vec<Value> = products.iter().map(|p| field(p, "sku").clone()).collect();
    let stock = conversation
        .turn(
            skus.iter()
                .map(|sku| ("get_stock", json!({ "sku": sku })))
                .collect(),
        )
        .await;
    let in_stock: Vec<&Value> = (products.iter().zip(&stock))
        .filter(|(_, stock)| field(stock.content(), "in_stock").as_u64().unwrap_or(0) > 0)
        .map(|(product, _)| product)
        .collect();
    let discounts = conversation
        .turn(
            in_stock
                .iter()
                .map(|p| ("get_discount", json!({ "sku": field(p, "sku") })))
                .collect(),
        )
        .await;
    let best = (in_stock.iter().zip(&discounts))
        .map(|(p, d)| {
            let percent = field(d.content(), "percent").as_f64().unwrap_or(0.0);
            let unit = field(p, "price").as_f64().unwrap_or(0.0) * (1.0 - percent / 100.0);
            (field(p, "sku").clone(), unit)
        })
        .min_by(|a, b| a.1.total_cmp(&b.1));
    conversation.turn(Vec::new()).await; // the answer
    let answer = best.map_or(Value::Null, |(sku, unit)| json!({"sku": sku, "unit": unit}));
    (conversation.tokens, conversation.requests, answer)
}

async fn code(registry: &Registry) -> (usize, usize, Value) {
    let session = registry.session_with(SessionOptions::new().code_mode(CodeMode::new()));
    let mut conversation = Conversation::new(&session);
    let results = conversation
        .turn(vec![(CODE_TOOL_NAME, json!({ "code": SCRIPT }))])
        .await;
    conversation.turn(Vec::new()).await; // the answer
    (
        conversation.tokens,
        conversation.requests,
        results[0].content().clone(),
    )
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::from_inventory()?;
    let (direct_tokens, direct_requests, direct_answer) = direct(&registry).await;
    let (code_tokens, code_requests, code_answer) = code(&registry).await;
    println!("{TASK}");
    println!(
        "direct calls: {direct_tokens:>6} tokens over {direct_requests} requests; answer {direct_answer}"
    );
    println!(
        "code mode:    {code_tokens:>6} tokens over {code_requests} requests; answer {code_answer}"
    );
    println!(
        "code mode takes {:.0}% of the direct conversation's tokens",
        100.0 * code_tokens as f64 / direct_tokens as f64
    );
    Ok(())
}
