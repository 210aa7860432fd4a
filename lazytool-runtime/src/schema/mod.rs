//! Tool input schemas: the canonical form every tool's schema is kept in, and its rewrites
//! into the JSON Schema dialects that some provider fields require.
//!
//! The lowest layer of the runtime: it needs nothing but `serde_json`, and every other layer
//! may use it. Public are the [`dialect`] rewrites and [`strip_strict_nulls`], which undoes
//! what OpenAI strict mode does to a model's arguments; the canonical form itself (`$ref`s
//! inlined unless recursive, no `$schema` or root `title`, property order kept) is built
//! inside the crate when a tool is registered.
//!
//! ```
//! use lazytool_runtime::schema::{dialect, strip_strict_nulls};
//! use serde_json::json;
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
//!     "required": ["query"]
//! });
//! // Strict mode requires every property, so the optional one becomes nullable...
//! let strict = dialect::openai_strict(&schema);
//! assert_eq!(strict["required"], json!(["query", "limit"]));
//! assert_eq!(strict["properties"]["limit"], json!({"type": ["integer", "null"]}));
//! // ...and the model sends `null` for it, which means it was not given.
//! let arguments = json!({"query": "rust", "limit": null});
//! assert_eq!(strip_strict_nulls(&schema, &arguments), json!({"query": "rust"}));
//! ```

mod canonical;
mod defaults;
mod definitions;
pub mod dialect;
mod formats;
mod keywords;
mod root;
mod strict_nulls;
mod subschemas;
#[cfg(test)]
mod tests;
mod types;
mod union;
mod walk;

pub(crate) use canonical::canonicalize;
pub(crate) use defaults::{set_property_default, strip_null_defaults};
pub(crate) use strict_nulls::has_optional_properties;
pub use strict_nulls::strip_strict_nulls;
