//! A lazytool result in rig's shape: a tool output, or a tool error whose text the model reads.

use lazytool_runtime::{ToolErrorKind, ToolResult};
use rig_core::tool::{ToolExecutionError, ToolOutput};

/// `result` as rig's tool outcome. A success is its content (JSON, or the text of a JSON
/// string); a failure keeps lazytool's message as what the model reads, and its kind as
/// rig's nearest one, so rig's telemetry and hooks see a failed call.
///
/// ```
/// use lazytool_runtime::{ToolErrorKind, ToolResult};
/// use serde_json::json;
///
/// let ok = lazytool_rig::to_rig_output(ToolResult::success(json!({"price": 40.0}))).unwrap();
/// assert_eq!(ok.as_json(), Some(&json!({"price": 40.0})));
///
/// let failed = ToolResult::error(ToolErrorKind::InvalidArguments, "Error: months must be at least 1");
/// let error = lazytool_rig::to_rig_output(failed).unwrap_err();
/// assert_eq!(error.model_output().render(), "Error: months must be at least 1");
/// ```
pub fn to_rig_output(result: ToolResult) -> Result<ToolOutput, ToolExecutionError> {
    let Some(kind) = result.error_kind() else {
        return Ok(match result.into_content() {
            serde_json::Value::String(text) => ToolOutput::text(text),
            other => ToolOutput::json(other),
        });
    };
    let text = result.text();
    let error = match kind {
        ToolErrorKind::InvalidArguments => ToolExecutionError::invalid_args(text),
        ToolErrorKind::UnknownTool | ToolErrorKind::NotDiscovered => {
            ToolExecutionError::not_found(text)
        }
        ToolErrorKind::TimedOut => ToolExecutionError::timeout(text),
        _ => ToolExecutionError::other(text),
    };
    Err(error.with_code(kind.as_str()))
}
