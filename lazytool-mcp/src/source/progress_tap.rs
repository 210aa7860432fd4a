//! An upstream connection's transport that passes the server's progress notifications on
//! as they are read: [`ProgressTap`].

use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::model::{JsonRpcMessage, JsonRpcNotification, ServerJsonRpcMessage, ServerNotification};
use rmcp::service::TxJsonRpcMessage;
use rmcp::transport::Transport;

use super::upstream_requests::UpstreamRequests;

/// `inner`, with each `notifications/progress` passed on to the client of its call before
/// the next message is read. rmcp hands notifications to the handler on tasks of their own,
/// which a call's answer read just after may overtake; here the client gets the last
/// progress of a call before its answer.
pub(crate) struct ProgressTap<T> {
    inner: T,
    requests: Arc<UpstreamRequests>,
}

impl<T> ProgressTap<T> {
    pub(crate) fn new(inner: T, requests: Arc<UpstreamRequests>) -> Self {
        ProgressTap { inner, requests }
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
        let message = self.inner.receive().await?;
        if let JsonRpcMessage::Notification(JsonRpcNotification {
            notification: ServerNotification::ProgressNotification(progress),
            ..
        }) = &message
        {
            self.requests.progress(&progress.params).await;
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
