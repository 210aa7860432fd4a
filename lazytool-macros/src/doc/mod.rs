//! Doc comments as descriptions: the tool's from the fn's docs, each parameter's from its own
//! `///` lines or from a rustdoc `# Arguments` list.
//!
//! What is written for rustdoc stays out: the `# Examples`, `# Errors`, `# Panics` and
//! `# Safety` sections, Rust code blocks (doctests), and link syntax (links become their
//! text).

use proc_macro2::Span;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

use crate::markdown::{self, Fence};

/// The lines of the `///` comments (`#[doc = "..."]` attributes) in `attrs`, with the one
/// space rustdoc puts after `///` removed.
pub(crate) fn doc_lines(attrs: &[Attribute]) -> Vec<String> {
    spanned_doc_lines(attrs)
        .into_iter()
        .map(|(line, _)| line)
        .collect()
}

/// [`doc_lines`], each with the span of the comment it comes from.
fn spanned_doc_lines(attrs: &[Attribute]) -> Vec<(String, Span)> {
    let mut lines = Vec::new();
    for attr in attrs {
        if let Meta::NameValue(pair) = &attr.meta
            && pair.path.is_ident("doc")
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(text),
                ..
            }) = &pair.value
        {
            for line in text.value().split('\n') {
                let line = line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned();
                lines.push((line, text.span()));
            }
        }
    }
    lines
}

/// Lines joined back into text, without leading and trailing blank lines and with runs of
/// blank lines collapsed to one.
pub(crate) fn text(lines: &[String]) -> String {
    let mut out = String::new();
    let mut blank_run = false;
    for line in lines {
        if line.trim().is_empty() {
            blank_run = true;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank_run { "\n\n" } else { "\n" });
        }
        out.push_str(line);
        blank_run = false;
    }
    out
}

/// A parameter's own `///` docs as its description, rustdoc's markup removed.
pub(crate) fn param_text(attrs: &[Attribute]) -> String {
    let lines = doc_lines(attrs);
    let mut prose = Prose::default();
    let lines: Vec<String> = lines.iter().filter_map(|line| prose.line(line)).collect();
    text(&lines)
}

/// Reads doc lines in order and keeps what the model should read: outside Rust code blocks
/// and reference definitions, with links as text.
#[derive(Default)]
struct Prose<'a> {
    fence: Option<(Fence<'a>, bool)>,
}

impl<'a> Prose<'a> {
    /// The line as the model reads it, or `None` to leave it out.
    fn line(&mut self, line: &'a str) -> Option<String> {
        let trimmed = line.trim();
        if let Some((open, rust)) = &self.fence {
            let rust = *rust;
            if open.closed_by(trimmed) {
                self.fence = None;
            }
            return (!rust).then(|| line.to_owned());
        }
        if let Some(open) = markdown::fence(trimmed) {
            let rust = open.is_rust();
            self.fence = Some((open, rust));
            return (!rust).then(|| line.to_owned());
        }
        if markdown::is_link_definition(trimmed) {
            return None;
        }
        Some(markdown::plain_links(line))
    }

    fn in_code(&self) -> bool {
        self.fence.is_some()
    }
}

/// A parameter documented in a `# Arguments` list.
pub(crate) struct ArgumentDoc {
    pub(crate) name: String,
    pub(crate) text: String,
    pub(crate) span: Span,
}

/// The fn's docs split into the tool description, the `# Arguments` list
/// (`` * `name` - text ``, rustdoc's convention; `-` items and `:` separators work too), and
/// the `# Skill` section (extended instructions sent only with discovery).
pub(crate) struct FnDocs {
    pub(crate) description: String,
    pub(crate) arguments: Vec<ArgumentDoc>,
    pub(crate) skill: String,
}

#[derive(PartialEq)]
enum Section {
    Description,
    Arguments,
    Skill,
    /// A section for rustdoc's readers (`# Examples`, `# Errors`, ...), left out up to the
    /// next heading of the same level or above.
    Rustdoc {
        level: usize,
    },
}

/// Headings of the sections that document the Rust function rather than the tool.
const RUSTDOC_SECTIONS: &[&str] = &["Examples", "Example", "Errors", "Panics", "Safety"];

pub(crate) fn split_fn_docs(attrs: &[Attribute]) -> FnDocs {
    let lines = spanned_doc_lines(attrs);
    let mut description = Vec::new();
    let mut skill = Vec::new();
    let mut arguments: Vec<ArgumentDoc> = Vec::new();
    let mut section = Section::Description;
    let mut prose = Prose::default();
    for (line, span) in &lines {
        let span = *span;
        let in_code = prose.in_code();
        let Some(line) = prose.line(line) else {
            continue;
        };
        let trimmed = line.trim();
        if let Some(heading) = trimmed.strip_prefix('#').filter(|_| !in_code) {
            let level = 1 + heading.chars().take_while(|c| *c == '#').count();
            let title = heading.trim_start_matches('#').trim();
            if let Section::Rustdoc { level: open } = section
                && level > open
            {
                continue;
            }
            section = match title {
                "Arguments" | "Parameters" | "Args" => Section::Arguments,
                "Skill" => Section::Skill,
                _ if RUSTDOC_SECTIONS.contains(&title) => Section::Rustdoc { level },
                _ => Section::Description,
            };
            if section != Section::Description {
                continue;
            }
        }
        match section {
            Section::Description => description.push(line),
            Section::Skill => skill.push(line),
            Section::Rustdoc { .. } => {}
            Section::Arguments => {
                if let Some((name, text)) = argument_item(trimmed) {
                    arguments.push(ArgumentDoc { name, text, span });
                } else if let Some(last) = arguments.last_mut()
                    && !trimmed.is_empty()
                {
                    last.text.push(' ');
                    last.text.push_str(trimmed);
                }
            }
        }
    }
    FnDocs {
        description: text(&description),
        arguments,
        skill: text(&skill),
    }
}

/// `` * `name` - text `` or `` - `name`: text `` into (name, text).
fn argument_item(line: &str) -> Option<(String, String)> {
    let rest = line.strip_prefix(['*', '-'])?.trim_start();
    let rest = rest.strip_prefix('`')?;
    let (name, rest) = rest.split_once('`')?;
    let text = rest
        .trim_start()
        .trim_start_matches(['-', ':', '—', '–'])
        .trim();
    let name = name.strip_prefix("r#").unwrap_or(name);
    Some((name.to_owned(), text.to_owned()))
}

/// Whether `attr` is a doc comment.
pub(crate) fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

#[cfg(test)]
mod tests;
