//! The workspace as its manifests say it is: its members, which are published, the lazytool
//! crates each depends on and the features each has; and what the documents say of them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One member of the workspace, from its `Cargo.toml`.
#[derive(Debug)]
pub struct Member {
    pub name: String,
    /// Its folder, relative to the repository.
    pub dir: String,
    pub published: bool,
    /// The lazytool crates among its normal dependencies.
    pub lazytool_dependencies: BTreeSet<String>,
    /// Its features, `default` left out.
    pub features: BTreeSet<String>,
}

/// Every member of the workspace at `repository`, `examples/*` expanded.
pub fn members(repository: &Path) -> Vec<Member> {
    let root = manifest(&repository.join("Cargo.toml"));
    let patterns = root["workspace"]["members"]
        .as_array()
        .expect("the workspace lists its members");
    let mut dirs = Vec::new();
    for pattern in patterns.iter().filter_map(toml::Value::as_str) {
        match pattern.strip_suffix("/*") {
            Some(parent) => {
                let mut found: Vec<String> = std::fs::read_dir(repository.join(parent))
                    .expect("a members' folder is readable")
                    .filter_map(Result::ok)
                    .filter(|entry| entry.path().join("Cargo.toml").is_file())
                    .map(|entry| format!("{parent}/{}", entry.file_name().to_string_lossy()))
                    .collect();
                found.sort();
                dirs.extend(found);
            }
            None => dirs.push(pattern.to_owned()),
        }
    }
    dirs.into_iter()
        .map(|dir| member(repository, dir))
        .collect()
}

fn member(repository: &Path, dir: String) -> Member {
    let manifest = manifest(&repository.join(&dir).join("Cargo.toml"));
    let package = &manifest["package"];
    let name = package["name"]
        .as_str()
        .expect("a package has a name")
        .to_owned();
    let published = package.get("publish").and_then(toml::Value::as_bool) != Some(false);
    let lazytool_dependencies = manifest
        .get("dependencies")
        .and_then(toml::Value::as_table)
        .map(|dependencies| {
            dependencies
                .keys()
                .filter(|key| key.starts_with("lazytool-"))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let features = manifest
        .get("features")
        .and_then(toml::Value::as_table)
        .map(|features| {
            features
                .keys()
                .filter(|key| *key != "default")
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    Member {
        name,
        dir,
        published,
        lazytool_dependencies,
        features,
    }
}

fn manifest(path: &Path) -> toml::Table {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("{} is readable: {error}", path.display()));
    text.parse()
        .unwrap_or_else(|error| panic!("{} is TOML: {error}", path.display()))
}

/// The rows of the first Markdown table after the line `heading` in `document`: each row's
/// cells, trimmed, the header and the separator left out.
pub fn table_after<'a>(document: &'a str, heading: &str) -> Vec<Vec<&'a str>> {
    let mut lines = document.lines().skip_while(|line| line.trim() != heading);
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in lines.by_ref().skip(1) {
        let line = line.trim();
        if let Some(inner) = line.strip_prefix('|') {
            in_table = true;
            let cells: Vec<&str> = inner
                .trim_end_matches('|')
                .split('|')
                .map(str::trim)
                .collect();
            rows.push(cells);
        } else if in_table {
            break;
        }
    }
    // The header, then the separator.
    rows.into_iter().skip(2).collect()
}

/// The names written in backticks in `text`.
pub fn backticked(text: &str) -> BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The features a crate's documentation lists: the first cell's backticked names of each row
/// of the table under its `# Features` heading (`//! | feature | ...`), or `None` without one.
pub fn documented_features(lib_rs: &str) -> Option<BTreeSet<String>> {
    let doc: String = lib_rs
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("//!"))
        .map(|line| format!("{}\n", line.trim()))
        .collect();
    let rows = table_after(&doc, "# Features");
    let features: BTreeSet<String> = rows
        .iter()
        .filter_map(|row| row.first())
        .flat_map(|first| backticked(first))
        .collect();
    (!rows.is_empty()).then_some(features)
}

/// The published crates and their lazytool dependencies, as a map.
pub fn crate_graph(members: &[Member]) -> BTreeMap<String, BTreeSet<String>> {
    members
        .iter()
        .filter(|member| member.published)
        .map(|member| (member.name.clone(), member.lazytool_dependencies.clone()))
        .collect()
}
