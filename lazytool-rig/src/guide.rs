//! The rig guide: lazytool's tools, lazy discovery and search inside rig's agent loop, with
//! examples that `cargo test` compiles and runs.
//!
//! - [`rig`]: a registry in a rig agent, what each of rig's requests carries, bad input, tool
//!   retrieval without a vector store, testing offline, limits.

#[doc = include_str!("guide/rig.md")]
pub mod rig {}
