use lazytool_runtime::{tool, State, ToolContext};

struct Db;

/// Finds products.
#[tool]
async fn find(
    #[arg(default = 10, minimum = 1)] limit: u32,
    #[arg(default)] maybe: Option<u32>,
    #[arg(rename = "database")] db: State<Db>,
    #[arg(description = "the call")] ctx: ToolContext,
) -> u32 {
    let _ = (db, ctx, maybe);
    limit
}

fn main() {}
