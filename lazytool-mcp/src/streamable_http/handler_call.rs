//! A request answered by a connection's handler in the task of the HTTP request that brought
//! it ([`handler_call`]), with the context rmcp's service loop would give it in a task of its
//! own: a stateless lane's requests and a session's routine ones.

use std::pin::Pin;
use std::sync::Arc;

use lazytool_runtime::CancellationToken;
use rmcp::model::{
    ClientRequest, Extensions, GetExtensions, GetMeta, JsonRpcRequest, RequestMetaObject,
    ServerJsonRpcMessage,
};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer};

use super::in_place::boxed_in_place;
use crate::connection::McpConnection;

/// A request's handler at work: its answer, once it has one.
pub(super) type Call = Pin<Box<dyn Future<Output = ServerJsonRpcMessage> + Send>>;

/// `request`'s handler at work (through [`McpConnection::answer_routine`]: `request` is one
/// the lanes or a session's routine calls read), with the context rmcp's service loop gives a
/// request: the request's `_meta` and extensions (the HTTP request's parts among them, put
/// there by the caller), the connection's `peer`, and `cancellation`, which is cancelled once
/// the request is answered (or dropped unanswered: the client went away).
///
/// rmcp also runs a handler within its request's id (a task-local of its own), from which a
/// request the handler makes of the client learns which stream to ride; lazytool's handler
/// names that stream itself (`SessionInput`).
pub(super) fn handler_call(
    connection: Arc<McpConnection>,
    peer: Peer<RoleServer>,
    request: JsonRpcRequest<ClientRequest>,
    cancellation: CancellationToken,
) -> Call {
    let JsonRpcRequest {
        id, mut request, ..
    } = request;
    let mut meta = RequestMetaObject::new();
    let mut extensions = Extensions::new();
    std::mem::swap(&mut meta, request.get_meta_mut());
    std::mem::swap(&mut extensions, request.extensions_mut());
    let mut context = RequestContext::new(id.clone(), peer);
    context.ct = cancellation.clone();
    context.meta = meta;
    context.extensions = extensions;
    boxed_in_place(move || async move {
        let _answered = cancellation.drop_guard();
        match connection.answer_routine(request, context).await {
            Ok(result) => ServerJsonRpcMessage::response(result, id),
            Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
        }
    })
}
