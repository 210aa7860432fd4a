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
//! The rewrites never fail: what a dialect cannot say is relaxed (an unsupported `format`
//! dropped, an arbitrary value turned into a union of scalars) or, for Gemini, left out (see
//! [`gemini_openapi`]).
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
mod openai_strict;

pub use gemini_openapi::gemini_openapi;
pub use openai_strict::openai_strict;
