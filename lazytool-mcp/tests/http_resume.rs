//! A client whose SSE stream breaks while its call runs reconnects with `Last-Event-ID` and
//! gets the answer (SEP-1699), whether the answer came before or after it reconnected.

mod http_support;

use std::net::SocketAddr;

use http_support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends `request` and reads until the first SSE event id; returns it, dropping the connection.
async fn first_event_id(addr: SocketAddr, request: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.expect("connects");
    stream
        .write_all(request.as_bytes())
        .await
        .expect("request sent");
    let mut read = Vec::new();
    let id = async {
        loop {
            let mut chunk = [0; 1024];
            let n = stream.read(&mut chunk).await.expect("readable");
            assert!(
                n > 0,
                "closed before an event: {}",
                String::from_utf8_lossy(&read)
            );
            read.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&read);
            if let Some(id) = text
                .lines()
                .find_map(|line| line.strip_prefix("id:"))
                .filter(|_| text.contains("\n\n"))
            {
                return id.trim().to_owned();
            }
        }
    };
    tokio::time::timeout(TIMEOUT, id)
        .await
        .expect("an event in time")
}

#[tokio::test]
async fn a_broken_stream_is_resumed_with_last_event_id() {
    let served = serve(|http| http).await;
    let session = open_session(served.addr, None).await;

    // Reconnected while the call still runs: the answer arrives on the new stream.
    let primed = first_event_id(
        served.addr,
        &in_session(served.addr, &session, None, &call(1, "hold")),
    )
    .await;
    started().await;
    let request = stream_after(served.addr, &session, Some(&primed));
    let addr = served.addr;
    let resumed = tokio::spawn(async move { exchange(addr, &request).await });
    RELEASE.add_permits(1);
    let answer = tokio::time::timeout(TIMEOUT, resumed)
        .await
        .expect("in time")
        .expect("read");
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.message()["id"], 1, "{answer:?}");
    assert_eq!(
        answer.message()["result"]["content"][0]["text"],
        "released",
        "{answer:?}"
    );

    // Answered while the client was away: the answer is kept for it.
    let primed = first_event_id(
        served.addr,
        &in_session(served.addr, &session, None, &call(2, "hold")),
    )
    .await;
    started().await;
    RELEASE.add_permits(1);
    let answer = async {
        loop {
            let answer = exchange(
                served.addr,
                &stream_after(served.addr, &session, Some(&primed)),
            )
            .await;
            // Until the call has ended, the stream is resumed live and ends with the answer
            // too; either way the answer is there.
            if answer.status == 200 && answer.body.contains("released") {
                return answer;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    let answer = tokio::time::timeout(TIMEOUT, answer)
        .await
        .expect("the answer in time");
    assert_eq!(answer.message()["id"], 2, "{answer:?}");
}
