//! lazytool inside [rig](https://docs.rs/rig-agent)'s agent loop: a lazytool registry's tools
//! (`#[tool]`s, dynamic tools, MCP sources) in a rig agent, with lazy discovery or search
//! working turn by turn inside rig's own multi-turn loop.
//!
//! Supports rig-core and rig-agent 0.44 ([`RIG_VERSION`]); the guide is [`guide::rig`].
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use lazytool_rig::{LazyTools, ScriptedChat};
//! use lazytool_runtime::{DISCOVERY_TOOL_NAME, DynamicTool, Registry};
//! use rig_agent::AgentBuilder;
//! use serde_json::json;
//!
//! let forecast = DynamicTool::new("get_forecast".to_owned(), "The weather tomorrow.",
//!     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
//!     |arguments, _| async move { Ok::<_, String>(json!(format!("sun in {}", arguments["city"]))) })
//!     .lazy(true);
//! let registry = Registry::builder().without_inventory().tool(forecast).build().unwrap();
//!
//! // A scripted model: discover, call, answer.
//! let chat = ScriptedChat::new(|request| match request["messages"].as_array().map_or(0, Vec::len) {
//!     1 => ScriptedChat::tool_calls(&[("c1", DISCOVERY_TOOL_NAME, r#"{"toolNames":["get_forecast"]}"#)]),
//!     3 => ScriptedChat::tool_calls(&[("c2", "get_forecast", r#"{"city":"Oslo"}"#)]),
//!     _ => ScriptedChat::text("Sunny."),
//! });
//! let lazy = LazyTools::new(registry.session());
//! let agent = lazy.attach(AgentBuilder::new(chat.model())).build();
//! let answer = agent.prompt("Weather in Oslo tomorrow?").max_turns(5).run().await.unwrap();
//! assert_eq!(answer.output(), "Sunny.");
//!
//! // What rig sent: the discovery tool first, the discovered tool after its discovery.
//! let tools = |turn: usize| -> Vec<String> {
//!     chat.requests()[turn]["tools"].as_array().unwrap().iter()
//!         .map(|tool| tool["function"]["name"].as_str().unwrap().to_owned()).collect()
//! };
//! assert_eq!(tools(0), [DISCOVERY_TOOL_NAME]);
//! assert_eq!(tools(1), ["get_forecast"]);
//! # }
//! ```

pub mod guide;
mod hook;
mod lazy_tools;
mod result;
mod scripted_chat;
mod search_index;

pub use hook::LazyHook;
pub use lazy_tools::LazyTools;
pub use result::to_rig_output;
pub use scripted_chat::ScriptedChat;
pub use search_index::LazySearchIndex;

/// The minor version of rig-core and rig-agent this crate is built against (its
/// `Cargo.toml` pins `~0.44.0`); `tests/versions.rs` checks it against `Cargo.lock`.
///
/// ```
/// assert_eq!(lazytool_rig::RIG_VERSION, "0.44");
/// ```
pub const RIG_VERSION: &str = "0.44";
