//! Who may do what over HTTP, read once per request: the tokens and identity provider a
//! request is authenticated by, each principal's tool-call limits and what each principal
//! sees (`Access`), in a cell that an `AccessReload` can replace while serving.

use std::sync::{Arc, PoisonError, RwLock};

use super::auth::Authentication;
use crate::PrincipalLimits;
use crate::access_epoch::AccessEpoch;
use crate::server::{Gate, OffersGate};

/// What a request is held to, read once per request.
#[derive(Clone, Default)]
pub(crate) struct Access {
    pub(crate) auth: Authentication,
    /// `None` unless some principal is limited.
    pub(crate) call_limits: Option<PrincipalLimits>,
    /// The tools each principal sees, when `McpHttp::reloadable_access` took them from the
    /// server.
    pub(crate) tools: Option<Gate>,
    pub(crate) offers: Option<OffersGate>,
}

/// The access every request of one `McpHttp` reads, and how many times it was replaced.
#[derive(Clone, Default)]
pub(crate) struct AccessCell(Arc<RwLock<(Arc<Access>, AccessEpoch)>>);

impl AccessCell {
    pub(crate) fn new(access: Access) -> Self {
        AccessCell(Arc::new(RwLock::new((
            Arc::new(access),
            AccessEpoch::default(),
        ))))
    }

    /// The access now: a request keeps what it read, whatever replaces it meanwhile.
    pub(crate) fn now(&self) -> Arc<Access> {
        self.now_with_epoch().0
    }

    /// The access now and its version.
    pub(crate) fn now_with_epoch(&self) -> (Arc<Access>, AccessEpoch) {
        // Replaced by one assignment: consistent after a panic elsewhere.
        let held = self.0.read().unwrap_or_else(PoisonError::into_inner);
        (Arc::clone(&held.0), held.1)
    }

    pub(crate) fn set(&self, access: Access) {
        let mut held = self.0.write().unwrap_or_else(PoisonError::into_inner);
        let epoch = AccessEpoch(held.1.0.wrapping_add(1));
        *held = (Arc::new(access), epoch);
    }
}
