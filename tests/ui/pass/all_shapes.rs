//! Every supported shape of a `#[tool]` fn compiles and registers.

use std::sync::Arc;

use lazytool_runtime::{Registry, State, ToolContext, tool, tools};
use serde::{Deserialize, Serialize};

struct Db;

#[derive(Serialize, schemars::JsonSchema)]
struct Product {
    id: u32,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Query {
    text: String,
    limit: Option<u32>,
}

#[derive(Debug)]
struct ShopError;

impl std::fmt::Display for ShopError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("shop error")
    }
}

/// No parameters, no return value.
#[tool]
async fn ping() {}

/// A plain value.
#[tool(lazy)]
async fn plain(text: String) -> String {
    text
}

/// `Result` with a custom error.
#[tool(output_schema)]
async fn result(id: u32) -> Result<Product, ShopError> {
    if id == 0 {
        Err(ShopError)
    } else {
        Ok(Product { id })
    }
}

/// An `anyhow::Result` alias.
#[tool]
async fn alias(id: u32) -> anyhow::Result<Vec<Product>> {
    Ok(vec![Product { id }])
}

/// A `std::io::Result` alias.
#[tool]
async fn io_alias() -> std::io::Result<u8> {
    Ok(1)
}

/// Options, defaults, renames, descriptions, raw identifiers and `mut`.
///
/// # Arguments
///
/// * `r#type` - The kind of thing.
// A tool takes what the model gives: eight arguments are a user's choice, not a smell.
#[allow(clippy::too_many_arguments)]
#[tool(
    rename_all = "camelCase",
    strict,
    name = "every-argument",
    description = "Uses every argument feature."
)]
async fn every_argument(
    /// The product id.
    product_id: u32,
    maybe_count: Option<u32>,
    #[arg(default = 10)] page_size: u32,
    #[arg(default)] include_hidden: bool,
    #[arg(rename = "q", description = "The search text.")] query_text: String,
    #[schemars(length(min = 2))] ids: Vec<u32>,
    r#type: String,
    mut total: u64,
) -> u64 {
    total += u64::from(product_id) + u64::from(page_size) + ids.len() as u64;
    let _ = (maybe_count, include_hidden, query_text, r#type);
    total
}

/// A whole argument struct with injected state and context.
#[tool]
async fn with_struct(#[args] query: Query, db: State<Db>, ctx: ToolContext) -> String {
    let _ = (db, ctx.call_id(), query.limit);
    query.text
}

/// A synchronous tool.
#[tool]
fn sync_tool(a: i64, b: i64) -> i64 {
    a + b
}

/// A synchronous tool run on the blocking pool.
#[tool(blocking)]
fn blocking_tool(path: String, db: State<Db>, ctx: ToolContext) -> std::io::Result<String> {
    let _ = (db, ctx);
    Ok(path)
}

type DbState = State<Db>;

/// Injected parameters written under other names, marked.
#[tool]
async fn marked(
    #[inject] db: DbState,
    #[inject] ctx: lazytool_runtime::ToolContext,
    #[arg] n: u8,
) -> u8 {
    let _ = (db, ctx);
    n
}

struct Shop;

#[tools]
impl Shop {
    /// A method.
    #[tool(lazy)]
    async fn method(
        &self,
        #[arg(default = Self::LIMIT)] limit: u32,
    ) -> Result<Vec<Product>, ShopError> {
        let _ = self;
        Ok(vec![Product { id: limit }])
    }

    /// A blocking method.
    #[lazytool_runtime::tool(blocking)]
    fn blocking_method(&self) -> u32 {
        Self::LIMIT
    }

    const LIMIT: u32 = 3;
}

mod reexport {
    pub use lazytool_runtime::*;
}

/// A tool whose generated code goes through another path to the runtime.
#[tool(crate = crate::reexport)]
async fn renamed_crate(n: u8) -> u8 {
    n
}

fn main() {
    let registry = Registry::builder()
        .state(Db)
        .tools_of(Arc::new(Shop))
        .build()
        .expect("valid tools");
    let names: Vec<&str> = registry.tools().map(|tool| tool.name()).collect();
    assert_eq!(
        names,
        [
            "alias",
            "blocking_method",
            "blocking_tool",
            "every-argument",
            "io_alias",
            "marked",
            "method",
            "ping",
            "plain",
            "renamed_crate",
            "result",
            "sync_tool",
            "with_struct"
        ]
    );
    assert!(registry.get("plain").expect("registered").is_lazy());
    assert!(
        registry
            .get("result")
            .expect("registered")
            .output_schema()
            .is_some()
    );
}
