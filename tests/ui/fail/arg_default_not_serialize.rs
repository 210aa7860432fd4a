use lazytool_runtime::tool;

#[derive(Default, serde::Deserialize, schemars::JsonSchema)]
struct Sort {
    by: String,
}

/// Lists products.
#[tool]
async fn list_products(#[arg(default)] sort: Sort) -> String {
    sort.by
}

fn main() {}
