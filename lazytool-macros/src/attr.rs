//! The grammar of `#[tool(...)]` and of the parameter attribute `#[arg(...)]`.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::{Expr, Ident, LitBool, LitStr, Path, Token};

use crate::case::{RULE_NAMES, RenameRule};
use crate::errors::Errors;

pub(crate) const TOOL_KEYS: &[&str] = &[
    "lazy",
    "blocking",
    "name",
    "description",
    "rename_all",
    "strict",
    "output_schema",
    "title",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "tags",
    "skill",
    "example",
    "crate",
];

/// The keys that may be given more than once.
const REPEATABLE_KEYS: &[&str] = &["example"];

pub(crate) const ARG_KEYS: &[&str] = &["default", "rename", "description"];

#[derive(Default)]
pub(crate) struct ToolAttr {
    pub(crate) lazy: bool,
    /// `blocking`: the key's span, when set.
    pub(crate) blocking: Option<Span>,
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) rename_all: Option<RenameRule>,
    pub(crate) strict: bool,
    pub(crate) output_schema: Option<Span>,
    pub(crate) title: Option<LitStr>,
    /// MCP hints, in the order of `HINT_KEYS`.
    pub(crate) hints: [Option<bool>; 4],
    pub(crate) tags: Vec<LitStr>,
    pub(crate) skill: Option<Expr>,
    pub(crate) examples: Vec<Example>,
    pub(crate) krate: Option<Path>,
}

/// The MCP behaviour hints `#[tool]` takes, as flags.
pub(crate) const HINT_KEYS: [&str; 4] = ["read_only", "destructive", "idempotent", "open_world"];

pub(crate) fn parse_tool_attr(tokens: TokenStream, errors: &mut Errors) -> ToolAttr {
    let mut attr = ToolAttr::default();
    parse_keys(tokens, "#[tool]", TOOL_KEYS, errors, |key, meta, errors| {
        match key {
            "lazy" => attr.lazy = flag(meta)?,
            "blocking" => {
                if flag(meta)? {
                    attr.blocking = Some(meta.path.segments[0].ident.span());
                }
            }
            "strict" => attr.strict = flag(meta)?,
            "output_schema" => {
                if flag(meta)? {
                    attr.output_schema = Some(meta.path.segments[0].ident.span());
                }
            }
            "name" => attr.name = Some(meta.value()?.parse()?),
            "description" => attr.description = Some(meta.value()?.parse()?),
            "title" => attr.title = Some(meta.value()?.parse()?),
            "read_only" | "destructive" | "idempotent" | "open_world" => {
                let index = HINT_KEYS.iter().position(|hint| *hint == key).unwrap_or(0);
                attr.hints[index] = Some(flag(meta)?);
            }
            "tags" => {
                let list: syn::ExprArray = meta.value()?.parse()?;
                for element in list.elems {
                    match element {
                        Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(tag),
                            ..
                        }) => attr.tags.push(tag),
                        other => errors.spanned(
                            other,
                            "a tag is a string literal: `tags = [\"search\", \"catalog\"]`",
                        ),
                    }
                }
            }
            "skill" => attr.skill = Some(meta.value()?.parse()?),
            "example" => attr.examples.push(parse_example(meta)?),
            "rename_all" => {
                let rule: LitStr = meta.value()?.parse()?;
                match RenameRule::from_name(&rule.value()) {
                    Some(parsed) => attr.rename_all = Some(parsed),
                    None => errors.spanned(
                        &rule,
                        format!(
                            "unknown `rename_all` rule {:?}; expected one of: {}{}",
                            rule.value(),
                            quoted(RULE_NAMES),
                            suggestion(&rule.value(), RULE_NAMES),
                        ),
                    ),
                }
            }
            "crate" => attr.krate = Some(crate_path(meta)?),
            _ => return Ok(false),
        }
        Ok(true)
    });
    attr
}

/// One `example(...)` of `#[tool]`: the parameters given and their values, as written.
pub(crate) struct Example {
    /// The `example` key: where an error about the example as a whole belongs.
    pub(crate) key: Span,
    pub(crate) values: Vec<(Ident, Expr)>,
}

/// Parses the parenthesized `param = value, ...` after an `example` key; `example.rs`
/// checks it against the parameters.
fn parse_example(meta: &ParseNestedMeta<'_>) -> syn::Result<Example> {
    let key = meta.path.segments[0].ident.span();
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(
            "write an example as the tool's arguments: `example(city = \"Paris\", days = 3)`",
        ));
    }
    let mut values: Vec<(Ident, Expr)> = Vec::new();
    meta.parse_nested_meta(|inner| {
        let Some(ident) = inner.path.get_ident().cloned() else {
            return Err(inner.error("an example's key is a parameter's name"));
        };
        if !inner.input.peek(Token![=]) {
            return Err(inner.error(format!(
                "give `{ident}` a value: `{ident} = ...`, or leave it out if it is optional"
            )));
        }
        let value: Expr = inner.value()?.parse()?;
        values.push((ident, value));
        Ok(())
    })?;
    Ok(Example { key, values })
}

pub(crate) const TOOLS_KEYS: &[&str] = &["crate"];

