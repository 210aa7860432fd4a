//! What the model asked the discovery tool for: names, or a search query.

use std::borrow::Cow;

use serde_json::Value;

/// The search results a search-mode discovery returns by default, and at most.
pub(super) const DEFAULT_SEARCH_LIMIT: usize = 5;
pub(super) const MAX_SEARCH_LIMIT: usize = 20;

/// The longest search query, in bytes: keywords, not documents. Longer ones are an error
/// result, so that no query costs more to analyse than this.
pub(crate) const MAX_QUERY_BYTES: usize = 1024;

/// A discovery call's arguments, read.
pub(super) enum Request<'a> {
    Names(Vec<Cow<'a, str>>),
    Query { query: &'a str, limit: usize },
}

impl<'a> Request<'a> {
    /// Reads `arguments` (an object that passed the call limits): `{"toolNames": [...]}`, or
    /// in search mode `{"query", "limit"?}` (search mode takes `toolNames` too). The error
    /// says what is wrong, for the model.
    pub(super) fn read(arguments: &'a Value, search: bool) -> Result<Request<'a>, String> {
        if search && arguments.get("toolNames").is_none() {
            let query = match arguments.get("query") {
                Some(Value::String(query)) if query.len() > MAX_QUERY_BYTES => {
                    return Err(format!(
                        "query is longer than {MAX_QUERY_BYTES} bytes; search with a few keywords"
                    ));
                }
                Some(Value::String(query)) if !query.trim().is_empty() => query.trim(),
                Some(Value::String(_)) => return Err("query is empty".to_owned()),
                Some(_) => return Err("query must be a string".to_owned()),
                None => return Err("query is missing".to_owned()),
            };
            let limit = match arguments.get("limit") {
                None | Some(Value::Null) => DEFAULT_SEARCH_LIMIT,
                Some(limit) => match limit.as_u64() {
                    Some(limit) if limit >= 1 => (limit as usize).min(MAX_SEARCH_LIMIT),
                    _ => {
                        return Err(format!(
                            "limit must be an integer from 1 to {MAX_SEARCH_LIMIT}"
                        ));
                    }
                },
            };
            return Ok(Request::Query { query, limit });
        }
        requested_names(arguments).map(Request::Names)
    }
}

fn requested_names(arguments: &Value) -> Result<Vec<Cow<'_, str>>, String> {
    let names = match arguments.get("toolNames") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        Some(Value::String(name)) => vec![name.as_str()],
        Some(_) => return Err("toolNames must be an array of tool names".to_owned()),
        None => return Err("toolNames is missing".to_owned()),
    };
    let names: Vec<Cow<'_, str>> = names
        .into_iter()
        .flat_map(expand_group)
        .filter(|name| !name.is_empty())
        .collect();
    if names.is_empty() {
        return Err("toolNames is empty".to_owned());
    }
    Ok(names)
}

/// The names a grouped listing's `p__{a, b}` stands for (`p__a`, `p__b`), as a model may
/// copy it from the listing; any other name, trimmed.
fn expand_group(name: &str) -> Vec<Cow<'_, str>> {
    let name = name.trim();
    let group = name
        .strip_suffix('}')
        .and_then(|inner| inner.split_once('{'))
        .filter(|(prefix, _)| prefix.ends_with("__"));
    match group {
        Some((prefix, members)) => members
            .split(',')
            .map(str::trim)
            .filter(|member| !member.is_empty())
            .map(|member| Cow::Owned(format!("{prefix}{member}")))
            .collect(),
        None => vec![Cow::Borrowed(name)],
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn requested_names(arguments: &Value) -> Result<Vec<String>, String> {
        super::requested_names(arguments)
            .map(|names| names.into_iter().map(Cow::into_owned).collect())
    }

    #[test]
    fn requested_names_accept_strings_and_reject_nothing() {
        assert_eq!(
            requested_names(&json!({"toolNames": ["a", " b ", ""]})).expect("names"),
            ["a", "b"]
        );
        assert_eq!(
            requested_names(&json!({"toolNames": "a"})).expect("names"),
            ["a"]
        );
        assert_eq!(
            requested_names(&json!({"toolNames": ["gh__{get_me, create_issue}", "gh__{}", "x"]}))
                .expect("names"),
            ["gh__get_me", "gh__create_issue", "x"]
        );
        // Braces without a `p__` before them are no group.
        assert_eq!(
            requested_names(&json!({"toolNames": "{a, b}"})).expect("names"),
            ["{a, b}"]
        );
        for bad in [json!({"toolNames": []}), json!({}), json!({"toolNames": 3})] {
            assert!(requested_names(&bad).is_err());
        }
    }

    #[test]
    fn queries_are_bounded() {
        let at = json!({"query": "q".repeat(MAX_QUERY_BYTES)});
        assert!(matches!(
            Request::read(&at, true),
            Ok(Request::Query { .. })
        ));
        let over = json!({"query": "q".repeat(MAX_QUERY_BYTES + 1)});
        let Err(problem) = Request::read(&over, true) else {
            panic!("a query over the limit is refused");
        };
        assert!(problem.contains("longer than 1024 bytes"), "{problem}");
    }
}
