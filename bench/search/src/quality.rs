//! Recall at 1, 3 and 5 and MRR at 10 of each engine on the questions.

use std::fmt::Write as _;

use crate::data::Question;

/// The sums behind one row of the table.
#[derive(Default, Clone, Copy)]
pub struct Scores {
    pub questions: usize,
    pub at1: usize,
    pub at3: usize,
    pub at5: usize,
    pub reciprocal_ranks: f64,
}

impl Scores {
    /// Adds one question whose ranking is `ranked` (best first, names).
    pub fn add(&mut self, ranked: &[&str], expected: &[String]) -> Option<usize> {
        self.questions += 1;
        let rank = ranked
            .iter()
            .take(10)
            .position(|name| expected.iter().any(|wanted| wanted == name))?;
        self.at1 += usize::from(rank < 1);
        self.at3 += usize::from(rank < 3);
        self.at5 += usize::from(rank < 5);
        self.reciprocal_ranks += 1.0 / (rank + 1) as f64;
        Some(rank)
    }

    pub fn row(&self, engine: &str) -> String {
        let share = |hits: usize| hits as f64 / self.questions.max(1) as f64;
        format!(
            "| {engine} | {:.3} | {:.3} | {:.3} | {:.3} |",
            share(self.at1),
            share(self.at3),
            share(self.at5),
            self.reciprocal_ranks / self.questions.max(1) as f64
        )
    }
}

/// Scores each engine (a name and its top 10 per question) on the questions of `split`.
pub fn table(
    title: &str,
    questions: &[Question],
    keep: impl Fn(&Question) -> bool,
    rankings: &[(&str, &[Vec<&str>])],
) -> String {
    let mut table = String::new();
    let count = questions.iter().filter(|question| keep(question)).count();
    let _ = writeln!(
        table,
        "| {title} ({count} questions) | R@1 | R@3 | R@5 | MRR@10 |"
    );
    let _ = writeln!(table, "|---|---:|---:|---:|---:|");
    for (engine, ranked) in rankings {
        let mut scores = Scores::default();
        for (question, ranked) in questions.iter().zip(ranked.iter()) {
            if keep(question) {
                scores.add(ranked, &question.expected);
            }
        }
        let _ = writeln!(table, "{}", scores.row(engine));
    }
    table
}
