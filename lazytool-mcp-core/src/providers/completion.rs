//! What a provider's completion of an argument returns: [`CompletionFuture`] (MCP
//! `completion/complete`, answered in `serving.rs`).

use std::future::Future;
use std::pin::Pin;

use rmcp::model::ErrorData;

/// What [`PromptProvider::complete`](crate::PromptProvider::complete) and
/// [`ResourceProvider::complete`](crate::ResourceProvider::complete) return: the values that
/// complete an argument, best first (the server sends the first 100, with `hasMore` and
/// `total` saying how many there were), or the JSON-RPC error the client gets.
pub type CompletionFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<String>, ErrorData>> + Send + 'a>>;
