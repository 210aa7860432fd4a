//! What a server offers besides tools: prompts ([`prompts`], `PromptProvider`) and resources
//! ([`resources`], `ResourceProvider`), their arguments completed (the future in
//! [`completion`]).

pub mod completion;
pub mod prompts;
pub mod resources;
