//! A command the shared store could not answer: [`StoreDown`].

use std::fmt;

/// The shared store did not answer a command: it is unreachable, timed out, refused the
/// credentials or failed the command. Its message says why (never with a password).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreDown {
    pub reason: String,
}

impl fmt::Display for StoreDown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the shared store is down: {}", self.reason)
    }
}

impl std::error::Error for StoreDown {}
