//! Where a session's server messages go: to the SSE stream of the request they belong to (its
//! answer, its progress, the requests it makes of the client), else to the session's standalone
//! stream (`GET`); each event numbered, and the events of a stream kept for a client that
//! reconnects with `Last-Event-ID`.
//!
//! rmcp's `LocalSessionManager` does this in a task of its own per session, which every request
//! and every answer passes through (two round trips to open a request's stream, and the answer
//! back through the task); here the service's `send` routes the message under a lock, on
//! the way, so an answer goes from the handler to the HTTP response with no task in between.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, GetMeta, JsonRpcNotification,
    JsonRpcRequest, ProgressToken, RequestId, ServerJsonRpcMessage, ServerNotification,
};
use rmcp::service::OriginatingRequestId;
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Events a stream keeps for a reconnecting client; older ones cannot be replayed.
const KEPT_EVENTS: usize = 64;
/// Answered streams kept for a client whose connection broke: the server cannot tell, since a
/// write to a connection that is gone may still succeed. rmcp keeps every one for a minute;
/// here the newest of each session, at most this many.
const KEPT_FINISHED: usize = 32;
/// How long an answered stream stays for its client to reconnect (rmcp keeps them as long).
const FINISHED_FOR: Duration = Duration::from_secs(60);
/// Streams opened while the standalone stream is live (rmcp's "shadow" streams): they carry
/// nothing but keep-alive comments, so that clients reconnecting do not replace each other.
const MAX_SHADOWS: usize = 32;
/// Events in flight to one stream before its sender waits.
pub(super) const STREAM_CAPACITY: usize = 64;
/// The standalone stream's number in event ids; request streams count from 1.
const STANDALONE: u64 = 0;

/// The routes of one session.
pub(super) struct Routes {
    retry: Option<Duration>,
    next_stream: u64,
    /// Request streams not answered yet, by stream number.
    live: HashMap<u64, Stream>,
    by_request: HashMap<RequestId, u64>,
    by_progress: HashMap<ProgressToken, u64>,
    finished: VecDeque<(Instant, u64, Stream)>,
    standalone: Stream,
    /// The index of the first standalone event sent while no standalone stream was open: the
    /// next one gets the kept events from there on.
    first_unsent: Option<u64>,
    shadows: Vec<mpsc::Sender<ServerSseMessage>>,
    /// When a message last came or went, for the idle timeout.
    pub(super) last_active: Instant,
}

/// One SSE stream: where its events go now (nowhere once answered), and the events it keeps.
struct Stream {
    tx: Option<mpsc::Sender<ServerSseMessage>>,
    next_index: u64,
    kept: VecDeque<ServerSseMessage>,
    request: Option<RequestId>,
    progress: Option<ProgressToken>,
}

/// An event to deliver: `send` it once the lock is released.
pub(super) struct Delivery {
    tx: mpsc::Sender<ServerSseMessage>,
    event: ServerSseMessage,
}

/// Why a `Last-Event-ID` cannot be resumed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ResumeError {
    Malformed,
    Gone,
}

impl Routes {
    /// Routes whose request streams start with a priming event telling clients to reconnect
    /// after `retry`, if any.
    pub(super) fn new(retry: Option<Duration>) -> Self {
        Routes {
            retry,
            next_stream: STANDALONE + 1,
            live: HashMap::new(),
            by_request: HashMap::new(),
            by_progress: HashMap::new(),
            finished: VecDeque::new(),
            standalone: Stream::new(None, None, None),
            first_unsent: None,
            shadows: Vec::new(),
            last_active: Instant::now(),
        }
    }

    /// Opens the stream of `request` (a priming event first, when `primed` and a retry is
    /// set); its events arrive on the receiver.
    pub(super) fn open(
        &mut self,
        request: &ClientJsonRpcMessage,
        primed: bool,
    ) -> mpsc::Receiver<ServerSseMessage> {
        match request {
            ClientJsonRpcMessage::Request(request) => self.open_request(request, primed),
            _ => self.open_stream(None, None, primed),
        }
    }

    /// [`open`](Self::open) for a request.
    pub(super) fn open_request(
        &mut self,
        request: &JsonRpcRequest<ClientRequest>,
        primed: bool,
    ) -> mpsc::Receiver<ServerSseMessage> {
        let progress = request.request.get_meta().get_progress_token();
        self.open_stream(Some(request.id.clone()), progress, primed)
    }

