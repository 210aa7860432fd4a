use lazytool_runtime::tool;

/// Finds tools.
#[tool(name = "__lazy__tool__discovery__")]
async fn discover(tool_names: Vec<String>) -> Vec<String> {
    tool_names
}

fn main() {}
