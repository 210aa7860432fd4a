//! What one query adds up per document, kept between queries so that a search touches only
//! the documents its terms are in, however many the index holds.

use std::sync::Mutex;

/// What a document matched of a query.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Match {
    pub(super) score: f32,
    /// Its BM25F score (see [`super::rerank`]).
    pub(super) whole: f32,
    /// The query words it matched, as bits.
    pub(super) words: u64,
    /// The query words it matched only a synonym of, or not only, as bits.
    pub(super) synonym_words: u64,
}

/// What one term of a query adds to a document's [`Match`].
#[derive(Clone, Copy, Debug)]
pub(super) struct TermMatch {
    pub(super) score: f32,
    pub(super) whole: f32,
    pub(super) words: u64,
    pub(super) synonym_words: u64,
}

impl Match {
    fn add(&mut self, term: &TermMatch) {
        self.score += term.score;
        self.whole += term.whole;
        self.words |= term.words;
        self.synonym_words |= term.synonym_words;
    }
}

/// One [`Match`] per document, and the documents a query touched.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    pub(super) matches: Vec<Match>,
    pub(super) touched: Vec<u32>,
    /// The touched documents as bits (64 documents a word): a set small enough for the
    /// processor's first cache, which [`Scratch::add_found`] reads for every posting of a
    /// common term.
    found: Vec<u64>,
}

impl Scratch {
    /// Adds a term's scores and words to `document`'s match.
    pub(super) fn add(&mut self, document: u32, term: &TermMatch) {
        let Some(found) = self.matches.get_mut(document as usize) else {
            return;
        };
        if found.words == 0 && found.synonym_words == 0 {
            self.touched.push(document);
            if let Some(bits) = self.found.get_mut(document as usize / 64) {
                *bits |= 1 << (document % 64);
            }
        }
        found.add(term);
    }

    /// [`Scratch::add`], but only to a document already touched.
    pub(super) fn add_found(&mut self, document: u32, term: &TermMatch) {
        let touched = self
            .found
            .get(document as usize / 64)
            .is_some_and(|bits| bits & (1 << (document % 64)) != 0);
        if touched && let Some(found) = self.matches.get_mut(document as usize) {
            found.add(term);
        }
    }

    /// Forgets what the last query touched.
    fn clear(&mut self) {
        for &document in &self.touched {
            if let Some(found) = self.matches.get_mut(document as usize) {
                *found = Match::default();
            }
            if let Some(bits) = self.found.get_mut(document as usize / 64) {
                *bits = 0;
            }
        }
        self.touched.clear();
    }
}

/// Scratches of the index's size, one per concurrent query.
#[derive(Debug, Default)]
pub(super) struct ScratchPool {
    documents: usize,
    free: Mutex<Vec<Scratch>>,
}

impl ScratchPool {
    pub(super) fn new(documents: usize) -> ScratchPool {
        ScratchPool {
            documents,
            free: Mutex::new(Vec::new()),
        }
    }

    /// A cleared scratch, new or left by an earlier query.
    pub(super) fn take(&self) -> Scratch {
        let reused = self.free.lock().ok().and_then(|mut free| free.pop());
        reused.unwrap_or_else(|| Scratch {
            matches: vec![Match::default(); self.documents],
            touched: Vec::new(),
            found: vec![0; self.documents.div_ceil(64)],
        })
    }

    /// Clears `scratch` and keeps it for the next query.
    pub(super) fn give_back(&self, mut scratch: Scratch) {
        scratch.clear();
        if let Ok(mut free) = self.free.lock() {
            free.push(scratch);
        }
    }
}
