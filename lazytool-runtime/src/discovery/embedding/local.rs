//! A sentence-transformers model run in-process on the CPU: [`LocalEmbedder`].

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::{EmbedError, EmbedFuture, Embedder};

/// The longest input read unless the directory's `sentence_bert_config.json` says less.
const MAX_TOKENS: usize = 512;

/// A BERT sentence-transformers model directory, as the Hugging Face hub lays it out
/// (`config.json`, `model.safetensors`, `tokenizer.json`, and `sentence_bert_config.json`
/// for the longest input), run with candle on the CPU: tokens, the encoder, the mean of the
/// token vectors (padding left out), normalised. `all-MiniLM-L6-v2` is the one measured
/// (BENCHMARKS.md); nothing is downloaded, ever.
///
/// Threads: candle's CPU kernels use rayon, whose pool size `RAYON_NUM_THREADS` sets.
///
/// ```no_run
/// use lazytool_runtime::{Embeddings, LocalEmbedder};
///
/// let model = LocalEmbedder::open("models/all-MiniLM-L6-v2").expect("a BERT model directory");
/// let embeddings = Embeddings::new(model).with_cache_dir(".lazytool/vectors");
/// # let _ = embeddings;
/// ```
pub struct LocalEmbedder {
    id: String,
    model: BertModel,
    tokenizer: Tokenizer,
}

impl std::fmt::Debug for LocalEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEmbedder")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl LocalEmbedder {
    /// Loads the model in `dir`; its id is the directory's name. Errors name the file that
    /// is missing or of the wrong shape.
    ///
    /// ```
    /// let error = lazytool_runtime::LocalEmbedder::open("no/such/model").unwrap_err();
    /// assert_eq!(error.to_string(), "no/such/model/config.json: cannot read it: No such file or directory (os error 2)");
    /// ```
    pub fn open(dir: impl AsRef<Path>) -> Result<LocalEmbedder, EmbedError> {
        let dir = dir.as_ref();
        let file = |name: &str| -> PathBuf { dir.join(name) };
        let read = |path: &Path| {
            std::fs::read(path).map_err(|error| {
                EmbedError::new(format!("{}: cannot read it: {error}", path.display()))
            })
        };
        let config_path = file("config.json");
        let config_text = read(&config_path)?;
        let shape: serde_json::Value = serde_json::from_slice(&config_text).map_err(|error| {
            EmbedError::new(format!("{}: not JSON: {error}", config_path.display()))
        })?;
        let model_type = shape["model_type"].as_str().unwrap_or_default();
        if model_type != "bert" {
            return Err(EmbedError::new(format!(
                "{}: model_type {model_type:?} is not \"bert\", the only one supported",
                config_path.display()
            )));
        }
        let config: Config = serde_json::from_slice(&config_text).map_err(|error| {
            EmbedError::new(format!(
                "{}: not a BERT config: {error}",
                config_path.display()
            ))
        })?;
        let weights_path = file("model.safetensors");
        let weights = read(&weights_path)?;
        let device = Device::Cpu;
        let model = VarBuilder::from_buffered_safetensors(weights, DType::F32, &device)
            .and_then(|weights| BertModel::load(weights, &config))
            .map_err(|error| {
                EmbedError::new(format!(
                    "{}: not the weights of this BERT config: {error}",
                    weights_path.display()
                ))
            })?;
        let tokenizer_path = file("tokenizer.json");
        let mut tokenizer = Tokenizer::from_bytes(read(&tokenizer_path)?).map_err(|error| {
            EmbedError::new(format!(
                "{}: not a tokenizer: {error}",
                tokenizer_path.display()
            ))
        })?;
        let max_tokens = std::fs::read(file("sentence_bert_config.json"))
            .ok()
            .and_then(|text| serde_json::from_slice::<serde_json::Value>(&text).ok())
            .and_then(|config| config["max_seq_length"].as_u64())
            .map_or(MAX_TOKENS, |max| (max as usize).min(MAX_TOKENS))
            .min(config.max_position_embeddings);
        let pad_id = tokenizer.get_padding().map_or(0, |padding| padding.pad_id);
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            pad_id,
            ..PaddingParams::default()
        }));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_tokens,
                ..TruncationParams::default()
            }))
            .map_err(|error| EmbedError::new(format!("{}: {error}", tokenizer_path.display())))?;
        let id = dir.file_name().map_or_else(
            || dir.display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        );
        Ok(LocalEmbedder {
            id,
            model,
            tokenizer,
        })
    }

    /// The mean-pooled vectors of `texts`.
    fn vectors(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encodings = self
            .tokenizer
            .encode_batch(texts, true)
            .map_err(|error| EmbedError::new(format!("cannot tokenize: {error}")))?;
        let device = &self.model.device;
        let rows = |field: fn(&tokenizers::Encoding) -> &[u32]| -> candle_core::Result<Tensor> {
            let rows: Vec<Tensor> = encodings
                .iter()
                .map(|encoding| Tensor::new(field(encoding), device))
                .collect::<candle_core::Result<_>>()?;
            Tensor::stack(&rows, 0)
        };
        let pooled = (|| -> candle_core::Result<Vec<Vec<f32>>> {
            let ids = rows(tokenizers::Encoding::get_ids)?;
            let types = rows(tokenizers::Encoding::get_type_ids)?;
            let mask = rows(tokenizers::Encoding::get_attention_mask)?;
            let hidden = self.model.forward(&ids, &types, Some(&mask))?;
            let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
            let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
            let counts = mask.sum(1)?.clamp(1e-9, f64::MAX)?;
            summed.broadcast_div(&counts)?.to_vec2::<f32>()
        })();
        pooled.map_err(|error| EmbedError::new(format!("inference failed: {error}")))
    }
}

impl Embedder for LocalEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn embed(&self, texts: Vec<String>) -> EmbedFuture<'_> {
        Box::pin(async move { self.vectors(texts) })
    }
}
