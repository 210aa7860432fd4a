use lazytool_runtime::tool;

struct Product {
    name: String,
}

/// Gets a product.
#[tool]
async fn get_product(id: u32) -> Result<Product, String> {
    Ok(Product { name: id.to_string() })
}

/// Gets a product without failing.
#[tool]
async fn get_product_plain(id: u32) -> Product {
    Product { name: id.to_string() }
}

fn main() {}
