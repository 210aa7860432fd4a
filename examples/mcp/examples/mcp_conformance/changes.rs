//! The suite's list-change triggers: each toggles one extra item in and out of its list, so
//! that a client subscribed to the list's changes is told.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, OnceLock};

use lazytool_runtime::source::LiveRegistry;
use lazytool_runtime::{DynamicTool, Registry, tool};
use serde_json::json;
use tokio::sync::watch;

/// The catalog the server serves: the fixture tools, and `test_added_tool` while it is in.
pub static CATALOG: OnceLock<LiveRegistry> = OnceLock::new();

static TOOL_ADDED: AtomicBool = AtomicBool::new(false);

/// Whether `test_added_prompt` is listed.
pub static PROMPT_ADDED: AtomicBool = AtomicBool::new(false);

/// Moved on each change of the prompt list: `Prompts::changes` hands out its receivers.
pub static PROMPTS_CHANGED: LazyLock<watch::Sender<u64>> = LazyLock::new(|| watch::Sender::new(0));

/// The fixture tools, with `test_added_tool` if `added`.
pub fn catalog(added: bool) -> Result<Registry, lazytool_runtime::RegistryError> {
    let mut builder = Registry::builder()
        .filter(|spec| spec.name().starts_with("test_"))
        .tool(crate::json_schema_tool())
        .tool(crate::custom_header_tool());
    if added {
        builder = builder.tool(DynamicTool::new(
            "test_added_tool",
            "A tool test_trigger_tool_change added.",
            json!({"type": "object"}),
            |_, _| async { Ok::<_, String>(json!("added")) },
        ));
    }
    builder.build()
}

/// Adds `test_added_tool` to the tool list, or takes it out.
#[tool]
async fn test_trigger_tool_change() -> Result<String, String> {
    let catalog = CATALOG.get().ok_or("no catalog is served")?;
    let added = !TOOL_ADDED.fetch_xor(true, Ordering::AcqRel);
    catalog.publish(catalog_or_error(added)?);
    Ok(format!(
        "test_added_tool is {}",
        if added { "in" } else { "out" }
    ))
}

fn catalog_or_error(added: bool) -> Result<Registry, String> {
    catalog(added).map_err(|error| error.to_string())
}

/// Adds `test_added_prompt` to the prompt list, or takes it out.
#[tool]
async fn test_trigger_prompt_change() -> String {
    let added = !PROMPT_ADDED.fetch_xor(true, Ordering::AcqRel);
    PROMPTS_CHANGED.send_modify(|generation| *generation += 1);
    format!("test_added_prompt is {}", if added { "in" } else { "out" })
}
