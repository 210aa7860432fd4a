//! One run: `clients` connections calling `add` back to back for a warm-up and then a measured
//! window, every answer checked.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use tokio::task::JoinSet;
use tokio::time::timeout;

use crate::answer::CallError;
use crate::connection::{Connection, Target};
use crate::flow::Flow;

/// How long a connection, a handshake or a call may take before it counts as an error.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// How many distinct error messages a run keeps.
const ERROR_SAMPLES: usize = 3;

/// What one run does.
#[derive(Clone, Debug)]
pub struct RunPlan {
    pub target: Target,
    pub flow: Flow,
    pub clients: usize,
    pub warmup: Duration,
    pub measured: Duration,
}

/// What one run saw.
#[derive(Debug, Default)]
pub struct RunOutcome {
    /// The latency of every successful call started in the measured window, sorted.
    pub latencies: Vec<Duration>,
    /// Every such call as (its start after the window opened, its latency), by client, then
    /// in call order.
    pub timeline: Vec<(Duration, Duration)>,
    /// Failed connections, handshakes and calls, warm-up included.
    pub errors: u64,
    /// Up to [`ERROR_SAMPLES`] distinct error messages, with how often each occurred.
    pub error_samples: BTreeMap<String, u64>,
}

impl RunOutcome {
    fn error(&mut self, error: &CallError) {
        self.errors += 1;
        let message = error.to_string();
        if let Some(count) = self.error_samples.get_mut(&message) {
            *count += 1;
        } else if self.error_samples.len() < ERROR_SAMPLES {
            self.error_samples.insert(message, 1);
        }
    }

    fn merge(&mut self, other: RunOutcome) {
        self.latencies.extend(other.latencies);
        self.timeline.extend(other.timeline);
        self.errors += other.errors;
        for (message, count) in other.error_samples {
            if let Some(total) = self.error_samples.get_mut(&message) {
                *total += count;
            } else if self.error_samples.len() < ERROR_SAMPLES {
                self.error_samples.insert(message, count);
            }
        }
    }
}

/// Opens every connection (handshakes included, not timed), then runs the clients.
pub async fn run(plan: &RunPlan) -> RunOutcome {
    let mut outcome = RunOutcome::default();
    let mut opening = JoinSet::new();
    for _ in 0..plan.clients {
        let (target, flow) = (plan.target.clone(), plan.flow);
        opening.spawn(async move { open(&target, flow).await });
    }
    let mut connections = Vec::with_capacity(plan.clients);
    while let Some(opened) = opening.join_next().await {
        match opened {
            Ok(Ok(connection)) => connections.push(Some(connection)),
            Ok(Err(error)) => {
                outcome.error(&error);
                connections.push(None);
            }
            Err(panic) => outcome.error(&CallError::Transport(format!("client task: {panic}"))),
        }
    }

    let start = Instant::now();
    let measured_from = start + plan.warmup;
    let end = measured_from + plan.measured;
    let mut clients = JoinSet::new();
    for (index, connection) in connections.into_iter().enumerate() {
        let plan = plan.clone();
        clients.spawn(async move { client(&plan, index, connection, measured_from, end).await });
    }
    while let Some(done) = clients.join_next().await {
        match done {
            Ok(client_outcome) => outcome.merge(client_outcome),
            Err(panic) => outcome.error(&CallError::Transport(format!("client task: {panic}"))),
        }
    }
    outcome.latencies.sort_unstable();
    outcome
}

async fn open(target: &Target, flow: Flow) -> Result<Connection, CallError> {
    timeout(CALL_TIMEOUT, Connection::open(target, flow))
        .await
        .unwrap_or(Err(CallError::Timeout))
}

/// One client: calls until `end` on its connection, opening a new one when it breaks; ends
/// its session afterwards.
async fn client(
    plan: &RunPlan,
    index: usize,
    mut connection: Option<Connection>,
    measured_from: Instant,
    end: Instant,
) -> RunOutcome {
    let mut outcome = RunOutcome::default();
    let mut call = 0_i64;
    while Instant::now() < end {
        let Some(open_connection) = connection.as_mut() else {
            match open(&plan.target, plan.flow).await {
                Ok(opened) => connection = Some(opened),
                Err(error) => {
                    outcome.error(&error);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
            continue;
        };
        call += 1;
        let (a, b) = operands(index, call);
        let started = Instant::now();
        let answered = timeout(CALL_TIMEOUT, open_connection.call_add(a, b))
            .await
            .unwrap_or(Err(CallError::Timeout));
        match answered {
            Ok(()) if started >= measured_from => {
                let latency = started.elapsed();
                outcome.latencies.push(latency);
                outcome.timeline.push((started - measured_from, latency));
            }
            Ok(()) => {}
            Err(error) => {
                if error.breaks_connection() {
                    connection = None;
                }
                outcome.error(&error);
            }
        }
    }
    if let Some(connection) = connection
        && let Err(error) = timeout(CALL_TIMEOUT, connection.close())
            .await
            .unwrap_or(Err(CallError::Timeout))
    {
        outcome.error(&error);
    }
    outcome
}

/// Different operands for every call of every client, negative ones included.
fn operands(client: usize, call: i64) -> (i64, i64) {
    let client = i64::try_from(client).unwrap_or(i64::MAX / 2_000_003);
    (client * 1_000_003 + call, call * 7 - 500)
}
