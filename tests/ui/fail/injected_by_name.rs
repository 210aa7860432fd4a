//! A parameter whose type is written `State<...>` or `ToolContext` is injected; the
//! application's own types of those names are arguments only when marked `#[arg]`.

use lazytool_runtime::tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct State<T> {
    value: T,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ToolContext {
    user: String,
}

/// Reads the application's own state.
#[tool]
async fn own_types(state: State<u32>, ctx: ToolContext) -> u32 {
    let _ = ctx.user;
    state.value
}

/// The same, marked: compiles.
#[tool]
async fn own_types_marked(#[arg] state: State<u32>, #[arg] ctx: ToolContext) -> u32 {
    let _ = ctx.user;
    state.value
}

fn main() {}
