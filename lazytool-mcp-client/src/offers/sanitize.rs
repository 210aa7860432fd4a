//! Upstream text a model reads, made clean and bounded: hidden characters, terminal escapes
//! and controls removed, long descriptions cut, every removal counted.

use std::borrow::Cow;
use std::fmt;
use std::ops::AddAssign;
use std::str::Chars;
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde_json::Value;

pub(crate) mod offers;

/// The default bound on one description, in characters.
pub(crate) const DEFAULT_MAX_DESCRIPTION_CHARS: usize = 2048;

/// What cleaning removed from one tool's text, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Removals {
    /// U+E0000..=U+E007F, which can spell text no reader sees.
    pub(crate) tag_characters: usize,
    /// Marks and overrides that reorder what is displayed.
    pub(crate) bidi_controls: usize,
    /// Zero-width characters, fillers, variation selectors and other invisible formatting.
    pub(crate) invisible_characters: usize,
    /// C0 controls other than newline and tab, DEL and C1 controls.
    pub(crate) control_characters: usize,
    /// Terminal escape sequences, each removed whole.
    pub(crate) escape_sequences: usize,
    /// Texts cut at the bound.
    pub(crate) cut_texts: usize,
    /// Characters the cuts removed, in total.
    pub(crate) cut_characters: usize,
}

impl Removals {
    pub(crate) fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

impl fmt::Display for Removals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let removed: Vec<String> = [
            (self.tag_characters, "tag character"),
            (self.bidi_controls, "bidi control"),
            (self.invisible_characters, "invisible character"),
            (self.control_characters, "control character"),
            (self.escape_sequences, "escape sequence"),
        ]
        .into_iter()
        .filter(|&(count, _)| count > 0)
        .map(|(count, noun)| counted(count, noun))
        .collect();
        if !removed.is_empty() {
            write!(f, "{} removed", removed.join(", "))?;
        }
        if self.cut_texts > 0 {
            let separator = if removed.is_empty() { "" } else { "; " };
            let texts = counted(self.cut_texts, "text");
            let characters = counted(self.cut_characters, "character");
            write!(f, "{separator}{texts} cut by {characters}")?;
        } else if removed.is_empty() {
            f.write_str("nothing removed")?;
        }
        Ok(())
    }
}

impl AddAssign for Removals {
    fn add_assign(&mut self, other: Self) {
        let Self {
            tag_characters,
            bidi_controls,
            invisible_characters,
            control_characters,
            escape_sequences,
            cut_texts,
            cut_characters,
        } = other;
        self.tag_characters += tag_characters;
        self.bidi_controls += bidi_controls;
        self.invisible_characters += invisible_characters;
        self.control_characters += control_characters;
        self.escape_sequences += escape_sequences;
        self.cut_texts += cut_texts;
        self.cut_characters += cut_characters;
    }
}

/// `text` with hidden characters, controls and escape sequences removed (`\r\n` and a lone
/// `\r` become `\n`) and, when still longer than `max_chars` characters, cut to its first
/// `max_chars` characters followed by a visible marker. Borrowed when nothing changes.
#[cfg(test)]
pub(crate) fn clean_text<'a>(
    text: &'a str,
    max_chars: usize,
    removals: &mut Removals,
) -> Cow<'a, str> {
    cleaned(text, max_chars, removals).map_or(Cow::Borrowed(text), Cow::Owned)
}

