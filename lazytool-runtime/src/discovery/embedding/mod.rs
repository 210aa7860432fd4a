//! Search by meaning as well as by words (feature `embeddings`): an [`Embedder`] turns tool
//! texts and queries into vectors, [`Embeddings`] computes the lazy tools' vectors once
//! (cached in memory and, if asked, on disk), and [`Fusion`] combines the nearest tools with
//! the lexical ranking, weighing meaning for each query by how clearly the model tells its
//! nearest tools apart ([`Leaning`] says which way a query leaned, and why). Any
//! failure of the embedder leaves the lexical search alone, with a warning.
//!
//! Embedders: [`TestEmbedder`] (no model, for tests), `LocalEmbedder` (feature
//! `embed-local`: a sentence-transformers directory run with candle) and `HttpEmbedder`
//! (feature `embed-http`: an OpenAI-compatible `/v1/embeddings` endpoint).

pub(crate) mod disk_cache;
mod embedder;
mod embeddings;
#[cfg(feature = "search-features")]
mod explained_search;
mod fusion;
#[cfg(feature = "embed-http")]
mod http;
mod leaning;
#[cfg(feature = "embed-local")]
mod local;
mod sign_codes;
mod test_embedder;
mod tool_index;
mod vectors;
mod worker;

pub use embedder::{EmbedError, EmbedFuture, Embedder};
pub use embeddings::{Embeddings, MAX_QUERY_BYTES};
#[cfg(feature = "search-features")]
pub use explained_search::ExplainedSearch;
pub use fusion::Fusion;
#[cfg(feature = "embed-http")]
pub use http::HttpEmbedder;
pub use leaning::{Leaning, Signals};
#[cfg(feature = "embed-local")]
pub use local::LocalEmbedder;
pub use test_embedder::TestEmbedder;
pub(crate) use tool_index::ToolIndex;

/// The text of a tool that is embedded: its name as words, then its description.
pub(crate) fn tool_text(name: &str, description: &str) -> String {
    let name: String = name
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("{name}: {description}")
}

#[cfg(test)]
mod tests;
