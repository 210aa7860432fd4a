//! An OpenAI-compatible embeddings endpoint: [`HttpEmbedder`].

use std::time::Duration;

use serde_json::{Value, json};

use super::{EmbedError, EmbedFuture, Embedder};

/// How long one request may take unless set.
const TIMEOUT: Duration = Duration::from_secs(30);
/// How many texts one request carries unless set.
const MAX_BATCH: usize = 64;
/// How much of an error answer a warning quotes.
const QUOTED_BYTES: usize = 200;

/// An OpenAI-compatible `/v1/embeddings` endpoint: Ollama, llama.cpp's server, vLLM,
/// text-embeddings-inference and OpenAI all speak it. Each call is one `POST` of
/// `{"model", "input": [texts]}`, read back from `data[].embedding` in `data[].index` order.
///
/// ```
/// use std::time::Duration;
/// use lazytool_runtime::{Embedder, HttpEmbedder};
///
/// // A base URL gets `/v1/embeddings` (or `/embeddings` after `/v1`); a full one is kept.
/// let ollama = HttpEmbedder::new("http://127.0.0.1:11434", "all-minilm").unwrap()
///     .with_timeout(Duration::from_secs(5))
///     .with_max_batch(16);
/// assert_eq!(ollama.url(), "http://127.0.0.1:11434/v1/embeddings");
/// assert_eq!(ollama.id(), "all-minilm");
/// assert_eq!(ollama.max_batch(), 16);
/// // The key is read from the environment, never from a file of the program's.
/// let openai = HttpEmbedder::new("https://api.openai.com/v1", "text-embedding-3-small").unwrap()
///     .with_api_key_env("LAZYTOOL_DOC_UNSET_KEY");
/// assert_eq!(openai.unwrap_err().to_string(), "the environment variable LAZYTOOL_DOC_UNSET_KEY (the embeddings endpoint's API key) is not set");
/// ```
#[derive(Clone)]
pub struct HttpEmbedder {
    url: String,
    model: String,
    api_key: Option<String>,
    timeout: Duration,
    max_batch: usize,
    client: reqwest::Client,
}

