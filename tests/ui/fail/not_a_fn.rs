use lazytool_runtime::tool;

/// A product.
#[tool]
struct Product {
    name: String,
}

fn main() {}
