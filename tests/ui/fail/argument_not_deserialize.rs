use lazytool_runtime::tool;

#[derive(schemars::JsonSchema)]
struct Filter {
    min_price: f64,
}

/// Lists products.
#[tool]
async fn list_products(filter: Filter) -> String {
    format!("{}", filter.min_price)
}

fn main() {}
