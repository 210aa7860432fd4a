//! The thread an embedder runs on ([`Worker`]): the search is synchronous and an embedder is
//! async, so each call is sent to a thread of its own with a current-thread tokio runtime.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;

use super::{EmbedError, Embedder};

/// What the worker runs: a closure given a way to embed texts within a time.
type Job = Box<dyn FnOnce(&Embed<'_>) + Send>;

/// Embeds texts on the worker's thread, within a time.
pub(crate) struct Embed<'a> {
    embedder: &'a dyn Embedder,
    runtime: &'a tokio::runtime::Runtime,
}

/// Why [`Embed::embed`] has no vectors.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The embedder answered with an error.
    Embedder(EmbedError),
    /// The embedder gave no answer within this time: a caller waiting as long itself says so
    /// in the same words whichever of the two timers ends first.
    Elapsed(Duration),
}

impl From<Failure> for EmbedError {
    fn from(failure: Failure) -> EmbedError {
        match failure {
            Failure::Embedder(error) => error,
            Failure::Elapsed(timeout) => {
                EmbedError::new(format!("no answer within {} ms", timeout.as_millis()))
            }
        }
    }
}

impl Embed<'_> {
    /// The embedder's vectors for `texts` (unchecked), or why none came within `timeout`.
    pub(crate) fn embed(
        &self,
        texts: Vec<String>,
        timeout: Duration,
    ) -> Result<Vec<Vec<f32>>, Failure> {
        let future = self.embedder.embed(texts);
        match self
            .runtime
            .block_on(async { tokio::time::timeout(timeout, future).await })
        {
            Ok(answer) => answer.map_err(Failure::Embedder),
            Err(_) => Err(Failure::Elapsed(timeout)),
        }
    }
}

/// The embedder's thread; it ends when the last handle is dropped.
#[derive(Debug)]
pub(crate) struct Worker {
    jobs: Sender<Job>,
}

impl Worker {
    /// Starts the thread of `embedder`.
    pub(crate) fn start(embedder: Arc<dyn Embedder>) -> Result<Worker, EmbedError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| EmbedError::new(format!("cannot start its runtime: {error}")))?;
        let (jobs, receiver) = channel::<Job>();
        std::thread::Builder::new()
            .name("lazytool-embedder".to_owned())
            .spawn(move || run(&*embedder, &runtime, receiver))
            .map_err(|error| EmbedError::new(format!("cannot start its thread: {error}")))?;
        Ok(Worker { jobs })
    }

    /// Runs `job` on the thread, after those sent before; false if the thread is gone.
    pub(crate) fn send(&self, job: impl FnOnce(&Embed<'_>) + Send + 'static) -> bool {
        self.jobs.send(Box::new(job)).is_ok()
    }
}

fn run(embedder: &dyn Embedder, runtime: &tokio::runtime::Runtime, jobs: Receiver<Job>) {
    let embed = Embed { embedder, runtime };
    for job in jobs {
        job(&embed);
    }
}
