//! [async-openai](https://docs.rs/async-openai) 0.43's typed requests and responses for
//! lazytool (feature `async-openai`): a session's tools as its tool types, the model's tool
//! calls read from its response types, and results as its message or input-item types, so
//! that an async-openai user never writes the JSON. One module per API:
//!
//! | API | tools | calls | a result | a turn |
//! |---|---|---|---|---|
//! | [`chat`] (Chat Completions) | [`tools`](chat::tools) | [`tool_calls`](chat::tool_calls) (and [`assistant_message`](chat::assistant_message) for the history) | [`tool_message`](chat::tool_message) | [`run_turn`](chat::run_turn) |
//! | [`responses`] (Responses) | [`tools`](responses::tools) | [`tool_calls`](responses::tool_calls) | [`tool_output`](responses::tool_output) | [`run_turn`](responses::run_turn) |
//!
//! Each is lazytool's own rendering ([`openai_chat`](crate::provider::openai_chat),
//! [`openai_responses`](crate::provider::openai_responses)) in async-openai's types: the same
//! schemas and strict mode, the same result text. A call lazytool cannot run (an unknown
//! name, arguments that are not JSON, a custom tool's free-form input) gets an error result
//! the model can act on, as in lazytool's own loop.
//!
//! Only async-openai's type features are used (`chat-completion-types`, `response-types`):
//! no HTTP client. [`ASYNC_OPENAI_VERSION`] is the supported minor version.

pub mod chat;
pub mod responses;

/// The minor version of async-openai the conversions are built against (`~0.43.0`).
///
/// ```
/// assert_eq!(lazytool_runtime::provider::async_openai::ASYNC_OPENAI_VERSION, "0.43");
/// ```
pub const ASYNC_OPENAI_VERSION: &str = "0.43";
