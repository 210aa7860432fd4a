//! Ranks the tools of a catalog for a query, as search discovery does.
//!
//! ```text
//! cargo run --release --example tool_search -- CATALOG.json "QUERY" [LIMIT]
//! cargo run --release --example tool_search -- CATALOG.json --queries FILE.jsonl
//!     [--embed-url URL --embed-name MODEL [--embed-key-env VAR] | --embed-model DIR]
//!     [--embed-cache DIR] [--fusion dense|by-catalog|fixed:W|adaptive:UNSURE,SURE]
//!     [--exact-scan-up-to TOOLS [--candidates PER_RESULT,ONE_IN]] [--timings] [--explain]
//! ```
//!
//! The catalog has the shape of `data/github-mcp-tools.json`
//! (`{"tools":[{"name","description","inputSchema"}]}`); its tools are loaded as lazy dynamic
//! tools. With a query, the best matches are printed one name per line, best first (10 by
//! default). With `--queries`, each line of FILE.jsonl (`{"query": ...}`) gives one line
//! `{"query": ..., "ranking": [names, best first]}` on stdout, in order, 10 deep.
//!
//! `--embed-url` (an OpenAI-compatible endpoint: Ollama, llama.cpp, vLLM, TEI, OpenAI) with
//! `--embed-name`, or `--embed-model` (a sentence-transformers directory, run in-process;
//! this example must then be built with `--features embed-local`), turn on the search by
//! meaning as well as by words. `--embed-cache DIR` keeps the tool vectors between runs (and,
//! for measurements, the queries' too, in `DIR/texts-MODEL.jsonl`);
//! `--fusion` replaces the adaptive fusion (for measurements: `Fusion`'s constructors,
//! `by-catalog` for issue 40's weights),
//! `--exact-scan-up-to` the catalog size above which the vectors' signs choose candidates
//! first (`Embeddings::with_exact_scan_up_to`; 0 to measure that on a small catalog) and
//! `--candidates` how many (`Embeddings::with_candidates`), and
//! `--timings` writes to stderr how long the tool vectors and the searches took, and
//! `--explain` (built with `--features search-features`) adds to each `--queries` line both
//! rankings 30 deep with their scores, the fusion's signals, its dense weight and why
//! (`Registry::explain_search`), what `bench/search/fusion_fit.py` reads.

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use lazytool_runtime::{
    EmbedFuture, Embedder, Embeddings, Fusion, HttpEmbedder, Registry, catalog_tools,
};
use serde_json::{Value, json};

const USAGE: &str = "usage: tool_search CATALOG.json (\"QUERY\" [LIMIT] | --queries FILE.jsonl) [--embed-url URL --embed-name MODEL [--embed-key-env VAR] | --embed-model DIR] [--embed-cache DIR] [--fusion dense|by-catalog|fixed:W|adaptive:UNSURE,SURE] [--exact-scan-up-to TOOLS [--candidates PER_RESULT,ONE_IN]] [--timings] [--explain]";

/// How long the tool vectors may take to compute before the search goes on by words.
const INDEX_WAIT: Duration = Duration::from_secs(3600);

#[derive(Default)]
struct Options {
    catalog: String,
    query: Option<String>,
    limit: Option<String>,
    queries: Option<String>,
    embed_url: Option<String>,
    embed_name: Option<String>,
    embed_key_env: Option<String>,
    embed_model: Option<String>,
    embed_cache: Option<String>,
    fusion: Option<String>,
    exact_scan_up_to: Option<usize>,
    candidates: Option<(usize, usize)>,
    timings: bool,
    explain: bool,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = options()?;
    let catalog: Value = serde_json::from_str(&std::fs::read_to_string(&options.catalog)?)?;
    let tools = catalog_tools(&catalog, |_, _, _| async { Ok::<_, String>(Value::Null) })?;
    let mut builder = Registry::builder()
        .without_inventory()
        .tools(tools.into_iter().map(|tool| tool.lazy(true)));
    if let Some(embeddings) = embeddings(&options)? {
        builder = builder.embeddings(embeddings);
    }
    let started = Instant::now();
    let registry = builder.build()?;
    if let Some(embeddings) = registry.embeddings()
        && !registry.wait_for_embeddings(INDEX_WAIT)
    {
        let warning = embeddings.last_warning().unwrap_or_default();
        return Err(format!("tool_search: no tool vectors: {warning}").into());
    }
    if options.timings {
        eprintln!(
            "tool_search: {} tools indexed in {:.3} s",
            registry.len(),
            started.elapsed().as_secs_f64()
        );
    }
    let mut durations: Vec<Duration> = Vec::new();

    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if let Some(path) = &options.queries {
        let file = std::fs::File::open(path).map_err(|error| format!("{path}: {error}"))?;
        for (at, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|error| format!("{path}: {error}"))?;
            if line.trim().is_empty() {
                continue;
            }
            let query = serde_json::from_str::<Value>(&line)
                .ok()
                .and_then(|value| value["query"].as_str().map(str::to_owned))
                .ok_or_else(|| format!("{path}:{}: not a {{\"query\": string}} line", at + 1))?;
            let searched = Instant::now();
            let ranking: Vec<&str> = registry
                .search(&query, 10)
                .into_iter()
                .map(|tool| tool.name())
                .collect();
            durations.push(searched.elapsed());
            let mut line = json!({"query": query, "ranking": ranking});
            if options.explain {
                explain(&registry, &query, &mut line)?;
            }
            writeln!(out, "{line}")?;
        }
        if options.timings && !durations.is_empty() {
            durations.sort();
            let at = |share: f64| durations[((durations.len() - 1) as f64 * share) as usize];
            eprintln!(
                "tool_search: {} searches, p50 {:.2} ms, p90 {:.2} ms",
                durations.len(),
                at(0.5).as_secs_f64() * 1e3,
                at(0.9).as_secs_f64() * 1e3
            );
        }
        if let Some(warning) = registry.embeddings().and_then(Embeddings::last_warning) {
            eprintln!("tool_search: {warning}");
        }
        return Ok(());
    }
    let query = options.query.as_deref().ok_or(USAGE)?;
    let limit = match &options.limit {
        Some(limit) => limit
            .parse()
            .map_err(|_| "LIMIT must be a positive integer")?,
        None => 10,
    };
    for tool in registry.search(query, limit) {
        writeln!(out, "{}", tool.name())?;
    }
    Ok(())
}

