//! Scripts in worker processes (Linux): the boundary between a script and the server that the
//! OS enforces.
//!
//! A worker is this same executable started again (`/proc/self/exe`) with a marker in an
//! otherwise empty environment, caught before `main` ([`entry`]). It sets its address space
//! limit, closes every descriptor but its pipes, and installs a system call filter
//! ([`filter`]) before it reads a script; then it runs scripts one at a time, in QuickJS, each
//! tool call a frame ([`wire`]) to the parent, whose [`broker`] runs it through the session's
//! own dispatch. The parent ([`run`]) sets a worker's CPU budget before each script, and kills
//! it when its script outlives its wall time by a grace or its call is cancelled; a worker
//! that dies is reported ([`death`]) and replaced. Workers are kept between scripts in a
//! [`pool`] that also holds the global budget (scripts at once, the queue).
//!
//! Why the same executable and not a binary of its own: a library cannot ship a binary that a
//! user's build, `cargo test` and doctests all find, and re-executing the running program
//! needs no path, no install step and no line in `main`.

mod broker;
mod death;
mod entry;
mod filter;
mod outbox;
mod pool;
mod process;
mod run;
mod spin;
#[cfg(feature = "code-worker-test-hook")]
pub(crate) mod test_hook;
mod wire;

pub(crate) use run::run;
