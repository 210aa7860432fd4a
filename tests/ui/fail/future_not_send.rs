use lazytool_runtime::tool;
use std::rc::Rc;

async fn tick() {}

/// Counts.
#[tool]
async fn count(n: u32) -> u32 {
    let shared = Rc::new(n);
    tick().await;
    *shared
}

fn main() {}
