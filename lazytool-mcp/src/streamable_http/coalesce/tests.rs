use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::*;
use crate::streamable_http::sent_body::Sent;

const PRIMING: &[u8] = b"id: 1.0\nretry: 3000\ndata:\n\n";
const ANSWER: &[u8] = b"id: 1.1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";

/// A response of `content_type` whose body yields what is sent on the returned sender.
fn streamed(content_type: &str) -> (mpsc::UnboundedSender<&'static [u8]>, Response<RmcpBody>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let response = Response::builder()
        .header(CONTENT_TYPE, content_type)
        .body(Sent(rx).boxed())
        .expect("a valid response");
    (tx, response)
}

async fn all_of(body: RmcpBody) -> Bytes {
    body.collect()
        .await
        .map(|whole| whole.to_bytes())
        .unwrap_or_else(|never| match never {})
}

#[tokio::test(start_paused = true)]
async fn a_quick_answer_leaves_whole_with_its_length() {
    let clock = Arc::new(HoldClock::default());
    let (tx, response) = streamed("text/event-stream");
    tx.send(PRIMING).expect("open");
    let answering = tokio::spawn(async move {
        tokio::task::yield_now().await;
        tx.send(ANSWER).expect("open");
    });

    let started = Instant::now();
    let response = first_events(response, 2, &clock).await;
    assert_eq!(started.elapsed(), Duration::ZERO, "no tick waited for");
    answering.await.expect("answered");
    let body = response.into_body();
    let length = PRIMING.len() + ANSWER.len();
    assert_eq!(body.size_hint().exact(), Some(length as u64));
    assert_eq!(all_of(body).await, [PRIMING, ANSWER].concat());
}

#[tokio::test(start_paused = true)]
async fn a_slow_answer_gets_its_headers_and_priming_event_after_at_most_two_ticks() {
    let clock = Arc::new(HoldClock::default());
    let (tx, response) = streamed("text/event-stream");
    tx.send(PRIMING).expect("open");

    let started = Instant::now();
    let response = first_events(response, 2, &clock).await;
    let held = started.elapsed();
    assert!(TICK <= held && held <= 2 * TICK, "held {held:?}");

    let mut body = response.into_body();
    assert_eq!(body.size_hint().exact(), None, "the stream goes on");
    let first = body.frame().await.expect("a frame").expect("data");
    assert_eq!(first.into_data().expect("data"), PRIMING);
    tx.send(ANSWER).expect("open");
    drop(tx);
    assert_eq!(all_of(body).await, ANSWER);

    // Nobody waits any more: the ticker stops at its next tick.
    tokio::time::sleep(2 * TICK).await;
    assert!(clock.ticker.lock().expect("not poisoned").is_none());
}

#[tokio::test(start_paused = true)]
async fn what_is_not_an_event_stream_passes_untouched() {
    let clock = Arc::new(HoldClock::default());
    let (tx, response) = streamed("application/json");
    let response = first_events(response, 2, &clock).await;
    tx.send(b"{}")
        .expect("the body is still read by the client");
    drop(tx);
    assert_eq!(all_of(response.into_body()).await, "{}");
    assert!(
        clock.ticker.lock().expect("not poisoned").is_none(),
        "no ticker started"
    );
}

#[tokio::test(start_paused = true)]
async fn progress_before_the_answer_is_released_with_the_priming_event() {
    let clock = Arc::new(HoldClock::default());
    let (tx, response) = streamed("text/event-stream");
    tx.send(PRIMING).expect("open");
    let progress: &[u8] = b"id: 1.1\ndata: {\"method\":\"notifications/progress\"}\n\n";
    tx.send(progress).expect("open");

    let response = first_events(response, 2, &clock).await;
    let mut body = response.into_body();
    for expected in [PRIMING, progress] {
        let frame = body.frame().await.expect("a frame").expect("data");
        assert_eq!(frame.into_data().expect("data"), expected);
    }
    drop(tx);
    assert!(body.frame().await.is_none());
}
