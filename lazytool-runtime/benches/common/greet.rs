//! The tool the dispatch benches call: declared with `#[tool]`, and the same written by
//! hand.

use lazytool_runtime::tool;
use serde::Deserialize;
use serde_json::{Value, json};

/// Greets someone.
#[tool]
async fn greet(name: String, times: u32, loud: bool) -> String {
    greeting(&name, times, loud)
}

fn greeting(name: &str, times: u32, loud: bool) -> String {
    let text = format!("hello {name} x{times}");
    if loud { text.to_uppercase() } else { text }
}

/// `greet`'s arguments, as a user writes them without lazytool.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct GreetArguments {
    name: String,
    times: u32,
    loud: bool,
}

pub async fn greet_by_hand(arguments: GreetArguments) -> String {
    greeting(&arguments.name, arguments.times, arguments.loud)
}

/// The arguments every call gets.
pub fn arguments() -> Value {
    json!({"name": "Ada", "times": 3, "loud": false})
}

/// What a user writes by hand for the same guarantees as `registry.call`: validation with
/// `validator` (none: not validated), `from_value` into the same struct, a direct await,
/// `to_value`.
pub async fn handwritten(validator: Option<&jsonschema::Validator>, arguments: Value) -> Value {
    if validator.is_some_and(|validator| !validator.is_valid(&arguments)) {
        return Value::Null;
    }
    match serde_json::from_value::<GreetArguments>(arguments) {
        Ok(parsed) => serde_json::to_value(greet_by_hand(parsed).await).unwrap_or(Value::Null),
        Err(_) => Value::Null,
    }
}
