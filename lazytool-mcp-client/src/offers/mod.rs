//! What an upstream offers and what a catalog makes of it: its tools listed ([`listing`]),
//! selected ([`selection`]), cleaned ([`sanitize`]), admitted ([`admission`]), named
//! ([`naming`]) and forwarded ([`tool`]); its prompts and resources ([`offered`]), routed
//! together with every other source's ([`routing`], [`uri_template`]) and served
//! ([`served`]).

pub(crate) mod admission;
pub(crate) mod listing;
pub(crate) mod naming;
pub(crate) mod offered;
pub(crate) mod routing;
pub(crate) mod sanitize;
pub(crate) mod selection;
pub(crate) mod served;
pub(crate) mod tool;
pub(crate) mod uri_template;
