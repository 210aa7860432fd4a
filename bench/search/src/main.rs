//! Search quality on BFCL v4's single-turn questions, for lazytool, plain Okapi BM25 and
//! tantivy (BM25, `en_stem`), and the cost of lazytool's search at up to 100,000 tools.
//!
//! `lazytool-bench-search DATA_DIR [quality|scale|all] [--misses FILE]`, where DATA_DIR
//! holds what `bfcl.py` writes (`bash bench/search.sh` does all of it). `--misses` writes
//! lazytool's live questions whose tool is not in its top 5, with what it ranked instead.

mod allocated;
mod data;
mod plain_bm25;
mod quality;
mod scale;
mod tantivy_engine;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use lazytool_runtime::{Registry, catalog_tools};
use serde_json::{Value, json};

use data::{CatalogTool, Question, read_catalog, read_families, read_questions};
use plain_bm25::PlainBm25;
use tantivy_engine::TantivyEngine;

#[global_allocator]
static ALLOCATOR: allocated::Counting = allocated::Counting;

const TOP: usize = 10;

fn main() {
    if let Err(error) = run() {
        eprintln!("bench-search: {error}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: lazytool-bench-search DATA_DIR [quality|scale|all] [--misses FILE]";
    let data = PathBuf::from(args.next().ok_or(usage)?);
    let mut what = "all".to_owned();
    let mut misses = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--misses" => misses = Some(PathBuf::from(args.next().ok_or(usage)?)),
            "quality" | "scale" | "all" => what = arg,
            _ => return Err(usage.to_owned()),
        }
    }
    let catalog = read_catalog(&data.join("catalog.json"))?;
    let questions = read_questions(&data.join("questions.jsonl"))?;
    let families = read_families(&data.join("families.json"))?;
    if what != "scale" {
        quality(&catalog, &questions, &families, misses)?;
    }
    if what != "quality" {
        let queries: Vec<&str> = questions
            .iter()
            .filter(|question| question.split == "live")
            .map(|question| question.query.as_str())
            .collect();
        println!(
            "\nlazytool's search at scale ({} tools repeated, renamed, descriptions varied; {} live queries, limit 5):\n",
            catalog.len(),
            queries.len()
        );
        print!(
            "{}",
            scale::table(&catalog, &queries, &[1_000, 10_000, 100_000])
        );
    }
    Ok(())
}

fn quality(
    catalog: &[CatalogTool],
    questions: &[Question],
    families: &HashMap<String, String>,
    misses: Option<PathBuf>,
) -> Result<(), String> {
    let listing = json!({"tools": catalog.iter().map(|tool| json!({
        "name": tool.name, "description": tool.description, "inputSchema": tool.input_schema,
    })).collect::<Vec<Value>>()});
    let tools = catalog_tools(&listing, |_, _, _| async { Ok::<_, String>(Value::Null) })
        .map_err(|error| error.to_string())?;
    let registry = Registry::builder()
        .without_inventory()
        .tools(tools.into_iter().map(|tool| tool.lazy(true)))
        .build()
        .map_err(|error| error.to_string())?;
    let texts: Vec<String> = catalog.iter().map(CatalogTool::text).collect();
    let plain = PlainBm25::new(&texts);
    let mut tantivy = TantivyEngine::new(&texts).map_err(|error| error.to_string())?;

    let started = Instant::now();
    let lazytool: Vec<Vec<&str>> = questions
        .iter()
        .map(|question| {
            registry
                .search(&question.query, TOP)
                .into_iter()
                .map(|tool| tool.name())
                .collect()
        })
        .collect();
    let lazytool_time = started.elapsed();
    let names = |ranked: Vec<usize>| -> Vec<&str> {
        ranked
            .into_iter()
            .filter_map(|at| catalog.get(at))
            .map(|tool| tool.name.as_str())
            .collect()
    };
    let plain: Vec<Vec<&str>> = questions
        .iter()
        .map(|question| names(plain.search(&question.query, TOP)))
        .collect();
    let tantivy: Vec<Vec<&str>> = questions
        .iter()
        .map(|question| tantivy.search(&question.query, TOP).map(names))
        .collect::<Result<_, _>>()
        .map_err(|error| error.to_string())?;

    // Scoring is by function name: every version of a name counts as that name.
    fn by_family<'a>(
        ranked: Vec<Vec<&'a str>>,
        families: &'a HashMap<String, String>,
    ) -> Vec<Vec<&'a str>> {
        ranked
            .into_iter()
            .map(|names| {
                names
                    .into_iter()
                    .map(|name| families.get(name).map_or(name, String::as_str))
                    .collect()
            })
            .collect()
    }
    let family = |ranked| by_family(ranked, families);
    let (lazytool, plain, tantivy) = (family(lazytool), family(plain), family(tantivy));
    let rankings: [(&str, &[Vec<&str>]); 3] = [
        ("lazytool", &lazytool),
        ("plain Okapi BM25, same text", &plain),
        ("tantivy 0.27, BM25, `en_stem`, same text", &tantivy),
    ];
    println!(
        "BFCL v4 single-turn questions, one catalog of {} tools; a hit is a tool the ground truth calls in the top k.\n",
        catalog.len()
    );
    print!(
        "{}",
        quality::table("live (tune)", questions, |q| q.split == "live", &rankings)
    );
    println!();
    print!(
        "{}",
        quality::table("held-out", questions, |q| q.split == "held_out", &rankings)
    );
    println!();
    print!("{}", quality::table("all", questions, |_| true, &rankings));
    println!("\nlazytool, per set (R@5):");
    let mut sets: Vec<&str> = questions
        .iter()
        .map(|question| question.set.as_str())
        .collect();
    sets.dedup();
    for set in sets {
        let mut scores: [quality::Scores; 3] = Default::default();
        for (at, question) in questions.iter().enumerate().filter(|(_, q)| q.set == set) {
            for (scores, (_, ranked)) in scores.iter_mut().zip(&rankings) {
                scores.add(&ranked[at], &question.expected);
            }
        }
        let share = |s: &quality::Scores| s.at5 as f64 / s.questions.max(1) as f64;
        println!(
            "  {set:<24} {:>5} questions: lazytool {:.3}, plain {:.3}, tantivy {:.3}",
            scores[0].questions,
            share(&scores[0]),
            share(&scores[1]),
            share(&scores[2])
        );
    }
    println!(
        "\nlazytool ranked the {} questions in {:.0} ms",
        questions.len(),
        lazytool_time.as_secs_f64() * 1e3
    );

    if let Some(path) = misses {
        let mut text = String::new();
        for (question, ranked) in questions.iter().zip(&lazytool) {
            let rank = ranked
                .iter()
                .position(|name| question.expected.contains(&(*name).to_owned()));
            if question.split == "live" && rank.is_none_or(|rank| rank >= 5) {
                let _ = writeln!(
                    text,
                    "{:?}\n  wanted {:?} (rank {}), got {:?}",
                    question.query,
                    question.expected,
                    rank.map_or("-".to_owned(), |rank| (rank + 1).to_string()),
                    &ranked[..ranked.len().min(5)]
                );
            }
        }
        std::fs::write(&path, text).map_err(|error| format!("{}: {error}", path.display()))?;
    }
    Ok(())
}
