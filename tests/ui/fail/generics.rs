use lazytool_runtime::tool;

/// Echoes a value.
#[tool]
async fn echo<T: serde::Serialize>(value: T) -> T {
    value
}

/// Echoes a text.
#[tool]
async fn echo_text<'a>(text: std::borrow::Cow<'a, str>) -> String {
    text.into_owned()
}

fn main() {}
