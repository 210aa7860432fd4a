//! Examples of lazytool; run them with `cargo run --example NAME`.
pub mod agent;
