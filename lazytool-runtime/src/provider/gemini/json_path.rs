//! The JSONPath locations (RFC 9535) that Gemini's streamed arguments name: `$.a.b[0]`,
//! `$['a b']`.

use std::fmt::Write;

use serde_json::{Map, Value};

/// One step of a path.
#[derive(Debug, PartialEq)]
enum Step {
    Member(String),
    Index(usize),
}

/// The steps of a singular path: `$` followed by `.name`, `['name']` / `["name"]` and
/// `[index]` selectors. Anything else (wildcards, slices, filters) names no single value.
fn steps(path: &str) -> Result<Vec<Step>, String> {
    let invalid = |why: &str| format!("`{path}` is not a JSONPath to one value: {why}");
    let mut rest = path
        .strip_prefix('$')
        .ok_or_else(|| invalid("it does not start with `$`"))?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return Err(invalid("an empty member name"));
            }
            steps.push(Step::Member(after[..end].to_owned()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let (step, after) = match after.chars().next() {
                Some(quote @ ('\'' | '"')) => quoted(&after[1..], quote)
                    .map(|(name, after)| (Step::Member(name), after))
                    .ok_or_else(|| invalid("an unterminated quoted name"))?,
                _ => {
                    let end = after
                        .find(']')
                        .ok_or_else(|| invalid("a `[` without `]`"))?;
                    let index = after[..end]
                        .trim()
                        .parse()
                        .map_err(|_| invalid("a selector that is no array index"))?;
                    (Step::Index(index), &after[end..])
                }
            };
            rest = after
                .strip_prefix(']')
                .ok_or_else(|| invalid("a selector without its `]`"))?;
            steps.push(step);
        } else {
            return Err(invalid("expected `.` or `[`"));
        }
    }
    Ok(steps)
}

/// A quoted member name up to its closing `quote` (backslash escapes the next character),
/// and what follows it.
fn quoted(text: &str, quote: char) -> Option<(String, &str)> {
    let mut name = String::new();
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => {
                let (_, escaped) = chars.next()?;
                name.push(match escaped {
                    'n' => '\n',
                    't' => '\t',
                    other => other,
                });
            }
            c if c == quote => return Some((name, &text[at + c.len_utf8()..])),
            c => name.push(c),
        }
    }
    None
}

/// The value at `path` inside `root`, created as `null` (with the objects and arrays on the
/// way) when absent; an array is padded with `null`s up to the index named.
pub(super) fn slot<'v>(
    root: &'v mut Map<String, Value>,
    path: &str,
) -> Result<&'v mut Value, String> {
    let steps = steps(path)?;
    let Some((first, rest)) = steps.split_first() else {
        return Err(format!(
            "`{path}` names the arguments object itself, not one argument"
        ));
    };
    let Step::Member(name) = first else {
        return Err(format!("`{path}` indexes the arguments object as an array"));
    };
    let mut value = root.entry(name.clone()).or_insert(Value::Null);
    let mut walked = format!("$.{name}");
    for step in rest {
        if value.is_null() {
            *value = match step {
                Step::Member(_) => Value::Object(Map::new()),
                Step::Index(_) => Value::Array(Vec::new()),
            };
        }
        value = match (step, value) {
            (Step::Member(name), Value::Object(object)) => {
                let _ = write!(walked, ".{name}");
                object.entry(name.clone()).or_insert(Value::Null)
            }
            (Step::Index(index), Value::Array(items)) => {
                let _ = write!(walked, "[{index}]");
                if items.len() <= *index {
                    items.resize(index + 1, Value::Null);
                }
                &mut items[*index]
            }
            (_, other) => {
                return Err(format!(
                    "`{path}` goes through `{walked}`, which already holds {other}"
                ));
            }
        };
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn paths_of_members_quoted_names_and_indexes() {
        assert_eq!(
            steps("$.recipe.steps[2]").expect("a path"),
            [
                Step::Member("recipe".into()),
                Step::Member("steps".into()),
                Step::Index(2)
            ]
        );
        assert_eq!(
            steps(r#"$['a b']["c\"d"]"#).expect("a path"),
            [Step::Member("a b".into()), Step::Member("c\"d".into())]
        );
        for bad in ["a.b", "$.", "$[x]", "$['open", "$.a[*]", "$.a[1"] {
            assert!(steps(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn slots_are_created_on_the_way_and_conflicts_reported() {
        let mut root = Map::new();
        *slot(&mut root, "$.ops[1].price").expect("a slot") = json!(0.5);
        *slot(&mut root, "$.ops[0].name").expect("a slot") = json!("apple");
        assert_eq!(
            Value::Object(root.clone()),
            json!({"ops": [{"name": "apple"}, {"price": 0.5}]})
        );
        let error = slot(&mut root, "$.ops[0].name.first").expect_err("a string on the way");
        assert!(error.contains("`$.ops[0].name`"), "{error}");
        assert!(slot(&mut root, "$").is_err());
        assert!(slot(&mut root, "$[0]").is_err());
    }
}
