//! JSON Schema dialects: a tool's canonical schema rewritten into the subsets that some
//! provider fields accept.
//!
//! * [`openai_strict`]: OpenAI structured outputs, used when a tool is sent with
//!   `"strict": true`. Every object closes (`additionalProperties: false`) and lists all its
//!   properties in `required`; optional properties become nullable instead, so a strict model
//!   sends `null` where the canonical schema would have it leave the property out
//!   ([`strip_strict_nulls`](super::strip_strict_nulls) undoes that before the arguments are
//!   checked against the canonical schema).
//! * [`gemini_openapi`]: the OpenAPI 3.0 subset of Gemini's `parameters` field (its
//!   `parametersJsonSchema` field takes JSON Schema as-is).
//!
//! The rewrites never fail. What a dialect cannot check is relaxed (an unsupported `format`
//! or length dropped: arguments are still validated against the canonical schema). What it
//! cannot express at all is a [`SchemaLoss`], named with its path by
//! [`openai_strict_rewrite`] and [`gemini_openapi_rewrite`]:
//!
//! | the schema has | OpenAI strict | Gemini OpenAPI subset |
//! |---|---|---|
//! | a map or free-form object (`additionalProperties` a schema or `true`, `patternProperties`, an open object without properties) | closed: only `{}` (or only the properties) could be sent | left out (kept properties only, when it has some) |
//! | a value of any type (no `type`, `true`, an array without `items`) | a union of scalars and arrays: no objects | the same |
//! | recursion | kept (`$ref`) | cut: left out |
//! | an unresolvable reference | any value | left out |
//! | nesting past 64 levels or 10,000 schemas | cut | cut |
//!
//! The providers act on them: OpenAI takes `strict` per function, so
//! `openai_chat::render_tools` and `openai_responses::render_tools` send a tool strict mode
//! cannot express without it (a `debug` event says so); Gemini's `parameters` take no other
//! dialect, so `gemini::render_tools` reports each loss in a `warn` event and
//! `gemini::openapi_losses` returns them up front.
//!
//! ```
//! use lazytool_runtime::schema::dialect::{gemini_openapi, openai_strict};
//! use serde_json::json;
//!
//! // An `Option<String>` parameter, as schemars writes it.
//! let schema = json!({"type": "object", "properties": {"label": {"type": ["string", "null"]}}});
//! let label = json!({"type": ["string", "null"]});
//! assert_eq!(openai_strict(&schema)["properties"]["label"], label);
//! let label = json!({"type": "string", "nullable": true});
//! assert_eq!(gemini_openapi(&schema)["properties"]["label"], label);
//! ```

mod gemini_openapi;
mod loss;
mod openai_strict;

pub use gemini_openapi::{gemini_openapi, gemini_openapi_rewrite};
pub(super) use loss::{ANY_VALUE, TOO_LARGE, has_map_entries};
pub use loss::{Rewrite, SchemaLoss};
pub use openai_strict::{openai_strict, openai_strict_rewrite};