    fn open_stream(
        &mut self,
        id: Option<RequestId>,
        progress: Option<ProgressToken>,
        primed: bool,
    ) -> mpsc::Receiver<ServerSseMessage> {
        let (tx, rx) = mpsc::channel(STREAM_CAPACITY);
        let number = self.next_stream;
        self.next_stream += 1;
        let mut stream = Stream::new(Some(tx), id.clone(), progress.clone());
        if let Some(retry) = self.retry.filter(|_| primed) {
            let priming = ServerSseMessage::priming(stream.next_event_id(number), retry);
            stream.keep(priming.clone());
            if let Some(tx) = &stream.tx {
                // A fresh channel has room for it.
                let _ = tx.try_send(priming);
            }
        }
        if let Some(id) = id {
            self.by_request.insert(id, number);
        }
        if let Some(progress) = progress {
            self.by_progress.insert(progress, number);
        }
        self.live.insert(number, stream);
        self.last_active = Instant::now();
        rx
    }

    /// Notes a message of the client: a cancellation ends the cancelled request's stream.
    pub(super) fn received(&mut self, message: &ClientJsonRpcMessage) {
        self.last_active = Instant::now();
        if let ClientJsonRpcMessage::Notification(JsonRpcNotification {
            notification: ClientNotification::CancelledNotification(cancelled),
            ..
        }) = message
            && let Some(number) = cancelled
                .params
                .request_id
                .as_ref()
                .and_then(|id| self.by_request.get(id).copied())
        {
            self.close(number);
        }
    }

    /// Where `message` goes, numbered and kept; `None` when it has nowhere to go (an answer to
    /// a request whose stream was cancelled).
    pub(super) fn route(&mut self, message: ServerJsonRpcMessage) -> Option<Delivery> {
        let now = Instant::now();
        self.last_active = now;
        let (number, answers) = self.resolve(&message);
        let stream = match number {
            Some(number) => self.live.get_mut(&number)?,
            None => &mut self.standalone,
        };
        let number = number.unwrap_or(STANDALONE);
        let event = ServerSseMessage::new(stream.next_event_id(number), message);
        stream.keep(event.clone());
        let open = stream.tx.as_ref().filter(|tx| !tx.is_closed()).cloned();
        if open.is_none() && number == STANDALONE {
            self.first_unsent.get_or_insert(stream.next_index - 1);
            return None;
        }
        let delivery = open.map(|tx| Delivery { tx, event });
        if answers {
            self.close_at(number, now);
        }
        delivery
    }

    /// The stream `message` belongs to (`None`: the standalone one) and whether it answers
    /// the stream's request. The rules are rmcp's `LocalSessionManager`'s.
    fn resolve(&self, message: &ServerJsonRpcMessage) -> (Option<u64>, bool) {
        let of_request = |id: &RequestId| self.by_request.get(id).copied();
        match message {
            ServerJsonRpcMessage::Response(response) => match of_request(&response.id) {
                Some(number) => (Some(number), true),
                None => (None, false),
            },
            ServerJsonRpcMessage::Error(error) => match error.id.as_ref().and_then(of_request) {
                Some(number) => (Some(number), true),
                None => (None, false),
            },
            ServerJsonRpcMessage::Request(request) => {
                use rmcp::model::GetExtensions;
                let originating = request.request.extensions().get::<OriginatingRequestId>();
                (originating.and_then(|origin| of_request(&origin.0)), false)
            }
            ServerJsonRpcMessage::Notification(notification) => match &notification.notification {
                ServerNotification::ProgressNotification(progress) => (
                    self.by_progress
                        .get(&progress.params.progress_token)
                        .copied(),
                    false,
                ),
                ServerNotification::CancelledNotification(cancelled) => (
                    cancelled.params.request_id.as_ref().and_then(of_request),
                    false,
                ),
                _ => (None, false),
            },
        }
    }

    /// Ends request stream `number`: its sender goes (the SSE stream ends once its events are
    /// out), and its events are kept a while for a client that reconnects.
    fn close(&mut self, number: u64) {
        self.close_at(number, Instant::now());
    }

    /// Closes stream `number` at `now`.
    fn close_at(&mut self, number: u64, now: Instant) {
        let Some(mut stream) = self.live.remove(&number) else {
            return;
        };
        if let Some(id) = &stream.request {
            self.by_request.remove(id);
        }
        if let Some(progress) = &stream.progress {
            self.by_progress.remove(progress);
        }
        stream.tx = None;
        while self
            .finished
            .front()
            .is_some_and(|(at, _, _)| now.duration_since(*at) >= FINISHED_FOR)
        {
            self.finished.pop_front();
        }
        if self.finished.len() == KEPT_FINISHED {
            self.finished.pop_front();
        }
        self.finished.push_back((now, number, stream));
    }

    /// The standalone stream (`GET` without `Last-Event-ID`): a new one if there is none or its
    /// client has gone, starting with what was sent while none was open; else one that carries
    /// only keep-alive comments.
    pub(super) fn standalone(&mut self) -> mpsc::Receiver<ServerSseMessage> {
        let (tx, rx) = mpsc::channel(STREAM_CAPACITY);
        if self
            .standalone
            .tx
            .as_ref()
            .is_none_or(mpsc::Sender::is_closed)
        {
            if let Some(first) = self.first_unsent.take() {
                replay(&tx, self.standalone.since(first));
            }
            self.standalone.tx = Some(tx);
        } else {
            self.shadows.retain(|shadow| !shadow.is_closed());
            if self.shadows.len() == MAX_SHADOWS {
                self.shadows.remove(0);
            }
            self.shadows.push(tx);
        }
        rx
    }

