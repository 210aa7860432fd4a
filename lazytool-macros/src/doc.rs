//! Doc comments as descriptions: the tool's from the fn's docs, each parameter's from its own
//! `///` lines or from a rustdoc `# Arguments` list.

use proc_macro2::Span;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

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
}

pub(crate) fn split_fn_docs(attrs: &[Attribute]) -> FnDocs {
    let lines = spanned_doc_lines(attrs);
    let mut description = Vec::new();
    let mut skill = Vec::new();
    let mut arguments: Vec<ArgumentDoc> = Vec::new();
    let mut section = Section::Description;
    for (line, span) in &lines {
        let span = *span;
        let trimmed = line.trim();
        if let Some(heading) = trimmed.strip_prefix('#') {
            section = match heading.trim_start_matches('#').trim() {
                "Arguments" | "Parameters" | "Args" => Section::Arguments,
                "Skill" => Section::Skill,
                _ => Section::Description,
            };
            if section != Section::Description {
                continue;
            }
        }
        if section == Section::Description {
            description.push(line.clone());
        } else if section == Section::Skill {
            skill.push(line.clone());
        } else if let Some((name, text)) = argument_item(trimmed) {
            arguments.push(ArgumentDoc { name, text, span });
        } else if let Some(last) = arguments.last_mut()
            && !trimmed.is_empty()
        {
            last.text.push(' ');
            last.text.push_str(trimmed);
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
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn splits_the_arguments_section() {
        let item: syn::ItemFn = parse_quote! {
            /// Search products by keyword.
            ///
            /// Results are ranked.
            ///
            /// # Arguments
            ///
            /// * `query` - Search keyword or phrase.
            /// * `limit` - Maximum number
            ///   of results.
            ///
            /// # Examples
            ///
            /// Not part of the arguments.
            fn f() {}
        };
        let docs = split_fn_docs(&item.attrs);
        assert_eq!(
            docs.description,
            "Search products by keyword.\n\nResults are ranked.\n\n# Examples\n\nNot part of the arguments."
        );
        let arguments: Vec<_> = docs
            .arguments
            .iter()
            .map(|a| (a.name.as_str(), a.text.as_str()))
            .collect();
        assert_eq!(
            arguments,
            [
                ("query", "Search keyword or phrase."),
                ("limit", "Maximum number of results.")
            ]
        );
    }
}
