//! The `requestState` of an input-required result: the answers a call has had so far, sealed
//! with an HMAC (rmcp's [`RequestStateCodec`]) under a key replicas can share, bound to the
//! principal, the tool and its arguments, expiring, and accepted once.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{ErrorData, RequestStateCodec, RequestStateError, SealOptions};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How long a `requestState` may be answered, unless the server says otherwise.
pub const DEFAULT_REQUEST_STATE_TTL: Duration = Duration::from_secs(600);

/// The most states the server remembers as answered at once (each for its TTL, 32 bytes or
/// so each); past it, a round is refused until room frees rather than forget which states
/// were used.
const MAX_REMEMBERED: usize = 1 << 18;

/// What a sealed state carries.
#[derive(Serialize, Deserialize)]
struct Sealed {
    /// The answers so far, by key.
    answers: BTreeMap<String, Value>,
    /// Unique to this state: a state is accepted once.
    nonce: u128,
}

/// The server's sealing of request states.
pub(crate) struct RequestStates {
    codec: RequestStateCodec,
    ttl: Duration,
    /// The nonces of the states answered, until they expire.
    answered: Mutex<Answered>,
}

/// Nonces with their expiry, oldest first (all live for the same TTL, so in expiry order).
#[derive(Default)]
struct Answered {
    nonces: HashSet<u128>,
    by_expiry: VecDeque<(Instant, u128)>,
}

impl RequestStates {
    /// Sealed with `key` (at least 32 bytes; `None`: a random key of this process's own), valid
    /// for `ttl`.
    pub(crate) fn new(
        key: Option<Vec<u8>>,
        ttl: Duration,
    ) -> Result<RequestStates, RequestStateError> {
        let key = match key {
            Some(key) => key,
            None => {
                let mut key = vec![0u8; RequestStateCodec::MIN_KEY_LENGTH];
                // Without the OS's randomness no state could be trusted: fail closed, with a
                // key nobody can reproduce being unavailable, every state is refused.
                getrandom::fill(&mut key).map_err(|_| {
                    RequestStateError::InvalidKeyring("no randomness for a signing key")
                })?;
                key
            }
        };
        Ok(RequestStates {
            codec: RequestStateCodec::try_new(key)?,
            ttl,
            answered: Mutex::default(),
        })
    }

    /// `answers` sealed for the call bound by `binding`.
    pub(crate) fn seal(
        &self,
        binding: &[u8],
        answers: BTreeMap<String, Value>,
    ) -> Result<String, ErrorData> {
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce)
            .map_err(|error| ErrorData::internal_error(format!("no randomness: {error}"), None))?;
        let sealed = Sealed {
            answers,
            nonce: u128::from_le_bytes(nonce),
        };
        let options = SealOptions::new().associated_data(binding).ttl(self.ttl);
        self.codec
            .seal_json_with(&sealed, &options)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }

    /// The answers of the state `sealed` for the call bound by `binding`, marked answered; an
    /// error naming no detail (the specification asks one error for every failure) for a
    /// state that was altered, made for another call or principal, expired, or used already.
    pub(crate) fn open(
        &self,
        binding: &[u8],
        sealed: &str,
    ) -> Result<BTreeMap<String, Value>, ErrorData> {
        let refused = |why: &str| {
            tracing::debug!(target: "lazytool::mcp", why, "a requestState was refused");
            ErrorData::invalid_params(
                "the requestState is not valid for this request: it was altered, belongs to another request, expired or was answered already",
                None,
            )
        };
        let opened: Sealed = self
            .codec
            .open_json_with(sealed, binding)
            .map_err(|error| refused(&error.to_string()))?;
        let now = Instant::now();
        let mut answered = self.answered.lock().unwrap_or_else(PoisonError::into_inner);
        while let Some((expires, _)) = answered.by_expiry.front()
            && *expires <= now
        {
            if let Some((_, nonce)) = answered.by_expiry.pop_front() {
                answered.nonces.remove(&nonce);
            }
        }
        if answered.nonces.contains(&opened.nonce) {
            return Err(refused("replayed"));
        }
        if answered.nonces.len() >= MAX_REMEMBERED {
            return Err(ErrorData::internal_error(
                "too many input rounds in flight: try again later",
                None,
            ));
        }
        answered.nonces.insert(opened.nonce);
        answered.by_expiry.push_back((now + self.ttl, opened.nonce));
        Ok(opened.answers)
    }
}
