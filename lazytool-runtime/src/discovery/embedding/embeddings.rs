//! An embedder as the search uses it: [`Embeddings`].

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use foldhash::HashMap;

use super::disk_cache::{self, Key};
use super::sign_codes::Prefilter;
use super::tool_index::ToolIndex;
use super::vectors::{Vectors, checked};
use super::worker::{Failure, Worker};
use super::{Embedder, Fusion};

/// Queries longer than this are searched by their words only: no model reads that much,
/// and an endpoint would be sent it on every search.
pub const MAX_QUERY_BYTES: usize = 4096;

/// How long a search waits for its query's vector unless told otherwise.
const QUERY_TIMEOUT: Duration = Duration::from_secs(2);
/// How long one batch of tool texts may take unless told otherwise.
const BATCH_TIMEOUT: Duration = Duration::from_secs(120);
/// How many query vectors are kept unless told otherwise.
const QUERY_CACHE: usize = 1024;

/// Search by meaning as well as by words: an [`Embedder`], where its tool vectors are cached,
/// how long a search waits for it, and how the two rankings are fused ([`Fusion`]). Give it
/// to [`RegistryBuilder::embeddings`](crate::RegistryBuilder::embeddings).
///
/// The lazy tools' vectors are computed once, in the background, when a registry is built
/// (searches until then are lexical): from the cache on disk if one is set, where each is
/// keyed by the embedder's id and the hash of the tool's text (a changed description is
/// embedded again), else by the embedder. A registry rebuilt with the same handle (as the
/// gateway does when an upstream's tools change) embeds only the tools it has not seen. An
/// embedder that fails, answers late, or gives vectors of the wrong shape is never an
/// error to the model: the search goes on by words, and a warning names the embedder and
/// the reason (`tracing` target `lazytool::search`, and [`Embeddings::last_warning`]).
///
/// ```
/// use std::time::Duration;
/// use lazytool_runtime::{DynamicTool, Embeddings, Registry, TestEmbedder};
/// use serde_json::json;
///
/// let tool = |name: &str, description: &str| {
///     DynamicTool::new(name, description, json!({"type": "object"}), |_, _| async { Ok::<_, String>(json!(null)) })
///         .lazy(true)
/// };
/// // The test embedder knows that a car and an automobile are one thing.
/// let embeddings = Embeddings::new(TestEmbedder::new().same(["car", "automobile"]))
///     .with_query_timeout(Duration::from_secs(5));
/// let registry = Registry::builder()
///     .without_inventory()
///     .tools([tool("rent_automobile", "Reserve an automobile for some days."), tool("book_hotel", "Reserve a room.")])
///     .embeddings(embeddings)
///     .build()
///     .unwrap();
/// assert!(registry.wait_for_embeddings(Duration::from_secs(10)));
/// assert_eq!(registry.search("I need a car", 1)[0].name(), "rent_automobile");
/// ```
#[derive(Clone, Debug)]
pub struct Embeddings {
    shared: Arc<Shared>,
    cache_dir: Option<Arc<Path>>,
    query_timeout: Duration,
    batch_timeout: Duration,
    fusion: Fusion,
    prefilter: Prefilter,
}

#[derive(Debug)]
struct Shared {
    id: String,
    max_batch: usize,
    /// `None` when its thread could not start (then `last_warning` says why).
    worker: Option<Worker>,
    /// The vectors of the tools last indexed, so that a registry rebuilt with the same tools
    /// embeds none again (bounded by the catalog: each index replaces them).
    known: Mutex<HashMap<Key, Arc<[f32]>>>,
    queries: Mutex<QueryCache>,
    last_warning: Mutex<Option<String>>,
}

/// The last queries' vectors, oldest first out.
#[derive(Debug, Default)]
struct QueryCache {
    capacity: usize,
    vectors: HashMap<String, Arc<[f32]>>,
    order: VecDeque<String>,
}

impl Embeddings {
    /// Search with `embedder`'s vectors: no cache on disk, a query waits at most 2 s for its
    /// vector, the last 1,024 queries' vectors are kept, and the fusion is the default (a weight per query).
    ///
    /// ```
    /// use lazytool_runtime::{Embeddings, TestEmbedder};
    ///
    /// let embeddings = Embeddings::new(TestEmbedder::new());
    /// assert_eq!(embeddings.embedder_id(), "test-embedder");
    /// ```
    pub fn new(embedder: impl Embedder) -> Embeddings {
        Embeddings::from_arc(Arc::new(embedder))
    }

