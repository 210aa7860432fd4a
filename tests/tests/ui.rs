//! Compile-time checks of `#[tool]`: every mistake fails with a message at the user's token
//! (`tests/ui/fail`), every supported shape compiles (`tests/ui/pass`).

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("ui/pass/*.rs");
    cases.compile_fail("ui/fail/*.rs");
}
