//! What the index holds: [`SearchIndex`], each term's postings, and (feature
//! `search-features`) the frequencies behind them. Building it and ranking with it are in
//! `mod.rs`, reading a query against it in `query.rs`.

use foldhash::HashMap;

use super::fields::FIELD_COUNT;
use super::fuzzy::FuzzyTerms;
use super::scratch::ScratchPool;

/// A BM25 index over tools, built once; queries are read-only and cheap.
#[derive(Debug)]
pub(crate) struct SearchIndex {
    /// Term ids.
    pub(super) terms: HashMap<Box<str>, u32>,
    /// Where each term's postings start in `postings`, by term id; then their end.
    pub(super) offsets: Vec<usize>,
    /// Each term's documents, in document order, with its score in each; term after term.
    pub(super) postings: Vec<Posting>,
    /// Documents by [`name_key`](super::fields::name_key) of their name.
    pub(super) names: HashMap<String, Vec<u32>>,
    /// Each document's family (see [`family_key`](super::family::family_key)), as a number.
    pub(super) families: Vec<u32>,
    /// The terms by character trigram, for query words the index does not know.
    pub(super) fuzzy: FuzzyTerms,
    pub(super) scratch: ScratchPool,
    /// The frequencies behind the postings' scores, for [`SearchIndex::features`].
    #[cfg(feature = "search-features")]
    pub(super) raw: RawIndex,
}

/// A term's scores in one document.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Posting {
    pub(super) document: u32,
    /// Its per-field BM25 score, which the index ranks by.
    pub(super) score: f32,
    /// Its BM25F score, which orders the best few (see [`rerank`](mod@super::rerank)).
    pub(super) whole: f32,
}

/// One term of one document while the index is built: how often it occurs in each field
/// (at most 255 times: BM25 saturates long before).
#[derive(Clone, Copy, Debug)]
pub(super) struct Occurrences {
    pub(super) term: u32,
    pub(super) frequency: [u8; FIELD_COUNT],
}

/// What the index keeps for [`SearchIndex::features`]: the frequencies the postings' scores
/// were computed from.
#[cfg(feature = "search-features")]
#[derive(Debug, Default)]
pub(super) struct RawIndex {
    /// Every document's distinct terms, document after document.
    pub(super) occurrences: Vec<Occurrences>,
    /// Where each document's terms end in `occurrences`.
    pub(super) ends: Vec<usize>,
    /// Each document's length in terms, by field.
    pub(super) lengths: Vec<[f32; FIELD_COUNT]>,
    /// The average of `lengths`.
    pub(super) average: [f32; FIELD_COUNT],
    /// Each term's inverse document frequency in each field, by term id.
    pub(super) idf: Vec<[f32; FIELD_COUNT]>,
    /// Each term's inverse document frequency among whole tools, by term id.
    pub(super) whole_idf: Vec<f32>,
}

impl SearchIndex {
    /// The postings of term `id`.
    pub(super) fn postings(&self, id: u32) -> &[Posting] {
        let id = id as usize;
        match (self.offsets.get(id), self.offsets.get(id + 1)) {
            (Some(&start), Some(&end)) => self.postings.get(start..end).unwrap_or_default(),
            _ => &[],
        }
    }
}
