//! The vocabulary of one tool call: what comes in ([`ToolCall`], [`ToolContext`]), what
//! bounds it ([`CallLimits`]) and what goes back ([`ToolResult`], with a [`DiscoveredSet`]
//! for the results of the discovery tool, and [`Content`] for results that are more than
//! JSON).
//!
//! The lowest layer but [`schema`](crate::schema): plain data, no tools, no registry.

mod content;
mod context;
mod discovered;
mod limits;
mod result;
mod size;
mod tool_call;

pub(crate) use content::parts_text;
pub use content::{Content, ContentPart, ResourceContents};
pub(crate) use context::CallCancellation;
pub use context::{CancellationToken, ToolContext};
pub use discovered::DiscoveredSet;
pub use limits::CallLimits;
pub(crate) use limits::{cut_output, dispose, fit, quote};
pub use result::{ToolErrorKind, ToolResult};
pub(crate) use size::{Checked, Excess, check, escaped_len};
pub use tool_call::ToolCall;