fn options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        catalog: args.next().ok_or(USAGE)?,
        ..Options::default()
    };
    let mut positional = Vec::new();
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--queries" => options.queries = Some(value()?),
            "--embed-url" => options.embed_url = Some(value()?),
            "--embed-name" => options.embed_name = Some(value()?),
            "--embed-key-env" => options.embed_key_env = Some(value()?),
            "--embed-model" => options.embed_model = Some(value()?),
            "--embed-cache" => options.embed_cache = Some(value()?),
            "--fusion" => options.fusion = Some(value()?),
            "--exact-scan-up-to" => {
                let tools = value()?;
                options.exact_scan_up_to = Some(tools.parse().map_err(|_| {
                    format!("--exact-scan-up-to {tools}: not a number of tools (0 or more)")
                })?);
            }
            "--candidates" => {
                let spec = value()?;
                let parsed = spec
                    .split_once(',')
                    .and_then(|(per, one_in)| Some((per.parse().ok()?, one_in.parse().ok()?)));
                options.candidates = Some(parsed.ok_or_else(|| {
                    format!("--candidates {spec}: not PER_RESULT,ONE_IN (two numbers)")
                })?);
            }
            "--timings" => options.timings = true,
            "--explain" => options.explain = true,
            flag if flag.starts_with("--") => return Err(format!("unknown flag {flag}\n{USAGE}")),
            _ => positional.push(arg),
        }
    }
    let mut positional = positional.into_iter();
    options.query = positional.next();
    options.limit = positional.next();
    if positional.next().is_some() || options.query.is_some() == options.queries.is_some() {
        return Err(USAGE.to_owned());
    }
    Ok(options)
}

fn embeddings(options: &Options) -> Result<Option<Embeddings>, Box<dyn std::error::Error>> {
    let embeddings = match (&options.embed_url, &options.embed_model) {
        (Some(_), Some(_)) => return Err("--embed-url and --embed-model: one or the other".into()),
        (Some(url), None) => {
            let name = options
                .embed_name
                .as_deref()
                .ok_or("--embed-url needs --embed-name MODEL")?;
            let mut embedder = HttpEmbedder::new(url, name)?;
            if let Some(variable) = &options.embed_key_env {
                embedder = embedder.with_api_key_env(variable)?;
            }
            Arc::new(embedder) as Arc<dyn Embedder>
        }
        (None, Some(dir)) => local_model(dir)?,
        (None, None) => return Ok(None),
    };
    let embeddings = Embeddings::from_arc(match &options.embed_cache {
        Some(dir) => Arc::new(Remembered::open(embeddings, dir)?),
        None => embeddings,
    });
    let fusion = match options.fusion.as_deref() {
        None => Fusion::default(),
        Some(spec) => fusion(spec).ok_or_else(|| {
            format!("--fusion {spec}: not dense, by-catalog, fixed:W or adaptive:UNSURE,SURE")
        })?,
    };
    let embeddings = embeddings
        .with_query_timeout(Duration::from_secs(60))
        .with_query_cache(0)
        .with_fusion(fusion);
    let embeddings = match options.exact_scan_up_to {
        Some(tools) => embeddings.with_exact_scan_up_to(tools),
        None => embeddings,
    };
    let embeddings = match options.candidates {
        Some((per_result, one_in)) => embeddings.with_candidates(per_result, one_in),
        None => embeddings,
    };
    Ok(Some(match &options.embed_cache {
        Some(dir) => embeddings.with_cache_dir(dir),
        None => embeddings,
    }))
}

