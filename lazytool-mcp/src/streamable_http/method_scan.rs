//! The scans that tell a request's method from its body's bytes before it is parsed, each
//! built once: `memchr::memmem::find` builds its searcher on every call, which cost more than
//! the scan of a short body itself.

use std::sync::LazyLock;

use memchr::memmem::Finder;
use rmcp::model::{
    CallToolRequestMethod, ConstString, InitializeResultMethod, ListToolsRequestMethod,
    SubscriptionsListenRequestMethod,
};

/// A method's name, looked for in a body.
pub(super) struct MethodScan(LazyLock<Finder<'static>>);

impl MethodScan {
    /// Whether the method's name appears anywhere in `body`.
    pub(super) fn in_body(&self, body: &[u8]) -> bool {
        self.0.find(body).is_some()
    }
}

/// `tools/call`.
pub(super) static TOOLS_CALL: MethodScan =
    MethodScan(LazyLock::new(|| Finder::new(CallToolRequestMethod::VALUE)));
/// `tools/list`.
pub(super) static TOOLS_LIST: MethodScan =
    MethodScan(LazyLock::new(|| Finder::new(ListToolsRequestMethod::VALUE)));
/// `initialize`.
pub(super) static INITIALIZE: MethodScan =
    MethodScan(LazyLock::new(|| Finder::new(InitializeResultMethod::VALUE)));
/// `subscriptions/listen`.
pub(super) static SUBSCRIPTIONS_LISTEN: MethodScan = MethodScan(LazyLock::new(|| {
    Finder::new(SubscriptionsListenRequestMethod::VALUE)
}));
