use lazytool_runtime::tool;

/// Lists products.
#[tool(lazy, name = "list", name = "list_all", lazy)]
async fn list_products() -> Vec<String> {
    Vec::new()
}

/// Gets a product.
#[tool]
async fn get_product(#[arg(rename = "productId", rename = "id")] product_id: u32) -> u32 {
    product_id
}

fn main() {}
