use lazytool_runtime::tool;

/// Runs a tool.
#[tool(name = "__lazy__tool__call__")]
async fn run(name: String) -> String {
    name
}

fn main() {}
