use lazytool_runtime::tool;

#[tool(lazy, colour = "red", name = "bad name")]
async fn everything_wrong<T>(text: &str, (a, b): (u32, u32), extra: impl ToString) -> String {
    format!("{text} {a} {b} {}", extra.to_string())
}

/// This function is fine and still callable after the errors above.
fn helper() -> u32 {
    everything_wrong_is_still_defined()
}

fn everything_wrong_is_still_defined() -> u32 {
    let _ = everything_wrong::<u32>("x", (1, 2), 5);
    1
}

fn main() {
    helper();
}