    /// [`Embeddings::new`] with a shared embedder.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use lazytool_runtime::{Embedder, Embeddings, TestEmbedder};
    ///
    /// let embedder: Arc<dyn Embedder> = Arc::new(TestEmbedder::new());
    /// let embeddings = Embeddings::from_arc(embedder);
    /// assert!(embeddings.last_warning().is_none());
    /// ```
    pub fn from_arc(embedder: Arc<dyn Embedder>) -> Embeddings {
        let id = embedder.id().to_owned();
        let max_batch = embedder.max_batch().max(1);
        let (worker, warning) = match Worker::start(embedder) {
            Ok(worker) => (Some(worker), None),
            Err(error) => (
                None,
                Some(format!("embedder {id}: {error}; lexical search only")),
            ),
        };
        if let Some(warning) = &warning {
            tracing::warn!(target: "lazytool::search", embedder = %id, "{warning}");
        }
        Embeddings {
            shared: Arc::new(Shared {
                id,
                max_batch,
                worker,
                known: Mutex::default(),
                queries: Mutex::new(QueryCache {
                    capacity: QUERY_CACHE,
                    ..QueryCache::default()
                }),
                last_warning: Mutex::new(warning),
            }),
            cache_dir: None,
            query_timeout: QUERY_TIMEOUT,
            batch_timeout: BATCH_TIMEOUT,
            fusion: Fusion::default(),
            prefilter: Prefilter::default(),
        }
    }

    /// Keeps tool vectors in `dir` (created when first written), one file per tool text and
    /// model, so that the next start with the same tools embeds none of them.
    ///
    /// ```
    /// use lazytool_runtime::{Embeddings, TestEmbedder};
    ///
    /// let embeddings = Embeddings::new(TestEmbedder::new()).with_cache_dir("target/vectors");
    /// assert_eq!(embeddings.cache_dir(), Some(std::path::Path::new("target/vectors")));
    /// ```
    pub fn with_cache_dir(self, dir: impl Into<PathBuf>) -> Embeddings {
        Embeddings {
            cache_dir: Some(Arc::from(dir.into())),
            ..self
        }
    }

    /// How long a search waits for its query's vector before it goes on by words (2 s
    /// unless set; a search waits, so keep it short).
    ///
    /// ```
    /// use std::time::Duration;
    /// use lazytool_runtime::{Embeddings, TestEmbedder};
    ///
    /// let embeddings = Embeddings::new(TestEmbedder::new()).with_query_timeout(Duration::from_millis(300));
    /// assert_eq!(embeddings.query_timeout(), Duration::from_millis(300));
    /// ```
    pub fn with_query_timeout(self, timeout: Duration) -> Embeddings {
        Embeddings {
            query_timeout: timeout,
            ..self
        }
    }

    /// How long one batch of tool texts may take before indexing gives up and the search
    /// stays lexical (120 s unless set).
    ///
    /// ```
    /// use std::time::Duration;
    /// use lazytool_runtime::{Embeddings, TestEmbedder};
    ///
    /// let embeddings = Embeddings::new(TestEmbedder::new()).with_batch_timeout(Duration::from_secs(30));
    /// assert_eq!(embeddings.batch_timeout(), Duration::from_secs(30));
    /// ```
    pub fn with_batch_timeout(self, timeout: Duration) -> Embeddings {
        Embeddings {
            batch_timeout: timeout,
            ..self
        }
    }

    /// How the lexical and dense rankings are fused ([`Fusion::default`], a weight per query, unless set).
    ///
    /// ```
    /// use lazytool_runtime::{Embeddings, Fusion, TestEmbedder};
    ///
    /// let embeddings = Embeddings::new(TestEmbedder::new()).with_fusion(Fusion::fixed(0.5));
    /// assert_eq!(embeddings.fusion(), Fusion::fixed(0.5));
    /// ```
    pub fn with_fusion(self, fusion: Fusion) -> Embeddings {
        Embeddings { fusion, ..self }
    }