    /// A stream carrying the events after `last_event_id` of the stream it names, then what
    /// that stream still sends.
    pub(super) fn resume(
        &mut self,
        last_event_id: &str,
    ) -> Result<mpsc::Receiver<ServerSseMessage>, ResumeError> {
        let (number, index) = parse_event_id(last_event_id).ok_or(ResumeError::Malformed)?;
        self.last_active = Instant::now();
        if number == STANDALONE {
            let missed = self.standalone.after(index);
            // The missed events include the unsent ones that follow `last_event_id`.
            self.first_unsent = None;
            let rx = self.standalone();
            if let Some(tx) = &self.standalone.tx {
                replay(tx, missed);
            }
            return Ok(rx);
        }
        let (tx, rx) = mpsc::channel(STREAM_CAPACITY.max(KEPT_EVENTS + 1));
        if let Some(stream) = self.live.get_mut(&number) {
            replay(&tx, stream.after(index));
            stream.tx = Some(tx);
            return Ok(rx);
        }
        let (_, _, finished) = self
            .finished
            .iter()
            .find(|(_, finished, _)| *finished == number)
            .ok_or(ResumeError::Gone)?;
        // Answered: the replay is all it will get, and the stream ends after it.
        replay(&tx, finished.after(index));
        Ok(rx)
    }

    /// Whether a request is still being answered.
    pub(super) fn answering(&self) -> bool {
        !self.live.is_empty()
    }
}

impl Stream {
    fn new(
        tx: Option<mpsc::Sender<ServerSseMessage>>,
        request: Option<RequestId>,
        progress: Option<ProgressToken>,
    ) -> Self {
        Stream {
            tx,
            next_index: 0,
            kept: VecDeque::new(),
            request,
            progress,
        }
    }

    fn next_event_id(&mut self, number: u64) -> String {
        let index = self.next_index;
        self.next_index += 1;
        format!("{number}.{index}")
    }

    fn keep(&mut self, event: ServerSseMessage) {
        if self.kept.len() == KEPT_EVENTS {
            self.kept.pop_front();
        }
        self.kept.push_back(event);
    }

    /// The kept events after index `index`.
    fn after(&self, index: u64) -> Vec<ServerSseMessage> {
        self.since(index.saturating_add(1))
    }

    /// The kept events from index `first` on.
    fn since(&self, first: u64) -> Vec<ServerSseMessage> {
        self.kept
            .iter()
            .filter(|event| {
                event
                    .event_id
                    .as_deref()
                    .and_then(parse_event_id)
                    .is_some_and(|(_, kept)| kept >= first)
            })
            .cloned()
            .collect()
    }
}

/// Sends what a reconnecting client missed into its new, empty stream, which has room for
/// every kept event.
fn replay(tx: &mpsc::Sender<ServerSseMessage>, events: Vec<ServerSseMessage>) {
    for event in events {
        if tx.try_send(event).is_err() {
            break;
        }
    }
}

/// `STREAM.INDEX`, as [`Stream::next_event_id`] writes it; a bare `INDEX` (rmcp's own priming
/// event of a handshake is `0`) names the standalone stream.
fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    match id.split_once('.') {
        Some((stream, index)) => Some((stream.parse().ok()?, index.parse().ok()?)),
        None => Some((STANDALONE, id.parse().ok()?)),
    }
}

impl Delivery {
    /// Sends the event: at once while the stream has room (which keeps a stream's events in
    /// order), else once its client has read some. A client that has gone misses it; it stays
    /// kept for a reconnection.
    pub(super) fn send(self) -> Option<impl Future<Output = ()> + Send + 'static> {
        match self.tx.try_send(self.event) {
            Ok(()) | Err(mpsc::error::TrySendError::Closed(_)) => None,
            Err(mpsc::error::TrySendError::Full(event)) => Some(async move {
                let _ = self.tx.send(event).await;
            }),
        }
    }
}

/// Whether `message` is a request (what `create_stream` and `initialize_session` are given).
pub(super) fn is_request(message: &ClientJsonRpcMessage) -> bool {
    matches!(message, ClientJsonRpcMessage::Request(_))
}

/// Whether `message` answers a request: on a request's stream, the answer to that request,
/// after which the stream ends.
pub(super) fn answers(message: &ServerJsonRpcMessage) -> bool {
    matches!(
        message,
        ServerJsonRpcMessage::Response(_) | ServerJsonRpcMessage::Error(_)
    )
}

#[cfg(test)]
mod tests;
