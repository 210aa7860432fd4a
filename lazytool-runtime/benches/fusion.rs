//! What search by meaning adds to a search, the vectors given: a registry of N lazy tools
//! searched by words only, and the same with 384-wide tool and query vectors (the query's
//! cached after a first pass, so no embedder runs), for N = 2,000, 20,000 and 100,000. The
//! difference is the dense ranking and the fusion (whose lexical ranking is 30 deep, not 5:
//! that alone is the column "words only, 30 deep"; this catalog is 24 texts repeated, each a
//! family of names that differ by a number): as by default (an exact scan of every
//! tool's vector up to `Embeddings::exact_scan_up_to` tools, the vectors' signs first above),
//! with the signs first whatever the size, and with the exact scan whatever the size. p50
//! and p90 over the queries, each repeated, printed as a table.
//!
//! `cargo bench -p lazytool-runtime --features embeddings --bench fusion`

use std::time::{Duration, Instant};

use lazytool_runtime::{DynamicTool, EmbedFuture, Embedder, Embeddings, Registry};
use serde_json::json;

const DIMENSION: usize = 384;
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

fn percentiles(registry: &Registry, limit: usize) -> (Duration, Duration) {
    let mut durations = Vec::new();
    for _ in 0..25 {
        for query in QUERIES {
            let started = Instant::now();
            std::hint::black_box(registry.search(query, limit));
            durations.push(started.elapsed());
        }
    }
    durations.sort();
    (
        durations[durations.len() / 2],
        durations[durations.len() * 9 / 10],
    )
}

fn main() {
    println!(
        "| tools | words only p50 / p90 | words only, 30 deep, p50 | words and meaning p50 / p90 | added at p50 | signs first always: added at p50 | exact scan always: added at p50 |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    let ms = |duration: Duration| duration.as_secs_f64() * 1e3;
    for count in [2_000, 20_000, 100_000] {
        let lexical = Registry::builder()
            .without_inventory()
            .tools(tools(count))
            .build()
            .expect("valid tools");
        for query in QUERIES {
            lexical.search(query, 5);
        }
        let (words_p50, words_p90) = percentiles(&lexical, 5);
        let (deep_p50, _) = percentiles(&lexical, 30);
        drop(lexical);
        let mut row = format!(
            "| {count} | {:.3} / {:.3} ms | {:.3} ms |",
            ms(words_p50),
            ms(words_p90),
            ms(deep_p50)
        );
        let default = Embeddings::new(Synthetic).exact_scan_up_to();
        for (at, exact_up_to) in [default, 0, usize::MAX].into_iter().enumerate() {
            let hybrid = Registry::builder()
                .without_inventory()
                .tools(tools(count))
                .embeddings(Embeddings::new(Synthetic).with_exact_scan_up_to(exact_up_to))
                .build()
                .expect("valid tools");
            assert!(hybrid.wait_for_embeddings(Duration::from_secs(600)));
            for query in QUERIES {
                hybrid.search(query, 5); // embeds and keeps the query's vector
            }
            let (both_p50, both_p90) = percentiles(&hybrid, 5);
            if at == 0 {
                row += &format!(" {:.3} / {:.3} ms |", ms(both_p50), ms(both_p90));
            }
            row += &format!(" {:.3} ms |", ms(both_p50.saturating_sub(words_p50)));
        }
        println!("{row}");
    }
}
