//! The parts of rustdoc's markdown that are meant for rustdoc, not for the model: Rust code
//! blocks (doctests) and the syntax of links, intra-doc links above all.

/// An opening or closing code fence: its character, its length, and the info string.
pub(crate) struct Fence<'a> {
    marker: char,
    len: usize,
    pub(crate) info: &'a str,
}

impl Fence<'_> {
    /// Whether `line` closes this fence (the same character, at least as long, nothing after).
    pub(crate) fn closed_by(&self, line: &str) -> bool {
        fence(line).is_some_and(|close| {
            close.marker == self.marker && close.len >= self.len && close.info.is_empty()
        })
    }

    /// Whether the block is Rust, which rustdoc compiles and runs as a doctest: no language,
    /// `rust`, or only rustdoc's attributes.
    pub(crate) fn is_rust(&self) -> bool {
        const RUSTDOC: &[&str] = &[
            "rust",
            "ignore",
            "no_run",
            "should_panic",
            "compile_fail",
            "test_harness",
            "standalone_crate",
            "edition2015",
            "edition2018",
            "edition2021",
            "edition2024",
        ];
        self.info
            .split([',', ' ', '\t'])
            .filter(|word| !word.is_empty())
            .all(|word| RUSTDOC.contains(&word) || word.starts_with("ignore-"))
    }
}

/// The fence `line` (already trimmed) opens or closes, if it is one.
pub(crate) fn fence(line: &str) -> Option<Fence<'_>> {
    let marker = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = line.chars().take_while(|c| *c == marker).count();
    (len >= 3).then(|| Fence {
        marker,
        len,
        info: line[len..].trim(),
    })
}

/// A reference definition such as `[Registry]: crate::Registry`, which renders as nothing.
pub(crate) fn is_link_definition(line: &str) -> bool {
    line.strip_prefix('[')
        .and_then(|rest| rest.split_once("]:"))
        .is_some_and(|(label, _)| !label.is_empty() && !label.contains(['[', ']']))
}

/// `line` with links as their text: `[text](target)` and `[text][label]` become `text`, and
/// an intra-doc link such as `` [`Registry`] `` or `[crate::Registry]` its label. Brackets
/// that are not a link (`[0, 1]`) and anything inside inline code stay as they are.
pub(crate) fn plain_links(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '`' => {
                let run = run_of(&chars, i, '`');
                let end = closing_run(&chars, i + run, run).unwrap_or(chars.len());
                out.extend(&chars[i..end]);
                i = end;
            }
            '[' => match link(&chars, i) {
                Some((text, end)) => {
                    out.push_str(&plain_links(&text));
                    i = end;
                }
                None => {
                    out.push('[');
                    i += 1;
                }
            },
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The link starting at `chars[start] == '['`: its text and the index after it.
fn link(chars: &[char], start: usize) -> Option<(String, usize)> {
    let close = matching_bracket(chars, start)?;
    let text: String = chars[start + 1..close].iter().collect();
    match chars.get(close + 1) {
        Some('(') => {
            let end = matching(chars, close + 1, '(', ')')?;
            Some((text, end + 1))
        }
        Some('[') => {
            let end = matching(chars, close + 1, '[', ']')?;
            Some((text, end + 1))
        }
        _ if is_intra_doc(&text) => Some((text, close + 1)),
        _ => None,
    }
}

/// `` `anything` `` or a Rust path (`Registry`, `crate::Registry::call`, `Vec<T>`,
/// `tool!`, `call()`), which rustdoc resolves as an intra-doc link.
fn is_intra_doc(text: &str) -> bool {
    if text.len() > 2 && text.starts_with('`') && text.ends_with('`') {
        return !text[1..text.len() - 1].contains('`');
    }
    let path = text
        .strip_suffix("()")
        .or_else(|| text.strip_suffix('!'))
        .unwrap_or(text);
    let path = path
        .split_once('@')
        .map_or(path, |(namespace, item)| match namespace {
            "struct" | "enum" | "trait" | "fn" | "mod" | "type" | "const" | "static" | "macro"
            | "method" | "field" | "variant" | "union" | "prim" | "primitive" => item,
            _ => path,
        });
    path.split("::")
        .all(|segment| is_identifier(segment.split('<').next().unwrap_or(segment)))
        && path.chars().any(|c| c.is_ascii_alphabetic())
}

fn is_identifier(segment: &str) -> bool {
    let mut chars = segment.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

fn run_of(chars: &[char], start: usize, c: char) -> usize {
    chars[start..].iter().take_while(|&&x| x == c).count()
}

/// The index after the run of exactly `len` backticks that closes an inline code span.
fn closing_run(chars: &[char], from: usize, len: usize) -> Option<usize> {
    let mut i = from;
    while i < chars.len() {
        if chars[i] == '`' {
            let run = run_of(chars, i, '`');
            if run == len {
                return Some(i + run);
            }
            i += run;
        } else {
            i += 1;
        }
    }
    None
}

/// The `]` matching `chars[start] == '['`, skipping inline code inside.
fn matching_bracket(chars: &[char], start: usize) -> Option<usize> {
    let mut depth = 0;
    let mut i = start;
    while i < chars.len() {
        match chars[i] {
            '`' => {
                let run = run_of(chars, i, '`');
                i = closing_run(chars, i + run, run)?;
                continue;
            }
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn matching(chars: &[char], start: usize, open: char, close: char) -> Option<usize> {
    let mut depth = 0;
    for (i, &c) in chars.iter().enumerate().skip(start) {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_become_their_text() {
        let cases = [
            ("See [`unarchive`] first.", "See `unarchive` first."),
            (
                "Uses [the registry](crate::Registry).",
                "Uses the registry.",
            ),
            (
                "Uses [Registry] and [crate::Session].",
                "Uses Registry and crate::Session.",
            ),
            (
                "[`Tool::call`](crate::Tool::call) runs it",
                "`Tool::call` runs it",
            ),
            ("A [reference link][docs] here.", "A reference link here."),
            (
                "Calls [`run()`] or [run()] or [tool!].",
                "Calls `run()` or run() or tool!.",
            ),
            ("[struct@Registry]", "struct@Registry"),
            ("Values in [0, 1] stay.", "Values in [0, 1] stay."),
            ("Code `[not](a link)` stays.", "Code `[not](a link)` stays."),
            ("An [unclosed bracket", "An [unclosed bracket"),
            (
                "A [sentence with spaces] stays.",
                "A [sentence with spaces] stays.",
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(plain_links(input), expected, "{input}");
        }
    }

    #[test]
    fn reference_definitions_and_fences_are_recognized() {
        assert!(is_link_definition("[Registry]: crate::Registry"));
        assert!(is_link_definition("[docs]: https://docs.rs"));
        assert!(!is_link_definition("[0, 1] are bounds: inclusive"));
        assert!(fence("```").is_some_and(|f| f.is_rust()));
        assert!(fence("```rust,no_run").is_some_and(|f| f.is_rust()));
        assert!(fence("```json").is_some_and(|f| !f.is_rust()));
        assert!(fence("~~~text").is_some_and(|f| !f.is_rust()));
        assert!(fence("``inline``").is_none());
        let open = fence("````").expect("a fence");
        assert!(!open.closed_by("```"));
        assert!(open.closed_by("`````"));
    }
}
