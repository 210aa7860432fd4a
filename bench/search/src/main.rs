//! Search quality on BFCL v4's single-turn questions, for lazytool, plain Okapi BM25 and
//! tantivy (BM25, `en_stem`), and the cost of lazytool's search at up to 100,000 tools.
//!
//! `lazytool-bench-search DATA_DIR [quality|scale|all] [--misses FILE]`, where DATA_DIR
//! holds what `bfcl.py` writes (`bash bench/search.sh` does all of it). `--misses` writes
//! lazytool's live questions whose tool it does not rank first, with what it ranked instead,
//! and beside it (`FILE.github.txt`) the GitHub requests whose tool is not first, with its rank.
//! The quality part also ranks the GitHub MCP server's catalog for the requests of the
//! tests crate (`tests/src/github_queries.rs`), the check that must not regress.

mod allocated;
mod cpu_time;
mod data;
mod engines;
#[cfg(feature = "search-features")]
mod features;
#[path = "../../../tests/src/github_queries.rs"]
mod github_queries;
mod plain_bm25;
mod quality;
mod scale;
mod tantivy_engine;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use data::{CatalogTool, Question, read_catalog, read_families, read_questions};
use engines::Engines;
use quality::Scores;

#[global_allocator]
static ALLOCATOR: allocated::Counting = allocated::Counting;

const TOP: usize = 10;

