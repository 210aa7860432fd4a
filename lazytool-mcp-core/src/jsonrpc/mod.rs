//! The JSON-RPC wire both transports and the upstream client share: bounded newline-delimited
//! lines in and ordered lines out ([`lines`]), a line decoded into a message or the error it
//! is answered with ([`decode`]), and the request id read from a line that is not a message
//! ([`request_id`]).

pub mod decode;
pub mod lines;
pub mod request_id;
