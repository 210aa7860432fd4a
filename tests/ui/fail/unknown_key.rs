use lazytool_runtime::tool;

/// Lists products.
#[tool(lazzy)]
async fn list_products() -> Vec<String> {
    Vec::new()
}

/// Lists orders.
#[tool(descripton = "Lists orders.", weight = 3)]
async fn list_orders() -> Vec<String> {
    Vec::new()
}

fn main() {}
