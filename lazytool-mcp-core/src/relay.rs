//! Which requests of upstream servers a program can pass on to its own MCP clients: [`Relay`].

use std::sync::Arc;

use rmcp::model::{
    ClientCapabilities, ElicitationCapability, RootsCapabilities, SamplingCapability,
};
use tokio::sync::watch;

/// What the program's own MCP clients can answer of what upstream servers ask during a
/// call: `sampling/createMessage`, `elicitation/create` and `roots/list`. Give the same `Relay` to the
/// `McpServer` that serves the clients (`McpServer::relay`)
/// and to each `McpSource` (`McpSource::relay`):
/// every client's `initialize` (and a 2026-07-28 request's declared capabilities) is recorded
/// here, and an upstream announces to its server
/// the capabilities some client announced when it starts.
///
/// - An upstream started before any client announced a capability announces none; once a
///   client announces one, the source reports a change of its tools (so an
///   `McpCatalog` lists it again) and the upstream is restarted at
///   that next use when no call of it is in flight, else at a later one (once: what clients
///   announced only grows), so its server learns it and can offer the tools that need it.
/// - With several clients (streamable HTTP), an upstream announces what any of them
///   announced; a request during the call of a client that did not announce it is refused
///   with a JSON-RPC error that says so.
/// - Without a `Relay`, an upstream announces nothing, and a request that comes anyway is
///   still passed on when the client of the call announced the capability.
///
/// `name` is how refusals name the program (`lazytool-gateway`, say).
///
/// ```
/// use lazytool_mcp_core::Relay;
/// use lazytool_mcp_core::rmcp::model::{ClientCapabilities, ElicitationCapability};
///
/// let relay = Relay::new("my-gateway");
/// assert!(relay.announced().elicitation.is_none());
/// let mut client = ClientCapabilities::default();
/// client.elicitation = Some(ElicitationCapability::default());
/// relay.client_announced(&client);
/// assert!(relay.announced().elicitation.is_some());
/// assert_eq!(relay.name(), "my-gateway");
/// ```
#[derive(Clone, Debug)]
pub struct Relay {
    name: Arc<str>,
    announced: Arc<watch::Sender<Announced>>,
}

/// What some client announced, as an upstream announces it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Announced {
    sampling: Option<SamplingCapability>,
    elicitation: Option<ElicitationCapability>,
    roots: Option<RootsCapabilities>,
}

impl Announced {
    /// Whether `self` lacks something `other` has: an upstream that announced `self` must
    /// be started again to announce `other`.
    pub fn lacks(&self, other: &Announced) -> bool {
        (self.sampling.is_none() && other.sampling.is_some())
            || (self.elicitation.is_none() && other.elicitation.is_some())
            || (self.roots.is_none() && other.roots.is_some())
    }

    /// Announces `elicitation` (answered by the source's `Elicitor`), unless
    /// a client announced it already.
    pub fn answer_elicitation(&mut self) {
        self.elicitation
            .get_or_insert_with(ElicitationCapability::default);
    }

    /// The client capabilities that announce `self`.
    pub fn capabilities(&self) -> ClientCapabilities {
        let mut capabilities = ClientCapabilities::default();
        capabilities.sampling = self.sampling.clone();
        capabilities.elicitation = self.elicitation.clone();
        // Roots are asked of the client of the call; a change of its roots is its own.
        capabilities.roots = self.roots.clone().map(|mut roots| {
            roots.list_changed = None;
            roots
        });
        capabilities
    }
}

impl Relay {
    /// A relay that refusals name `name`, before any client announced anything.
    pub fn new(name: impl Into<Arc<str>>) -> Self {
        Relay {
            name: name.into(),
            announced: Arc::new(watch::Sender::new(Announced::default())),
        }
    }

    /// How refusals name the program.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Records the capabilities a client announced in its `initialize` (or declared in a
    /// 2026-07-28 request): sampling, elicitation and roots join what upstreams announce from
    /// their next start on.
    pub fn client_announced(&self, capabilities: &ClientCapabilities) {
        let sampling = capabilities.sampling.clone();
        let elicitation = capabilities.elicitation.clone();
        let roots = capabilities.roots.clone();
        self.announced.send_if_modified(|announced| {
            let before = announced.clone();
            if announced.sampling.is_none() {
                announced.sampling = sampling;
            }
            if announced.elicitation.is_none() {
                announced.elicitation = elicitation;
            }
            if announced.roots.is_none() {
                announced.roots = roots;
            }
            *announced != before
        });
    }

    /// The client capabilities an upstream starting now announces to its server.
    pub fn announced(&self) -> ClientCapabilities {
        self.current().capabilities()
    }

    pub fn current(&self) -> Announced {
        self.announced.borrow().clone()
    }

    /// Changes each time a client announces something new.
    pub fn changes(&self) -> watch::Receiver<Announced> {
        self.announced.subscribe()
    }
}

impl Default for Relay {
    /// A relay named `lazytool`.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp_core::Relay::default().name(), "lazytool");
    /// ```
    fn default() -> Self {
        Relay::new("lazytool")
    }
}
