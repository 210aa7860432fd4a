//! An upstream connection's transport that passes the server's progress notifications on
//! as they are read: [`ProgressTap`].

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::model::{JsonRpcMessage, JsonRpcNotification, ServerJsonRpcMessage, ServerNotification};
use rmcp::service::TxJsonRpcMessage;
use rmcp::transport::Transport;

use crate::requests::upstream_requests::UpstreamRequests;

/// A progress notification being passed on, and the message to hand rmcp after it.
type Passing = (
    Pin<Box<dyn Future<Output = ()> + Send>>,
    ServerJsonRpcMessage,
);

/// `inner`, with each `notifications/progress` passed on to the client of its call before
/// the next message is read. rmcp hands notifications to the handler on tasks of their own,
/// which a call's answer read just after may overtake; here the client gets the last
/// progress of a call before its answer.
pub(crate) struct ProgressTap<T> {
    inner: T,
    requests: Arc<UpstreamRequests>,
    /// rmcp drops an unfinished `receive` whenever it has something to send: what was
    /// read stays here until it is passed on.
    passing: Option<Passing>,
}

impl<T> ProgressTap<T> {
    pub(crate) fn new(inner: T, requests: Arc<UpstreamRequests>) -> Self {
        ProgressTap {
            inner,
            requests,
            passing: None,
        }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for ProgressTap<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        if self.passing.is_none() {
            let message = self.inner.receive().await?;
            let JsonRpcMessage::Notification(JsonRpcNotification {
                notification: ServerNotification::ProgressNotification(progress),
                ..
            }) = &message
            else {
                return Some(message);
            };
            let (requests, params) = (Arc::clone(&self.requests), progress.params.clone());
            let pass_on = Box::pin(async move { requests.progress(&params).await });
            self.passing = Some((pass_on, message));
        }
        let (pass_on, _) = self.passing.as_mut()?;
        pass_on.await;
        self.passing.take().map(|(_, message)| message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
