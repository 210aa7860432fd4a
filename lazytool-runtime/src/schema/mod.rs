//! Tool input schemas: the canonical form every tool's schema is kept in (`$ref`s inlined
//! unless recursive, no `$schema` or root `title`, property order kept), built when a tool is
//! registered, and what validation and `#[arg(default)]` need of it.

mod canonical;
mod defaults;
mod definitions;
mod integer_bounds;
mod strict_nulls;
mod subschemas;
#[cfg(test)]
mod tests;

pub(crate) use canonical::canonicalize;
pub(crate) use defaults::{set_property_default, strip_null_defaults};
pub(crate) use integer_bounds::with_integer_bounds;
pub(crate) use strict_nulls::has_optional_properties;