    /// Catalogs of up to `rows` tools are ranked by meaning with an exact scan of every
    /// tool's vector (1,000 unless set); larger ones first by the vectors' signs, one bit a
    /// dimension, and then exactly among the candidates (see [`Embeddings::with_candidates`]).
    /// The signs cost 48 bytes a tool more at 384 dimensions, built with the tool vectors.
    ///
    /// Measured (BENCHMARKS.md, "Search by meaning"), at 384 dimensions: the exact scan reads
    /// every vector, 1.5 KB a tool, and takes about as long as the signs first at 500 tools,
    /// three times as long at 2,000 (0.12 ms against 0.04) and seven times at 10,000. With the
    /// default candidates the signs rank BFCL's 2,101 tools exactly as the exact scan does,
    /// and search by meaning adds 1.6 ms to a search at 100,000 tools (17 ms with the exact
    /// scan). `usize::MAX` scans exactly whatever the size; 0 always takes the signs first.
    ///
    /// ```
    /// use lazytool_runtime::{Embeddings, TestEmbedder};
    ///
    /// let embeddings = Embeddings::new(TestEmbedder::new()).with_exact_scan_up_to(50_000);
    /// assert_eq!(embeddings.exact_scan_up_to(), 50_000);
    /// ```
    pub fn with_exact_scan_up_to(mut self, rows: usize) -> Embeddings {
        self.prefilter.exact_up_to = rows;
        self
    }

    /// How many candidates the signs choose for the exact ranking, above
    /// [`Embeddings::exact_scan_up_to`]: `per_result` for each of the nearest tools the
    /// fusion asks for ([`Fusion::depth`]), or one tool in `one_in` of the catalog, whichever
    /// is more (16 and 32 unless set; 0 counts as 1). More candidates find more of the exact
    /// ranking and cost more: at 100,000 tools the defaults rescore 3,125.
    ///
    /// ```
    /// use lazytool_runtime::{Embeddings, TestEmbedder};
    ///
    /// let embeddings = Embeddings::new(TestEmbedder::new()).with_candidates(32, 16);
    /// // 30 nearest asked for among 100,000 tools: 100,000 / 16 candidates.
    /// assert_eq!(embeddings.candidates(100_000, 30), 6_250);
    /// // Among 2,000: 30 × 32.
    /// assert_eq!(embeddings.candidates(2_000, 30), 960);
    /// ```
    pub fn with_candidates(mut self, per_result: usize, one_in: usize) -> Embeddings {
        self.prefilter.per_result = per_result.max(1);
        self.prefilter.one_in = one_in.max(1);
        self
    }

    /// Up to how many tools the ranking by meaning scans every vector exactly.
    ///
    /// ```
    /// use lazytool_runtime::{Embeddings, TestEmbedder};
    ///
    /// assert_eq!(Embeddings::new(TestEmbedder::new()).exact_scan_up_to(), 1_000);
    /// ```
    pub fn exact_scan_up_to(&self) -> usize {
        self.prefilter.exact_up_to
    }

    /// How many candidates the signs choose for the `depth` nearest of `tools` tools (see
    /// [`Embeddings::with_candidates`]).
    ///
    /// ```
    /// use lazytool_runtime::{Embeddings, TestEmbedder};
    ///
    /// let embeddings = Embeddings::new(TestEmbedder::new());
    /// assert_eq!(embeddings.candidates(100_000, 30), 3_125);
    /// assert_eq!(embeddings.candidates(30_000, 30), 937);
    /// ```
    pub fn candidates(&self, tools: usize, depth: usize) -> usize {
        self.prefilter.candidates(tools, depth)
    }

    /// How many queries' vectors are kept, so that a repeated query is not embedded again
    /// (1,024 unless set; 0 keeps none). Shared by every clone of this handle.
    ///
    /// ```
    /// use lazytool_runtime::{Embeddings, TestEmbedder};
    ///
    /// let embeddings = Embeddings::new(TestEmbedder::new()).with_query_cache(10_000);
    /// # let _ = embeddings;
    /// ```
    pub fn with_query_cache(self, capacity: usize) -> Embeddings {
        let mut queries = self
            .shared
            .queries
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        queries.capacity = capacity;
        queries.shrink();
        drop(queries);
        self
    }

