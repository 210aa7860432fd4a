//! The file's text as JSON with comments and trailing commas (VS Code's and Zed's JSONC),
//! read with `jsonc-parser` so that a key given twice is found with both of its lines:
//! a plain JSON reader silently keeps the last.

use jsonc_parser::ast::{self, ObjectPropName};
use jsonc_parser::{CollectOptions, ParseOptions, parse_to_ast};
use serde_json::{Map, Number, Value};

use super::reader::child;

/// `text` as a JSON value, or its problems: a syntax error with its line and column, or
/// every key given twice in an object (each with both lines).
pub(super) fn read(text: &str) -> Result<Value, Vec<String>> {
    // Comments and trailing commas, nothing looser: the file stays JSON to other tools.
    let options = ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
    };
    let parsed = parse_to_ast(text, &CollectOptions::default(), &options)
        .map_err(|error| vec![format!("$: not valid JSON: {error}")])?;
    let Some(root) = parsed.value else {
        return Err(vec!["$: the file holds no JSON value".to_owned()]);
    };
    let mut converter = Converter {
        text,
        problems: Vec::new(),
    };
    let value = converter.value(root, "$");
    match converter.problems.is_empty() {
        true => Ok(value),
        false => Err(converter.problems),
    }
}

struct Converter<'t> {
    text: &'t str,
    problems: Vec<String>,
}

impl Converter<'_> {
    fn value(&mut self, value: ast::Value<'_>, path: &str) -> Value {
        match value {
            ast::Value::StringLit(text) => Value::String(text.value.into_owned()),
            ast::Value::BooleanLit(boolean) => Value::Bool(boolean.value),
            ast::Value::NullKeyword(_) => Value::Null,
            ast::Value::NumberLit(number) => match serde_json::from_str::<Number>(number.value) {
                Ok(number) => Value::Number(number),
                Err(_) => {
                    self.problems.push(format!(
                        "{path}: `{}` is not a number JSON can hold (line {})",
                        number.value,
                        self.line(number.range.start)
                    ));
                    Value::Null
                }
            },
            ast::Value::Array(array) => Value::Array(
                (array.elements.into_iter().enumerate())
                    .map(|(index, item)| self.value(item, &format!("{path}[{index}]")))
                    .collect(),
            ),
            ast::Value::Object(object) => self.object(object, path),
        }
    }

    fn object(&mut self, object: ast::Object<'_>, path: &str) -> Value {
        let mut map = Map::new();
        // The line each key was first given on.
        let mut first_lines: Vec<(String, usize)> = Vec::new();
        for property in object.properties {
            let line = self.line(property.range.start);
            let key = match property.name {
                ObjectPropName::String(name) => name.value.into_owned(),
                ObjectPropName::Word(name) => name.value.to_owned(),
            };
            let key_path = child(path, &key);
            match first_lines.iter().find(|(seen, _)| *seen == key) {
                Some((_, first)) => self.problems.push(format!(
                    "{key_path}: given twice, on lines {first} and {line}: keep one (a JSON reader would silently take the last)"
                )),
                None => first_lines.push((key.clone(), line)),
            }
            let value = self.value(property.value, &key_path);
            map.insert(key, value);
        }
        Value::Object(map)
    }

    /// The 1-based line of the byte at `offset`.
    fn line(&self, offset: usize) -> usize {
        let before = self.text.get(..offset).unwrap_or(self.text);
        before.matches('\n').count() + 1
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::read;

    #[test]
    fn comments_and_trailing_commas_are_read() {
        let text = "// VS Code\n{\n  /* servers */ \"a\": [1, 2.5, true, null,],\n  \"b\": {\"c\": \"d\",},\n}\n";
        assert_eq!(
            read(text),
            Ok(json!({"a": [1, 2.5, true, null], "b": {"c": "d"}}))
        );
    }

    #[test]
    fn a_key_given_twice_is_a_problem_naming_both_lines() {
        let text =
            "{\n  \"servers\": {\n    \"time\": {},\n    \"git\": {},\n    \"time\": {}\n  }\n}";
        assert_eq!(
            read(text),
            Err(vec![
                "$.servers.time: given twice, on lines 3 and 5: keep one (a JSON reader would silently take the last)"
                    .to_owned()
            ])
        );
    }

    #[test]
    fn syntax_errors_say_where() {
        let problems = read("{\n  'a': 1\n}").expect_err("single quotes are not JSON");
        assert!(
            problems[0].starts_with("$: not valid JSON: "),
            "{problems:?}"
        );
        assert!(problems[0].contains("line 2"), "{problems:?}");
        assert_eq!(
            read("  // nothing\n"),
            Err(vec!["$: the file holds no JSON value".to_owned()])
        );
    }
}
