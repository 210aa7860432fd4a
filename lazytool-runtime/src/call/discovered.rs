//! Which lazy tools were discovered: [`DiscoveredSet`], the one record of a discovery that
//! sessions, signing, compaction markers, history reading and provider-native deferral share.

use serde::{Deserialize, Serialize};

/// Lazy tools discovered, by name, in discovery order, with the server's signature of the set
/// when sessions are signed
/// (`SessionOptions::signing_key`, with the `signing` feature).
///
/// It is what one discovery call handed out ([`ToolResult::discovered`](crate::ToolResult::discovered)),
/// what a conversation discovered so far ([`Session::discovered`](crate::Session::discovered)),
/// what a compaction marker records and what [`Session::from_history`](crate::Session::from_history)
/// reads back from every history format. Its JSON form, `{"tools": [...], "signature"?: "..."}`,
/// is what a server stores to resume a conversation in another process
/// ([`Session::resume`](crate::Session::resume)).
///
/// ```
/// use lazytool_runtime::DiscoveredSet;
///
/// let set: DiscoveredSet = serde_json::from_str(r#"{"tools": ["compareProducts"]}"#).unwrap();
/// assert_eq!(set.tools, ["compareProducts"]);
/// assert_eq!(set.signature, None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiscoveredSet {
    /// Tool names, in the order they were discovered.
    pub tools: Vec<String>,
    /// The HMAC-SHA256 signature (hex) of `tools`, when the server signs discoveries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

impl DiscoveredSet {
    /// An unsigned set of `tools`.
    ///
    /// ```
    /// use lazytool_runtime::DiscoveredSet;
    ///
    /// let set = DiscoveredSet::new(["compareProducts", "calculateFinancing"]);
    /// assert_eq!(serde_json::to_string(&set).unwrap(), r#"{"tools":["compareProducts","calculateFinancing"]}"#);
    /// ```
    pub fn new<S: Into<String>>(tools: impl IntoIterator<Item = S>) -> Self {
        DiscoveredSet {
            tools: tools.into_iter().map(Into::into).collect(),
            signature: None,
        }
    }

    /// Whether no tool is in the set.
    ///
    /// ```
    /// use lazytool_runtime::DiscoveredSet;
    ///
    /// assert!(DiscoveredSet::default().is_empty());
    /// assert!(!DiscoveredSet::new(["compareProducts"]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}
