//! Lazy discovery: the synthetic tool through which the model loads lazy tools, the modes
//! that decide how lazy tools are presented ([`DiscoveryMode`]), the BM25 search behind
//! search mode, and what a discovery leaves behind — signatures and compaction markers over
//! a [`DiscoveredSet`](crate::DiscoveredSet).
//!
//! Works on [`Tool`](crate::Tool)s, not on a registry; sessions put it to use.

mod answer;
pub(crate) mod call_through;
pub(crate) mod compaction;
#[cfg(feature = "embeddings")]
pub(crate) mod embedding;
mod explained;
mod listing;
mod mode;
mod name_match;
mod presentation;
mod record;
mod request;
#[cfg(feature = "search")]
mod search;
mod signing;
mod tool;

#[cfg(all(feature = "embeddings", feature = "search-features"))]
pub use embedding::ExplainedSearch;
#[cfg(feature = "embed-http")]
pub use embedding::HttpEmbedder;
#[cfg(feature = "embed-local")]
pub use embedding::LocalEmbedder;
#[cfg(feature = "embeddings")]
pub use embedding::{
    EmbedError, EmbedFuture, Embedder, Embeddings, Fusion, Leaning, MAX_QUERY_BYTES, Signals,
    TestEmbedder,
};
pub(crate) use explained::Explains;
pub use listing::DiscoveryListing;
#[cfg(feature = "search")]
pub use mode::AutoBudget;
pub use mode::{DiscoveryMode, ResolvedMode};
#[cfg(feature = "search")]
pub(crate) use mode::{LazyCosts, tools_tokens};
pub(crate) use presentation::Presentation;
pub(crate) use record::{read_result, read_result_text};
#[cfg(feature = "search-features")]
pub use search::{FeatureCandidate, FeatureTerm, SearchFeatures};
#[cfg(feature = "search")]
pub(crate) use search::{SearchDocument, SearchIndex};
pub(crate) use signing::Signer;
#[cfg(not(feature = "signing"))]
pub(crate) use signing::SigningKey;
#[cfg(feature = "signing")]
pub use signing::{SigningKey, SigningKeyError};
pub(crate) use tool::{DiscoveryTool, write_signature};
