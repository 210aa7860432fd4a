//! The client capabilities a tool call may need (`elicitation`, `sampling`, `roots`): whether
//! a request declared one ([`has`]), and the error of a request that needs one it did not
//! declare ([`MISSING_CAPABILITY`]).

use rmcp::model::{ClientCapabilities, ErrorCode};

/// The error code of a request that needs a capability the client did not declare.
///
/// ```
/// use lazytool_mcp_core::capabilities::MISSING_CAPABILITY;
///
/// assert_eq!(MISSING_CAPABILITY.0, -32021);
/// ```
pub const MISSING_CAPABILITY: ErrorCode = ErrorCode(-32021);

/// Whether `capabilities` declare `capability` (`elicitation`, `sampling` or `roots`).
///
/// ```
/// use lazytool_mcp_core::capabilities::has;
/// use lazytool_mcp_core::rmcp::model::{ClientCapabilities, ElicitationCapability};
///
/// let mut capabilities = ClientCapabilities::default();
/// assert!(!has(&capabilities, "elicitation"));
/// capabilities.elicitation = Some(ElicitationCapability::default());
/// assert!(has(&capabilities, "elicitation"));
/// assert!(!has(&capabilities, "telepathy"));
/// ```
pub fn has(capabilities: &ClientCapabilities, capability: &str) -> bool {
    match capability {
        "elicitation" => capabilities.elicitation.is_some(),
        "sampling" => capabilities.sampling.is_some(),
        "roots" => capabilities.roots.is_some(),
        _ => false,
    }
}
