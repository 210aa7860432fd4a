//! A body for tests: [`Sent`], what is sent on its sender, as it is sent.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame};
use tokio::sync::mpsc;

/// A body yielding what is sent on its sender, one frame each, ending when the sender is
/// dropped (and waiting as long as it is kept).
pub(super) struct Sent(pub(super) mpsc::UnboundedReceiver<&'static [u8]>);

impl Body for Sent {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0
            .poll_recv(cx)
            .map(|chunk| chunk.map(|chunk| Ok(Frame::data(Bytes::from_static(chunk)))))
    }
}
