//! Signed discovery results: with a key, a stateless server accepts from a message history
//! only the discoveries it made itself.

use std::fmt;
#[cfg(feature = "signing")]
use std::sync::Arc;

#[cfg(feature = "signing")]
use hmac::{Hmac, KeyInit, Mac};
#[cfg(feature = "signing")]
use sha2::Sha256;

use crate::call::DiscoveredSet;

#[cfg(feature = "signing")]
const DOMAIN: &[u8] = b"lazytool/discovery/v1";

/// An HMAC-SHA256 key for discovery results.
#[cfg(feature = "signing")]
#[derive(Clone)]
pub(crate) struct SigningKey(Arc<Option<Hmac<Sha256>>>);

/// Without the `signing` feature no key exists: sessions never sign nor check signatures.
#[cfg(not(feature = "signing"))]
#[derive(Clone)]
pub(crate) enum SigningKey {}

#[cfg(not(feature = "signing"))]
impl SigningKey {
    pub(crate) fn sign_set(&self, _: DiscoveredSet) -> DiscoveredSet {
        match *self {}
    }

    pub(crate) fn verify_set(&self, _: &DiscoveredSet) -> bool {
        match *self {}
    }
}

#[cfg(feature = "signing")]
impl SigningKey {
    /// HMAC accepts keys of any length; were one ever refused, the key would sign nothing
    /// and accept nothing, which fails closed.
    pub(crate) fn new(key: &[u8]) -> Self {
        SigningKey(Arc::new(
            <Hmac<Sha256> as KeyInit>::new_from_slice(key).ok(),
        ))
    }

    fn mac(&self, tools: &[&str]) -> Option<Hmac<Sha256>> {
        let mut mac = self.0.as_ref().clone()?;
        mac.update(DOMAIN);
        for tool in tools {
            mac.update(b"\n");
            mac.update(tool.as_bytes());
        }
        Some(mac)
    }

    /// The signature of a discovered set (tool names in order), as hex.
    pub(crate) fn sign(&self, tools: &[&str]) -> String {
        self.mac(tools).map_or_else(String::new, |mac| {
            mac.finalize()
                .into_bytes()
                .iter()
                .map(|byte| format!("{byte:02x}"))
                .collect()
        })
    }

    /// `set` signed.
    pub(crate) fn sign_set(&self, mut set: DiscoveredSet) -> DiscoveredSet {
        let names: Vec<&str> = set.tools.iter().map(String::as_str).collect();
        set.signature = Some(self.sign(&names));
        set
    }

    /// Whether `set` carries a valid signature of its tools.
    pub(crate) fn verify_set(&self, set: &DiscoveredSet) -> bool {
        let names: Vec<&str> = set.tools.iter().map(String::as_str).collect();
        set.signature
            .as_deref()
            .is_some_and(|signature| self.verify(&names, signature))
    }

    /// Whether `signature` (hex) signs `tools`; compared in constant time.
    pub(crate) fn verify(&self, tools: &[&str], signature: &str) -> bool {
        let Some(bytes) = decode_hex(signature) else {
            return false;
        };
        self.mac(tools)
            .is_some_and(|mac| mac.verify_slice(&bytes).is_ok())
    }
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningKey(..)")
    }
}

#[cfg(feature = "signing")]
fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(all(test, feature = "signing"))]
mod tests {
    use super::*;

    #[test]
    fn signatures_bind_the_key_and_the_names() {
        let key = SigningKey::new(b"server secret");
        let signature = key.sign(&["a", "b"]);
        assert_eq!(signature.len(), 64);
        assert!(key.verify(&["a", "b"], &signature));
        assert!(!key.verify(&["a", "c"], &signature));
        assert!(!key.verify(&["a"], &signature));
        assert!(!key.verify(&["ab"], &signature), "names are delimited");
        assert!(!SigningKey::new(b"other").verify(&["a", "b"], &signature));
        assert!(!key.verify(&["a", "b"], "zz"));
        assert!(!key.verify(&["a", "b"], ""));
    }
}
