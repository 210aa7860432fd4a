//! Compile-time checks of `#[tool]`: every mistake fails with a message at the user's token
//! (`tests/ui/fail`). Every supported shape compiling is `tests/ui/pass`, whose files are test
//! targets of their own (`Cargo.toml`): with no pass case here, trybuild only `cargo check`s.

use std::path::Path;

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/fail/*.rs");
}

/// What trybuild's `pass("ui/pass/*.rs")` did by itself: no pass case is left unbuilt because
/// nobody declared it in `Cargo.toml`.
#[test]
fn every_pass_case_is_a_test_target() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest: toml::Table = std::fs::read_to_string(crate_dir.join("Cargo.toml"))
        .expect("tests/Cargo.toml is readable")
        .parse()
        .expect("tests/Cargo.toml is TOML");
    let declared: Vec<&str> = manifest
        .get("test")
        .and_then(|targets| targets.as_array())
        .into_iter()
        .flatten()
        .filter_map(|target| target.get("path")?.as_str())
        .collect();
    let mut cases: Vec<String> = std::fs::read_dir(crate_dir.join("ui/pass"))
        .expect("tests/ui/pass is readable")
        .map(|entry| entry.expect("a directory entry").file_name())
        .filter_map(|name| name.into_string().ok())
        .filter(|name| name.ends_with(".rs"))
        .map(|name| format!("ui/pass/{name}"))
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "tests/ui/pass has no case");
    let undeclared: Vec<&String> = cases
        .iter()
        .filter(|case| !declared.contains(&case.as_str()))
        .collect();
    assert!(
        undeclared.is_empty(),
        "declare each as a `[[test]]` with `harness = false` in tests/Cargo.toml: {undeclared:?}"
    );
}
