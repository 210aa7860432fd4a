//! The calls of one model turn, run concurrently within a bound.

use std::pin::Pin;
use std::task::Poll;

use super::admission::Admitted;
use super::run::{Run, run};
use crate::call::ToolResult;

/// Runs admitted calls concurrently, at most `concurrency` at a time, and returns their
/// results in order.
pub(crate) async fn run_all(
    admitted: Vec<Result<Admitted, ToolResult>>,
    concurrency: usize,
) -> Vec<ToolResult> {
    let mut calls: Vec<Run> = admitted.into_iter().map(run).collect();
    let mut results: Vec<Option<ToolResult>> = vec![None; calls.len()];
    let mut running: Vec<usize> = Vec::with_capacity(concurrency);
    let mut next = 0;
    std::future::poll_fn(|cx| {
        loop {
            while running.len() < concurrency && next < calls.len() {
                running.push(next);
                next += 1;
            }
            let before = running.len();
            running.retain(|&index| match Pin::new(&mut calls[index]).poll(cx) {
                Poll::Ready(result) => {
                    results[index] = Some(result);
                    false
                }
                Poll::Pending => true,
            });
            if running.is_empty() && next == calls.len() {
                return Poll::Ready(());
            }
            if running.len() == before || next == calls.len() {
                return Poll::Pending;
            }
        }
    })
    .await;
    results.into_iter().flatten().collect()
}
