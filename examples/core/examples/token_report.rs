//! What a large tool set costs per request, eagerly and lazily.
//!
//! `cargo run --release --example token_report -- CATALOG.json`
//!
//! Loads a catalog (`{"tools":[{"name","description","inputSchema"}]}`, the shape of
//! `data/github-mcp-tools.json`) with every tool lazy and counts, with tiktoken's
//! `o200k_base`, the tools JSON of the first request in each mode (eager, names, search,
//! auto, cache-stable, and names calling through `__lazy__tool__call__`, the fixed list a
//! stateless MCP server sends; and eager once more with the tools' examples left out, as
//! `SessionOptions::examples(false)` sends them, where the catalog gives `inputExamples`),
//! and eager vs names mode over a fixed 10-request conversation: the 5 lazy tools used are the first 5 of the catalog; 1 is
//! discovered after request 1, 2 after request 2 and 2 after request 5. The lazy total counts
//! the tools JSON of every request plus the JSON of every discovery result. Last, what MCP's
//! `tools/list` costs with the schemas as declared (what MCP sends, SEP-2106) and as the
//! canonical form the providers' renderings start from.

use lazytool_runtime::provider::anthropic;
use lazytool_runtime::provider::openai_chat::{self, OpenAiChatOptions};
use lazytool_runtime::tokens::count_json_tokens;
use lazytool_runtime::{
    AutoBudget, DISCOVERY_TOOL_NAME, DiscoveryMode, Registry, ResolvedMode, Session,
    SessionOptions, ToolDefinition, catalog_tools,
};
use serde_json::{Value, json};

/// Discoveries made after request `k` (1-based): indices into the catalog.
const SCHEDULE: [(usize, std::ops::Range<usize>); 3] = [(1, 0..1), (2, 1..3), (5, 3..5)];
const REQUESTS: usize = 10;

#[derive(Clone, Copy)]
enum Format {
    OpenAiChat,
    Anthropic,
}

impl Format {
    fn tokens(self, tools: &[ToolDefinition]) -> usize {
        if tools.is_empty() {
            return 0;
        }
        count_json_tokens(&match self {
            Format::OpenAiChat => openai_chat::render_tools(tools, &OpenAiChatOptions::default()),
            Format::Anthropic => anthropic::render_tools(tools),
        })
    }

    fn name(self) -> &'static str {
        match self {
            Format::OpenAiChat => "OpenAI Chat",
            Format::Anthropic => "Anthropic",
        }
    }
}

struct Figures {
    eager: usize,
    eager_without_examples: usize,
    names: usize,
    search: usize,
    auto: usize,
    auto_mode: ResolvedMode,
    cache_stable: usize,
    call_through: usize,
    cumulative_eager: usize,
    cumulative_lazy: usize,
}

fn first_request(
    registry: &Registry,
    options: SessionOptions,
    format: Format,
) -> (usize, ResolvedMode) {
    let session = registry.session_with(options);
    (format.tokens(&session.active_tools()), session.mode())
}

fn mode(mode: DiscoveryMode) -> SessionOptions {
    SessionOptions::new().mode(mode)
}

async fn measure(registry: &Registry, catalog_order: &[String], format: Format) -> Figures {
    let every_tool: Vec<ToolDefinition> = registry.tools().map(|tool| tool.definition()).collect();
    let eager = format.tokens(&every_tool);
    let without_examples: Vec<ToolDefinition> = every_tool
        .iter()
        .map(ToolDefinition::without_examples)
        .collect();
    let eager_without_examples = format.tokens(&without_examples);
    let session: Session = registry.session();
    let names = format.tokens(&session.active_tools());
    let (search, _) = first_request(registry, mode(DiscoveryMode::Search), format);
    let auto_budget = DiscoveryMode::Auto(AutoBudget::default());
    let (auto, auto_mode) = first_request(registry, mode(auto_budget), format);
    let (cache_stable, _) = first_request(registry, mode(DiscoveryMode::CacheStable), format);
    let call_through_options = SessionOptions::new().call_through(true);
    let (call_through, _) = first_request(registry, call_through_options, format);

    let mut cumulative_lazy = 0;
    for request in 1..=REQUESTS {
        cumulative_lazy += format.tokens(&session.active_tools());
        for (after, range) in SCHEDULE.iter().cloned() {
            if after == request {
                let wanted: Vec<&String> = catalog_order[range].iter().collect();
                let result = session
                    .call(DISCOVERY_TOOL_NAME, json!({ "toolNames": wanted }))
                    .await;
                cumulative_lazy += count_json_tokens(result.content());
            }
        }
    }
    Figures {
        eager,
        eager_without_examples,
        names,
        search,
        auto,
        auto_mode,
        cache_stable,
        call_through,
        cumulative_eager: eager * REQUESTS,
        cumulative_lazy,
    }
}

