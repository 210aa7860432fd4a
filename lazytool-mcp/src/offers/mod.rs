//! What a server offers besides tools, prompts and resources (lazytool-mcp-core's
//! `PromptProvider` and `ResourceProvider`), served to a connection page by page ([`pages`]),
//! got, read, their arguments completed, their changes announced
//! ([`serving`]) and resources' updates sent to their subscribers ([`subscriptions`]).

pub(crate) mod pages;
pub(crate) mod serving;
pub(crate) mod subscriptions;
