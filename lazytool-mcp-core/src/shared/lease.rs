//! A call's place in flight held in the shared store: [`Lease`], given back when dropped.

use std::time::Duration;

use tokio::time::Instant;

use super::shared_store::SharedStore;

/// How long a release waits between tries while the store is down.
const RELEASE_RETRY: Duration = Duration::from_secs(1);

/// A call's place among the calls in flight of a principal or a server, in the store.
/// Dropped when the call ends: a task removes it (`ZREM`), so that the call's answer never
/// waits for the store; while the store is down, that task tries again every second until
/// the lease would have ended anyway. A place whose replica dies is freed by the store when
/// its lease ends.
#[derive(Debug)]
pub struct Lease {
    store: SharedStore,
    key: String,
    call_id: String,
    ends: Instant,
}

impl Lease {
    pub fn new(store: SharedStore, key: String, call_id: String, lease: Duration) -> Self {
        Lease {
            store,
            key,
            call_id,
            ends: Instant::now() + lease,
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        // Outside a runtime (it is shutting down), the lease ends by itself.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let store = self.store.clone();
        let (key, call_id) = (
            std::mem::take(&mut self.key),
            std::mem::take(&mut self.call_id),
        );
        let ends = self.ends;
        runtime.spawn(async move {
            loop {
                let mut release = redis::cmd("ZREM");
                release.arg(&key).arg(&call_id);
                let released = store
                    .run(|mut connection| async move {
                        release.query_async::<()>(&mut connection).await
                    })
                    .await;
                if released.is_ok() || Instant::now() + RELEASE_RETRY >= ends {
                    return;
                }
                tokio::time::sleep(RELEASE_RETRY).await;
            }
        });
    }
}