/// Cleans, in place, every text of `tool` a model reads: its description and titles, and in
/// its input and output schemas the text keywords (cut at `max_chars`) and the strings inside
/// `enum`, `const`, `default` and `examples` (cleaned, never cut: they are values). Property
/// names and the tool name are left as they are: the upstream expects them verbatim.
pub(crate) fn clean_tool(tool: &mut Tool, max_chars: usize) -> Removals {
    let mut removals = Removals::default();
    if let Some(description) = &mut tool.description
        && let Some(clean) = cleaned(description, max_chars, &mut removals)
    {
        *description = Cow::Owned(clean);
    }
    let annotation_title = tool.annotations.as_mut().and_then(|a| a.title.as_mut());
    for title in tool.title.iter_mut().chain(annotation_title) {
        clean_string(title, max_chars, &mut removals);
    }
    let output_schema = tool.output_schema.iter_mut();
    for schema in std::iter::once(&mut tool.input_schema).chain(output_schema) {
        clean_schema(Arc::make_mut(schema), max_chars, &mut removals);
    }
    removals
}

/// What a JSON value inside a schema is, judged by the key it sits under.
#[derive(Clone, Copy)]
enum Role {
    Schema,
    /// A map from names (of properties, definitions) to schemas.
    Schemas,
    /// A description or title: cleaned and cut.
    Text,
    /// An instance value (`enum`, `default`...): its strings are cleaned, never cut.
    Value,
}

fn role_of(key: &str) -> Role {
    match key {
        "description" | "title" | "$comment" | "markdownDescription" => Role::Text,
        "enum" | "const" | "default" | "examples" => Role::Value,
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
        | "dependencies" => Role::Schemas,
        _ => Role::Schema,
    }
}

/// Walks with its own stack: an upstream's schema may nest deeper than the thread's stack.
fn clean_schema(schema: &mut JsonObject, max_chars: usize, removals: &mut Removals) {
    let mut pending: Vec<(Role, &mut Value)> = Vec::new();
    push_keywords(schema, &mut pending);
    while let Some((role, value)) = pending.pop() {
        match (role, value) {
            (Role::Text, Value::String(text)) => clean_string(text, max_chars, removals),
            (Role::Value, Value::String(text)) => clean_string(text, usize::MAX, removals),
            (Role::Schemas, Value::Array(items)) => {
                pending.extend(items.iter_mut().map(|item| (Role::Schema, item)));
            }
            (role, Value::Array(items)) => {
                pending.extend(items.iter_mut().map(|item| (role, item)));
            }
            (Role::Schemas, Value::Object(map)) => {
                pending.extend(map.values_mut().map(|value| (Role::Schema, value)));
            }
            (Role::Value, Value::Object(map)) => {
                pending.extend(map.values_mut().map(|value| (Role::Value, value)));
            }
            (Role::Schema | Role::Text, Value::Object(map)) => push_keywords(map, &mut pending),
            _ => {}
        }
    }
}

fn push_keywords<'a>(schema: &'a mut JsonObject, pending: &mut Vec<(Role, &'a mut Value)>) {
    pending.extend(schema.iter_mut().map(|(key, value)| (role_of(key), value)));
}

fn clean_string(text: &mut String, max_chars: usize, removals: &mut Removals) {
    if let Some(clean) = cleaned(text, max_chars, removals) {
        *text = clean;
    }
}

/// The clean text, or `None` when `text` is clean already.
fn cleaned(text: &str, max_chars: usize, removals: &mut Removals) -> Option<String> {
    let untouched = text
        .chars()
        .enumerate()
        .all(|(index, c)| index < max_chars && is_plain(c));
    if untouched {
        return None;
    }
    let mut out = String::with_capacity(text.len().min(max_chars.saturating_mul(4)));
    let mut kept = 0_usize;
    let mut keep = |c: char| {
        if kept < max_chars {
            out.push(c);
        }
        kept += 1;
    };
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.as_str().starts_with('\n') => {}
            '\r' => keep('\n'),
            '\u{1b}' | '\u{9b}' | '\u{9d}' => {
                removals.escape_sequences += 1;
                skip_escape_sequence(c, &mut chars);
            }
            _ => match hidden(c) {
                Some(kind) => removals.count(kind),
                None => keep(c),
            },
        }
    }
    if kept > max_chars {
        let cut = kept - max_chars;
        removals.cut_texts += 1;
        removals.cut_characters += cut;
        let characters = if cut == 1 { "character" } else { "characters" };
        out.push_str(&format!(" … [cut: {} more {characters}]", grouped(cut)));
    }
    Some(out)
}

