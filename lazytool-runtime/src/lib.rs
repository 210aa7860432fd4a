//! Declare LLM tools at compile time and serve them lazily.
//!
//! See the crate README for the whole picture.

mod arguments;
mod context;
mod dynamic;
mod error;
mod name;
mod registry;
mod result;
mod schema;
mod spec;
mod state;
mod tool;
mod unwind;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use lazytool_macros::tool;

pub use context::{CancellationToken, ToolContext};
pub use dynamic::DynamicTool;
pub use error::{RegistryError, RegistryProblem};
pub use name::{DISCOVERY_TOOL_NAME, MAX_TOOL_NAME_LEN, validate_tool_name};
pub use registry::{Registry, RegistryBuilder, SourceLocation};
pub use result::{ToolErrorKind, ToolResult};
pub use spec::{CallFuture, ToolSpec};
pub use state::State;
pub use tool::Tool;
