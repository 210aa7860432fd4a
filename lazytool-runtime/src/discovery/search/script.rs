//! Words of scripts written without spaces: Chinese, Japanese and Korean (as Lucene's
//! `CJKAnalyzer` does) and the scripts of South-East Asia (Thai, Lao, Khmer, Myanmar) are cut
//! into overlapping pairs of characters, so that a question shares terms with a tool's text
//! without a dictionary of their words.

/// Whether `c` belongs to a word: a letter, a digit, or a combining mark (Thai tone marks,
/// Devanagari vowel signs and the like, which are not alphanumeric in Unicode).
pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || is_combining_mark(c)
}

fn is_combining_mark(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036F}'   // combining diacritical marks
        | '\u{0483}'..='\u{0489}' // Cyrillic
        | '\u{0591}'..='\u{05C7}' // Hebrew points
        | '\u{0610}'..='\u{061A}' | '\u{064B}'..='\u{065F}' | '\u{0670}' // Arabic
        | '\u{0900}'..='\u{0963}' | '\u{0966}'..='\u{0DFF}' // Indic scripts, but the dandas
        | '\u{0E31}' | '\u{0E34}'..='\u{0E3A}' | '\u{0E47}'..='\u{0E4E}' // Thai
        | '\u{0EB1}' | '\u{0EB4}'..='\u{0EBC}' | '\u{0EC8}'..='\u{0ECD}' // Lao
        | '\u{102B}'..='\u{103E}' | '\u{1056}'..='\u{1059}' // Myanmar
        | '\u{17B4}'..='\u{17D3}' // Khmer
        | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}' | '\u{20D0}'..='\u{20FF}'
        | '\u{3099}'..='\u{309A}' // kana voicing marks
        | '\u{FE20}'..='\u{FE2F}'
    )
}

/// Whether `c` is written without spaces between words, so that its runs are cut in pairs.
pub(super) fn is_unspaced(c: char) -> bool {
    matches!(c,
        '\u{0E00}'..='\u{0EFF}'   // Thai, Lao
        | '\u{1000}'..='\u{109F}' // Myanmar
        | '\u{1100}'..='\u{11FF}' // Hangul jamo
        | '\u{1780}'..='\u{17FF}' // Khmer
        | '\u{3040}'..='\u{30FF}' // Hiragana, Katakana
        | '\u{3130}'..='\u{318F}' // Hangul compatibility jamo
        | '\u{31F0}'..='\u{31FF}' // Katakana extensions
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{A960}'..='\u{A97F}' // Hangul jamo extended A
        | '\u{AC00}'..='\u{D7FF}' // Hangul syllables, jamo extended B
        | '\u{F900}'..='\u{FAFF}' // CJK compatibility ideographs
        | '\u{FF66}'..='\u{FFDC}' // halfwidth Katakana and Hangul
        | '\u{20000}'..='\u{3134F}' // CJK extensions B to G
    )
}

/// The pieces of one word: its runs of other scripts whole, and each run of unspaced
/// script as its overlapping pairs of characters (a combining mark stays with the character
/// before it; a run of one character is itself). `天気予報` → 天気, 気予, 予報.
pub(super) fn pieces(word: &str) -> impl Iterator<Item = &str> {
    let mut rest = word;
    let mut pairs: Option<Pairs<'_>> = None;
    std::iter::from_fn(move || {
        loop {
            if let Some(pair) = pairs.as_mut().and_then(Iterator::next) {
                return Some(pair);
            }
            pairs = None;
            let first = rest.chars().next()?;
            let unspaced = is_unspaced(first);
            let end = rest
                .char_indices()
                .find(|&(_, c)| is_unspaced(c) != unspaced && !is_combining_mark(c))
                .map_or(rest.len(), |(at, _)| at);
            let (run, after) = rest.split_at(end);
            rest = after;
            if !unspaced {
                return Some(run);
            }
            pairs = Some(Pairs::new(run));
        }
    })
}

/// The overlapping pairs of characters of a run of unspaced script.
struct Pairs<'a> {
    run: &'a str,
    /// Where each character starts, with its combining marks; then the run's end.
    starts: Vec<usize>,
    next: usize,
}

impl<'a> Pairs<'a> {
    fn new(run: &'a str) -> Pairs<'a> {
        let mut starts: Vec<usize> = run
            .char_indices()
            .filter(|&(_, c)| !is_combining_mark(c))
            .map(|(at, _)| at)
            .collect();
        if starts.first() != Some(&0) {
            starts.insert(0, 0);
        }
        starts.push(run.len());
        Pairs {
            run,
            starts,
            next: 0,
        }
    }
}

impl<'a> Iterator for Pairs<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let characters = self.starts.len() - 1;
        let width = if characters == 1 { 1 } else { 2 };
        let start = *self.starts.get(self.next)?;
        let end = *self.starts.get(self.next + width)?;
        self.next += 1;
        self.run.get(start..end)
    }
}
