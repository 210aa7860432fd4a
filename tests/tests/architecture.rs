//! The runtime's layers import one way (ARCHITECTURE.md, "Invariants"): every path into the
//! crate (`crate::layer::...`, or a name the crate root re-exports from a layer) from a file
//! of one layer names that layer or one listed before it. Code and tests alike; comments and
//! strings are skipped.
//!
//! And no file names an item of a file that names one of its own, directly or through others
//! (`no_cycle_between_files`, in every crate of the workspace). And every file ARCHITECTURE.md
//! names exists (`architecture_md_names_only_files_that_exist`). And what the documents copy
//! of the manifests holds: the crate graph, each crate's features, where each example is, how
//! many crates there are.

#[path = "architecture/cycles.rs"]
mod cycles;
#[path = "architecture/module_graph.rs"]
mod module_graph;
#[path = "architecture/named_files.rs"]
mod named_files;
#[path = "architecture/workspace.rs"]
mod workspace;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use module_graph::ModuleGraph;

/// The layers, lowest first.
const LAYERS: &[&str] = &[
    "tokens",
    "schema",
    "call",
    "tool",
    "dispatch",
    "discovery",
    "registry",
    "code",
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

/// Each crate's root files, relative to the repository: every member of the workspace, the
/// examples' and the tests' included.
fn crate_roots() -> Vec<String> {
    let repository = repository();
    let mut roots = Vec::new();
    for member in workspace::members(&repository) {
        for root in ["src/lib.rs", "src/main.rs"] {
            let path = format!("{}/{root}", member.dir);
            if repository.join(&path).is_file() {
                roots.push(path);
            }
        }
    }
    roots
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn no_cycle_between_files() {
    let repository = repository();
    let read = |path: &Path| std::fs::read_to_string(repository.join(path)).ok();
    let mut links = Vec::new();
    let roots = crate_roots();
    for crate_name in [
        "lazytool-mcp-core",
        "lazytool-mcp-client",
        "lazytool-rig",
        "tests",
    ] {
        assert!(
            roots
                .iter()
                .any(|root| root.starts_with(&format!("{crate_name}/"))),
            "{crate_name} is not among the crates read: {roots:?}"
        );
    }
    for root in &roots {
        let graph = ModuleGraph::read(Path::new(root), &read);
        assert!(
            graph.problems.is_empty(),
            "{root}: {}",
            graph.problems.join("; ")
        );
        let found = graph.links();
        // A crate of many files whose files name none of each other's items: the reader is
        // broken (a small crate, an example's, may have no such link).
        let files = graph.file_count();
        assert!(
            !found.is_empty() || files < 8,
            "{root}: no file of its {files} names an item of another; the reader is broken"
        );
        links.extend(found);
    }
    let failures: Vec<String> = cycles::cycles(&links)
        .iter()
        .map(|cycle| cycle.describe())
        .collect();
    assert!(
        failures.is_empty(),
        "files that name each other's items (move the shared item into a file of its own, \
         or to the file that uses it):\n  {}",
        failures.join("\n  ")
    );
}

#[test]
fn the_cycle_checker_follows_re_exports_and_finds_a_cycle() {
    let files: BTreeMap<&str, &str> = BTreeMap::from([
        (
            "src/lib.rs",
            "mod format; mod read; mod plain; mod inline; mod again;\n\
             #[path = \"elsewhere/moved.rs\"] mod moved;\n\
             pub use read::Reader;\npub use plain::Plain;",
        ),
        // Names `Reader` through the crate root's re-export: an arrow to read.rs, not lib.rs
        // (whose `pub use` lines, naming items of modules inside it, are its index).
        (
            "src/format/mod.rs",
            "mod json;\nuse crate::Reader;\npub struct Format;",
        ),
        // `super::super::Reader` is read.rs's too; `Format` is the parent's.
        (
            "src/format/json.rs",
            "pub fn parse() { let _ = super::super::Reader; let _: super::Format; }",
        ),
        ("src/read.rs", "pub struct Reader;\npub fn helper() {}"),
        // plain.rs -> cycle.rs -> plain.rs, one through a use, one through a path in a macro.
        (
            "src/plain/mod.rs",
            "mod cycle;\nuse self::cycle::Cycle;\npub struct Plain;",
        ),
        (
            "src/plain/cycle.rs",
            "pub struct Cycle;\nfn f() { assert!(matches!(crate::Plain, _)); }",
        ),
        // Found by its `#[path]`.
        (
            "src/elsewhere/moved.rs",
            "fn f() { crate::read::helper(); }",
        ),
        // A `pub use` of an item from outside the module is an arrow.
        ("src/again.rs", "pub use crate::read::helper;"),
        // A test module inline belongs to its file: no arrow to itself.
        (
            "src/inline.rs",
            "pub fn f() {}\n#[cfg(test)] mod tests { use super::f; use crate::read::helper; }",
        ),
    ]);
    let read = |path: &Path| files.get(path.to_str()?).map(|text| text.to_string());
    let graph = ModuleGraph::read(Path::new("src/lib.rs"), &read);
    assert_eq!(graph.problems, Vec::<String>::new());
    let links: Vec<(String, String)> = graph
        .links()
        .into_iter()
        .map(|link| {
            (
                link.from.display().to_string(),
                link.to.display().to_string(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = [
        ("src/again.rs", "src/read.rs"),
        ("src/elsewhere/moved.rs", "src/read.rs"),
        ("src/format/json.rs", "src/format/mod.rs"),
        ("src/format/json.rs", "src/read.rs"),
        ("src/format/mod.rs", "src/read.rs"),
        ("src/inline.rs", "src/read.rs"),
        ("src/plain/cycle.rs", "src/plain/mod.rs"),
        ("src/plain/mod.rs", "src/plain/cycle.rs"),
    ]
    .iter()
    .map(|(from, to)| (from.to_string(), to.to_string()))
    .collect();
    assert_eq!(links, expected);

    let found = cycles::cycles(&graph.links());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].describe(),
        "src/plain/cycle.rs -(crate::Plain)-> src/plain/mod.rs -(self::cycle::Cycle)-> \
         src/plain/cycle.rs\n    (files in this cycle: src/plain/cycle.rs, src/plain/mod.rs)"
    );
}

/// Paths ARCHITECTURE.md writes as examples of text, not as files of the repository.
const EXAMPLES_NOT_FILES: &[&str] = &[
    // What a question may write, which search reads as a file argument (`kinds.rs`).
    "docs/old.md",
];

#[test]
fn architecture_md_names_only_files_that_exist() {
    let repository = repository();
    let document = std::fs::read_to_string(repository.join("ARCHITECTURE.md"))
        .expect("ARCHITECTURE.md is readable");
    let paths = named_files::repository_paths(&repository);
    let named = named_files::named_paths(&document);
    assert!(
        named.len() > 100,
        "found only {} paths in ARCHITECTURE.md",
        named.len()
    );
    let missing: Vec<String> = named
        .iter()
        .filter(|(_, path)| !EXAMPLES_NOT_FILES.contains(&path.as_str()))
        .filter(|(_, path)| !named_files::exists(path, &paths))
        .map(|(line, path)| format!("ARCHITECTURE.md:{line}: `{path}`"))
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names files that do not exist (a path with `/` must be one relative \
         to the repository or the end of one; a bare name, some file's name):\n  {}",
        missing.join("\n  ")
    );
}

/// The other documents a reader follows to the code: README, RELIABILITY and the guide's
/// chapters name files that exist too (JSON files aside: there they are the user's, such as
/// `mcp.json`).
#[test]
fn the_readme_reliability_and_the_guide_name_only_files_that_exist() {
    let repository = repository();
    let paths = named_files::repository_paths(&repository);
    let mut documents = vec!["README.md".to_owned(), "RELIABILITY.md".to_owned()];
    documents.extend(
        paths
            .iter()
            .filter(|path| path.contains("/src/guide/") && path.ends_with(".md"))
            .cloned(),
    );
    assert!(documents.len() > 20, "found only {documents:?}");
    let mut missing = Vec::new();
    for document in &documents {
        let text = std::fs::read_to_string(repository.join(document))
            .unwrap_or_else(|error| panic!("{document} is readable: {error}"));
        for (line, path) in named_files::named_paths(&text) {
            let users = path.ends_with(".json");
            if !users
                && !EXAMPLES_NOT_FILES.contains(&path.as_str())
                && !named_files::exists(&path, &paths)
            {
                missing.push(format!("{document}:{line}: `{path}`"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "these documents name files that do not exist:\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn the_named_files_check_reads_paths_as_written() {
    let named = named_files::named_paths(
        "See `src/{a,b}.rs` and `c.md`, `https://x.io/`, `cargo test` or\n\
         `d/`, `tests/*.rs`.\n```\n`skipped.rs`\n```\n",
    );
    let named: Vec<(usize, &str)> = named.iter().map(|(l, p)| (*l, p.as_str())).collect();
    assert_eq!(
        named,
        [
            (1, "src/a.rs"),
            (1, "src/b.rs"),
            (1, "c.md"),
            (2, "d/"),
            (2, "tests/*.rs")
        ]
    );
    let paths: Vec<String> = [
        "x/src/",
        "x/src/a.rs",
        "x/tests/",
        "x/tests/one.rs",
        "y/c.md",
    ]
    .map(String::from)
    .to_vec();
    let exists = |named| named_files::exists(named, &paths);
    assert!(exists("src/a.rs") && exists("x/src/a.rs") && exists("c.md") && exists("src/"));
    assert!(exists("tests/*.rs") && exists("tests/"));
    assert!(!exists("src/b.rs") && !exists("rc/a.rs") && !exists("a.md") && !exists("c.md/"));
    assert!(!exists("src/*.md") && !exists("x/*.rs"));
}

#[test]
fn the_crate_graph_is_the_one_architecture_md_draws() {
    let repository = repository();
    let document = std::fs::read_to_string(repository.join("ARCHITECTURE.md"))
        .expect("ARCHITECTURE.md is readable");
    let rows = workspace::table_after(&document, "## Crates");
    let drawn: BTreeMap<String, BTreeSet<String>> = rows
        .iter()
        .map(|row| {
            let name = workspace::backticked(row[0])
                .into_iter()
                .next()
                .unwrap_or_default();
            (
                name,
                workspace::backticked(row.last().copied().unwrap_or_default()),
            )
        })
        .collect();
    let members = workspace::members(&repository);
    let graph = workspace::crate_graph(&members);
    assert!(graph.len() >= 7, "found only {graph:?}");
    assert_eq!(
        drawn, graph,
        "ARCHITECTURE.md's \"Crates\" table (left) is not the published crates and the lazytool \
         crates each depends on in its Cargo.toml (right)"
    );
}

#[test]
fn the_two_sides_of_mcp_share_only_the_core() {
    let members = workspace::members(&repository());
    let graph = workspace::crate_graph(&members);
    let server = &graph["lazytool-mcp"];
    let client = &graph["lazytool-mcp-client"];
    assert!(server.contains("lazytool-mcp-core") && !server.contains("lazytool-mcp-client"));
    assert!(client.contains("lazytool-mcp-core") && !client.contains("lazytool-mcp"));
}

#[test]
fn every_feature_table_lists_the_crates_features() {
    let repository = repository();
    let mut wrong = Vec::new();
    for member in workspace::members(&repository) {
        if !member.published || member.features.is_empty() {
            continue;
        }
        let lib = format!("{}/src/lib.rs", member.dir);
        let text = std::fs::read_to_string(repository.join(&lib)).unwrap_or_default();
        match workspace::documented_features(&text) {
            None => wrong.push(format!("{lib}: no table under `# Features`")),
            Some(listed) if listed != member.features => wrong.push(format!(
                "{lib}: the table lists {listed:?}, Cargo.toml has {:?}",
                member.features
            )),
            Some(_) => {}
        }
    }
    assert!(
        wrong.is_empty(),
        "feature tables that do not hold:\n  {}",
        wrong.join("\n  ")
    );
}

#[test]
fn architecture_md_places_every_example_in_its_package() {
    let repository = repository();
    let document = std::fs::read_to_string(repository.join("ARCHITECTURE.md"))
        .expect("ARCHITECTURE.md is readable");
    let mut examples: BTreeMap<String, String> = BTreeMap::new();
    // A published crate's own examples are in its section; the `examples/*` packages', here.
    let packages = workspace::members(&repository);
    for member in packages
        .iter()
        .filter(|member| member.dir.starts_with("examples/"))
    {
        let Ok(entries) = std::fs::read_dir(repository.join(&member.dir).join("examples")) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry
                .file_name()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned();
            examples.insert(name, member.dir.clone());
        }
    }
    assert!(examples.len() > 10, "found only {examples:?}");
    let section: String = document
        .lines()
        .skip_while(|line| line.trim() != "### `examples/`")
        .skip(1)
        .take_while(|line| !line.starts_with("### "))
        .collect::<Vec<_>>()
        .join("\n");
    let mut placed = BTreeMap::new();
    for bullet in section.split("\n- ").skip(1) {
        let names = workspace::backticked(bullet);
        let Some(package) = names.iter().find(|name| name.starts_with("examples/")) else {
            continue;
        };
        for name in &names {
            if examples.contains_key(name) {
                placed.insert(name.clone(), package.clone());
            }
        }
    }
    let wrong: Vec<String> = examples
        .iter()
        .filter(|(name, package)| placed.get(*name) != Some(*package))
        .map(|(name, package)| match placed.get(name) {
            Some(said) => format!("`{name}` is in {package}, ARCHITECTURE.md says {said}"),
            None => format!("`{name}` ({package}) is in no bullet of ARCHITECTURE.md's examples"),
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "examples misplaced:\n  {}",
        wrong.join("\n  ")
    );
}

#[test]
fn every_count_of_crates_written_out_holds() {
    let repository = repository();
    let published = workspace::crate_graph(&workspace::members(&repository)).len();
    let numbers = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    ];
    let paths = named_files::repository_paths(&repository);
    let mut documents = vec!["ARCHITECTURE.md".to_owned(), "README.md".to_owned()];
    documents.extend(
        paths
            .iter()
            .filter(|path| {
                (path.contains("/src/guide/") && path.ends_with(".md"))
                    || path.ends_with("/src/lib.rs")
                    || path.ends_with("/README.md")
            })
            .cloned(),
    );
    let mut wrong = Vec::new();
    for document in &documents {
        let text = std::fs::read_to_string(repository.join(document)).unwrap_or_default();
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|word| !word.is_empty())
            .map(str::to_lowercase)
            .collect();
        for pair in words.windows(3) {
            let count = numbers.iter().position(|number| *number == pair[0]);
            let crates = pair[1] == "crates" || (pair[1] == "published" && pair[2] == "crates");
            if let (Some(count), true) = (count, crates)
                && count + 1 != published
            {
                wrong.push(format!("{document}: \"{} {}\"", pair[0], pair[1]));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the workspace publishes {published} crates, these say otherwise:\n  {}",
        wrong.join("\n  ")
    );
}

#[test]
fn unit_tests_follow_the_one_layout() {
    let repository = repository();
    let paths = named_files::repository_paths(&repository);
    let stray: Vec<&String> = paths
        .iter()
        .filter(|path| path.contains("/src/") && path.ends_with("_tests.rs"))
        .collect();
    assert!(
        stray.is_empty(),
        "unit tests in `x_tests.rs` files: move them to `x/tests.rs` (or `x/tests/`), declared \
         in `x.rs` (ARCHITECTURE.md, \"One test layout\"):\n  {stray:?}"
    );
}

#[test]
fn the_repository_names_no_file_outside_it() {
    let repository = repository();
    // Built from parts, so that this file does not name them itself.
    let outside = [["..", "/shared/"].concat(), ["DESIGN", ".md"].concat()];
    let mut found = Vec::new();
    for path in named_files::repository_paths(&repository) {
        let text_like = [
            ".rs", ".md", ".toml", ".py", ".yml", ".yaml", ".sh", ".json", ".cfg",
        ]
        .iter()
        .any(|end| path.ends_with(end))
            || path.ends_with("/run");
        if !text_like || path.ends_with('/') {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(repository.join(&path)) else {
            continue;
        };
        for needle in &outside {
            if text.contains(needle.as_str()) {
                found.push(format!("{path}: `{needle}`"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "files that name what is not in the repository:\n  {}",
        found.join("\n  ")
    );
}
