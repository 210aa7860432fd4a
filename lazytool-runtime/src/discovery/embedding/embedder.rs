//! What turns texts into vectors: [`Embedder`], and why it could not: [`EmbedError`].

use std::fmt;
use std::future::Future;
use std::pin::Pin;

/// What [`Embedder::embed`] returns: one vector per text, in order, or why not.
pub type EmbedFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<Vec<f32>>, EmbedError>> + Send + 'a>>;

/// Turns texts into vectors whose cosine says how close their meanings are: a local model
/// (`LocalEmbedder`, feature `embed-local`), an OpenAI-compatible endpoint (`HttpEmbedder`,
/// feature `embed-http`), or your own.
///
/// The search calls it on a thread of its own (with a current-thread tokio runtime), at most
/// [`Embedder::max_batch`] texts at a time, and checks what it returns: one finite, non-zero
/// vector per text, all of one dimension. Vectors need not be normalised.
///
/// ```
/// use lazytool_runtime::{EmbedError, EmbedFuture, Embedder};
///
/// /// Two axes: is the text about weather, is it about time.
/// struct Toy;
///
/// impl Embedder for Toy {
///     fn id(&self) -> &str {
///         "toy"
///     }
///     fn embed(&self, texts: Vec<String>) -> EmbedFuture<'_> {
///         Box::pin(async move {
///             Ok(texts
///                 .iter()
///                 .map(|text| {
///                     let has = |word: &str| if text.contains(word) { 1.0 } else { 0.1 };
///                     vec![has("rain"), has("clock")]
///                 })
///                 .collect())
///         })
///     }
/// }
/// # let _: Result<(), EmbedError> = Ok(());
/// ```
pub trait Embedder: Send + Sync + 'static {
    /// The model's identity (say `all-MiniLM-L6-v2`, or the endpoint's model name): warnings
    /// name it, and cached vectors are keyed by it, so two models must not share one.
    fn id(&self) -> &str;

    /// One vector per text of `texts`, in order.
    fn embed(&self, texts: Vec<String>) -> EmbedFuture<'_>;

    /// The most texts one call of [`Embedder::embed`] is given (32 unless overridden).
    fn max_batch(&self) -> usize {
        32
    }
}

/// Why an embedder gave no vectors: its message says what went wrong (an endpoint that
/// cannot be reached, a model directory of the wrong shape, a vector of the wrong dimension).
///
/// ```
/// let error = lazytool_runtime::EmbedError::new("endpoint answered 503");
/// assert_eq!(error.to_string(), "endpoint answered 503");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbedError(String);

impl EmbedError {
    /// An error saying `message`.
    ///
    /// ```
    /// let error = lazytool_runtime::EmbedError::new(format!("{} texts, {} vectors", 3, 2));
    /// assert_eq!(error.message(), "3 texts, 2 vectors");
    /// ```
    pub fn new(message: impl Into<String>) -> EmbedError {
        EmbedError(message.into())
    }

    /// What went wrong.
    ///
    /// ```
    /// assert_eq!(lazytool_runtime::EmbedError::new("timed out").message(), "timed out");
    /// ```
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for EmbedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EmbedError {}
