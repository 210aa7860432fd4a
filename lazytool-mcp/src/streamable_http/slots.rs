//! The connection cap: [`Slots`], a place per open connection, and the places owed. A new
//! connection over the cap closes an idle one ([`IdleConnections`](super::idle)) and is owed
//! its place: the place given back is that connection's, never a later one's. (Without the
//! debt, a place given back before its owner started waiting went to the next connection
//! accepted, and the last connection owed one, a normal client among held ones, waited in
//! vain and was closed unanswered.)

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The places of one accept loop's connections.
pub(crate) struct Slots {
    free: Arc<Semaphore>,
    owed: Arc<AtomicUsize>,
}

/// A place owed to a connection that closed an idle one for it; the debt ends when dropped.
pub(crate) struct Owed {
    free: Arc<Semaphore>,
    owed: Arc<AtomicUsize>,
}

impl Slots {
    /// `max` places, all free.
    pub(crate) fn new(max: usize) -> Self {
        Slots {
            free: Arc::new(Semaphore::new(max)),
            owed: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// A free place, if there is one that no waiting connection is owed.
    pub(crate) fn take(&self) -> Option<OwnedSemaphorePermit> {
        if self.owed.load(Ordering::Acquire) > 0 {
            return None;
        }
        Arc::clone(&self.free).try_acquire_owned().ok()
    }

    /// Owes the next place given back to a connection, after every place owed before it.
    pub(crate) fn owe(&self) -> Owed {
        self.owed.fetch_add(1, Ordering::AcqRel);
        Owed {
            free: Arc::clone(&self.free),
            owed: Arc::clone(&self.owed),
        }
    }
}

impl Owed {
    /// The place owed, within `within`; `None` when none was given back in time.
    pub(crate) async fn wait(self, within: Duration) -> Option<OwnedSemaphorePermit> {
        // The semaphore hands places back to its waiters in the order they began to wait.
        tokio::time::timeout(within, Arc::clone(&self.free).acquire_owned())
            .await
            .ok()?
            .ok()
    }
}

impl Drop for Owed {
    fn drop(&mut self) {
        self.owed.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_place_given_back_goes_to_the_connection_owed_it_not_to_a_later_one() {
        let slots = Slots::new(1);
        let held = slots.take().expect("one free place");
        assert!(slots.take().is_none(), "the cap is reached");

        let owed = slots.owe();
        drop(held); // given back before its owner starts waiting
        assert!(slots.take().is_none(), "the place is owed");
        let place = owed.wait(Duration::from_secs(5)).await;
        assert!(place.is_some(), "the owner gets it");
        drop(place);
        assert!(
            slots.take().is_some(),
            "no debt left: a free place is anyone's"
        );
    }

    #[tokio::test]
    async fn a_debt_not_paid_in_time_ends() {
        let slots = Slots::new(1);
        let _held = slots.take();
        let owed = slots.owe();
        assert!(owed.wait(Duration::from_millis(10)).await.is_none());
        assert_eq!(slots.owed.load(Ordering::Acquire), 0);
    }
}
