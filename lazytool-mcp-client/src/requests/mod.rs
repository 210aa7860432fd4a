//! What upstream servers ask of their client during a call, passed on to the client of that
//! call: the calls in flight they belong to ([`in_flight`]), sampling and elicitation
//! ([`upstream_requests`]), progress ([`progress_tap`]), and who answers when none can ([`elicitor`]); what the
//! program's clients can answer is lazytool-mcp-core's `Relay`.

pub(crate) mod elicitor;
pub(crate) mod in_flight;
pub(crate) mod progress_tap;
pub(crate) mod upstream_requests;
