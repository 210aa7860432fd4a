use lazytool_runtime::{tool, State};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Query {
    text: String,
}

struct Db;

/// Searches twice.
#[tool]
async fn search_twice(#[args] first: Query, #[args] second: Query) -> String {
    first.text + &second.text
}

/// Searches with a limit.
#[tool]
async fn search_limited(#[args] query: Query, limit: u32) -> String {
    format!("{} {limit}", query.text)
}

/// Searches a database.
#[tool]
async fn search_db(#[args] db: State<Db>) -> String {
    let _ = db;
    String::new()
}

/// Searches with renamed fields.
#[tool(rename_all = "camelCase")]
async fn search_renamed(#[args] #[arg(rename = "q")] query: Query) -> String {
    query.text
}

/// Searches maybe.
#[tool]
async fn search_maybe(#[args] query: Option<Query>) -> String {
    query.map(|q| q.text).unwrap_or_default()
}

fn main() {}