/// An embedder whose vectors are kept in a file, so that measuring fusions again embeds no
/// query again.
struct Remembered {
    inner: Arc<dyn Embedder>,
    path: std::path::PathBuf,
    known: Mutex<HashMap<String, Vec<f32>>>,
}

impl Remembered {
    fn open(inner: Arc<dyn Embedder>, dir: &str) -> Result<Remembered, String> {
        let name: String = (inner.id().chars())
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        std::fs::create_dir_all(dir).map_err(|error| format!("{dir}: {error}"))?;
        let path = std::path::Path::new(dir).join(format!("texts-{name}.jsonl"));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let known = (text.lines())
            .filter_map(|line| serde_json::from_str::<(String, Vec<f32>)>(line).ok())
            .collect();
        Ok(Remembered {
            inner,
            path,
            known: Mutex::new(known),
        })
    }
}

impl Embedder for Remembered {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn max_batch(&self) -> usize {
        self.inner.max_batch()
    }

    fn embed(&self, texts: Vec<String>) -> EmbedFuture<'_> {
        Box::pin(async move {
            let known = |text: &String| self.known.lock().ok()?.get(text).cloned();
            let missing: Vec<String> = texts
                .iter()
                .filter(|t| known(t).is_none())
                .cloned()
                .collect();
            if !missing.is_empty() {
                let vectors = self.inner.embed(missing.clone()).await?;
                let mut lines = String::new();
                for (text, vector) in missing.into_iter().zip(vectors) {
                    lines.push_str(&json!([text, vector]).to_string());
                    lines.push('\n');
                    if let Ok(mut known) = self.known.lock() {
                        known.insert(text, vector);
                    }
                }
                let _ = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&self.path)
                    .and_then(|mut file| file.write_all(lines.as_bytes()));
            }
            texts
                .iter()
                .map(|text| {
                    known(text).ok_or_else(|| lazytool_runtime::EmbedError::new("no vector"))
                })
                .collect()
        })
    }
}

/// The fusion a `--fusion` value names.
fn fusion(spec: &str) -> Option<Fusion> {
    if spec == "dense" {
        return Some(Fusion::dense_only());
    }
    if spec == "by-catalog" {
        return Some(Fusion::by_catalog());
    }
    if let Some(weight) = spec.strip_prefix("fixed:") {
        return weight.parse().ok().map(Fusion::fixed);
    }
    let (unsure, sure) = spec.strip_prefix("adaptive:")?.split_once(',')?;
    Some(Fusion::adaptive(unsure.parse().ok()?, sure.parse().ok()?))
}

/// Adds to `line` what `Registry::explain_search` says of `query`.
#[cfg(feature = "search-features")]
fn explain(registry: &Registry, query: &str, line: &mut Value) -> Result<(), String> {
    let Some(explained) = registry.explain_search(query, 10) else {
        // No vector for this query (too long, or the model failed): searched by words only.
        line["words_only"] = json!(true);
        return Ok(());
    };
    let signals = explained.leaning.signals;
    line["lexical"] = json!(explained.lexical);
    line["dense"] = json!(explained.dense);
    line["tools"] = json!(explained.tools);
    line["alike"] = json!(explained.alike);
    line["weight"] = json!(explained.leaning.weight);
    line["reason"] = json!(explained.leaning.reason);
    line["signals"] = json!({
        "lexical_gap": signals.lexical_gap,
        "dense_gap": signals.dense_gap,
        "dense_last": signals.dense_last,
        "dense_best": signals.dense_best,
        "alike": signals.alike,
        "lexical_found": signals.lexical_found,
        "query_words": signals.query_words,
    });
    Ok(())
}

#[cfg(not(feature = "search-features"))]
fn explain(_: &Registry, _: &str, _: &mut Value) -> Result<(), String> {
    Err("--explain: build tool_search with `--features search-features`".to_owned())
}

#[cfg(feature = "embed-local")]
fn local_model(
    dir: &str,
) -> Result<std::sync::Arc<dyn lazytool_runtime::Embedder>, Box<dyn std::error::Error>> {
    Ok(std::sync::Arc::new(lazytool_runtime::LocalEmbedder::open(
        dir,
    )?))
}

#[cfg(not(feature = "embed-local"))]
fn local_model(dir: &str) -> Result<Arc<dyn Embedder>, Box<dyn std::error::Error>> {
    Err(format!(
        "--embed-model {dir}: this build runs no local model; build it with `--features embed-local` \
         (cargo run --release -p lazytool-examples-search --features embed-local --example tool_search -- ...)"
    )
    .into())
}
