use lazytool_runtime::tool;

#[tool]
async fn list_products() -> Vec<String> {
    Vec::new()
}

/// Lists orders.
#[tool(description = "  ")]
async fn list_orders() -> Vec<String> {
    Vec::new()
}

fn main() {}
