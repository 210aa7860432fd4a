//! `features FILE`: what lazytool's search weighs for every question (BFCL's and the GitHub
//! requests), one JSON line per question, for `bench/search/fit.py` to fit the ranking's
//! constants on. Each line: `split` (`live`, `held_out` or `github`), `words`, `terms`
//! (`[weight, synonym, [idf by field], whole idf]`), `average` (field lengths), and
//! `candidates`: `[hit, family, named, [lengths], words, synonym words, score, whole,
//! [[term, [frequency by field]], ...]]`, where `hit` says whether the tool is one the
//! question expects. Candidates are the best [`KEEP`] by lazytool's per-field score and by
//! BM25F (both after coverage), and the tools the question names: lower ones cannot reach
//! the top ten under any setting the fit tries (the fit's best is confirmed by the real
//! search).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use lazytool_runtime::{Registry, SearchFeatures, catalog_tools};
use serde_json::{Value, json};

use crate::data::{CatalogTool, Question};

/// How many of the best candidates by each score are kept.
const KEEP: usize = 150;

/// Writes the features of BFCL's `questions` and of the GitHub `requests` to `path`.
pub fn write(
    path: &Path,
    catalog: &[CatalogTool],
    questions: &[Question],
    families: &HashMap<String, String>,
    github: &[CatalogTool],
    requests: &[(&str, &str)],
) -> Result<(), String> {
    let mut out = String::new();
    let family = |name: &str| families.get(name).map_or(name.to_owned(), String::clone);
    let bfcl = registry(catalog)?;
    for question in questions {
        let features = bfcl.search_features(&question.query);
        line(&mut out, &question.split, &features, |tool| {
            question.expected.contains(&family(tool))
        });
    }
    let github = registry(github)?;
    for (request, intended) in requests {
        let features = github.search_features(request);
        line(&mut out, "github", &features, |tool| tool == *intended);
    }
    std::fs::write(path, out).map_err(|error| format!("{}: {error}", path.display()))
}

fn registry(catalog: &[CatalogTool]) -> Result<Registry, String> {
    let listing = json!({"tools": catalog.iter().map(|tool| json!({
        "name": tool.name, "description": tool.description, "inputSchema": tool.input_schema,
    })).collect::<Vec<Value>>()});
    let tools = catalog_tools(&listing, |_, _, _| async { Ok::<_, String>(Value::Null) })
        .map_err(|error| error.to_string())?;
    Registry::builder()
        .without_inventory()
        .tools(tools.into_iter().map(|tool| tool.lazy(true)))
        .build()
        .map_err(|error| error.to_string())
}

fn line(out: &mut String, split: &str, features: &SearchFeatures, hit: impl Fn(&str) -> bool) {
    let candidates = &features.candidates;
    let mut by_score: Vec<usize> = (0..candidates.len()).collect();
    by_score.sort_by(|&a, &b| candidates[b].score.total_cmp(&candidates[a].score));
    let mut by_whole: Vec<usize> = (0..candidates.len()).collect();
    by_whole.sort_by(|&a, &b| candidates[b].whole.total_cmp(&candidates[a].whole));
    let mut kept: Vec<usize> = by_score
        .into_iter()
        .take(KEEP)
        .chain(by_whole.into_iter().take(KEEP))
        .chain((0..candidates.len()).filter(|&at| candidates[at].named))
        .collect();
    kept.sort_unstable();
    kept.dedup();
    let candidates: Vec<Value> = kept
        .into_iter()
        .map(|at| {
            let candidate = &candidates[at];
            json!([
                hit(&candidate.tool),
                candidate.family,
                candidate.named,
                candidate.lengths,
                candidate.words,
                candidate.synonym_words,
                candidate.score,
                candidate.whole,
                candidate.frequencies,
            ])
        })
        .collect();
    let terms: Vec<Value> = features
        .terms
        .iter()
        .map(|term| json!([term.weight, term.synonym, term.idf, term.whole_idf]))
        .collect();
    let _ = writeln!(
        out,
        "{}",
        json!({
            "split": split,
            "words": features.words,
            "terms": terms,
            "average": features.average_lengths,
            "candidates": candidates,
        })
    );
}