    /// The embedder's id ([`Embedder::id`]).
    ///
    /// ```
    /// use lazytool_runtime::{Embeddings, TestEmbedder};
    ///
    /// assert_eq!(Embeddings::new(TestEmbedder::new()).embedder_id(), "test-embedder");
    /// ```
    pub fn embedder_id(&self) -> &str {
        &self.shared.id
    }

    /// Where tool vectors are cached, if anywhere.
    ///
    /// ```
    /// use lazytool_runtime::{Embeddings, TestEmbedder};
    ///
    /// assert!(Embeddings::new(TestEmbedder::new()).cache_dir().is_none());
    /// ```
    pub fn cache_dir(&self) -> Option<&Path> {
        self.cache_dir.as_deref()
    }

    /// How long a search waits for its query's vector.
    ///
    /// ```
    /// use lazytool_runtime::{Embeddings, TestEmbedder};
    ///
    /// assert_eq!(Embeddings::new(TestEmbedder::new()).query_timeout().as_secs(), 2);
    /// ```
    pub fn query_timeout(&self) -> Duration {
        self.query_timeout
    }

    /// How long one batch of tool texts may take.
    ///
    /// ```
    /// use lazytool_runtime::{Embeddings, TestEmbedder};
    ///
    /// assert_eq!(Embeddings::new(TestEmbedder::new()).batch_timeout().as_secs(), 120);
    /// ```
    pub fn batch_timeout(&self) -> Duration {
        self.batch_timeout
    }

    /// How the two rankings are fused.
    ///
    /// ```
    /// use lazytool_runtime::{Embeddings, Fusion, TestEmbedder};
    ///
    /// assert_eq!(Embeddings::new(TestEmbedder::new()).fusion(), Fusion::default());
    /// ```
    pub fn fusion(&self) -> Fusion {
        self.fusion
    }

