//! Graceful shutdown: a call in flight when the shutdown comes gets its real result, and so
//! does a request whose head was half read then; open streams end, no new connection is
//! accepted, `/readyz` says 503, serving returns; a call still running at the drain timeout is
//! cut.

mod http_support;

use std::time::Duration;

use http_support::*;
use lazytool_mcp::HttpLimits;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[tokio::test]
async fn calls_in_flight_finish_and_streams_end() {
    let mut served = serve(|http| http).await;
    let addr = served.addr;
    let session = open_session(addr, None).await;
    // An open GET stream must not hold the drain up.
    let mut stream = TcpStream::connect(addr).await.expect("connected");
    let stream_request = stream_of(addr, &session);
    stream
        .write_all(stream_request.as_bytes())
        .await
        .expect("sent");
    let held = in_session(addr, &session, None, &call(1, "hold"));
    let call = tokio::spawn(async move { exchange(addr, &held).await });
    started().await;
    // A keep-alive connection, idle, sees the shutdown too.
    let mut probe = TcpStream::connect(addr).await.expect("connected");

    served.stop.cancel();
    let ready = format!("GET /readyz HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    if probe.write_all(ready.as_bytes()).await.is_ok() {
        let mut bytes = Vec::new();
        let read = tokio::time::timeout(TIMEOUT, probe.read_to_end(&mut bytes)).await;
        assert!(read.is_ok(), "the idle connection is closed");
        let answer = parse(&bytes);
        assert!(matches!(answer.status, 0 | 503), "{answer:?}");
    }
    let mut streamed = Vec::new();
    tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut streamed))
        .await
        .expect("the stream ends")
        .expect("read");

    RELEASE.add_permits(1);
    let answer = call.await.expect("the call's task");
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.message()["result"]["content"][0]["text"], "released");
    tokio::time::timeout(TIMEOUT, &mut served.serving)
        .await
        .expect("serving returns after the drain")
        .expect("the task")
        .expect("no error");
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "no longer accepting"
    );
}

#[tokio::test]
async fn a_call_past_the_drain_timeout_is_cut() {
    let limits = HttpLimits::default().drain_timeout(Duration::from_millis(200));
    let mut served = serve(|http| http.limits(limits)).await;
    let addr = served.addr;
    let session = open_session(addr, None).await;
    let endless = in_session(addr, &session, None, &call(1, "forever"));
    let call = tokio::spawn(async move { exchange(addr, &endless).await });
    started().await;
    served.stop.cancel();
    tokio::time::timeout(TIMEOUT, &mut served.serving)
        .await
        .expect("serving returns at the drain timeout")
        .expect("the task")
        .expect("no error");
    let answer = call.await.expect("the call's task");
    assert!(!answer.body.contains("never"), "{answer:?}");
}

#[tokio::test]
async fn a_request_half_read_at_the_shutdown_is_answered() {
    let mut served = serve(|http| http).await;
    let addr = served.addr;
    // Requests before the shutdown, none in flight at it.
    let session = open_session(addr, None).await;
    let request = in_session(addr, &session, None, &call(1, "getProducts"));
    let (head, rest) = request.split_at(20);
    let mut late = TcpStream::connect(addr).await.expect("connected");
    late.write_all(head.as_bytes()).await.expect("sent");
    // The server reads what came (an idle connection would be closed at the shutdown).
    tokio::time::sleep(Duration::from_millis(100)).await;

    served.stop.cancel();
    // Time for a drain that stopped the sessions as soon as no request was in flight to do
    // so (it did: this request then got 500 from rmcp, a failed call behind a balancer).
    tokio::time::sleep(Duration::from_millis(300)).await;
    late.write_all(rest.as_bytes()).await.expect("sent");
    let answer = tokio::time::timeout(TIMEOUT, read_answer(&mut late))
        .await
        .expect("answered");
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.message()["result"]["content"][0]["text"], "[1,2]");
    tokio::time::timeout(TIMEOUT, &mut served.serving)
        .await
        .expect("serving returns after the drain")
        .expect("the task")
        .expect("no error");
}