/// The tokens of every tool as MCP lists it, with its input schema as declared and as its
/// canonical form.
fn schema_forms(registry: &Registry) -> (usize, usize) {
    let listed = |declared: bool| {
        let tools: Vec<Value> = registry
            .tools()
            .map(|tool| {
                let schema = if declared {
                    tool.declared_input_schema()
                } else {
                    tool.input_schema()
                };
                json!({"name": tool.name(), "description": tool.description(), "inputSchema": schema})
            })
            .collect();
        count_json_tokens(&json!({ "tools": tools }))
    };
    (listed(true), listed(false))
}

fn percent(part: usize, whole: usize) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: token_report CATALOG.json")?;
    let catalog: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    let tools = catalog_tools(&catalog, |_, _, _| async { Ok::<_, String>(Value::Null) })?;
    let order: Vec<String> = tools.iter().map(|tool| tool.name().to_owned()).collect();
    let registry = Registry::builder()
        .without_inventory()
        .tools(tools.into_iter().map(|tool| tool.lazy(true)))
        .build()?;
    if order.len() < 5 {
        return Err("the conversation needs a catalog of at least 5 tools".into());
    }

    println!("catalog: {path} ({} tools, every one lazy)", registry.len());
    let mut last = None;
    for format in [Format::Anthropic, Format::OpenAiChat] {
        let figures = measure(&registry, &order, format).await;
        println!(
            "\n{} tools JSON of the first request, o200k_base tokens",
            format.name()
        );
        println!("| mode | tokens | of eager |");
        println!("|---|---:|---:|");
        let auto_label = format!("auto (chose {:?})", figures.auto_mode);
        for (mode, tokens) in [
            ("eager", figures.eager),
            ("names", figures.names),
            ("search", figures.search),
            (auto_label.as_str(), figures.auto),
            ("cache-stable", figures.cache_stable),
            ("names, calling through", figures.call_through),
            ("eager, examples left out", figures.eager_without_examples),
        ] {
            println!(
                "| {mode} | {tokens} | {:.1}% |",
                percent(tokens, figures.eager)
            );
        }
        println!(
            "\n{} tools JSON over the {REQUESTS}-request conversation (discovery results included)",
            format.name()
        );
        println!("| eager | names mode | names / eager |");
        println!("|---:|---:|---:|");
        println!(
            "| {} | {} | {:.1}% |",
            figures.cumulative_eager,
            figures.cumulative_lazy,
            percent(figures.cumulative_lazy, figures.cumulative_eager)
        );
        last = Some(figures);
    }
    let (declared, canonical) = schema_forms(&registry);
    println!(
        "\nMCP tools/list (every tool, name, description and input schema), o200k_base tokens"
    );
    println!("| schemas as declared (sent) | canonical | canonical / declared |");
    println!("|---:|---:|---:|");
    println!(
        "| {declared} | {canonical} | {:.1}% |",
        percent(canonical, declared)
    );
    if let Some(figures) = last {
        println!(
            "token_report: eager={} names={} search={} auto={} cumulative_eager={} cumulative_lazy={} call_through={}",
            figures.eager,
            figures.names,
            figures.search,
            figures.auto,
            figures.cumulative_eager,
            figures.cumulative_lazy,
            figures.call_through
        );
    }
    Ok(())
}