/// `#[tools(...)]` takes only `crate = path`.
pub(crate) fn parse_tools_attr(tokens: TokenStream, errors: &mut Errors) -> Option<Path> {
    let mut krate = None;
    parse_keys(tokens, "#[tools]", TOOLS_KEYS, errors, |key, meta, _| {
        if key != "crate" {
            return Ok(false);
        }
        krate = Some(crate_path(meta)?);
        Ok(true)
    });
    krate
}

/// Parses `key, key = value, ...` with `apply`, which returns `false` for a key it does not
/// know. Unknown and duplicate keys are errors; parsing goes on to report the next mistake.
fn parse_keys(
    tokens: TokenStream,
    attribute: &str,
    valid: &[&str],
    errors: &mut Errors,
    mut apply: impl FnMut(&str, &ParseNestedMeta<'_>, &mut Errors) -> syn::Result<bool>,
) {
    let mut seen = Vec::new();
    let parser = syn::meta::parser(|meta| {
        let key = key_of(&meta);
        if !note_first(&mut seen, &key, &meta, errors) {
            return skip_value(&meta);
        }
        if !apply(&key, &meta, errors)? {
            errors.spanned(&meta.path, unknown_key(attribute, &key, valid));
            return skip_value(&meta);
        }
        Ok(())
    });
    if let Err(error) = parser.parse2(tokens) {
        errors.push(error);
    }
}

fn crate_path(meta: &ParseNestedMeta<'_>) -> syn::Result<Path> {
    let value = meta.value()?;
    if value.peek(LitStr) {
        value.parse::<LitStr>()?.parse()
    } else {
        value.call(Path::parse_mod_style)
    }
}

#[derive(Default)]
pub(crate) struct ArgAttr {
    pub(crate) default: Option<(Span, Option<Expr>)>,
    pub(crate) rename: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
}

/// A bare `#[arg]` only marks the parameter as an argument.
pub(crate) fn parse_arg_attr(attr: &syn::Attribute, into: &mut ArgAttr, errors: &mut Errors) {
    let tokens = match &attr.meta {
        syn::Meta::Path(_) => return,
        syn::Meta::List(list) => list.tokens.clone(),
        syn::Meta::NameValue(pair) => {
            errors.spanned(pair, "write `#[arg]` or `#[arg(key = ...)]`");
            return;
        }
    };
    parse_keys(tokens, "#[arg]", ARG_KEYS, errors, |key, meta, _| {
        match key {
            "default" => {
                let span = meta.path.segments[0].ident.span();
                let value = if meta.input.peek(Token![=]) {
                    Some(meta.value()?.parse()?)
                } else {
                    None
                };
                into.default = Some((span, value));
            }
            "rename" => into.rename = Some(meta.value()?.parse()?),
            "description" => into.description = Some(meta.value()?.parse()?),
            _ => return Ok(false),
        }
        Ok(true)
    });
}

fn key_of(meta: &ParseNestedMeta<'_>) -> String {
    let path = &meta.path;
    path.segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// Records `key`; a second occurrence is an error and returns false.
fn note_first(
    seen: &mut Vec<String>,
    key: &str,
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
) -> bool {
    if REPEATABLE_KEYS.contains(&key) {
        return true;
    }
    if seen.iter().any(|earlier| earlier == key) {
        errors.spanned(
            &meta.path,
            format!("duplicate `{key}` key; give each key once"),
        );
        return false;
    }
    seen.push(key.to_owned());
    true
}

/// A flag is written bare (`lazy`) or with a boolean (`lazy = false`).
fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if meta.input.peek(Token![=]) {
        Ok(meta.value()?.parse::<LitBool>()?.value)
    } else {
        Ok(true)
    }
}

/// Consumes whatever follows an unknown or duplicate key so parsing can go on and report
/// the next mistake too.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}

pub(crate) fn unknown_key(attribute: &str, key: &str, valid: &[&str]) -> String {
    format!(
        "unknown key `{key}` in `{attribute}`; valid keys are: {}{}",
        valid
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", "),
        suggestion(key, valid),
    )
}

fn quoted(values: &[&str]) -> String {
    values
        .iter()
        .map(|v| format!("{v:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// "; did you mean `x`?" for the valid value nearest to `input`, if any is near enough.
pub(crate) fn suggestion(input: &str, valid: &[&str]) -> String {
    let input_lower = input.to_ascii_lowercase();
    valid
        .iter()
        .map(|candidate| {
            (
                edit_distance(&input_lower, &candidate.to_ascii_lowercase()),
                candidate,
            )
        })
        .filter(|(distance, candidate)| *distance <= (candidate.len() / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| format!("; did you mean `{candidate}`?"))
        .unwrap_or_default()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_nearest_key() {
        assert_eq!(suggestion("lazzy", TOOL_KEYS), "; did you mean `lazy`?");
        assert_eq!(
            suggestion("descripton", TOOL_KEYS),
            "; did you mean `description`?"
        );
        assert_eq!(
            suggestion("camelcase", RULE_NAMES),
            "; did you mean `camelCase`?"
        );
        assert_eq!(suggestion("zzz", TOOL_KEYS), "");
    }
}
