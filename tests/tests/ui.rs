//! Compile-time checks of `#[tool]`: every mistake fails with a message at the user's token
//! (`tests/ui/fail`). Every supported shape compiling is `tests/ui/pass`, whose files are test
//! targets of their own (`Cargo.toml`): with no pass case here, trybuild only `cargo check`s.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/fail/*.rs");
}
