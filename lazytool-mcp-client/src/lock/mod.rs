//! The lock and its pins, in one place: the lock file and what it records ([`file`]; canonical
//! JSON and its digest are `lazytool_mcp_core::canonical`, which the audit trail shares), a server's live definitions held to its entry
//! ([`verify`]: [`Pin`]), one server's pins at run time ([`pins`]), and servers started,
//! pinned and stopped to write the lock ([`pinning`]).

mod changed;
pub(crate) mod file;
pub(crate) mod pinning;
pub(crate) mod pins;
pub(crate) mod verify;

pub use changed::ChangedDefinition;
pub use file::{LOCK_VERSION, Lock, LockError, LockState, Pinned, ServerLock};
pub use pinning::Repinned;
pub(crate) use pins::Pins;
pub(crate) use verify::Change;
pub use verify::Pin;

#[cfg(test)]
mod tests;
