//! Reading JSON values into settings while collecting every problem with its JSON path:
//! [`Reader`].

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde_json::{Map, Value};

use super::expand::expand;

/// Problems, each as its JSON path and what is wrong.
pub(super) type Problems = Vec<(String, String)>;

pub(super) struct Reader<'v> {
    pub(super) problems: Problems,
    pub(super) var: &'v dyn Fn(&str) -> Option<String>,
}

/// `base.key`, or `base["key"]` for keys that are not plain words.
pub(super) fn child(base: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        format!("{base}.{key}")
    } else {
        format!("{base}[{}]", Value::from(key))
    }
}

impl Reader<'_> {
    pub(super) fn problem(&mut self, path: &str, message: impl fmt::Display) {
        self.problems.push((path.to_owned(), message.to_string()));
    }

    pub(super) fn object<'a>(
        &mut self,
        value: &'a Value,
        path: &str,
    ) -> Option<&'a Map<String, Value>> {
        match value {
            Value::Object(map) => Some(map),
            other => {
                self.problem(path, format!("expected an object, found {}", kind(other)));
                None
            }
        }
    }

    /// A string, its variables expanded.
    pub(super) fn string(&mut self, value: &Value, path: &str) -> Option<String> {
        match value {
            Value::String(text) => match expand(text, self.var) {
                Ok(text) => Some(text),
                Err(error) => {
                    self.problem(path, error);
                    None
                }
            },
            other => {
                self.problem(path, format!("expected a string, found {}", kind(other)));
                None
            }
        }
    }

    pub(super) fn strings(&mut self, value: &Value, path: &str) -> Vec<String> {
        match value {
            Value::Array(items) => (items.iter().enumerate())
                .filter_map(|(i, item)| self.string(item, &format!("{path}[{i}]")))
                .collect(),
            other => {
                self.problem(
                    path,
                    format!("expected an array of strings, found {}", kind(other)),
                );
                Vec::new()
            }
        }
    }

    pub(super) fn string_map(&mut self, value: &Value, path: &str) -> BTreeMap<String, String> {
        let Some(map) = self.object(value, path) else {
            return BTreeMap::new();
        };
        (map.iter())
            .filter_map(|(key, value)| Some((key.clone(), self.string(value, &child(path, key))?)))
            .collect()
    }

    pub(super) fn millis(
        &mut self,
        value: Option<&Value>,
        path: &str,
        default: Duration,
    ) -> Duration {
        let default_ms = u64::try_from(default.as_millis()).unwrap_or(u64::MAX);
        Duration::from_millis(self.positive(value, path, default_ms, "milliseconds"))
    }

    pub(super) fn positive(
        &mut self,
        value: Option<&Value>,
        path: &str,
        default: u64,
        unit: &str,
    ) -> u64 {
        match value {
            None => default,
            Some(Value::Number(n)) if n.as_u64().is_some_and(|n| n > 0) => {
                n.as_u64().unwrap_or(default)
            }
            Some(other) => {
                self.problem(
                    path,
                    format!("expected a positive whole number of {unit}, found {other}"),
                );
                default
            }
        }
    }

    /// The value that the string `value` names among `choices`, `default` when it is absent.
    pub(super) fn one_of<T: Clone>(
        &mut self,
        value: Option<&Value>,
        path: &str,
        default: T,
        choices: &[(&str, T)],
    ) -> T {
        let Some(value) = value else { return default };
        let chosen = (choices.iter()).find(|(name, _)| value.as_str() == Some(*name));
        if let Some((_, chosen)) = chosen {
            return chosen.clone();
        }
        let names: Vec<String> = (choices.iter())
            .map(|(name, _)| format!("\"{name}\""))
            .collect();
        let expected = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.concat(),
        };
        self.problem(path, format!("expected {expected}, found {value}"));
        default
    }

    pub(super) fn unknown_keys(&mut self, map: &Map<String, Value>, path: &str, known: &[&str]) {
        for key in map.keys().filter(|key| !known.contains(&key.as_str())) {
            let expected = known.join(", ");
            let message = match closest(key, known) {
                Some(near) => {
                    format!("unknown key: did you mean `{near}`? (expected one of: {expected})")
                }
                None => format!("unknown key (expected one of: {expected})"),
            };
            self.problem(&child(path, key), message);
        }
    }
}

/// The name of `known` that `key` is most likely a typo of: at most a third of its letters
/// apart (case aside), and at most 3.
pub(super) fn closest<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    let key = key.to_lowercase();
    (known.iter())
        .map(|name| {
            (
                strsim::damerau_levenshtein(&key, &name.to_lowercase()),
                *name,
            )
        })
        .filter(|(distance, name)| *distance <= (name.chars().count() / 3).clamp(1, 3))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
