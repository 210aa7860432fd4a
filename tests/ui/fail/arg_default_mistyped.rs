use lazytool_runtime::tool;

/// Lists products.
#[tool]
async fn list_products(#[arg(default = "10")] limit: u32) -> u32 {
    limit
}

fn main() {}
