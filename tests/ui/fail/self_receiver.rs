use lazytool_runtime::tool;

struct Shop;

impl Shop {
    /// Lists products.
    #[tool]
    async fn list_products(&self) -> Vec<String> {
        Vec::new()
    }
}

fn main() {}