/// A set of questions: its title, and which questions are in it.
type Split = (&'static str, fn(&Question) -> bool);

fn main() {
    if let Err(error) = run() {
        eprintln!("bench-search: {error}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: lazytool-bench-search DATA_DIR [quality|scale|all] [--misses FILE] | DATA_DIR features FILE";
    let data = PathBuf::from(args.next().ok_or(usage)?);
    let mut what = "all".to_owned();
    let mut misses = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--misses" => misses = Some(PathBuf::from(args.next().ok_or(usage)?)),
            "features" => {
                what = arg;
                misses = Some(PathBuf::from(args.next().ok_or(usage)?));
            }
            "quality" | "scale" | "all" => what = arg,
            _ => return Err(usage.to_owned()),
        }
    }
    // Before any search, so that the table is built here.
    let related_nouns = matches!(what.as_str(), "scale" | "all").then(scale::related_noun_table);
    let catalog = read_catalog(&data.join("catalog.json"))?;
    let questions = read_questions(&data.join("questions.jsonl"))?;
    let families = read_families(&data.join("families.json"))?;
    if what == "features" {
        let path = misses.ok_or(usage)?;
        #[cfg(feature = "search-features")]
        return features::write(
            &path,
            &catalog,
            &questions,
            &families,
            &github_catalog()?,
            &github_requests(),
        );
        #[cfg(not(feature = "search-features"))]
        return Err(format!(
            "{}: built without the search-features feature (run `bash bench/search.sh features FILE`)",
            path.display()
        ));
    }
    if what != "scale" {
        bfcl(&catalog, &questions, &families, misses.as_deref())?;
        github(misses.as_deref())?;
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
        if let Some(related_nouns) = related_nouns {
            println!("\n{related_nouns}");
        }
    }
    Ok(())
}

fn bfcl(
    catalog: &[CatalogTool],
    questions: &[Question],
    families: &HashMap<String, String>,
    misses: Option<&Path>,
) -> Result<(), String> {
    let mut engines = Engines::new(catalog)?;
    // Scoring is by function name: every version of a name counts as that name.
    let family = |name: &str| families.get(name).map_or(name.to_owned(), String::clone);
    let mut rankings: [Vec<Vec<String>>; 3] = Default::default();
    for question in questions {
        let ranked = engines.rank(&question.query, TOP)?;
        for (rankings, ranked) in rankings.iter_mut().zip(ranked) {
            rankings.push(ranked.into_iter().map(family).collect());
        }
    }
    println!(
        "BFCL v4 single-turn questions, one catalog of {} tools; a hit is a function the ground truth calls in the top k.\n",
        catalog.len()
    );
    let splits: [Split; 3] = [
        ("live (tune)", |question| question.split == "live"),
        ("held-out", |question| question.split == "held_out"),
        ("all", |_| true),
    ];
    for (title, keep) in splits {
        let mut scores = [Scores::default(); 3];
        for (at, question) in questions
            .iter()
            .enumerate()
            .filter(|(_, question)| keep(question))
        {
            for (scores, rankings) in scores.iter_mut().zip(&rankings) {
                scores.add(&rankings[at], &question.expected);
            }
        }
        let count = scores[0].questions;
        println!("| {title}, {count} questions | R@1 | R@3 | R@5 | MRR@10 |");
        println!("|---|---:|---:|---:|---:|");
        for (engine, scores) in engines::NAMES.iter().zip(&scores) {
            println!("{}", scores.row(engine));
        }
        println!();
    }
    println!("R@5 per set (lazytool, plain BM25, tantivy):");
    let mut sets: Vec<&str> = questions
        .iter()
        .map(|question| question.set.as_str())
        .collect();
    sets.dedup();
    for set in sets {
        let mut scores = [Scores::default(); 3];
        for (at, question) in questions.iter().enumerate().filter(|(_, q)| q.set == set) {
            for (scores, rankings) in scores.iter_mut().zip(&rankings) {
                scores.add(&rankings[at], &question.expected);
            }
        }
        let [lazytool, plain, tantivy] = scores.map(|scores| scores.share(scores.at5));
        println!(
            "  {set:<24} {:>5} questions: {lazytool:.3} {plain:.3} {tantivy:.3}",
            scores[0].questions
        );
    }

    if let Some(path) = misses {
        let mut text = String::new();
        for (question, ranked) in questions.iter().zip(&rankings[0]) {
            let rank = ranked
                .iter()
                .position(|name| question.expected.contains(name));
            if question.split == "live" && rank != Some(0) {
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
        std::fs::write(path, text).map_err(|error| format!("{}: {error}", path.display()))?;
    }
    Ok(())
}

/// The GitHub MCP server's tools.
fn github_catalog() -> Result<Vec<CatalogTool>, String> {
    read_catalog(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/github-mcp-tools.json"))
}

/// The GitHub requests of the tests crate, with the tool each intends.
fn github_requests() -> Vec<(&'static str, &'static str)> {
    github_queries::TUNING
        .iter()
        .chain(github_queries::LATER)
        .copied()
        .collect()
}

/// The requests of `tests/search_quality.rs` on the GitHub MCP server's catalog.
fn github(misses: Option<&Path>) -> Result<(), String> {
    let catalog = github_catalog()?;
    let mut engines = Engines::new(&catalog)?;
    let cases = github_requests();
    let mut scores = [Scores::default(); 3];
    let mut missed = String::new();
    for (query, intended) in &cases {
        let ranked = engines.rank(query, TOP)?;
        if ranked[0].first().is_none_or(|name| name != intended) {
            let rank = ranked[0]
                .iter()
                .position(|name| name == intended)
                .map_or("-".to_owned(), |at| (at + 1).to_string());
            let _ = writeln!(
                missed,
                "{query:?}\n  wanted {intended} (rank {rank}), got {:?}",
                &ranked[0][..ranked[0].len().min(3)]
            );
        }
        for (scores, ranked) in scores.iter_mut().zip(ranked) {
            scores.add(&ranked, &[(*intended).to_owned()]);
        }
    }
    if let Some(path) = misses {
        let path = path.with_extension("github.txt");
        std::fs::write(&path, missed).map_err(|error| format!("{}: {error}", path.display()))?;
    }
    println!(
        "\n| GitHub MCP server, {} tools, {} requests (tests/src/github_queries.rs) | R@1 | R@3 | R@5 | MRR@10 |",
        catalog.len(),
        cases.len()
    );
    println!("|---|---:|---:|---:|---:|");
    for (engine, scores) in engines::NAMES.iter().zip(&scores) {
        println!("{}", scores.row(engine));
    }
    Ok(())
}
