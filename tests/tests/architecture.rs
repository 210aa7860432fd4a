//! The runtime's layers import one way (ARCHITECTURE.md, "Invariants"): every path into the
//! crate (`crate::layer::...`, or a name the crate root re-exports from a layer) from a file
//! of one layer names that layer or one listed before it. Code and tests alike; comments and
//! strings are skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first.
const LAYERS: &[&str] = &[
    "tokens",
    "schema",
    "call",
    "tool",
    "dispatch",
    "discovery",
    "registry",
    "session",
    "source",
    "provider",
];

/// Files at the root of `src/` that may reach every layer: the crate root, the generated
/// code's module, the unit tests' shared data, the guide (chapters of documentation, no code).
const ROOTS: &[&str] = &["lib", "private", "testing", "guide"];

fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../lazytool-runtime/src")
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
}

/// `text` without comments and without the contents of string and char literals.
fn code_of(text: &str) -> String {
    let mut code = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        code.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut previous = ' ';
                for c in chars.by_ref() {
                    if previous == '*' && c == '/' {
                        break;
                    }
                    previous = c;
                }
            }
            '"' => {
                skip_literal(&mut chars, '"');
                code.push_str("\"\"");
            }
            // A char literal ('x', '\n', '"'); a lifetime ('a) is left alone.
            '\'' => {
                let rest: String = chars.clone().take(3).collect();
                let literal = rest.starts_with('\\')
                    || rest.chars().nth(1) == Some('\'')
                    || rest.starts_with('"');
                if literal {
                    skip_literal(&mut chars, '\'');
                }
                code.push('\'');
            }
            _ => code.push(c),
        }
    }
    code
}

/// Skips the rest of a string or char literal, up to its unescaped closing `quote`.
fn skip_literal(chars: &mut impl Iterator<Item = char>, quote: char) {
    let mut escaped = false;
    for c in chars {
        if c == quote && !escaped {
            break;
        }
        escaped = c == '\\' && !escaped;
    }
}

fn identifier_at(code: &str, at: usize) -> &str {
    let rest = &code[at..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The first segments of every path that starts with `crate::`: `crate::a::b` gives `a`,
/// `crate::{a::b, c}` gives `a` and `c`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(offset) = code[from..].find("crate::") {
        let at = from + offset;
        from = at + "crate::".len();
        let preceded_by_identifier = code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':');
        if preceded_by_identifier {
            continue;
        }
        if code[from..].starts_with('{') {
            let mut depth = 0;
            let mut segment_start = true;
            for (index, c) in code[from..].char_indices() {
                match c {
                    '{' => {
                        depth += 1;
                        segment_start = true;
                    }
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => segment_start = true,
                    c if depth == 1 && segment_start && !c.is_whitespace() => {
                        found.push(identifier_at(code, from + index).to_owned());
                        segment_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.push(identifier_at(code, from).to_owned());
        }
    }
    found
}

/// The layer each name re-exported at the crate root comes from.
fn root_exports(lib: &str) -> BTreeMap<String, String> {
    let mut exports = BTreeMap::new();
    for statement in code_of(lib).split(';') {
        let statement = statement.trim();
        let Some(path) = statement.strip_prefix("pub use ") else {
            continue;
        };
        let layer = identifier_at(path, 0).to_owned();
        let names = path[layer.len()..].trim_start_matches("::");
        let names = names.trim_start_matches('{').trim_end_matches('}');
        for name in names.split(',') {
            let name = name.trim();
            let name = name.rsplit("::").next().unwrap_or(name);
            if !name.is_empty() {
                exports.insert(name.to_owned(), layer.clone());
            }
        }
    }
    exports
}

#[test]
fn layers_import_only_the_layers_below_them() {
    let src = source_dir();
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    let exports = root_exports(&lib);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(
        files.len() > 40,
        "found only {} files in {src:?}",
        files.len()
    );

    let rank = |layer: &str| LAYERS.iter().position(|l| *l == layer);
    let mut violations = Vec::new();
    let mut edges: BTreeSet<(String, String)> = BTreeSet::new();
    for file in &files {
        let relative = file.strip_prefix(&src).expect("under src");
        let first = relative.components().next().expect("a path");
        let layer = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned();
        if ROOTS.contains(&layer.as_str()) {
            continue;
        }
        let Some(own) = rank(&layer) else {
            violations.push(format!(
                "{}: `{layer}` is in no layer; add it to LAYERS (and to ARCHITECTURE.md)",
                relative.display()
            ));
            continue;
        };
        let code = code_of(&std::fs::read_to_string(file).expect("readable"));
        for first_segment in crate_paths(&code) {
            let target = if rank(&first_segment).is_some() {
                first_segment.clone()
            } else if let Some(layer) = exports.get(&first_segment) {
                layer.clone()
            } else if ROOTS.contains(&first_segment.as_str()) || first_segment == "__private" {
                if first_segment == "testing" {
                    continue;
                }
                violations.push(format!(
                    "{}: imports `crate::{first_segment}`, which generated code alone may use",
                    relative.display()
                ));
                continue;
            } else {
                violations.push(format!(
                    "{}: `crate::{first_segment}` is neither a layer nor a root re-export",
                    relative.display()
                ));
                continue;
            };
            let Some(target_rank) = rank(&target) else {
                continue;
            };
            if target != layer {
                edges.insert((layer.clone(), target.clone()));
            }
            if target_rank > own {
                violations.push(format!(
                    "{}: `{layer}` imports `crate::{first_segment}` of the higher layer `{target}`",
                    relative.display()
                ));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "imports against the layering:\n  {}",
        violations.join("\n  ")
    );
    // The order above is strict, so the layer graph has no cycle; print it for the record.
    for (from, to) in &edges {
        println!("{from} -> {to}");
    }
}

#[test]
fn the_checker_reads_paths_as_rustc_would() {
    let code = code_of(
        "use crate::{call::{A, B}, tool::C};\n// crate::provider in a comment\nlet s = \"crate::session\";\nlet c = '\"'; x = crate::registry::Registry::new();\nsuper::crate::nothing; my_crate::x;",
    );
    assert_eq!(crate_paths(&code), ["call", "tool", "registry"]);
    let exports = root_exports(
        "pub use call::{ToolCall, ToolResult};\npub use tool::{Tool, spec::ToolSpec};\npub use lazytool_macros::tool;",
    );
    assert_eq!(exports["ToolResult"], "call");
    assert_eq!(exports["ToolSpec"], "tool");
    assert_eq!(exports["tool"], "lazytool_macros");
}
