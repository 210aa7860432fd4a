//! Building registries: inventory, filters, dynamic tools, and every build error.

use lazytool_runtime::{DynamicTool, Registry, RegistryProblem, SchemaError, State, tool};
use serde_json::{Value, json};

// Tools of another crate are collected once that crate is linked.
use lazytool_tests as _;

struct Clock;

/// Tells the time.
#[tool]
async fn tell_time(clock: State<Clock>) -> &'static str {
    let _ = clock;
    "noon"
}

/// Adds two numbers.
#[tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn echo(name: &str) -> DynamicTool {
    DynamicTool::new(
        name.to_owned(),
        "Returns its input.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        |arguments: Value, _| async move { Ok::<_, String>(arguments["text"].clone()) },
    )
}

#[test]
fn tools_are_in_name_order_and_include_other_crates() {
    let registry = Registry::builder()
        .state(Clock)
        .build()
        .expect("valid tools");
    let names: Vec<&str> = registry.tools().map(|tool| tool.name()).collect();
    assert_eq!(names, ["add", "cross_crate_echo", "tell_time"]);
    let cross = registry.get("cross_crate_echo").expect("collected");
    assert!(cross.is_lazy());
    assert!(
        cross.location().file().ends_with("src/lib.rs"),
        "{}",
        cross.location()
    );
    assert!(registry.get("missing").is_none());
}

#[test]
fn a_missing_state_names_the_tool_and_the_type() {
    let error = Registry::from_inventory().expect_err("Clock is not registered");
    let [
        RegistryProblem::MissingState {
            tool,
            type_name,
            location,
        },
    ] = error.problems()
    else {
        panic!("unexpected problems: {error}");
    };
    assert_eq!(tool, "tell_time");
    assert!(type_name.ends_with("::Clock"), "{type_name}");
    assert!(location.file().ends_with("registry.rs"));
    let message = error.to_string();
    assert!(
        message.contains("`tell_time`") && message.contains("State<"),
        "{message}"
    );
}

#[test]
fn a_filter_leaves_tools_out_and_their_states_unneeded() {
    let registry = Registry::builder()
        .filter(|spec| spec.name() != "tell_time")
        .build()
        .expect("tell_time is filtered out, so Clock is not needed");
    assert!(registry.get("tell_time").is_none());
    assert!(registry.get("add").is_some());
}

#[test]
fn duplicate_names_name_both_locations() {
    let error = Registry::builder()
        .state(Clock)
        .tool(echo("add"))
        .build()
        .expect_err("two tools are named add");
    let [
        RegistryProblem::DuplicateName {
            name,
            first,
            second,
        },
    ] = error.problems()
    else {
        panic!("unexpected problems: {error}");
    };
    assert_eq!(name, "add");
    let files = [first.file(), second.file()];
    assert!(
        files.iter().all(|file| file.ends_with("registry.rs")),
        "{files:?}"
    );
    assert_ne!(first.line(), second.line());
    let message = error.to_string();
    assert!(message.contains(&first.to_string()) && message.contains(&second.to_string()));
}

#[test]
fn every_problem_is_reported_together() {
    let not_an_object = DynamicTool::new(
        "listy",
        "Takes a list.",
        json!({"type": "array"}),
        |_: Value, _| async { Ok::<_, String>(Value::Null) },
    );
    let broken = DynamicTool::new(
        "broken",
        "Has a broken schema.",
        json!({"type": "object", "properties": {"x": {"type": 12}}}),
        |_: Value, _| async { Ok::<_, String>(Value::Null) },
    );
    let error = Registry::builder()
        .tool(echo("has space"))
        .tool(echo("__lazy__tool__discovery__"))
        .tool(not_an_object)
        .tool(broken)
        .build()
        .expect_err("four problems");
    let problems = error.problems();
    assert_eq!(problems.len(), 5, "{error}");
    assert!(
        matches!(&problems[0], RegistryProblem::MissingState { tool, .. } if tool == "tell_time")
    );
    assert!(
        matches!(&problems[1], RegistryProblem::InvalidName { name, .. } if name == "has space")
    );
    assert!(
        matches!(&problems[2], RegistryProblem::InvalidName { name, .. } if name == "__lazy__tool__discovery__")
    );
    assert!(
        matches!(&problems[3], RegistryProblem::InvalidSchema { tool, reason: SchemaError::NotAnObject, .. }
        if tool == "listy")
    );
    assert!(
        matches!(&problems[4], RegistryProblem::InvalidSchema { tool, reason: SchemaError::DoesNotCompile(_), .. } if tool == "broken")
    );
}

#[tokio::test]
async fn dynamic_tools_are_validated_and_called() {
    let failing = DynamicTool::new(
        "fail",
        "Always fails.",
        json!({"type": "object"}),
        |_: Value, _| async { Err::<Value, _>("upstream said no") },
    )
    .lazy(true);
    let registry = Registry::builder()
        .without_inventory()
        .tool(echo("echo"))
        .tool(failing)
        .build()
        .expect("valid tools");
    assert_eq!(registry.len(), 2);
    assert!(registry.get("fail").expect("registered").is_lazy());
    assert_eq!(
        registry.call("echo", json!({"text": "hi"})).await.content(),
        "hi"
    );
    let invalid = registry.call("echo", json!({"text": 1})).await;
    assert!(invalid.is_error());
    let failed = registry.call("fail", Value::Null).await;
    assert_eq!(failed.content(), "upstream said no");
}

#[test]
fn a_registry_is_a_cheap_shared_handle() {
    fn assert_shareable<T: Clone + Send + Sync + 'static>() {}
    assert_shareable::<Registry>();
    let registry = Registry::builder()
        .state(Clock)
        .build()
        .expect("valid tools");
    let clone = registry.clone();
    assert!(std::ptr::eq(
        registry.get("add").expect("registered").input_schema(),
        clone.get("add").expect("registered").input_schema()
    ));
}
