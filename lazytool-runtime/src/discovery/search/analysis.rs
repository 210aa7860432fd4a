//! Turning text into search terms: words, folded to ASCII, split, stemmed; and the synonym
//! groups of `vocabulary.rs` turned into terms the same way ([`SYNONYMS`]).

use std::collections::HashMap;
use std::sync::LazyLock;

use super::script::{is_word_char, pieces};
use super::stem::stem;
use super::vocabulary::{ABBREVIATIONS, SYNONYM_GROUPS, is_stop_word};

/// Marks the term of a word as written, which an inflected word has besides its stem, so
/// that the same form (`gists`, `branches`) counts more than a mere shared stem.
pub(super) const WRITTEN: char = '=';

/// How words become terms.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Analysis {
    /// Names, parameter names and enum values: words are split on case changes and
    /// letter/digit boundaries (`listPullRequests` → list, pull, request).
    Identifier,
    /// Descriptions and tags: words are kept whole (`GitHub` → github, not git and hub).
    Prose,
    /// Queries, which hold both: words are kept whole and also split.
    Query,
}

/// The words of `text`: runs of letters, digits and combining marks, with the runs of
/// scripts written without spaces cut into pairs of characters (see [`pieces`]).
pub(super) fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_word_char(c))
        .filter(|word| !word.is_empty())
        .flat_map(pieces)
}

/// Appends the terms of `text` to `terms` (for queries, tables and tests; the index uses an
/// [`Analyzer`] and allocates nothing per term).
pub(super) fn analyze(text: &str, analysis: Analysis, terms: &mut Vec<String>) {
    Analyzer::default().text(text, analysis, &mut |term| terms.push(term.to_owned()));
}

/// The other terms of each term's synonym groups.
pub(super) static SYNONYMS: LazyLock<HashMap<String, Vec<String>>> = LazyLock::new(|| {
    let mut table: HashMap<String, Vec<String>> = HashMap::new();
    for group in SYNONYM_GROUPS {
        let mut terms = Vec::new();
        for word in *group {
            analyze(word, Analysis::Prose, &mut terms);
        }
        for term in &terms {
            let synonyms = table.entry(term.clone()).or_default();
            for other in &terms {
                if other != term && !synonyms.contains(other) {
                    synonyms.push(other.clone());
                }
            }
        }
    }
    table
});

/// `use_term` applied to the first term of `word` as prose: its stem (a stop word has none).
pub(super) fn with_first_term<R>(
    analyzer: &mut Analyzer,
    word: &str,
    use_term: impl FnOnce(&str) -> R,
) -> Option<R> {
    let mut use_term = Some(use_term);
    let mut result = None;
    analyzer.word(word, Analysis::Prose, &mut |term| {
        if let Some(use_term) = use_term.take() {
            result = Some(use_term(term));
        }
    });
    result
}

/// Turns words into terms in buffers it reuses, handing each term to a callback: building
/// an index of 100,000 tools analyses millions of words, and a `String` for each would
/// dominate its cost.
#[derive(Debug, Default)]
pub(super) struct Analyzer {
    /// The word lowercased and folded to ASCII.
    folded: String,
    /// Its stem, or an abbreviation's word stemmed.
    stemmed: String,
    /// [`WRITTEN`] and the folded word.
    written: String,
    /// Where [`split_word`] cuts the current word.
    cuts: Vec<usize>,
}

impl Analyzer {
    /// Hands every term of `text` to `emit`.
    pub(super) fn text(&mut self, text: &str, analysis: Analysis, emit: &mut impl FnMut(&str)) {
        for word in words(text) {
            self.word(word, analysis, emit);
        }
    }

    /// Hands every term of one alphanumeric word to `emit`.
    pub(super) fn word(&mut self, word: &str, analysis: Analysis, emit: &mut impl FnMut(&str)) {
        if analysis != Analysis::Identifier {
            self.term(word, emit);
        }
        if analysis != Analysis::Prose {
            let mut cuts = std::mem::take(&mut self.cuts);
            split_word(word, &mut cuts);
            if analysis == Analysis::Identifier || cuts.len() > 2 {
                for part in cuts.windows(2) {
                    self.term(&word[part[0]..part[1]], emit);
                }
            }
            self.cuts = cuts;
        }
    }

