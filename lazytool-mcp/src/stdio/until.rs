//! An input that ends when a signal comes: [`Until`]. Stopping a stdio server this way lets
//! rmcp answer the requests in flight (it drains for up to 5 s after its input ends) instead
//! of dropping them.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

/// `reader` until `stop` resolves, then end of input.
pub(crate) struct Until<R> {
    reader: R,
    stop: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
}

impl<R> Until<R> {
    pub(crate) fn new(reader: R, stop: impl Future<Output = ()> + Send + 'static) -> Self {
        Until {
            reader,
            stop: Some(Box::pin(stop)),
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Until<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let Some(stop) = &mut this.stop else {
            return Poll::Ready(Ok(()));
        };
        if stop.as_mut().poll(cx).is_ready() {
            tracing::info!(target: "lazytool::mcp", "stopping: no more input is read, the requests in flight are answered");
            this.stop = None;
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.reader).poll_read(cx, buf)
    }
}
