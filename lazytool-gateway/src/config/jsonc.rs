//! The file's text as JSON with comments and trailing commas (VS Code's and Zed's JSONC),
//! read with `jsonc-parser` so that a key given twice is found with both of its lines (a
//! plain JSON reader silently keeps the last), and so that every value has its place.

use std::collections::BTreeMap;

use jsonc_parser::ast::{self, ObjectPropName};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, ParseOptions, parse_to_ast};
use serde_json::{Map, Number, Value};

use super::reader::{Problems, child};

/// The 1-based line and column of each value, by JSON path: the key's for an object's
/// value, the item's own for an array's.
pub(super) type Places = BTreeMap<String, (usize, usize)>;

/// `text` as a JSON value with the places of its values, or its problems as (JSON path,
/// what is wrong): a syntax error with its place, or every key given twice in an object
/// (each with both lines).
pub(super) fn read(text: &str) -> Result<(Value, Places), (Problems, Places)> {
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
    let parsed = match parse_to_ast(text, &CollectOptions::default(), &options) {
        Ok(parsed) => parsed,
        Err(error) => {
            let kind = error.kind().to_string();
            let mut chars = kind.chars();
            let kind = match chars.next() {
                Some(first) => first.to_lowercase().chain(chars).collect(),
                None => kind,
            };
            let place = (error.line_display(), error.column_display());
            let problem = ("$".to_owned(), format!("not valid JSON: {kind}"));
            return Err((vec![problem], Places::from([("$".to_owned(), place)])));
        }
    };
    let Some(root) = parsed.value else {
        let problem = ("$".to_owned(), "the file holds no JSON value".to_owned());
        return Err((vec![problem], Places::new()));
    };
    let mut converter = Converter {
        text,
        problems: Vec::new(),
        places: Places::new(),
    };
    let start = converter.place(root.start());
    converter.places.insert("$".to_owned(), start);
    let value = converter.value(root, "$");
    match converter.problems.is_empty() {
        true => Ok((value, converter.places)),
        false => Err((converter.problems, converter.places)),
    }
}

struct Converter<'t> {
    text: &'t str,
    problems: Problems,
    places: Places,
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
                    self.problems.push((
                        path.to_owned(),
                        format!("`{}` is not a number JSON can hold", number.value),
                    ));
                    Value::Null
                }
            },
            ast::Value::Array(array) => Value::Array(
                (array.elements.into_iter().enumerate())
                    .map(|(index, item)| {
                        let item_path = format!("{path}[{index}]");
                        let place = self.place(item.start());
                        self.places.entry(item_path.clone()).or_insert(place);
                        self.value(item, &item_path)
                    })
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
            let place = self.place(property.range.start);
            let line = place.0;
            let key = match property.name {
                ObjectPropName::String(name) => name.value.into_owned(),
                ObjectPropName::Word(name) => name.value.to_owned(),
            };
            let key_path = child(path, &key);
            match first_lines.iter().find(|(seen, _)| *seen == key) {
                Some((_, first)) => self.problems.push((
                    key_path.clone(),
                    format!("given twice, on lines {first} and {line}: keep one (a JSON reader would silently take the last)"),
                )),
                None => {
                    first_lines.push((key.clone(), line));
                    self.places.insert(key_path.clone(), place);
                }
            }
            let value = self.value(property.value, &key_path);
            map.insert(key, value);
        }
        Value::Object(map)
    }

    /// The 1-based line and column (in characters) of the byte at `offset`.
    fn place(&self, offset: usize) -> (usize, usize) {
        let before = self.text.get(..offset).unwrap_or(self.text);
        let line_start = before.rfind('\n').map_or(0, |at| at + 1);
        (
            before.matches('\n').count() + 1,
            before[line_start..].chars().count() + 1,
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::read;

    #[test]
    fn comments_and_trailing_commas_are_read() {
        let text = "// VS Code\n{\n  /* servers */ \"a\": [1, 2.5, true, null,],\n  \"b\": {\"c\": \"d\",},\n}\n";
        let (value, places) = read(text).expect("valid");
        assert_eq!(value, json!({"a": [1, 2.5, true, null], "b": {"c": "d"}}));
        assert_eq!(places["$"], (2, 1));
        assert_eq!(places["$.a"], (3, 17));
        assert_eq!(places["$.a[1]"], (3, 26));
        assert_eq!(places["$.b.c"], (4, 9));
    }

    #[test]
    fn a_key_given_twice_is_a_problem_naming_both_lines() {
        let text =
            "{\n  \"servers\": {\n    \"time\": {},\n    \"git\": {},\n    \"time\": {}\n  }\n}";
        let (problems, places) = read(text).expect_err("refused");
        assert_eq!(
            problems,
            [(
                "$.servers.time".to_owned(),
                "given twice, on lines 3 and 5: keep one (a JSON reader would silently take the last)"
                    .to_owned()
            )]
        );
        assert_eq!(places["$.servers.time"], (3, 5));
    }

    #[test]
    fn syntax_errors_say_where() {
        let (problems, places) =
            read("{\n  \"a\": 1\n  \"b\": 2\n}").expect_err("a comma is missing");
        assert_eq!(
            problems,
            [("$".to_owned(), "not valid JSON: expected comma".to_owned())]
        );
        assert_eq!(places["$"], (2, 9), "where the comma belongs");
        let (problems, _) = read("  // nothing\n").expect_err("empty");
        assert_eq!(
            problems,
            [("$".to_owned(), "the file holds no JSON value".to_owned())]
        );
    }
}
