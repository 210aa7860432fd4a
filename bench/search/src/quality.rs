//! Recall at 1, 3 and 5 and MRR at 10 of each engine on the questions.

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
    pub fn add(&mut self, ranked: &[impl AsRef<str>], expected: &[String]) -> Option<usize> {
        self.questions += 1;
        let rank = ranked
            .iter()
            .take(10)
            .position(|name| expected.iter().any(|wanted| wanted == name.as_ref()))?;
        self.at1 += usize::from(rank < 1);
        self.at3 += usize::from(rank < 3);
        self.at5 += usize::from(rank < 5);
        self.reciprocal_ranks += 1.0 / (rank + 1) as f64;
        Some(rank)
    }

    pub fn share(&self, hits: usize) -> f64 {
        hits as f64 / self.questions.max(1) as f64
    }

    pub fn row(&self, engine: &str) -> String {
        let share = |hits: usize| self.share(hits);
        format!(
            "| {engine} | {:.3} | {:.3} | {:.3} | {:.3} |",
            share(self.at1),
            share(self.at3),
            share(self.at5),
            self.reciprocal_ranks / self.questions.max(1) as f64
        )
    }
}
