use lazytool_runtime::tool;

#[derive(serde::Serialize)]
struct Product {
    name: String,
}

/// Gets a product.
#[tool(output_schema)]
async fn get_product(id: u32) -> Result<Product, String> {
    Ok(Product { name: id.to_string() })
}

fn main() {}
