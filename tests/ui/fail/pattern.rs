use lazytool_runtime::tool;

/// Adds two numbers.
#[tool]
async fn add((a, b): (i64, i64), _: u32, ref c: i64) -> i64 {
    a + b + c
}

fn main() {}
