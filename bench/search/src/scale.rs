//! The cost of lazytool's search at 1,000, 10,000 and 100,000 tools: the BFCL catalog
//! repeated, each copy renamed and its description varied with a sentence of another tool.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use lazytool_runtime::{DynamicTool, Registry};
use serde_json::Value;

use crate::allocated::held;
use crate::cpu_time::thread_cpu_time;
use crate::data::CatalogTool;

/// Tool `i` of a catalog of any size made from `catalog`; `taken` holds the names given.
fn varied_tool(catalog: &[CatalogTool], i: usize, taken: &mut HashSet<String>) -> DynamicTool {
    let original = &catalog[i % catalog.len()];
    let copy = i / catalog.len();
    if copy == 0 {
        taken.insert(original.name.clone());
        return tool(
            original.name.clone(),
            original.description.clone(),
            original,
        );
    }
    // Names are cut to 64 bytes, so two long names may meet: the tool's number then tells them apart.
    let name = [format!("_{copy}"), format!("_{i}")]
        .into_iter()
        .map(|suffix| {
            format!(
                "{}{suffix}",
                &original.name[..original.name.len().min(64 - suffix.len())]
            )
        })
        .find(|name| !taken.contains(name))
        .unwrap_or_else(|| format!("tool_{i}"));
    taken.insert(name.clone());
    let other = &catalog[(i * 7_919 + copy * 104_729) % catalog.len()];
    let sentence = other.description.split(". ").next().unwrap_or_default();
    let description = format!("{} {sentence}", original.description);
    tool(name, description, original)
}

fn tool(name: String, description: String, original: &CatalogTool) -> DynamicTool {
    DynamicTool::new(
        name,
        description,
        original.input_schema.clone(),
        |_, _| async { Ok::<_, String>(Value::Null) },
    )
    .lazy(true)
}

fn percentile(sorted: &[Duration], share: f64) -> Duration {
    let at = ((sorted.len() as f64 * share).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[at]
}

/// What WordNet's table of related nouns costs: the heap it holds and the time it takes to
/// build, once per process, at the first query word rare enough to be searched by them. Run
/// before any other search.
pub fn related_noun_table() -> String {
    let registry = Registry::builder()
        .without_inventory()
        .tools([tool(
            "get_weather".to_owned(),
            "Gets the weather.".to_owned(),
            &CatalogTool {
                name: String::new(),
                description: String::new(),
                input_schema: serde_json::json!({"type": "object"}),
            },
        )])
        .build();
    let Ok(registry) = registry else {
        return "related nouns: the registry failed".to_owned();
    };
    // Builds the index: `weather` is the catalog's own word, not searched by related nouns.
    registry.search("weather", 5);
    let before = held();
    let (started, cpu_started) = (Instant::now(), thread_cpu_time());
    registry.search("taxi", 5);
    let (wall, cpu) = (started.elapsed(), thread_cpu_time().saturating_sub(cpu_started));
    let kib = held().saturating_sub(before) as f64 / 1024.0;
    format!(
        "WordNet's related nouns, built once per process at the first rare query word: {kib:.0} KiB held, {:.1} / {:.1} ms wall / CPU to build",
        wall.as_secs_f64() * 1e3,
        cpu.as_secs_f64() * 1e3,
    )
}

/// One line per catalog size: build, first search (builds the index), queries, memory.
pub fn table(catalog: &[CatalogTool], queries: &[&str], sizes: &[usize]) -> String {
    let mut table = String::new();
    let _ = writeln!(
        table,
        "| tools | registry build | index build (first search), wall / CPU | CPU per tool | query p50, wall / CPU | query p99, wall / CPU | query max, wall | index memory | per tool |"
    );
    let _ = writeln!(table, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &size in sizes {
        let started = Instant::now();
        let registry = Registry::builder()
            .without_inventory()
            .tools({
                let mut taken = HashSet::new();
                (0..size).map(move |i| varied_tool(catalog, i, &mut taken))
            })
            .build();
        let registry: Registry = match registry {
            Ok(registry) => registry,
            Err(error) => {
                let _ = writeln!(table, "| {size} | {error} |");
                continue;
            }
        };
        let registry_build = started.elapsed();
        let before = held();
        let (started, cpu_started) = (Instant::now(), thread_cpu_time());
        let first = registry.search(queries[0], 5).len();
        let index_build = started.elapsed();
        let index_build_cpu = thread_cpu_time().saturating_sub(cpu_started);
        let index_bytes = held().saturating_sub(before);
        let mut times = Vec::with_capacity(queries.len());
        let mut cpu_times = Vec::with_capacity(queries.len());
        let mut found = first;
        for query in queries {
            let (started, cpu_started) = (Instant::now(), thread_cpu_time());
            found += registry.search(query, 5).len();
            times.push(started.elapsed());
            cpu_times.push(thread_cpu_time().saturating_sub(cpu_started));
        }
        times.sort_unstable();
        cpu_times.sort_unstable();
        let mib = index_bytes as f64 / (1024.0 * 1024.0);
        let _ = writeln!(
            table,
            "| {size} | {:.0} ms | {:.0} / {:.0} ms | {:.2} µs | {:.3} / {:.3} ms | {:.3} / {:.3} ms | {:.3} ms | {mib:.1} MiB | {} B |",
            registry_build.as_secs_f64() * 1e3,
            index_build.as_secs_f64() * 1e3,
            index_build_cpu.as_secs_f64() * 1e3,
            index_build_cpu.as_secs_f64() * 1e6 / size as f64,
            percentile(&times, 0.5).as_secs_f64() * 1e3,
            percentile(&cpu_times, 0.5).as_secs_f64() * 1e3,
            percentile(&times, 0.99).as_secs_f64() * 1e3,
            percentile(&cpu_times, 0.99).as_secs_f64() * 1e3,
            times.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
            index_bytes / size,
        );
        std::hint::black_box(found);
    }
    table
}
