//! An SSE answer to a POST leaves whole when it is quick: its headers wait (at most two
//! [`TICK`]s) for the request's first message, so that the headers, the priming event, the
//! message and the stream's end go out in one write instead of two.
//!
//! Written as they come, the headers and the priming event leave at once and the answer a
//! moment later: the client is woken twice per call, and on a loaded machine the second
//! wake-up is what a call costs most beyond its own work. The bytes are the same either way:
//! the same events, in the same order, on the same stream; a call slower than that gets its
//! headers and priming event then, as before, and the rest as it comes.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures_util::FutureExt;
use http::header::CONTENT_TYPE;
use http::{Response, StatusCode};
use http_body::{Body, Frame, SizeHint};
use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;
use rmcp::transport::common::http_header::EVENT_STREAM_MIME_TYPE;
use tokio::sync::watch;
use tokio::task::AbortHandle;

/// An answer's headers wait for its first message at least one tick and at most two.
const TICK: Duration = Duration::from_millis(25);
/// The most events gathered before the headers leave: a handler sending a burst of progress
/// as fast as it is read still gets its answer started.
const MOST_GATHERED: usize = 64;

type RmcpBody = BoxBody<Bytes, Infallible>;

/// The clock bounding the holds of one server: it ticks every [`TICK`] while an answer waits,
/// and stops when none does. One timer for every answer waiting: a timer of its own per call,
/// earlier than any the runtime waits for, would wake the thread driving the timers on about
/// every other call, which costs more than the write it saves.
#[derive(Default)]
pub(crate) struct HoldClock {
    ticks: watch::Sender<u64>,
    ticker: Mutex<Option<AbortHandle>>,
}

impl HoldClock {
    /// The ticks from now on; starts the ticker if it is not running.
    fn ticks(self: &Arc<Self>) -> watch::Receiver<u64> {
        let mut ticker = self.ticker.lock().unwrap_or_else(PoisonError::into_inner);
        let ticks = self.ticks.subscribe();
        // A ticker of a runtime that has stopped is finished too.
        if ticker.as_ref().is_none_or(AbortHandle::is_finished) {
            let clock = Arc::clone(self);
            *ticker = Some(tokio::spawn(clock.tick()).abort_handle());
        }
        ticks
    }

    async fn tick(self: Arc<Self>) {
        loop {
            tokio::time::sleep(TICK).await;
            self.ticks.send_modify(|tick| *tick = tick.wrapping_add(1));
            let mut ticker = self.ticker.lock().unwrap_or_else(PoisonError::into_inner);
            if self.ticks.receiver_count() == 0 {
                *ticker = None;
                return;
            }
        }
    }
}

/// `response` with its first events gathered, if it is an SSE stream: whatever its body yields
/// until `events` events (the priming event, if the stream has one, and the first message)
/// have come, it has ended, or two of `clock`'s ticks have passed, then whatever more it has
/// ready (at most [`MOST_GATHERED`] events in all). A stream that ended by then becomes a body
/// of known length.
pub(crate) async fn first_events(
    response: Response<RmcpBody>,
    events: usize,
    clock: &Arc<HoldClock>,
) -> Response<RmcpBody> {
    if response.status() != StatusCode::OK || !is_event_stream(&response) {
        return response;
    }
    let (parts, mut body) = response.into_parts();
    let mut gathered = VecDeque::with_capacity(events + 1);
    let mut ended = false;
    let mut ticks = None;
    let mut ticked = 0;
    loop {
        while !ended
            && gathered.len() < MOST_GATHERED
            && let Some(frame) = body.frame().now_or_never()
        {
            ended = take(&mut gathered, frame);
        }
        if ended || gathered.len() >= events || ticked == 2 {
            break;
        }
        let ticks = ticks.get_or_insert_with(|| clock.ticks());
        tokio::select! {
            biased;
            frame = body.frame() => ended = take(&mut gathered, frame),
            _ = ticks.changed() => ticked += 1,
        }
    }
    let body = if ended {
        whole(gathered)
    } else {
        Gathered {
            gathered,
            rest: body,
        }
        .boxed()
    };
    Response::from_parts(parts, body)
}

/// Adds the body's next `frame` to `gathered`; whether the body has ended instead.
fn take(
    gathered: &mut VecDeque<Frame<Bytes>>,
    frame: Option<Result<Frame<Bytes>, Infallible>>,
) -> bool {
    match frame {
        Some(frame) => {
            gathered.push_back(frame.unwrap_or_else(|never| match never {}));
            false
        }
        None => true,
    }
}

fn is_event_stream(response: &Response<RmcpBody>) -> bool {
    response.headers().get(CONTENT_TYPE).is_some_and(|value| {
        value
            .as_bytes()
            .starts_with(EVENT_STREAM_MIME_TYPE.as_bytes())
    })
}

/// The frames of a stream that has ended, as one body of known length.
fn whole(frames: VecDeque<Frame<Bytes>>) -> RmcpBody {
    let mut data = BytesMut::new();
    for frame in frames {
        if let Ok(chunk) = frame.into_data() {
            data.extend_from_slice(&chunk);
        }
    }
    http_body_util::Full::new(data.freeze()).boxed()
}

/// The frames gathered, then the rest of the stream.
struct Gathered {
    gathered: VecDeque<Frame<Bytes>>,
    rest: RmcpBody,
}

impl Body for Gathered {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        if let Some(frame) = this.gathered.pop_front() {
            return Poll::Ready(Some(Ok(frame)));
        }
        Pin::new(&mut this.rest).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.gathered.is_empty() && self.rest.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let gathered: u64 = self
            .gathered
            .iter()
            .filter_map(|frame| frame.data_ref().map(|data| data.len() as u64))
            .sum();
        let rest = self.rest.size_hint();
        let mut hint = SizeHint::new();
        hint.set_lower(rest.lower() + gathered);
        if let Some(upper) = rest.upper() {
            hint.set_upper(upper + gathered);
        }
        hint
    }
}

#[cfg(test)]
mod tests;
