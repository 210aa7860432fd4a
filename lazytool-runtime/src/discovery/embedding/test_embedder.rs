//! A small deterministic embedder for tests and examples: [`TestEmbedder`].

use foldhash::HashMap;

use super::{EmbedFuture, Embedder};

/// How wide its vectors are: wide enough that a few dozen words rarely share an axis.
const DIMENSION: usize = 512;

/// An embedder without a model, for tests: each word (lowercased, a plural `s` dropped) is
/// one axis of a 512-wide vector, and words said to be the [`same`](TestEmbedder::same)
/// share one. A text's vector counts its words, so two texts are close when they share
/// words or synonyms, and the search's fusion can be tested without a model.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use lazytool_runtime::{Embedder, TestEmbedder};
///
/// let embedder = TestEmbedder::new().same(["car", "automobile"]);
/// let vectors = embedder.embed(vec!["cars".into(), "an automobile".into()]).await.unwrap();
/// let cosine: f32 = vectors[0].iter().zip(&vectors[1]).map(|(a, b)| a * b).sum();
/// assert!(cosine > 0.5);
/// # }
/// ```
#[derive(Clone, Debug, Default)]
pub struct TestEmbedder {
    /// A word's axis when it is not its own.
    synonyms: HashMap<String, String>,
}

impl TestEmbedder {
    /// Every word its own axis.
    ///
    /// ```
    /// assert_eq!(lazytool_runtime::Embedder::id(&lazytool_runtime::TestEmbedder::new()), "test-embedder");
    /// ```
    pub fn new() -> TestEmbedder {
        TestEmbedder::default()
    }

    /// `words` share one axis (the first's).
    ///
    /// ```
    /// let embedder = lazytool_runtime::TestEmbedder::new().same(["forecast", "weather"]);
    /// # let _ = embedder;
    /// ```
    pub fn same<'a>(mut self, words: impl IntoIterator<Item = &'a str>) -> TestEmbedder {
        let mut words = words.into_iter().map(word);
        if let Some(first) = words.next() {
            for other in words {
                self.synonyms.insert(other, first.clone());
            }
        }
        self
    }

    pub(crate) fn vector(&self, text: &str) -> Vec<f32> {
        let mut vector = vec![0.0; DIMENSION];
        // Never a zero vector, whatever the text.
        vector[0] = 0.01;
        for found in text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            let found = word(found);
            let axis = self.synonyms.get(&found).unwrap_or(&found);
            vector[1 + (fnv(axis) % (DIMENSION as u64 - 1)) as usize] += 1.0;
        }
        vector
    }
}

impl Embedder for TestEmbedder {
    fn id(&self) -> &str {
        "test-embedder"
    }

    fn embed(&self, texts: Vec<String>) -> EmbedFuture<'_> {
        let vectors = texts.iter().map(|text| self.vector(text)).collect();
        Box::pin(async move { Ok(vectors) })
    }
}

/// `text` lowercased, without a plural `s`.
fn word(text: &str) -> String {
    let lower = text.to_lowercase();
    match lower.strip_suffix('s') {
        Some(stem) if stem.len() > 2 && !stem.ends_with('s') => stem.to_owned(),
        _ => lower,
    }
}

/// FNV-1a: the same axis for a word on every run and machine.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}
