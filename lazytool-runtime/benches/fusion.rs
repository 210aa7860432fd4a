//! What search by meaning adds to a search, the vectors given: a registry of N lazy tools
//! searched by words only, and the same with 384-wide tool and query vectors (the query's
//! cached after a first pass, so no embedder runs), for N = 2,000, 20,000 and 100,000. The
//! difference is the dense ranking and the fusion (whose lexical ranking is 30 deep, not 5:
//! that alone is the column "words only, 30 deep"; this catalog is 24 texts repeated, each a
//! family of names that differ by a number): as by default (an exact scan of every
//! tool's vector up to `Embeddings::exact_scan_up_to` tools, the vectors' signs first above),
//! with the signs first whatever the size, and with the exact scan whatever the size; and as
//! by default with issue 40's fusion (`Fusion::by_catalog`, one weight per catalog) in place
//! of the default (`Fusion::default`, one per query from its signals), so that what the
//! default's signals cost is the difference of two columns measured in one run. Each
//! search by words and meaning is timed right after the same search by words only, and what
//! meaning adds is the middle (p50) of those paired differences; p50 and p90 of the searches
//! themselves too, over the queries, each repeated, printed as a table.
//!
//! `cargo bench -p lazytool-runtime --features embeddings --bench fusion`

use std::time::{Duration, Instant};

use lazytool_runtime::{DynamicTool, EmbedFuture, Embedder, Embeddings, Fusion, Registry};
use serde_json::json;

const DIMENSION: usize = 384;
/// How many times each query is searched in each way.
const ROUNDS: usize = 40;
const WORDS: [&str; 24] = [
    "weather",
    "forecast",
    "city",
    "hotel",
    "room",
    "book",
    "flight",
    "ticket",
    "price",
    "stock",
    "issue",
    "pull",
    "request",
    "repository",
    "file",
    "search",
    "user",
    "email",
    "calendar",
    "event",
    "music",
    "song",
    "playlist",
    "translate",
];
const QUERIES: [&str; 8] = [
    "what will the weather be in Paris tomorrow",
    "book a hotel room for two nights",
    "find me a cheap flight ticket",
    "the price of a stock today",
    "open a pull request on my repository",
    "send an email to my team",
    "add an event to my calendar",
    "play a song from my playlist",
];

/// Pseudo-random unit-free vectors from the text's hash: no model, the same every run.
struct Synthetic;

impl Embedder for Synthetic {
    fn id(&self) -> &str {
        "synthetic-384"
    }

    fn embed(&self, texts: Vec<String>) -> EmbedFuture<'_> {
        let vectors = texts.iter().map(|text| vector(text)).collect();
        Box::pin(async move { Ok(vectors) })
    }

    fn max_batch(&self) -> usize {
        4096
    }
}

fn vector(text: &str) -> Vec<f32> {
    let mut state = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    (0..DIMENSION)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect()
}

fn tools(count: usize) -> Vec<DynamicTool> {
    (0..count)
        .map(|index| {
            let word = |k: usize| WORDS[(index * 7 + k * 13) % WORDS.len()];
            DynamicTool::new(
                format!("{}_{}_{index}", word(0), word(1)),
                format!("Does {} with a {} and a {}.", word(2), word(3), word(4)),
                json!({"type": "object", "properties": {word(5): {"type": "string"}}}),
                |_, _| async { Ok::<_, String>(json!(null)) },
            )
            .lazy(true)
        })
        .collect()
}

/// The middle and the ninth decile of `samples`.
fn percentiles(mut samples: Vec<f64>) -> (f64, f64) {
    samples.sort_by(f64::total_cmp);
    (samples[samples.len() / 2], samples[samples.len() * 9 / 10])
}

fn registry(count: usize, embeddings: Option<Embeddings>) -> Registry {
    let builder = Registry::builder().without_inventory().tools(tools(count));
    let registry = match embeddings {
        Some(embeddings) => builder.embeddings(embeddings),
        None => builder,
    }
    .build()
    .expect("valid tools");
    if registry.embeddings().is_some() {
        assert!(registry.wait_for_embeddings(Duration::from_secs(600)));
    }
    for query in QUERIES {
        registry.search(query, 5); // embeds and keeps the query's vector
    }
    registry
}

/// A search's time in milliseconds.
fn timed(registry: &Registry, query: &str, limit: usize) -> f64 {
    let started = Instant::now();
    std::hint::black_box(registry.search(query, limit));
    started.elapsed().as_secs_f64() * 1e3
}

fn main() {
    println!(
        "| tools | words only p50 / p90 | words only, 30 deep, p50 | words and meaning p50 / p90 | added at p50 | by catalog (issue 40): added at p50 | signs first always: added at p50 | exact scan always: added at p50 |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for count in [2_000, 20_000, 100_000] {
        let lexical = registry(count, None);
        let mut deep = Vec::new();
        for _ in 0..ROUNDS {
            for query in QUERIES {
                deep.push(timed(&lexical, query, 30));
            }
        }
        let (mut words, mut both, mut added) = (Vec::new(), Vec::new(), Vec::new());
        let default = Embeddings::new(Synthetic).exact_scan_up_to();
        // One way at a time, so that what one way reads does not crowd another's out of the
        // caches (the exact scan at 100,000 tools reads 150 MB a search).
        let ways = [
            (default, Fusion::default()),
            (default, Fusion::by_catalog()),
            (0, Fusion::default()),
            (usize::MAX, Fusion::default()),
        ];
        for (at, (exact_up_to, fusion)) in ways.into_iter().enumerate() {
            let embeddings = Embeddings::new(Synthetic)
                .with_exact_scan_up_to(exact_up_to)
                .with_fusion(fusion);
            let hybrid = registry(count, Some(embeddings));
            // Each search by words and meaning is paired with the same search by words only
            // made just before it: what meaning adds is the middle of those differences,
            // which a slower moment of a shared machine shifts far less than a difference
            // of two separate runs' middles.
            let mut differences = Vec::new();
            for _ in 0..ROUNDS {
                for query in QUERIES {
                    let alone = timed(&lexical, query, 5);
                    let fused = timed(&hybrid, query, 5);
                    differences.push(fused - alone);
                    if at == 0 {
                        words.push(alone);
                        both.push(fused);
                    }
                }
            }
            added.push(differences);
        }
        let (words_p50, words_p90) = percentiles(words);
        let (deep_p50, _) = percentiles(deep);
        let (both_p50, both_p90) = percentiles(both);
        let mut row = format!(
            "| {count} | {words_p50:.3} / {words_p90:.3} ms | {deep_p50:.3} ms | {both_p50:.3} / {both_p90:.3} ms |"
        );
        for added in added {
            row += &format!(" {:.3} ms |", percentiles(added).0);
        }
        println!("{row}");
    }
}
