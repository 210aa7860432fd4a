//! The events of one of a session's SSE streams: [`Events`], which ends a request's stream as
//! soon as its answer is out.

use std::task::{Context, Poll};

use futures_core::Stream;
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use tokio::sync::mpsc;

use super::routes;

/// The events of one SSE stream.
pub(super) struct Events {
    events: mpsc::Receiver<ServerSseMessage>,
    /// Whether the stream ends with the answer to its request: it ends as soon as the answer is
    /// out, not when the routes drop its sender a moment later, so that the answer and the end
    /// of the stream leave together.
    ends_with_answer: bool,
    answered: bool,
}

impl Events {
    pub(super) fn new(events: mpsc::Receiver<ServerSseMessage>) -> Self {
        Events {
            events,
            ends_with_answer: false,
            answered: false,
        }
    }

    pub(super) fn answering(events: mpsc::Receiver<ServerSseMessage>) -> Self {
        Events {
            ends_with_answer: true,
            ..Events::new(events)
        }
    }
}

impl Stream for Events {
    type Item = ServerSseMessage;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Self::Item>> {
        if self.answered {
            return Poll::Ready(None);
        }
        let event = std::task::ready!(self.events.poll_recv(cx));
        if self.ends_with_answer
            && let Some(event) = &event
            && event.message.as_deref().is_some_and(routes::answers)
        {
            self.answered = true;
        }
        Poll::Ready(event)
    }
}

#[cfg(test)]
mod tests {
    use futures_util::FutureExt;
    use futures_util::future::poll_fn;
    use rmcp::model::{EmptyResult, NumberOrString, ServerResult};

    use std::time::Duration;

    use rmcp::model::ServerJsonRpcMessage;

    use super::*;

    fn next(events: &mut Events) -> Option<Option<ServerSseMessage>> {
        poll_fn(|cx| std::pin::Pin::new(&mut *events).poll_next(cx)).now_or_never()
    }

    #[test]
    fn a_request_stream_ends_with_its_answer_though_its_sender_is_still_held() {
        let (tx, rx) = mpsc::channel(4);
        let mut events = Events::answering(rx);
        let answer = ServerJsonRpcMessage::response(
            ServerResult::EmptyResult(EmptyResult {}),
            NumberOrString::Number(1),
        );
        tx.try_send(ServerSseMessage::priming("1.0", Duration::from_secs(3)))
            .expect("room");
        tx.try_send(ServerSseMessage::new("1.1", answer))
            .expect("room");

        assert!(matches!(next(&mut events), Some(Some(event)) if event.message.is_none()));
        assert!(matches!(next(&mut events), Some(Some(event)) if event.message.is_some()));
        assert!(matches!(next(&mut events), Some(None)), "ended");

        // Any other stream ends only when its sender goes.
        let (tx, rx) = mpsc::channel(4);
        let mut standalone = Events::new(rx);
        let answer = ServerJsonRpcMessage::response(
            ServerResult::EmptyResult(EmptyResult {}),
            NumberOrString::Number(2),
        );
        tx.try_send(ServerSseMessage::new("0.0", answer))
            .expect("room");
        assert!(matches!(next(&mut standalone), Some(Some(_))));
        assert!(next(&mut standalone).is_none(), "still open");
    }
}
