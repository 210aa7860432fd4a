//! Who approves an authorization request: [`Approver`].

use std::future::Future;
use std::pin::Pin;

/// What [`Approver::approve`] returns: the URL the authorization server redirected to.
pub type Approval<'a> = Pin<Box<dyn Future<Output = Result<String, String>> + Send + 'a>>;

/// Has an authorization request approved: shows its URL to a person (as
/// [`login`](crate::login) does, with a browser and a loopback redirect) or follows it some
/// other way, and returns the URL the authorization server redirected to, which carries
/// `code` and `state`.
///
/// ```
/// use lazytool_mcp_client::{Approval, Approver};
///
/// /// Approves by asking nobody: for an authorization server that approves everything.
/// struct Fixed;
///
/// impl Approver for Fixed {
///     fn redirect_uri(&self) -> String {
///         "http://127.0.0.1:8976/callback".to_owned()
///     }
///     fn approve<'a>(&'a self, _authorization_url: &'a str) -> Approval<'a> {
///         Box::pin(async { Ok("http://127.0.0.1:8976/callback?code=c0de&state=st4te".to_owned()) })
///     }
/// }
/// ```
pub trait Approver: Send + Sync {
    /// The redirect URI the authorization request names.
    fn redirect_uri(&self) -> String;

    /// Has `authorization_url` approved; returns the URL redirected to, or why not.
    fn approve<'a>(&'a self, authorization_url: &'a str) -> Approval<'a>;
}
