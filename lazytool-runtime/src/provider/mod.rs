//! LLM wire formats: how tool definitions are sent to each model API, how the tool calls in
//! its responses are read back, how tool results are returned to it, and how its message
//! history is read by [`Session::from_history`](crate::Session::from_history).
//!
//! One module per format, each owning all of it, with free functions:
//!
//! | format | tools | calls | results (`&ToolCall`, `&ToolResult`) | a turn's results |
//! |---|---|---|---|---|
//! | [`openai_chat`] | [`render_tools`](openai_chat::render_tools) | [`parse_tool_calls`](openai_chat::parse_tool_calls) | [`tool_result_message`](openai_chat::tool_result_message) | [`tool_results`](openai_chat::tool_results) |
//! | [`openai_responses`] | [`render_tools`](openai_responses::render_tools) | [`parse_tool_calls`](openai_responses::parse_tool_calls) | [`tool_result_item`](openai_responses::tool_result_item) | [`tool_results`](openai_responses::tool_results) |
//! | [`anthropic`] | [`render_tools`](anthropic::render_tools) | [`parse_tool_calls`](anthropic::parse_tool_calls) | [`tool_result_block`](anthropic::tool_result_block) | [`tool_results`](anthropic::tool_results) |
//! | [`gemini`] | [`render_tools`](gemini::render_tools) | [`parse_tool_calls`](gemini::parse_tool_calls) | [`function_response_part`](gemini::function_response_part) | [`tool_results`](gemini::tool_results) |
//! | [`tanstack`] | [`render_tools`](tanstack::render_tools) | (TanStack AI parses for its adapters) | [`tool_result_message`](tanstack::tool_result_message) | [`tool_results`](tanstack::tool_results) |
//!
//! A turn's results are the messages (or items, or contents) to append to the history, in
//! call order. Schemas are sent in each API's dialect (see [`schema`](crate::schema)).
//!
//! Streamed responses: each of the four provider modules has a `StreamAssembler`
//! ([`AssembleCalls`]) that turns the stream's events into complete calls as they arrive,
//! with a [`StreamError`] for a stream cut off or malformed. A turn in one call: each has
//! `run_turn(&session, calls, concurrency)` (and `run_response` for a whole response), which
//! runs the calls through [`Session::call_turn`](crate::Session::call_turn) and returns a
//! [`Turn`]: the calls, their results, and the result messages in the provider's shape.
//!
//! Adding a format is one new module here and its line in `FORMATS` (`from_history.rs`), the
//! history readers. Formats share `read.rs` (reading responses), `render.rs` (tool
//! definitions), `history.rs` (reading histories), `stream.rs` and `turn.rs`; none names an
//! item of this module, which is the index.

pub mod anthropic;
mod content;
mod from_history;
pub mod gemini;
mod history;
pub mod openai_chat;
pub mod openai_responses;
mod read;
mod render;
mod stream;
pub mod tanstack;
#[cfg(test)]
pub(crate) mod tests;
mod turn;

pub use read::{ParseError, Provider};
pub use stream::{AssembleCalls, StreamError, StreamErrorKind};
pub use turn::Turn;
