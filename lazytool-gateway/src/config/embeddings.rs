//! `lazytool.search.embeddings`: search by meaning as well as by words, with an
//! OpenAI-compatible endpoint (`url`, `model`) or a local sentence-transformers directory
//! (`modelDir`, in a gateway built with the feature `embed-local`).

use std::path::PathBuf;
use std::time::Duration;

use lazytool_runtime::{Embedder, Embeddings, HttpEmbedder};
use serde_json::{Map, Value};

use super::reader::{Reader, child};

const SEARCH_KEYS: &[&str] = &["embeddings"];
const EMBEDDINGS_KEYS: &[&str] = &[
    "url",
    "model",
    "apiKeyEnv",
    "modelDir",
    "timeoutMs",
    "queryTimeoutMs",
    "batchSize",
    "cacheDir",
];

/// Where tool vectors are kept unless `cacheDir` says: under the user's cache directory.
fn default_cache_dir(var: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    match var("XDG_CACHE_HOME") {
        Some(cache) if !cache.is_empty() => Some(PathBuf::from(cache).join("lazytool/vectors")),
        _ => var("HOME").map(|home| PathBuf::from(home).join(".cache/lazytool/vectors")),
    }
}

impl Reader<'_> {
    /// The embeddings `lazytool.search` asks for, if any.
    pub(super) fn search(&mut self, search: &Value) -> Option<Embeddings> {
        let path = "$.lazytool.search";
        let search = self.object(search, path)?;
        self.unknown_keys(search, path, SEARCH_KEYS);
        let path = child(path, "embeddings");
        let section = self.object(search.get("embeddings")?, &path)?;
        self.unknown_keys(section, &path, EMBEDDINGS_KEYS);
        let embedder = self.embedder(section, &path)?;
        let mut embeddings = Embeddings::from_arc(embedder);
        if let Some(timeout) = section.get("queryTimeoutMs") {
            let timeout = self.millis(
                Some(timeout),
                &child(&path, "queryTimeoutMs"),
                Duration::ZERO,
            );
            embeddings = embeddings.with_query_timeout(timeout);
        }
        let cache = match section.get("cacheDir") {
            Some(dir) => self
                .string(dir, &child(&path, "cacheDir"))
                .map(PathBuf::from),
            None => default_cache_dir(self.var),
        };
        Some(match cache {
            Some(dir) => embeddings.with_cache_dir(dir),
            None => embeddings,
        })
    }

    fn embedder(
        &mut self,
        section: &Map<String, Value>,
        path: &str,
    ) -> Option<std::sync::Arc<dyn Embedder>> {
        let text = |reader: &mut Self, key: &str| {
            section
                .get(key)
                .and_then(|value| reader.string(value, &child(path, key)))
        };
        match (text(self, "url"), text(self, "modelDir")) {
            (Some(url), None) => {
                let Some(model) = text(self, "model") else {
                    self.problem(
                        path,
                        "`url` needs `model`, the name the endpoint knows the model by",
                    );
                    return None;
                };
                let mut embedder = match HttpEmbedder::new(&url, &model) {
                    Ok(embedder) => embedder,
                    Err(error) => {
                        self.problem(&child(path, "url"), error);
                        return None;
                    }
                };
                if let Some(variable) = text(self, "apiKeyEnv") {
                    match (self.var)(&variable) {
                        Some(key) => embedder = embedder.with_api_key(key),
                        None => {
                            self.problem(
                                &child(path, "apiKeyEnv"),
                                format!("the environment variable {variable} is not set"),
                            );
                            return None;
                        }
                    }
                }
                if let Some(timeout) = section.get("timeoutMs") {
                    let timeout =
                        self.millis(Some(timeout), &child(path, "timeoutMs"), Duration::ZERO);
                    embedder = embedder.with_timeout(timeout);
                }
                if let Some(batch) = section.get("batchSize") {
                    let batch = self.positive(Some(batch), &child(path, "batchSize"), 1, "texts");
                    embedder = embedder.with_max_batch(batch as usize);
                }
                Some(std::sync::Arc::new(embedder))
            }
            (None, Some(dir)) => self.local(&dir, path),
            (Some(_), Some(_)) => {
                self.problem(path, "`url` and `modelDir`: one or the other");
                None
            }
            (None, None) => {
                self.problem(
                    path,
                    "needs `url` and `model` (an OpenAI-compatible endpoint) or `modelDir` (a sentence-transformers directory)",
                );
                None
            }
        }
    }

    #[cfg(feature = "embed-local")]
    fn local(&mut self, dir: &str, path: &str) -> Option<std::sync::Arc<dyn Embedder>> {
        match lazytool_runtime::LocalEmbedder::open(dir) {
            Ok(model) => Some(std::sync::Arc::new(model)),
            Err(error) => {
                self.problem(&child(path, "modelDir"), error);
                None
            }
        }
    }

    #[cfg(not(feature = "embed-local"))]
    fn local(&mut self, _dir: &str, path: &str) -> Option<std::sync::Arc<dyn Embedder>> {
        self.problem(
            &child(path, "modelDir"),
            "this gateway runs no local model: install it with `--features embed-local`, or use `url` and `model`",
        );
        None
    }
}
