//! What a server offers besides tools: prompts ([`prompts`], `PromptProvider`) and resources
//! ([`resources`], `ResourceProvider`), served to a connection page by page ([`pages`]), got,
//! read, their arguments completed (the future in [`completion`]), their changes announced
//! ([`serving`]) and resources' updates sent to their subscribers ([`subscriptions`]).

pub(crate) mod completion;
pub(crate) mod pages;
pub(crate) mod prompts;
pub(crate) mod resources;
pub(crate) mod serving;
pub(crate) mod subscriptions;
