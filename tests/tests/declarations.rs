//! How `#[tool]` reads a declaration: which parameters are injected (by the name of their type,
//! or marked), and which parts of the docs become the description the model reads.

use lazytool_runtime::{Registry, State as Shared, ToolContext as CallContext, tool};
use serde_json::json;

/// A type of the application that happens to be named like lazytool's.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct State<T> {
    value: T,
}

/// Another one.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ToolContext {
    user: String,
}

struct Db {
    offset: u32,
}

type DbState = lazytool_runtime::State<Db>;

/// Adds an application `State` to the database's offset.
#[tool]
async fn add_offset(
    #[arg] state: State<u32>,
    #[arg] ctx: ToolContext,
    #[inject] db: DbState,
    #[inject] renamed: Shared<Db>,
    #[inject] call: CallContext,
) -> String {
    format!(
        "{} for {} ({})",
        state.value + db.offset + renamed.offset,
        ctx.user,
        call.call_id().unwrap_or("no id")
    )
}

/// Archives a repository. See [`unarchive`] to undo it, and [the guide](crate::guide).
///
/// ```
/// archive("repo");
/// ```
///
/// # Errors
///
/// Fails when the repository does not exist.
///
/// # Examples
///
/// ```rust,no_run
/// archive("other");
/// ```
///
/// # Panics
///
/// Never.
///
/// # Safety
///
/// Safe.
///
/// # Skill
///
/// Ask before archiving; [`unarchive`] restores it.
///
/// # Arguments
///
/// * `repo` - The [`Repository`] to archive.
#[tool]
async fn archive(repo: String) -> String {
    repo
}

fn registry() -> Registry {
    Registry::builder()
        .filter(|spec| ["add_offset", "archive"].contains(&spec.name()))
        .state(Db { offset: 10 })
        .build()
        .unwrap()
}

#[tokio::test]
async fn marked_parameters_override_the_name_rule() {
    let registry = registry();
    let tool = registry.get("add_offset").unwrap();
    assert_eq!(
        tool.input_schema()["required"],
        json!(["state", "ctx"]),
        "only the `#[arg]` parameters are arguments"
    );
    let result = registry
        .call(
            "add_offset",
            json!({"state": {"value": 1}, "ctx": {"user": "ada"}}),
        )
        .await;
    assert_eq!(result.content(), &json!("21 for ada (no id)"));
}

#[test]
fn rustdoc_sections_and_link_syntax_do_not_reach_the_model() {
    let registry = registry();
    let tool = registry.get("archive").unwrap();
    assert_eq!(
        tool.description(),
        "Archives a repository. See `unarchive` to undo it, and the guide."
    );
    assert_eq!(
        tool.skill(),
        Some("Ask before archiving; `unarchive` restores it.")
    );
    assert_eq!(
        tool.input_schema()["properties"]["repo"]["description"],
        json!("The `Repository` to archive.")
    );
}
