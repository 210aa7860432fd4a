use lazytool_runtime::tool;

/// Greets someone.
#[tool]
async fn greet(name: &str, titles: &[String]) -> String {
    format!("{name} {}", titles.len())
}

fn main() {}
