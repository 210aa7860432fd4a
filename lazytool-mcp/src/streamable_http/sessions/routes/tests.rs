use rmcp::model::{
    CancelledNotificationParam, ClientJsonRpcMessage, EmptyResult, NumberOrString,
    ProgressNotificationParam, ServerJsonRpcMessage, ServerNotification, ServerResult,
};
use tokio::sync::mpsc::Receiver;

use super::*;

const RETRY: Duration = Duration::from_secs(3);

fn call(id: i64, progress: Option<i64>) -> ClientJsonRpcMessage {
    let mut params = serde_json::json!({"name": "add"});
    if let Some(token) = progress {
        params["_meta"] = serde_json::json!({"progressToken": token});
    }
    serde_json::from_value(serde_json::json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params
    }))
    .expect("a tools/call request")
}

fn answer(id: i64) -> ServerJsonRpcMessage {
    ServerJsonRpcMessage::response(
        ServerResult::EmptyResult(EmptyResult {}),
        NumberOrString::Number(id),
    )
}

fn progress(token: i64) -> ServerJsonRpcMessage {
    ServerJsonRpcMessage::notification(ServerNotification::ProgressNotification(
        rmcp::model::Notification::new(ProgressNotificationParam::new(
            ProgressToken(NumberOrString::Number(token)),
            0.5,
        )),
    ))
}

fn list_changed() -> ServerJsonRpcMessage {
    ServerJsonRpcMessage::notification(ServerNotification::ToolListChangedNotification(
        rmcp::model::NotificationNoParam::default(),
    ))
}

/// Routes `message` and sends it, if its stream's client is there to take it.
fn deliver(routes: &mut Routes, message: ServerJsonRpcMessage) {
    if let Some(delivery) = routes.route(message) {
        assert!(delivery.send().is_none(), "the stream has room");
    }
}

/// The event ids and whether each carries a message, until the stream ends or has nothing
/// more now.
fn drain(events: &mut Receiver<ServerSseMessage>) -> (Vec<String>, bool) {
    let mut ids = Vec::new();
    loop {
        match events.try_recv() {
            Ok(event) => ids.push(event.event_id.unwrap_or_default()),
            Err(mpsc::error::TryRecvError::Empty) => return (ids, false),
            Err(mpsc::error::TryRecvError::Disconnected) => return (ids, true),
        }
    }
}

#[test]
fn an_answer_goes_to_its_request_stream_after_the_priming_event_and_ends_it() {
    let mut routes = Routes::new(Some(RETRY));
    let mut first = routes.open(&call(1, None), true);
    let mut second = routes.open(&call(2, Some(7)), true);
    deliver(&mut routes, progress(7));
    deliver(&mut routes, answer(2));
    deliver(&mut routes, answer(1));
    assert_eq!(drain(&mut first), (vec!["1.0".into(), "1.1".into()], true));
    assert_eq!(
        drain(&mut second),
        (vec!["2.0".into(), "2.1".into(), "2.2".into()], true)
    );
    assert!(!routes.answering());
}

#[test]
fn what_belongs_to_no_request_goes_to_the_standalone_stream() {
    let mut routes = Routes::new(None);
    let mut standalone = routes.standalone();
    deliver(&mut routes, list_changed());
    // An answer to a request the session does not know, and progress of no live request.
    deliver(&mut routes, answer(99));
    deliver(&mut routes, progress(5));
    assert_eq!(
        drain(&mut standalone),
        (vec!["0.0".into(), "0.1".into(), "0.2".into()], false)
    );
    // A second GET while the first is open gets a stream of keep-alives only.
    let mut shadow = routes.standalone();
    deliver(&mut routes, list_changed());
    assert_eq!(drain(&mut shadow), (vec![], false));
    assert_eq!(drain(&mut standalone), (vec!["0.3".into()], false));
}

#[test]
fn a_cancelled_request_loses_its_stream_and_its_late_answer_goes_nowhere_else() {
    let mut routes = Routes::new(None);
    let mut events = routes.open(&call(1, None), true);
    let cancelled = ClientJsonRpcMessage::notification(ClientNotification::CancelledNotification(
        rmcp::model::Notification::new(CancelledNotificationParam::new(
            Some(NumberOrString::Number(1)),
            None,
        )),
    ));
    routes.received(&cancelled);
    assert_eq!(drain(&mut events), (vec![], true));
    let mut standalone = routes.standalone();
    deliver(&mut routes, answer(1));
    assert_eq!(
        drain(&mut standalone).0.len(),
        1,
        "rmcp's rule: the standalone stream"
    );
}

#[test]
fn a_client_that_reconnects_gets_what_it_missed_then_the_rest() {
    let mut routes = Routes::new(Some(RETRY));
    let mut events = routes.open(&call(1, Some(1)), true);
    deliver(&mut routes, progress(1));
    let (seen, _) = drain(&mut events);
    assert_eq!(seen, ["1.0", "1.1"]);
    drop(events);
    // Sent while the client was away.
    deliver(&mut routes, progress(1));
    let mut resumed = routes.resume("1.1").expect("a live stream");
    deliver(&mut routes, answer(1));
    assert_eq!(
        drain(&mut resumed),
        (vec!["1.2".into(), "1.3".into()], true)
    );
}

#[test]
fn answered_streams_are_kept_for_a_reconnection_the_newest_first() {
    let mut routes = Routes::new(Some(RETRY));
    // The server cannot tell a client that has gone: a write to its connection may succeed.
    let mut events = routes.open(&call(1, None), true);
    deliver(&mut routes, answer(1));
    drain(&mut events);
    let mut resumed = routes.resume("1.0").expect("kept");
    assert_eq!(drain(&mut resumed), (vec!["1.1".into()], true));
    for id in 2..=i64::try_from(KEPT_FINISHED).expect("small") + 1 {
        drop(routes.open(&call(id, None), true));
        deliver(&mut routes, answer(id));
    }
    assert_eq!(routes.resume("1.0").err(), Some(ResumeError::Gone));
    assert!(routes.resume("2.0").is_ok());
    assert_eq!(routes.resume("x.0").err(), Some(ResumeError::Malformed));
}

#[test]
fn a_stream_keeps_a_bounded_number_of_events() {
    let mut routes = Routes::new(None);
    let events = routes.open(&call(1, Some(1)), true);
    drop(events);
    for _ in 0..KEPT_EVENTS + 10 {
        deliver(&mut routes, progress(1));
    }
    let mut resumed = routes.resume("1.0").expect("live");
    let (replayed, _) = drain(&mut resumed);
    assert_eq!(replayed.len(), KEPT_EVENTS);
    assert_eq!(replayed[0], "1.10");
}

#[test]
fn what_the_standalone_stream_missed_while_none_was_open_reaches_the_next_one() {
    let mut routes = Routes::new(None);
    assert!(routes.route(list_changed()).is_none(), "no stream open");
    let mut standalone = routes.standalone();
    assert_eq!(drain(&mut standalone), (vec!["0.0".into()], false));
    drop(standalone);
    assert!(
        routes.route(list_changed()).is_none(),
        "its client has gone"
    );
    let mut reopened = routes.standalone();
    deliver(&mut routes, list_changed());
    assert_eq!(
        drain(&mut reopened),
        (vec!["0.1".into(), "0.2".into()], false),
        "once each, in order"
    );
}
