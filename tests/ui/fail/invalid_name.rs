use lazytool_runtime::tool;

/// Lists products.
#[tool(name = "list products")]
async fn list_products() -> Vec<String> {
    Vec::new()
}

/// Lists orders.
#[tool(name = "")]
async fn list_orders() -> Vec<String> {
    Vec::new()
}

/// Lists everything.
#[tool(name = "list_every_single_product_order_customer_and_supplier_in_the_store")]
async fn list_everything() -> Vec<String> {
    Vec::new()
}

/// Lists cafés.
#[tool]
async fn cafés() -> Vec<String> {
    Vec::new()
}

fn main() {}
