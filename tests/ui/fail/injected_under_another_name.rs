//! lazytool's `State<T>` and `ToolContext` written under another name are taken for
//! arguments unless marked `#[inject]`; marked `#[arg]` they are arguments and rejected.

use lazytool_runtime::{tool, State as Shared, ToolContext as CallContext};

struct Db;

type DbState = lazytool_runtime::State<Db>;

/// Uses an alias and renamed imports.
#[tool]
async fn unmarked(db: DbState, shared: Shared<Db>, call: CallContext) -> u32 {
    let _ = (db, shared, call);
    1
}

/// The same, marked: compiles.
#[tool]
async fn marked(#[inject] db: DbState, #[inject] shared: Shared<Db>, #[inject] call: CallContext) -> u32 {
    let _ = (db, shared, call);
    1
}

/// Injected types marked as arguments, and an argument marked as injected.
#[tool]
async fn wrong_marks(
    #[arg(rename = "database")] db: lazytool_runtime::State<Db>,
    #[arg(description = "the call")] call: lazytool_runtime::ToolContext,
    #[inject] limit: u32,
) -> u32 {
    let _ = (db, call);
    limit
}

fn main() {}
