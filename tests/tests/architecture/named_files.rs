//! The file paths a Markdown document names in backticks, and which of them exist.

use std::path::Path;

/// What ends a token that names a file or, with `/`, a folder.
const ENDINGS: &[&str] = &[".rs", ".md", ".py", ".sh", ".toml", ".json", ".tsv", "/"];

/// Every path `markdown` names in backticks (outside fenced code), with its line number;
/// `a/{b,c}.rs` gives `a/b.rs` and `a/c.rs`.
pub fn named_paths(markdown: &str) -> Vec<(usize, String)> {
    let mut named = Vec::new();
    let mut fenced = false;
    for (index, line) in markdown.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for (at, span) in line.split('`').enumerate() {
            if at % 2 == 0 {
                continue;
            }
            for token in span.split_whitespace() {
                let is_path = ENDINGS.iter().any(|ending| token.ends_with(ending))
                    && !token.contains("://")
                    && token.chars().any(|c| c.is_ascii_alphanumeric());
                if is_path {
                    named.extend(
                        expand_braces(token)
                            .into_iter()
                            .map(|path| (index + 1, path)),
                    );
                }
            }
        }
    }
    named
}

/// `a/{b,c}.rs` as `a/b.rs` and `a/c.rs`; one brace group at a time.
fn expand_braces(token: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (token.find('{'), token.find('}')) else {
        return vec![token.to_owned()];
    };
    if close < open {
        return vec![token.to_owned()];
    }
    token[open + 1..close]
        .split(',')
        .flat_map(|choice| {
            expand_braces(&format!(
                "{}{}{}",
                &token[..open],
                choice.trim(),
                &token[close + 1..]
            ))
        })
        .collect()
}

/// The repository's files and folders, relative to `root`, folders ending in `/`; build
/// output, Git's and other hidden folders left out.
pub fn repository_paths(root: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(directory) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "target" || name == "node_modules" {
                continue;
            }
            let Ok(relative) = path.strip_prefix(root) else {
                continue;
            };
            let relative = relative.to_string_lossy().replace('\\', "/");
            if path.is_dir() {
                paths.push(format!("{relative}/"));
                pending.push(path);
            } else {
                paths.push(relative);
            }
        }
    }
    paths.sort();
    paths
}

/// Whether `named` exists among `paths`: a path with a `/` inside as one of them or as the
/// end of one (from a `/`), a bare name as the name of one; `*` stands for any characters
/// but `/`.
pub fn exists(named: &str, paths: &[String]) -> bool {
    let bare = !named.trim_end_matches('/').contains('/');
    paths.iter().any(|path| {
        if bare {
            let name = path
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or(path);
            let suffix = if path.ends_with('/') { "/" } else { "" };
            matches(named, &format!("{name}{suffix}"))
        } else {
            let parts: Vec<&str> = path.split_inclusive('/').collect();
            (0..parts.len()).any(|start| matches(named, &parts[start..].concat()))
        }
    })
}

/// `pattern` against `text`, `*` matching any run of characters but `/`.
fn matches(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, tail)) => {
            let Some(rest) = text.strip_prefix(head) else {
                return false;
            };
            rest.char_indices()
                .map(|(at, _)| at)
                .chain([rest.len()])
                .take_while(|&at| !rest[..at].contains('/'))
                .any(|at| matches(tail, &rest[at..]))
        }
    }
}