    /// Normalises one word and hands on the terms it stands for, if any.
    fn term(&mut self, word: &str, emit: &mut impl FnMut(&str)) {
        fold_into(word, &mut self.folded);
        let folded = self.folded.as_str();
        if folded.len() < 2
            || folded.bytes().all(|byte| byte.is_ascii_digit())
            || is_stop_word(folded)
        {
            return;
        }
        self.stemmed.clear();
        self.stemmed.push_str(folded);
        stem(&mut self.stemmed);
        if let Some((_, long)) = ABBREVIATIONS
            .iter()
            .find(|(short, _)| *short == self.stemmed)
        {
            for word in *long {
                self.stemmed.clear();
                self.stemmed.push_str(word);
                stem(&mut self.stemmed);
                emit(&self.stemmed);
            }
            return;
        }
        emit(&self.stemmed);
        if self.stemmed != folded {
            self.written.clear();
            self.written.push(WRITTEN);
            self.written.push_str(folded);
            emit(&self.written);
        }
    }
}

/// Where an alphanumeric word splits on case changes and letter/digit boundaries, as byte
/// offsets from its start to its end, into `cuts`: `listPullRequests` → list, Pull,
/// Requests; `HTTPServer2` → HTTP, Server, 2.
pub(super) fn split_word(word: &str, cuts: &mut Vec<usize>) {
    cuts.clear();
    cuts.push(0);
    let mut chars = word.char_indices().peekable();
    let Some((_, mut previous)) = chars.next() else {
        cuts.push(0);
        return;
    };
    while let Some((at, current)) = chars.next() {
        let next = chars.peek().copied();
        // `HTTPServer` splits before the `S`, but `PRs` is a plural, not `P` and `Rs`.
        let acronym_end = previous.is_uppercase()
            && current.is_uppercase()
            && next.is_some_and(|(_, next)| next.is_lowercase())
            && !next.is_some_and(|(after, next)| next == 's' && after + 1 == word.len());
        let boundary = (previous.is_lowercase() && current.is_uppercase())
            || previous.is_alphabetic() != current.is_alphabetic()
            || acronym_end;
        if boundary {
            cuts.push(at);
        }
        previous = current;
    }
    cuts.push(word.len());
}

/// Lowercases `word` and folds accented Latin letters to ASCII.
pub(super) fn fold(word: &str) -> String {
    let mut folded = String::new();
    fold_into(word, &mut folded);
    folded
}

/// [`fold`] into `folded`, which is cleared first.
pub(super) fn fold_into(word: &str, folded: &mut String) {
    folded.clear();
    if word.is_ascii() {
        folded.push_str(word);
        folded.make_ascii_lowercase();
        return;
    }
    for lower in word.chars().flat_map(char::to_lowercase) {
        match fold_char(lower) {
            Some(ascii) => folded.push_str(ascii),
            None => folded.push(lower),
        }
    }
}

/// The ASCII spelling of a lowercase accented Latin letter.
pub(super) fn fold_char(c: char) -> Option<&'static str> {
    Some(match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
        'æ' => "ae",
        'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => "c",
        'ď' | 'đ' | 'ð' => "d",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => "e",
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => "g",
        'ĥ' | 'ħ' => "h",
        'ì' | 'í' | 'î' | 'ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' | 'ı' => "i",
        'ĵ' => "j",
        'ķ' => "k",
        'ĺ' | 'ļ' | 'ľ' | 'ŀ' | 'ł' => "l",
        'ñ' | 'ń' | 'ņ' | 'ň' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ŏ' | 'ő' => "o",
        'œ' => "oe",
        'ŕ' | 'ŗ' | 'ř' => "r",
        'ś' | 'ŝ' | 'ş' | 'š' | 'ș' => "s",
        'ß' => "ss",
        'ţ' | 'ť' | 'ŧ' | 'ț' => "t",
        'þ' => "th",
        'ù' | 'ú' | 'û' | 'ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => "u",
        'ŵ' => "w",
        'ý' | 'ÿ' | 'ŷ' => "y",
        'ź' | 'ż' | 'ž' => "z",
        _ => return None,
    })
}
