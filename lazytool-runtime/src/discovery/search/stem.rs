//! A light English stemmer: plurals, inflections and a few derivations.

/// A light, deterministic suffix stripper in the spirit of Porter's: plurals, `-ed` and
/// `-ing`, agent nouns, `-ment` and `-tion`, then a doubled final consonant, `y` → `i` and a final
/// `e`, so that `create`, `creates`, `created`, `creating` and `creation` all become
/// `creat`. Only plain lowercase ASCII words are stemmed, in place.
pub(super) fn stem(stem: &mut String) {
    if stem.len() < 3 || !stem.bytes().all(|byte| byte.is_ascii_lowercase()) {
        return;
    }
    stem.truncate(strip_derivation(strip_inflection(strip_plural(stem))).len());
    if let [.., a, b] = *stem.as_bytes()
        && a == b
        && !is_vowel(b)
        && match b {
            b's' | b'z' => false,
            // `labelled` and `label` agree; `call` and `pull` keep their `ll`.
            b'l' => measure(&stem[..stem.len() - 1]) > 1,
            _ => true,
        }
    {
        stem.pop();
    }
    if let [.., before, b'y'] = *stem.as_bytes()
        && stem.len() > 2
        && !is_vowel(before)
    {
        stem.pop();
        stem.push('i');
    }
    if stem.len() >= 4 && stem.ends_with('e') {
        stem.pop();
    }
}

/// `requests` → request, `branches` → branch, `entries` → entri; not `status`.
pub(super) fn strip_plural(word: &str) -> &str {
    if let Some(base) = word.strip_suffix("ies")
        && base.len() >= 2
    {
        return &word[..word.len() - 2];
    }
    if let Some(base) = word.strip_suffix("es")
        && base.len() >= 3
        && ["s", "x", "z", "ch", "sh"]
            .iter()
            .any(|end| base.ends_with(end))
    {
        return base;
    }
    if let Some(base) = word.strip_suffix('s')
        && base.len() >= 2
        && !["s", "u", "i"].iter().any(|end| base.ends_with(end))
    {
        return base;
    }
    word
}

/// `created` → creat, `running` → runn; not `need` or `string`.
pub(super) fn strip_inflection(word: &str) -> &str {
    if word.ends_with("eed") {
        return word;
    }
    for suffix in ["ing", "ed"] {
        if let Some(base) = word.strip_suffix(suffix)
            && base.len() >= 3
            && base.bytes().any(is_vowel)
        {
            return base;
        }
    }
    word
}

/// `reviewer` → review, `assignee` → assign, `director` → direct, `payment` → pay,
/// `reaction` → react; not `owner`, `user`, `author`, `comment` or `action`.
pub(super) fn strip_derivation(word: &str) -> &str {
    for suffix in ["er", "ee", "or", "ment"] {
        if let Some(base) = word.strip_suffix(suffix)
            && measure(base) > 1
        {
            return base;
        }
    }
    if let Some(base) = word.strip_suffix("ion")
        && base.len() >= 4
        && (base.ends_with('t') || base.ends_with('s'))
    {
        return base;
    }
    word
}

/// Porter's measure: how many vowel-consonant sequences `word` has (`tree` 0, `trouble`
/// 1, `review` 2).
pub(super) fn measure(word: &str) -> usize {
    let mut count = 0;
    let mut after_vowel = false;
    for byte in word.bytes() {
        let vowel = is_vowel(byte);
        if after_vowel && !vowel {
            count += 1;
        }
        after_vowel = vowel;
    }
    count
}

pub(super) fn is_vowel(byte: u8) -> bool {
    matches!(byte, b'a' | b'e' | b'i' | b'o' | b'u' | b'y')
}
