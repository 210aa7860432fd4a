use lazytool_runtime::{tool, State};

struct Db;

/// Marks a parameter twice.
#[tool]
async fn both(#[inject] #[arg] db: State<Db>, #[inject(state)] other: State<Db>) -> u32 {
    let _ = (db, other);
    1
}

fn main() {}
