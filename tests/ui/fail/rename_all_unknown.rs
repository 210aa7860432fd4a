use lazytool_runtime::tool;

/// Gets a product.
#[tool(rename_all = "camelcase")]
async fn get_product(product_id: u32) -> u32 {
    product_id
}

fn main() {}
