//! An answer on its way to the client: [`Answer`] holds what its request took (a place among
//! the requests in flight or the long-lived streams, its session marked busy) until the
//! answer's last byte is sent or the client goes away, then counts it in the metrics. A
//! long-lived stream also ends when the server starts draining.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use tokio::sync::OwnedSemaphorePermit;
use tokio_util::sync::WaitForCancellationFutureOwned;

use super::drain::InFlight;
use super::metrics::HttpMetrics;
use super::sessions::{Busy, SessionStream};
use crate::limit::limiter::LimitPermit;

/// What a request holds until its answer is sent.
pub(crate) struct Answer {
    pub(crate) metrics: HttpMetrics,
    pub(crate) method: &'static str,
    pub(crate) started: Instant,
    pub(crate) in_flight: Option<InFlight>,
    pub(crate) stream: Option<OwnedSemaphorePermit>,
    pub(crate) busy: Option<Busy>,
    /// A `GET` stream's place among its session's.
    pub(crate) session_stream: Option<SessionStream>,
    /// A `tools/call`'s place among its principal's calls in flight.
    pub(crate) call_place: Option<LimitPermit>,
    status: u16,
}

impl Answer {
    pub(crate) fn new(metrics: HttpMetrics, method: &'static str, in_flight: InFlight) -> Self {
        metrics.in_flight.inc();
        Answer {
            metrics,
            method,
            started: Instant::now(),
            in_flight: Some(in_flight),
            stream: None,
            busy: None,
            session_stream: None,
            call_place: None,
            status: 0,
        }
    }

    /// Turns the request into a long-lived stream: it holds `permit`, and the drain does not
    /// wait for it.
    pub(crate) fn stream(&mut self, permit: OwnedSemaphorePermit) {
        self.metrics.streams.inc();
        self.metrics.in_flight.dec();
        self.in_flight = None;
        self.stream = Some(permit);
    }

    /// `response` with this answer riding on its body; a stream's body ends when `drained`
    /// is cancelled.
    pub(crate) fn attach(
        mut self,
        response: Response,
        drained: WaitForCancellationFutureOwned,
    ) -> Response {
        self.status = response.status().as_u16();
        let ends = self.stream.is_some().then(|| Box::pin(drained));
        response.map(|inner| {
            Body::new(Tracked {
                inner,
                ends,
                _answer: self,
            })
        })
    }
}

impl Drop for Answer {
    fn drop(&mut self) {
        if self.stream.is_some() {
            self.metrics.streams.dec();
            self.metrics.answered(self.method, self.status, None);
        } else {
            self.metrics.in_flight.dec();
            let took = self.started.elapsed();
            self.metrics.answered(self.method, self.status, Some(took));
        }
    }
}

/// A response body carrying its [`Answer`].
struct Tracked {
    inner: Body,
    ends: Option<Pin<Box<WaitForCancellationFutureOwned>>>,
    _answer: Answer,
}

impl http_body::Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        if let Some(ends) = &mut this.ends
            && ends.as_mut().poll(cx).is_ready()
        {
            return Poll::Ready(None);
        }
        Pin::new(&mut this.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
