use lazytool_runtime::tool;

/// Greets someone.
#[tool]
async fn greet(name: impl Into<String>) -> String {
    name.into()
}

fn main() {}
