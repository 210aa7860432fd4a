use lazytool_runtime::tool;

/// Compares two products.
#[tool(rename_all = "camelCase")]
async fn compare(product_id: u32, #[arg(rename = "productId")] other_id: u32) -> bool {
    product_id == other_id
}

/// Moves stock.
#[tool]
async fn move_stock(#[arg(rename = "to")] from: u32, to: u32) -> u32 {
    from + to
}

fn main() {}
