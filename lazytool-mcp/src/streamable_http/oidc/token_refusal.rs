//! Why a bearer token is refused: [`TokenRefusal`], and what of a token may be repeated in
//! the refusal.

/// The longest value of a token's header or of the issuer's key set repeated in a refusal.
const MAX_SHOWN_CHARS: usize = 40;

/// Why a token is refused: `invalid_token` (401) or `insufficient_scope` (403), and what was
/// wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TokenRefusal {
    pub(crate) insufficient_scope: bool,
    pub(crate) reason: String,
}

impl TokenRefusal {
    pub(crate) fn invalid(reason: impl Into<String>) -> Self {
        TokenRefusal {
            insufficient_scope: false,
            reason: reason.into(),
        }
    }
}

/// `text` (from a token's header or the issuer's key set) when it can be repeated in a
/// refusal as it is: short printable ASCII, nothing to escape in a header.
pub(crate) fn shown(text: &str) -> Option<&str> {
    let printable =
        (text.bytes()).all(|byte| byte.is_ascii_graphic() && !matches!(byte, b'"' | b'\\'));
    (!text.is_empty() && text.len() <= MAX_SHOWN_CHARS && printable).then_some(text)
}
