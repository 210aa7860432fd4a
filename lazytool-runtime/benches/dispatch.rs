//! Dispatch overhead: `registry.call` against what a user would write by hand for the same
//! guarantees (the same compiled validator, `from_value` into the same struct, a direct
//! await, `to_value`), and against no validation at all.
//!
//! `cargo bench -p lazytool-runtime --bench dispatch`

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use lazytool_runtime::{Registry, tool};
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

#[derive(Deserialize)]
struct GreetArguments {
    name: String,
    times: u32,
    loud: bool,
}

async fn greet_by_hand(arguments: GreetArguments) -> String {
    greeting(&arguments.name, arguments.times, arguments.loud)
}

fn arguments() -> Value {
    json!({"name": "Ada", "times": 3, "loud": false})
}

fn dispatch(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let registry = Registry::from_inventory().expect("valid tools");
    let validator =
        jsonschema::validator_for(registry.get("greet").expect("registered").input_schema())
            .expect("a valid schema");

    let mut group = c.benchmark_group("dispatch");
    group.bench_function("lazytool", |b| {
        b.to_async(&runtime).iter_batched(
            arguments,
            |arguments| registry.call("greet", arguments),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("handwritten", |b| {
        b.to_async(&runtime).iter_batched(
            arguments,
            |arguments| {
                let validator = &validator;
                async move {
                    if !validator.is_valid(&arguments) {
                        return Value::Null;
                    }
                    match serde_json::from_value::<GreetArguments>(arguments) {
                        Ok(parsed) => {
                            serde_json::to_value(greet_by_hand(parsed).await).unwrap_or(Value::Null)
                        }
                        Err(_) => Value::Null,
                    }
                }
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("handwritten_unvalidated", |b| {
        b.to_async(&runtime).iter_batched(
            arguments,
            |arguments| async move {
                match serde_json::from_value::<GreetArguments>(arguments) {
                    Ok(parsed) => {
                        serde_json::to_value(greet_by_hand(parsed).await).unwrap_or(Value::Null)
                    }
                    Err(_) => Value::Null,
                }
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