    /// The last warning: why the search went on by words only, naming the embedder.
    ///
    /// ```
    /// use lazytool_runtime::{Embeddings, TestEmbedder};
    ///
    /// assert_eq!(Embeddings::new(TestEmbedder::new()).last_warning(), None);
    /// ```
    pub fn last_warning(&self) -> Option<String> {
        self.shared
            .last_warning
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Logs and keeps a warning about the embedder: `what` went wrong, the search goes on
    /// by words.
    pub(crate) fn warn(&self, what: &str) {
        let warning = format!("embedder {}: {what}; lexical search only", self.shared.id);
        tracing::warn!(target: "lazytool::search", embedder = %self.shared.id, "{warning}");
        *self
            .shared
            .last_warning
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(warning);
    }

    /// Starts computing the vectors of `texts` (the lazy tools' texts, in order) in the
    /// background; the index is ready when they are all there.
    pub(crate) fn index(&self, texts: Vec<String>) -> Arc<ToolIndex> {
        let index = Arc::new(ToolIndex::default());
        let Some(worker) = &self.shared.worker else {
            index.fail();
            return index;
        };
        let this = self.clone();
        let filled = Arc::clone(&index);
        let sent = worker.send(move |embed| {
            match this.tool_vectors(texts, |batch| Ok(embed.embed(batch, this.batch_timeout)?)) {
                Ok(vectors) => filled.fill(vectors),
                Err(error) => {
                    this.warn(&format!("cannot embed the tools: {error}"));
                    filled.fail();
                }
            }
        });
        if !sent {
            self.warn("its thread has stopped");
            index.fail();
        }
        index
    }

    /// The unit vectors of `texts`, from memory, the disk cache, or `embed` in batches.
    fn tool_vectors(
        &self,
        texts: Vec<String>,
        mut embed: impl FnMut(Vec<String>) -> Result<Vec<Vec<f32>>, super::EmbedError>,
    ) -> Result<Vectors, String> {
        let id = &self.shared.id;
        let keys: Vec<Key> = texts.iter().map(|text| disk_cache::key(id, text)).collect();
        let mut found: Vec<Option<Arc<[f32]>>> = {
            let known = self
                .shared
                .known
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            keys.iter().map(|key| known.get(key).cloned()).collect()
        };
        let mut dimension = found.iter().flatten().map(|vector| vector.len()).next();
        if let Some(dir) = &self.cache_dir {
            for (slot, key) in found
                .iter_mut()
                .zip(&keys)
                .filter(|(slot, _)| slot.is_none())
            {
                if let Some(vector) = disk_cache::read(dir, id, key, dimension)
                    .and_then(|vector| checked(vec![vector], 1, dimension).ok())
                    .and_then(|mut vectors| vectors.pop())
                {
                    dimension = Some(vector.len());
                    *slot = Some(Arc::from(vector));
                }
            }
        }
        let missing: Vec<usize> = (0..texts.len()).filter(|&at| found[at].is_none()).collect();
        let mut write_failed = None;
        for batch in missing.chunks(self.shared.max_batch) {
            let batch_texts: Vec<String> = batch.iter().map(|&at| texts[at].clone()).collect();
            let vectors = embed(batch_texts)
                .and_then(|vectors| checked(vectors, batch.len(), dimension))
                .map_err(|error| error.to_string())?;
            for (&at, vector) in batch.iter().zip(vectors) {
                dimension = Some(vector.len());
                if let Some(dir) = &self.cache_dir
                    && let Err(error) = disk_cache::write(dir, id, &keys[at], &vector)
                {
                    write_failed = Some(format!("{}: {error}", dir.display()));
                }
                found[at] = Some(Arc::from(vector));
            }
        }
        if let Some(error) = write_failed {
            tracing::warn!(target: "lazytool::search", embedder = %id, "embedder {id}: cannot cache tool vectors in {error}");
        }
        let rows: Vec<Arc<[f32]>> = found.into_iter().flatten().collect();
        *self
            .shared
            .known
            .lock()
            .unwrap_or_else(PoisonError::into_inner) =
            keys.into_iter().zip(rows.iter().cloned()).collect();
        Ok(
            Vectors::new(dimension.unwrap_or_default(), rows.iter().map(|row| &**row))
                .with_prefilter(self.prefilter),
        )
    }

    /// The unit vector of `query`, `dimension` wide, or `None` after a warning.
    pub(crate) fn query(&self, query: &str, dimension: usize) -> Option<Arc<[f32]>> {
        if query.len() > MAX_QUERY_BYTES {
            self.warn(&format!(
                "a query of {} bytes is over the {MAX_QUERY_BYTES} it is sent",
                query.len()
            ));
            return None;
        }
        if let Some(vector) = self.cached_query(query) {
            return Some(vector);
        }
        let Some(worker) = &self.shared.worker else {
            self.warn("it has no thread");
            return None;
        };
        let (reply, answer) = std::sync::mpsc::sync_channel(1);
        let text = query.to_owned();
        let timeout = self.query_timeout;
        if !worker.send(move |embed| {
            let _ = reply.send(embed.embed(vec![text], timeout));
        }) {
            self.warn("its thread has stopped");
            return None;
        }
        let vectors = match answer.recv_timeout(self.query_timeout) {
            Ok(Ok(vectors)) => vectors,
            Ok(Err(Failure::Embedder(error))) => {
                self.warn(&format!("no query vector: {error}"));
                return None;
            }
            // The worker's timer and this one are the same length: under load either may end
            // first, and the warning must not depend on which.
            Ok(Err(Failure::Elapsed(_))) | Err(_) => {
                self.warn(&format!(
                    "no query vector within {} ms",
                    self.query_timeout.as_millis()
                ));
                return None;
            }
        };
        match checked(vectors, 1, Some(dimension)) {
            Ok(mut vectors) => {
                let vector: Arc<[f32]> = Arc::from(vectors.pop()?);
                self.keep_query(query, &vector);
                Some(vector)
            }
            Err(error) => {
                self.warn(&format!("bad query vector: {error}"));
                None
            }
        }
    }

    fn cached_query(&self, query: &str) -> Option<Arc<[f32]>> {
        let queries = self
            .shared
            .queries
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        queries.vectors.get(query).cloned()
    }

    fn keep_query(&self, query: &str, vector: &Arc<[f32]>) {
        let mut queries = self
            .shared
            .queries
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if queries.capacity == 0 || queries.vectors.contains_key(query) {
            return;
        }
        queries.vectors.insert(query.to_owned(), Arc::clone(vector));
        queries.order.push_back(query.to_owned());
        queries.shrink();
    }
}

impl QueryCache {
    /// Drops the oldest vectors over the capacity.
    fn shrink(&mut self) {
        while self.order.len() > self.capacity {
            if let Some(oldest) = self.order.pop_front() {
                self.vectors.remove(&oldest);
            }
        }
    }
}
