//! The `dispatch` bench's `lazytool` and `handwritten` calls in a plain loop, for counting
//! instructions (stable where timings on a shared machine are not) and for profilers:
//!
//! ```sh
//! cargo bench -p lazytool-runtime --bench dispatch_loop --no-run   # prints the binary
//! perf stat -e instructions target/release/deps/dispatch_loop-HASH VARIANT 200000
//! valgrind --tool=callgrind target/release/deps/dispatch_loop-HASH VARIANT 20000
//! ```
//!
//! `VARIANT` is `lazytool`, `handwritten` or `setup` (the inputs built and dropped, no call):
//! a call costs (total − setup) / CALLS. Run with Cargo's `--bench` flag alone (as `cargo
//! bench` does) it makes one short run of each.

use lazytool_runtime::Registry;
use serde_json::Value;

#[path = "common/greet.rs"]
mod greet;

fn run(variant: &str, calls: usize) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|error| error.to_string())?;
    let registry = Registry::from_inventory().map_err(|error| error.to_string())?;
    let schema = registry
        .get("greet")
        .ok_or("greet is registered")?
        .input_schema();
    let validator = jsonschema::validator_for(schema).map_err(|error| error.to_string())?;
    let inputs: Vec<Value> = (0..calls).map(|_| greet::arguments()).collect();
    let started = std::time::Instant::now();
    let outputs = runtime.block_on(async {
        let mut outputs = Vec::with_capacity(calls);
        match variant {
            "lazytool" => {
                for arguments in inputs {
                    let result = registry.call("greet", arguments).await;
                    outputs.push(std::hint::black_box(result.into_content()));
                }
            }
            "handwritten" => {
                for arguments in inputs {
                    let output = greet::handwritten(Some(&validator), arguments).await;
                    outputs.push(std::hint::black_box(output));
                }
            }
            "setup" => outputs.extend(inputs.into_iter().map(std::hint::black_box)),
            other => return Err(format!("unknown variant {other}")),
        }
        Ok(outputs)
    })?;
    let elapsed = started.elapsed();
    drop(outputs);
    eprintln!(
        "dispatch_loop {variant}: {calls} calls, {:?} per call",
        elapsed / u32::try_from(calls.max(1)).unwrap_or(u32::MAX)
    );
    Ok(())
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    match args.as_slice() {
        [] => {
            for variant in ["setup", "handwritten", "lazytool"] {
                run(variant, 10_000)?;
            }
            Ok(())
        }
        [variant, calls] => run(variant, calls.parse().map_err(|_| "CALLS is a count")?),
        _ => Err("usage: dispatch_loop [VARIANT CALLS]".to_owned()),
    }
}
