//! Plain Okapi BM25 (k1 1.2, b 0.75) over one text per tool: lowercased alphanumeric words,
//! no stemming, no stop words, no fields.

use std::collections::HashMap;

pub struct PlainBm25 {
    postings: HashMap<String, Vec<(usize, f32)>>,
    lengths: Vec<f32>,
    average: f32,
}

const K1: f32 = 1.2;
const B: f32 = 0.75;

pub fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
}

impl PlainBm25 {
    pub fn new(texts: &[String]) -> PlainBm25 {
        let mut postings: HashMap<String, Vec<(usize, f32)>> = HashMap::new();
        let mut lengths = Vec::with_capacity(texts.len());
        for (document, text) in texts.iter().enumerate() {
            let mut length = 0.0;
            for token in tokens(text) {
                length += 1.0;
                let list = postings.entry(token).or_default();
                match list.last_mut() {
                    Some((last, frequency)) if *last == document => *frequency += 1.0,
                    _ => list.push((document, 1.0)),
                }
            }
            lengths.push(length);
        }
        let average = lengths.iter().sum::<f32>() / lengths.len().max(1) as f32;
        PlainBm25 {
            postings,
            lengths,
            average,
        }
    }

    pub fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        let count = self.lengths.len() as f32;
        let mut terms: Vec<String> = tokens(query).collect();
        terms.sort_unstable();
        terms.dedup();
        let mut scores: HashMap<usize, f32> = HashMap::new();
        for term in &terms {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let found_in = list.len() as f32;
            let idf = (1.0 + (count - found_in + 0.5) / (found_in + 0.5)).ln();
            for &(document, frequency) in list {
                let normalisation = 1.0 - B + B * self.lengths[document] / self.average;
                *scores.entry(document).or_default() +=
                    idf * frequency * (K1 + 1.0) / (frequency + K1 * normalisation);
            }
        }
        let mut ranked: Vec<(usize, f32)> = scores.into_iter().collect();
        ranked.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked
            .into_iter()
            .take(limit)
            .map(|(document, _)| document)
            .collect()
    }
}
