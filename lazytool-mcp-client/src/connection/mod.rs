//! The connection to one upstream server and its life: where it is ([`upstream`]), started
//! ([`start`]) in the newest protocol it speaks, its client side ([`notices`]), as
//! a child process ([`child`], [`stdio`]) or over HTTP ([`http_failure`]), kept, restarted
//! and stopped ([`link`]), how it stands ([`health`]), and memory handed back once it stops
//! ([`memory`]).

pub(crate) mod child;
pub(crate) mod health;
#[cfg(feature = "http")]
pub(crate) mod http_failure;
pub(crate) mod link;
pub(crate) mod memory;
pub(crate) mod notices;
pub(crate) mod resource_watch;
pub(crate) mod start;
pub(crate) mod stdio;
pub(crate) mod upstream;