fn is_plain(c: char) -> bool {
    !matches!(c, '\r' | '\u{1b}' | '\u{9b}' | '\u{9d}') && hidden(c).is_none()
}

#[derive(Clone, Copy)]
enum Hidden {
    Tag,
    Bidi,
    Invisible,
    Control,
}

impl Removals {
    fn count(&mut self, hidden: Hidden) {
        *match hidden {
            Hidden::Tag => &mut self.tag_characters,
            Hidden::Bidi => &mut self.bidi_controls,
            Hidden::Invisible => &mut self.invisible_characters,
            Hidden::Control => &mut self.control_characters,
        } += 1;
    }
}

fn hidden(c: char) -> Option<Hidden> {
    match c {
        '\n' | '\t' => None,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => Some(Hidden::Control),
        '\u{e0000}'..='\u{e007f}' => Some(Hidden::Tag),
        '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
            Some(Hidden::Bidi)
        }
        '\u{ad}'
        | '\u{34f}'
        | '\u{115f}'
        | '\u{1160}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200d}'
        | '\u{2060}'..='\u{2065}'
        | '\u{206a}'..='\u{206f}'
        | '\u{3164}'
        | '\u{fe00}'..='\u{fe0f}'
        | '\u{feff}'
        | '\u{ffa0}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{e0100}'..='\u{e01ef}' => Some(Hidden::Invisible),
        _ => None,
    }
}

/// Consumes the rest of the escape sequence `introducer` (ESC, or the 8-bit CSI or OSC) starts.
fn skip_escape_sequence(introducer: char, chars: &mut Chars<'_>) {
    match introducer {
        '\u{9b}' => skip_csi(chars),
        '\u{9d}' => skip_control_string(chars),
        _ if take_if(chars, |c| c == '[') => skip_csi(chars),
        _ if take_if(chars, |c| matches!(c, ']' | 'P' | 'X' | '^' | '_')) => {
            skip_control_string(chars);
        }
        _ => {
            while take_if(chars, |c| ('\u{20}'..='\u{2f}').contains(&c)) {}
            take_if(chars, |c| ('\u{30}'..='\u{7e}').contains(&c));
        }
    }
}

/// Stops early at a character no CSI holds, which is then cleaned on its own.
fn skip_csi(chars: &mut Chars<'_>) {
    while take_if(chars, |c| ('\u{20}'..='\u{3f}').contains(&c)) {}
    take_if(chars, |c| ('\u{40}'..='\u{7e}').contains(&c));
}

/// Skips an OSC, DCS, SOS, PM or APC payload up to its terminator (BEL or ST), or to the end
/// of the text when there is none. Another ESC ends it as terminals do, and starts its own
/// sequence.
fn skip_control_string(chars: &mut Chars<'_>) {
    loop {
        let rest = chars.as_str();
        if let Some(after) = rest.strip_prefix("\u{1b}\\") {
            *chars = after.chars();
            return;
        }
        if rest.starts_with('\u{1b}') {
            return;
        }
        if let None | Some('\u{7}' | '\u{9c}') = chars.next() {
            return;
        }
    }
}

fn take_if(chars: &mut Chars<'_>, accept: impl Fn(char) -> bool) -> bool {
    let mut ahead = chars.clone();
    match ahead.next() {
        Some(c) if accept(c) => {
            *chars = ahead;
            true
        }
        _ => false,
    }
}

fn counted(count: usize, noun: &str) -> String {
    let plural = if count == 1 { "" } else { "s" };
    format!("{} {noun}{plural}", grouped(count))
}

/// `count` with its digits in groups of three: 997,952.
pub(crate) fn grouped(count: usize) -> String {
    let digits = count.to_string();
    let mut out = String::with_capacity(digits.len() * 4 / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests;
