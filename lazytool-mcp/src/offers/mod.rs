//! What a server offers besides tools: prompts ([`prompts`], `PromptProvider`) and resources
//! ([`resources`], `ResourceProvider`), served to a connection page by page ([`pages`]), got,
//! read, their arguments completed ([`completion`]) and their changes announced ([`serving`]).

pub(crate) mod completion;
pub(crate) mod pages;
pub(crate) mod prompts;
pub(crate) mod resources;
pub(crate) mod serving;
