//! The vocabulary of one tool call: what comes in ([`ToolCall`], [`ToolContext`], with the
//! input a tool may ask its caller for: [`InputRequest`]), what
//! bounds it ([`CallLimits`]) and what goes back ([`ToolResult`], with a [`DiscoveredSet`]
//! for the results of the discovery tool, and [`Content`] for results that are more than
//! JSON).
//!
//! The lowest layer but [`schema`](crate::schema): plain data, no tools, no registry.

mod content;
mod context;
mod discovered;
mod extensions;
mod input;
mod limits;
mod result;
mod size;
mod tool_call;

pub(crate) use content::parts_text;
pub use content::{Content, ContentPart, ResourceContents};
pub(crate) use context::CallCancellation;
pub use context::{CancellationToken, ToolContext};
pub use discovered::DiscoveredSet;
pub use input::{
    ElicitAction, Elicited, InputChannel, InputError, InputFuture, InputRequest, Root, Sampled,
};
pub use limits::CallLimits;
pub(crate) use limits::{cut_output, dispose, fit, quote};
pub use result::{ToolErrorKind, ToolResult};
pub(crate) use size::{Checked, Excess, check, escaped_len};
pub use tool_call::ToolCall;
