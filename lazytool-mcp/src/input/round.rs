//! One round of a 2026-07-28 call that may ask its client for input (SEP-2322): the tool runs
//! with the answers so far (those the `requestState` carries and the request's
//! `inputResponses`); a question it has no answer for is noted, and the call ends with an
//! input-required result asking them all, the answers used so far sealed into its new state.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use lazytool_runtime::{InputChannel, InputError, InputFuture, InputRequest};
use rmcp::model::{
    ClientCapabilities, ErrorData, InputRequests, InputRequiredResult, InputResponses,
};
use serde_json::{Value, json};

use crate::server::McpServer;
use lazytool_mcp_core::capabilities::{MISSING_CAPABILITY, has};

/// The input of one round, and what the tool asked of it.
pub(crate) struct RoundInput {
    answers: BTreeMap<String, Value>,
    capabilities: ClientCapabilities,
    noted: Mutex<Noted>,
}

#[derive(Default)]
struct Noted {
    /// Questions without an answer, by key.
    asked: BTreeMap<String, InputRequest>,
    /// The answers the tool read, by key: what the next round's state carries.
    used: BTreeMap<String, Value>,
    /// The first capability a question needed and the client lacks.
    lacking: Option<&'static str>,
    /// The first answer that is not one to its question.
    invalid: Option<(String, String)>,
}

/// How a round ends, besides the tool's own result.
pub(crate) enum RoundEnd {
    /// The tool asked nothing unanswered: its result stands.
    Complete,
    /// The client is to answer these, then call again.
    InputRequired(InputRequiredResult),
    /// The call is refused with this error.
    Refused(ErrorData),
}

impl RoundInput {
    /// The input of a call bound by `binding` (its principal, method, name and arguments):
    /// the answers its `state` carries, if any (refused if it is not a state the server
    /// sealed for this call, or was used already), and its `responses`.
    pub(crate) fn begin(
        server: &McpServer,
        binding: &[u8],
        responses: Option<InputResponses>,
        state: Option<&str>,
        capabilities: ClientCapabilities,
    ) -> Result<RoundInput, ErrorData> {
        let mut answers = match state {
            Some(state) => server.request_states()?.open(binding, state)?,
            None => BTreeMap::new(),
        };
        answers.extend(responses.unwrap_or_default());
        Ok(RoundInput {
            answers,
            capabilities,
            noted: Mutex::default(),
        })
    }

    /// How the round ends, the tool having returned an error (`failed`) or not.
    pub(crate) fn end(&self, server: &McpServer, binding: &[u8], failed: bool) -> RoundEnd {
        let noted = std::mem::take(&mut *self.noted.lock().unwrap_or_else(PoisonError::into_inner));
        if let Some((key, why)) = noted.invalid {
            return RoundEnd::Refused(ErrorData::invalid_params(
                format!("the input response `{key}` is {why}"),
                None,
            ));
        }
        if !noted.asked.is_empty() {
            let requests: Result<InputRequests, _> = (noted.asked.into_iter())
                .map(|(key, request)| {
                    let wire = json!({"method": request.method(), "params": request.params()});
                    serde_json::from_value(wire).map(|request| (key, request))
                })
                .collect();
            let requests = match requests {
                Ok(requests) => requests,
                Err(error) => {
                    return RoundEnd::Refused(ErrorData::internal_error(error.to_string(), None));
                }
            };
            let sealed = server
                .request_states()
                .and_then(|states| states.seal(binding, noted.used));
            return match sealed {
                Ok(state) => {
                    RoundEnd::InputRequired(InputRequiredResult::new(Some(requests), Some(state)))
                }
                Err(error) => RoundEnd::Refused(error),
            };
        }
        match noted.lacking {
            Some(capability) if failed => RoundEnd::Refused(ErrorData::new(
                MISSING_CAPABILITY,
                format!(
                    "the tool needs the client capability `{capability}`, which the request did not declare"
                ),
                Some(json!({"requiredCapabilities": {capability: {}}})),
            )),
            _ => RoundEnd::Complete,
        }
    }

    fn noted(&self) -> std::sync::MutexGuard<'_, Noted> {
        self.noted.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl InputChannel for RoundInput {
    fn ask(&self, key: &str, request: InputRequest) -> InputFuture<'_> {
        let outcome = match self.answers.get(key) {
            Some(answer) => match request.check_answer(answer) {
                Ok(()) => {
                    self.noted().used.insert(key.to_owned(), answer.clone());
                    Ok(answer.clone())
                }
                Err(why) => {
                    self.noted()
                        .invalid
                        .get_or_insert_with(|| (key.to_owned(), why.clone()));
                    Err(InputError::Invalid {
                        key: key.to_owned(),
                        why,
                    })
                }
            },
            None if !has(&self.capabilities, request.capability()) => {
                let capability = request.capability();
                self.noted().lacking.get_or_insert(capability);
                Err(InputError::Unsupported { capability })
            }
            None => {
                self.noted().asked.insert(key.to_owned(), request);
                Err(InputError::Required {
                    key: key.to_owned(),
                })
            }
        };
        Box::pin(std::future::ready(outcome))
    }
}

/// What binds a request state to its call: the principal, the method, the name and the
/// arguments (a state answered for one call is refused for any other).
pub(crate) fn binding(principal: &str, method: &str, name: &str, arguments: &Value) -> Vec<u8> {
    let mut binding = Vec::new();
    for part in [principal, method, name] {
        binding.extend_from_slice(&(part.len() as u64).to_be_bytes());
        binding.extend_from_slice(part.as_bytes());
    }
    binding.extend_from_slice(arguments.to_string().as_bytes());
    binding
}