impl HttpEmbedder {
    /// The endpoint at `url` (a base URL, or one ending in `/embeddings`), asked for the
    /// vectors of `model`; a request may take 30 s, and carries at most 64 texts.
    ///
    /// ```
    /// let error = lazytool_runtime::HttpEmbedder::new("ftp://example.com", "m").unwrap_err();
    /// assert_eq!(error.to_string(), "embeddings URL \"ftp://example.com\": not http:// or https://");
    /// ```
    pub fn new(url: &str, model: &str) -> Result<HttpEmbedder, EmbedError> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(EmbedError::new(format!(
                "embeddings URL {url:?}: not http:// or https://"
            )));
        }
        if model.trim().is_empty() {
            return Err(EmbedError::new("the embeddings model's name is empty"));
        }
        let base = url.trim_end_matches('/');
        let url = if base.ends_with("/embeddings") {
            base.to_owned()
        } else if base.ends_with("/v1") {
            format!("{base}/embeddings")
        } else {
            format!("{base}/v1/embeddings")
        };
        HttpEmbedder {
            url,
            model: model.to_owned(),
            api_key: None,
            timeout: TIMEOUT,
            max_batch: MAX_BATCH,
            client: reqwest::Client::new(),
        }
        .with_client()
    }

    /// Sends `Authorization: Bearer` with the value of the environment variable `name`;
    /// an error if it is not set.
    ///
    /// ```
    /// let embedder = lazytool_runtime::HttpEmbedder::new("http://127.0.0.1:8080", "m").unwrap();
    /// assert!(embedder.with_api_key_env("LAZYTOOL_DOC_UNSET_KEY").is_err());
    /// ```
    pub fn with_api_key_env(self, name: &str) -> Result<HttpEmbedder, EmbedError> {
        let key = std::env::var(name).map_err(|_| {
            EmbedError::new(format!(
                "the environment variable {name} (the embeddings endpoint's API key) is not set"
            ))
        })?;
        Ok(self.with_api_key(key))
    }

    /// Sends `Authorization: Bearer key`.
    ///
    /// ```
    /// let embedder = lazytool_runtime::HttpEmbedder::new("http://127.0.0.1:8080", "m").unwrap()
    ///     .with_api_key("sk-test");
    /// # let _ = embedder;
    /// ```
    pub fn with_api_key(self, key: impl Into<String>) -> HttpEmbedder {
        HttpEmbedder {
            api_key: Some(key.into()),
            ..self
        }
    }

    /// How long one request may take, connecting included (at least 1 ms).
    ///
    /// ```
    /// use std::time::Duration;
    /// let embedder = lazytool_runtime::HttpEmbedder::new("http://127.0.0.1:8080", "m").unwrap()
    ///     .with_timeout(Duration::from_secs(3));
    /// assert_eq!(embedder.timeout(), Duration::from_secs(3));
    /// ```
    pub fn with_timeout(self, timeout: Duration) -> HttpEmbedder {
        let embedder = HttpEmbedder {
            timeout: timeout.max(Duration::from_millis(1)),
            ..self
        };
        embedder.clone().with_client().unwrap_or(embedder)
    }

    /// How many texts one request carries (at least 1).
    ///
    /// ```
    /// let embedder = lazytool_runtime::HttpEmbedder::new("http://127.0.0.1:8080", "m").unwrap()
    ///     .with_max_batch(0);
    /// assert_eq!(lazytool_runtime::Embedder::max_batch(&embedder), 1);
    /// ```
    pub fn with_max_batch(self, max_batch: usize) -> HttpEmbedder {
        HttpEmbedder {
            max_batch: max_batch.max(1),
            ..self
        }
    }

    /// The endpoint's URL.
    ///
    /// ```
    /// let embedder = lazytool_runtime::HttpEmbedder::new("http://127.0.0.1:8080/v1/embeddings", "m").unwrap();
    /// assert_eq!(embedder.url(), "http://127.0.0.1:8080/v1/embeddings");
    /// ```
    pub fn url(&self) -> &str {
        &self.url
    }

    /// How long one request may take.
    ///
    /// ```
    /// let embedder = lazytool_runtime::HttpEmbedder::new("http://127.0.0.1:8080", "m").unwrap();
    /// assert_eq!(embedder.timeout().as_secs(), 30);
    /// ```
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    fn with_client(self) -> Result<HttpEmbedder, EmbedError> {
        let client = reqwest::Client::builder()
            .timeout(self.timeout)
            .build()
            .map_err(|error| EmbedError::new(format!("cannot build an HTTP client: {error}")))?;
        Ok(HttpEmbedder { client, ..self })
    }

    async fn vectors(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, EmbedError> {
        let count = texts.len();
        let mut request = self
            .client
            .post(&self.url)
            .json(&json!({"model": self.model, "input": texts}));
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(|error| {
            let why = if error.is_timeout() {
                format!("no answer within {} ms", self.timeout.as_millis())
            } else if error.is_connect() {
                "cannot connect".to_owned()
            } else {
                error.to_string()
            };
            EmbedError::new(format!("{}: {why}", self.url))
        })?;
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|error| EmbedError::new(format!("{}: {error}", self.url)))?;
        if !status.is_success() {
            let quoted =
                String::from_utf8_lossy(&body[..body.len().min(QUOTED_BYTES)]).into_owned();
            return Err(EmbedError::new(format!(
                "{} answered {status}: {quoted}",
                self.url
            )));
        }
        let answer: Value = serde_json::from_slice(&body)
            .map_err(|error| EmbedError::new(format!("{}: not JSON: {error}", self.url)))?;
        let data = answer["data"].as_array().ok_or_else(|| {
            EmbedError::new(format!("{}: the answer has no \"data\" list", self.url))
        })?;
        let mut vectors: Vec<Option<Vec<f32>>> = vec![None; count];
        for (at, item) in data.iter().enumerate() {
            let index = item["index"].as_u64().map_or(at, |index| index as usize);
            let vector = item["embedding"]
                .as_array()
                .and_then(|values| {
                    values
                        .iter()
                        .map(|value| value.as_f64().map(|value| value as f32))
                        .collect::<Option<Vec<f32>>>()
                })
                .ok_or_else(|| {
                    EmbedError::new(format!(
                        "{}: data[{at}].embedding is not a list of numbers",
                        self.url
                    ))
                })?;
            match vectors.get_mut(index) {
                Some(slot) => *slot = Some(vector),
                None => {
                    return Err(EmbedError::new(format!(
                        "{}: data[{at}].index {index} is past the {count} texts sent",
                        self.url
                    )));
                }
            }
        }
        vectors
            .into_iter()
            .enumerate()
            .map(|(at, vector)| {
                vector.ok_or_else(|| {
                    EmbedError::new(format!("{}: no vector for text {at}", self.url))
                })
            })
            .collect()
    }
}

/// The key is never shown: a logged configuration must not leak it.
impl std::fmt::Debug for HttpEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpEmbedder")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<hidden>"))
            .field("timeout", &self.timeout)
            .field("max_batch", &self.max_batch)
            .finish_non_exhaustive()
    }
}

impl Embedder for HttpEmbedder {
    fn id(&self) -> &str {
        &self.model
    }

    fn embed(&self, texts: Vec<String>) -> EmbedFuture<'_> {
        Box::pin(self.vectors(texts))
    }

    fn max_batch(&self) -> usize {
        self.max_batch
    }
}
