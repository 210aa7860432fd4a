//! `Registry::from_inventory` reports a missing state instead of panicking.

use lazytool_runtime::{Registry, RegistryProblem, State, tool};

struct Inventory;

/// Counts stock.
#[tool]
async fn count_stock(stock: State<Inventory>) -> u32 {
    let _ = stock;
    0
}

fn main() {
    let error = Registry::from_inventory().expect_err("the state is missing");
    assert!(matches!(
        error.problems(),
        [RegistryProblem::MissingState { tool, type_name, .. }]
            if tool == "count_stock" && type_name.ends_with("Inventory")
    ));
}
