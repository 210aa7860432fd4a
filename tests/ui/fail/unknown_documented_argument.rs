use lazytool_runtime::tool;

/// Searches products.
///
/// # Arguments
///
/// * `query` - What to look for.
/// * `limt` - How many results.
#[tool]
async fn search(query: String, limit: u32) -> String {
    format!("{query} {limit}")
}

fn main() {}
