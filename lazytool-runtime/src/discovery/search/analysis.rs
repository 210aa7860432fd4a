//! Turning text into search terms: words, folded to ASCII, split, stemmed.

use super::script::{is_word_char, pieces};
use super::stem::stem;
use super::vocabulary::{ABBREVIATIONS, is_stop_word};

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

/// Appends the terms of `text` to `terms`.
pub(super) fn analyze(text: &str, analysis: Analysis, terms: &mut Vec<String>) {
    for word in words(text) {
        analyze_word(word, analysis, terms);
    }
}

/// Appends the terms of one alphanumeric word to `terms`.
pub(super) fn analyze_word(word: &str, analysis: Analysis, terms: &mut Vec<String>) {
    if analysis != Analysis::Identifier {
        push_term(word, terms);
    }
    if analysis != Analysis::Prose {
        let parts = split_word(word);
        if analysis == Analysis::Identifier || parts.len() > 1 {
            for part in parts {
                push_term(part, terms);
            }
        }
    }
}

/// Splits an alphanumeric word on case changes and letter/digit boundaries:
/// `listPullRequests` → list, Pull, Requests; `HTTPServer2` → HTTP, Server, 2.
pub(super) fn split_word(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for (i, window) in chars.windows(2).enumerate() {
        let [(_, previous), (at, current)] = *window else {
            continue;
        };
        let next = chars.get(i + 2).map(|&(_, next)| next);
        // `HTTPServer` splits before the `S`, but `PRs` is a plural, not `P` and `Rs`.
        let acronym_end = previous.is_uppercase()
            && current.is_uppercase()
            && next.is_some_and(char::is_lowercase)
            && !(next == Some('s') && i + 3 == chars.len());
        let boundary = (previous.is_lowercase() && current.is_uppercase())
            || previous.is_alphabetic() != current.is_alphabetic()
            || acronym_end;
        if boundary {
            parts.push(&word[start..at]);
            start = at;
        }
    }
    parts.push(&word[start..]);
    parts
}

/// Normalises one word and appends the terms it stands for, if any.
pub(super) fn push_term(word: &str, terms: &mut Vec<String>) {
    let word = fold(word);
    if word.len() < 2 || word.bytes().all(|byte| byte.is_ascii_digit()) || is_stop_word(&word) {
        return;
    }
    let stemmed = stem(word.clone());
    if let Some((_, long)) = ABBREVIATIONS.iter().find(|(short, _)| *short == stemmed) {
        terms.extend(long.iter().map(|word| stem((*word).to_owned())));
        return;
    }
    let inflected = stemmed != word;
    terms.push(stemmed);
    if inflected {
        terms.push(format!("{WRITTEN}{word}"));
    }
}

/// Lowercases `word` and folds accented Latin letters to ASCII.
pub(super) fn fold(word: &str) -> String {
    if word.is_ascii() {
        return word.to_ascii_lowercase();
    }
    let mut folded = String::with_capacity(word.len());
    for lower in word.chars().flat_map(char::to_lowercase) {
        match fold_char(lower) {
            Some(ascii) => folded.push_str(ascii),
            None => folded.push(lower),
        }
    }
    folded
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
