//! The parent's side of one script's tool calls on a worker: each call, read by the worker's
//! reader thread, is counted against the script's limits (a worker that oversteps them is
//! refused: it may have been taken over), run through the session's own dispatch, and
//! answered. A call that finishes at once is answered from the reader thread; one that does
//! not runs on the script's async runtime.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};

use serde_json::Value;
use tokio::runtime::Handle;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::instrument::WithSubscriber;
use tracing::{Dispatch, Instrument, Span};

use super::outbox::Outbox;
use super::wire::{self, ToWorker};
use crate::call::ToolContext;
use crate::code::host::{Bounds, CallTool, answer_of, call_id, too_many_calls};

/// One script's tool calls, as the parent runs them.
pub(super) struct Broker {
    call: CallTool,
    /// The code tool's call: each tool call's id is `{id}/{number}`, and each carries what
    /// the transport attached to it (the MCP request they relay the upstreams' requests to).
    parent: ToolContext,
    /// Cancelled when the script ends: the calls it left running are given up.
    cancel: CancellationToken,
    calls: usize,
    max_calls: usize,
    max_concurrent: usize,
    running: Arc<AtomicUsize>,
    runtime: Handle,
    /// The script's span and subscriber: its calls' spans are children of its own, wherever
    /// they run.
    span: Span,
    dispatch: Dispatch,
    to_worker: Arc<Outbox>,
    tasks: Vec<JoinHandle<()>>,
}

impl Broker {
    /// Runs the calls of the script of `context` (the code tool's call) through `call`, on
    /// the current async runtime and under the current span; the script's own `bounds` on
    /// calls are checked again on this side.
    pub(super) fn new(
        call: CallTool,
        context: &ToolContext,
        bounds: &Bounds,
        to_worker: Arc<Outbox>,
    ) -> Broker {
        Broker {
            call,
            parent: context.clone(),
            cancel: context.cancellation().child_token(),
            calls: 0,
            max_calls: bounds.max_calls,
            max_concurrent: bounds.max_concurrent.max(1),
            running: Arc::new(AtomicUsize::new(0)),
            runtime: Handle::current(),
            span: Span::current(),
            dispatch: tracing::dispatcher::get_default(Dispatch::clone),
            to_worker,
            tasks: Vec::new(),
        }
    }

    /// Runs call `id` of the script, and answers it when it ends.
    pub(super) fn call(&mut self, id: u64, name: String, arguments: Value) {
        self.calls += 1;
        if self.calls > self.max_calls {
            return self.answer(id, Err(too_many_calls(self.max_calls)));
        }
        if self.running.load(Ordering::Acquire) >= self.max_concurrent {
            return self.answer(
                id,
                Err(format!(
                    "Error: the script ran more tool calls at once than its limit of {}.",
                    self.max_concurrent
                )),
            );
        }
        let context = ToolContext::new()
            .with_call_id(call_id(self.parent.call_id(), self.calls))
            .with_cancellation(self.cancel.clone())
            .with_extensions_of(&self.parent);
        let _runtime = self.runtime.enter();
        let _subscriber = tracing::dispatcher::set_default(&self.dispatch);
        let mut future = {
            let _span = self.span.enter();
            (self.call)(&name, arguments, context)
        }
        .instrument(self.span.clone())
        .with_subscriber(self.dispatch.clone());
        let polled = std::pin::Pin::new(&mut future).poll(&mut Context::from_waker(Waker::noop()));
        if let Poll::Ready(result) = polled {
            return self.answer(id, answer_of(result));
        }
        let running = Arc::clone(&self.running);
        running.fetch_add(1, Ordering::AcqRel);
        let to_worker = Arc::clone(&self.to_worker);
        self.tasks.push(self.runtime.spawn(async move {
            let result = future.await;
            running.fetch_sub(1, Ordering::AcqRel);
            send(&to_worker, id, answer_of(result));
        }));
    }

    /// Gives up the calls the script left running.
    pub(super) fn finish(&mut self) {
        self.cancel.cancel();
        for task in self.tasks.drain(..) {
            task.abort();
        }
    }

    fn answer(&self, id: u64, answer: Result<Value, String>) {
        send(&self.to_worker, id, answer);
    }
}

fn send(to_worker: &Outbox, id: u64, answer: Result<Value, String>) {
    if let Ok(frame) = wire::encode(&ToWorker::Answer { id, answer }) {
        to_worker.send(&frame);
    }
}
