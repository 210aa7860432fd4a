//! Signed discovery results: with a key, a stateless server accepts from a message history
//! only the discoveries it made itself, and, when bound to a conversation id, only those it
//! made in that conversation.

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
#[cfg(feature = "signing")]
const CONVERSATION_DOMAIN: &[u8] = b"lazytool/discovery/v1/conversation";

/// A server's secret for signing discovery results and compaction markers (HMAC-SHA256):
/// at least [`SigningKey::MIN_BYTES`] bytes, so that nobody can guess it. Give it to
/// [`SessionOptions::signing_key`](crate::SessionOptions::signing_key). Needs the `signing`
/// feature.
///
/// ```
/// use lazytool_runtime::SigningKey;
///
/// // 32 random bytes kept on the server (from a secret manager, an environment variable…).
/// let key = SigningKey::new(b"0123456789abcdef0123456789abcdef").unwrap();
/// # let _ = key;
/// let error = SigningKey::new(b"secret").unwrap_err();
/// assert_eq!(error.to_string(), "a signing key needs at least 32 bytes, this one has 6");
/// ```
#[cfg(feature = "signing")]
#[derive(Clone)]
pub struct SigningKey(Arc<Hmac<Sha256>>);

/// Without the `signing` feature no key exists: sessions never sign nor check signatures.
#[cfg(not(feature = "signing"))]
#[derive(Clone)]
pub(crate) enum SigningKey {}

/// Why bytes cannot be a [`SigningKey`]: they are fewer than [`SigningKey::MIN_BYTES`].
///
/// ```
/// use lazytool_runtime::SigningKey;
///
/// let error = SigningKey::new("").unwrap_err();
/// assert_eq!(error.len(), 0);
/// ```
#[cfg(feature = "signing")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SigningKeyError {
    len: usize,
}

#[cfg(feature = "signing")]
impl SigningKeyError {
    /// The length of the rejected key, in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the rejected key was empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(feature = "signing")]
impl fmt::Display for SigningKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a signing key needs at least {} bytes, this one has {}",
            SigningKey::MIN_BYTES,
            self.len
        )
    }
}

#[cfg(feature = "signing")]
impl std::error::Error for SigningKeyError {}

#[cfg(feature = "signing")]
impl SigningKey {
    /// The shortest key accepted: 32 bytes, the output size of SHA-256. A shorter or guessable
    /// key (an empty one, a word) would let anyone forge signatures.
    pub const MIN_BYTES: usize = 32;

    /// A key from `bytes`, or an error when they are fewer than [`MIN_BYTES`](Self::MIN_BYTES).
    pub fn new(bytes: impl AsRef<[u8]>) -> Result<SigningKey, SigningKeyError> {
        let bytes = bytes.as_ref();
        if bytes.len() < Self::MIN_BYTES {
            return Err(SigningKeyError { len: bytes.len() });
        }
        <Hmac<Sha256> as KeyInit>::new_from_slice(bytes)
            .map(|mac| SigningKey(Arc::new(mac)))
            .map_err(|_| SigningKeyError { len: bytes.len() })
    }
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningKey(..)")
    }
}

/// A key with the conversation its signatures are bound to, if any: what a session signs and
/// checks discovered sets with.
pub(crate) struct Signer<'a> {
    pub(crate) key: &'a SigningKey,
    // Read by the MAC, which exists with the `signing` feature only.
    #[cfg_attr(not(feature = "signing"), allow(dead_code))]
    pub(crate) conversation: Option<&'a str>,
}

#[cfg(not(feature = "signing"))]
impl Signer<'_> {
    pub(crate) fn sign_set(&self, _: DiscoveredSet) -> DiscoveredSet {
        match *self.key {}
    }

    pub(crate) fn verify_set(&self, _: &DiscoveredSet) -> bool {
        match *self.key {}
    }
}

#[cfg(feature = "signing")]
impl Signer<'_> {
    /// The MAC over the conversation (length-prefixed, so that no id and names run into
    /// each other) and the tool names, each on its own line.
    fn mac(&self, tools: &[&str]) -> Hmac<Sha256> {
        let mut mac = self.key.0.as_ref().clone();
        match self.conversation {
            None => mac.update(DOMAIN),
            Some(conversation) => {
                mac.update(CONVERSATION_DOMAIN);
                mac.update(&(conversation.len() as u64).to_be_bytes());
                mac.update(conversation.as_bytes());
            }
        }
        for tool in tools {
            mac.update(b"\n");
            mac.update(tool.as_bytes());
        }
        mac
    }

    /// The signature of a discovered set (tool names in order), as hex.
    pub(crate) fn sign(&self, tools: &[&str]) -> String {
        self.mac(tools)
            .finalize()
            .into_bytes()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
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
        decode_hex(signature).is_some_and(|bytes| self.mac(tools).verify_slice(&bytes).is_ok())
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

    fn key(text: &str) -> SigningKey {
        SigningKey::new(format!("{text:0>32}")).unwrap_or_else(|error| panic!("{error}"))
    }

    #[test]
    fn signatures_bind_the_key_and_the_names() {
        let key = key("server secret");
        let signer = Signer {
            key: &key,
            conversation: None,
        };
        let signature = signer.sign(&["a", "b"]);
        assert_eq!(signature.len(), 64);
        assert!(signer.verify(&["a", "b"], &signature));
        assert!(!signer.verify(&["a", "c"], &signature));
        assert!(!signer.verify(&["a"], &signature));
        assert!(!signer.verify(&["ab"], &signature), "names are delimited");
        let other = self::key("other");
        assert!(
            !Signer {
                key: &other,
                conversation: None
            }
            .verify(&["a", "b"], &signature)
        );
        assert!(!signer.verify(&["a", "b"], "zz"));
        assert!(!signer.verify(&["a", "b"], ""));
    }

    #[test]
    fn signatures_bound_to_a_conversation_hold_only_there() {
        let key = key("server secret");
        let in_conversation = |id| Signer {
            key: &key,
            conversation: Some(id),
        };
        let signature = in_conversation("c-1").sign(&["a"]);
        assert!(in_conversation("c-1").verify(&["a"], &signature));
        assert!(!in_conversation("c-2").verify(&["a"], &signature));
        assert!(
            !Signer {
                key: &key,
                conversation: None
            }
            .verify(&["a"], &signature)
        );
        assert!(
            !in_conversation("c-").verify(&["1\na"], &signature),
            "the id is length-prefixed"
        );
    }

    #[test]
    fn keys_under_32_bytes_are_refused() {
        for len in [0, 1, 31] {
            assert_eq!(
                SigningKey::new(vec![7; len]).err(),
                Some(SigningKeyError { len })
            );
        }
        assert!(SigningKey::new(vec![7; 32]).is_ok(), "at the limit");
        assert!(SigningKey::new(vec![7; 33]).is_ok());
    }
}
