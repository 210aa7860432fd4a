use lazytool_runtime::tool;

/// Finds products.
#[tool]
async fn find(
    #[arg(default = 10, minimum = 1)] limit: u32,
    #[arg(default)] maybe: Option<u32>,
) -> u32 {
    let _ = maybe;
    limit
}

fn main() {}
