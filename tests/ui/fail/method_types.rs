//! A method's parameters and results are checked like a free fn's.

use lazytool_runtime::tools;

struct Shop;

#[derive(serde::Deserialize)]
struct Filter {
    min_price: f64,
}

struct Product;

#[tools]
impl Shop {
    /// Lists products.
    #[tool]
    async fn list_products(&self, filter: Filter) -> Vec<Product> {
        let _ = filter.min_price;
        Vec::new()
    }
}

fn main() {}
