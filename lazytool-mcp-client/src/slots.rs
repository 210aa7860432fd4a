//! A catalog's sources by place: `Slots`, each place kept by its server's name for the
//! catalog's life, so that the names given to a server's tools stay its own when it is
//! removed, re-added or replaced ([`McpCatalog::reconcile`](crate::McpCatalog::reconcile)).

use std::sync::{Arc, PoisonError, RwLock};

use lazytool_runtime::source::CachedSource;
use tokio_util::sync::CancellationToken;

use crate::mcp_source::McpSource;

pub(crate) type Cached = CachedSource<Arc<McpSource>>;

/// The places, shared by the catalog and its prompts and resources.
#[derive(Clone, Default)]
pub(crate) struct Slots(Arc<RwLock<Vec<Slot>>>);

struct Slot {
    name: Arc<str>,
    /// `None` once the server is removed.
    source: Option<Arc<Cached>>,
    /// Cancelled when `source` leaves the place (removed or replaced).
    retired: CancellationToken,
}

/// What leaves a place: the source, which stops once its calls end.
pub(crate) struct Retired(pub(crate) Arc<Cached>);

impl Slots {
    pub(crate) fn new(sources: Vec<Arc<Cached>>) -> Self {
        let slots = (sources.into_iter())
            .map(|source| Slot {
                name: Arc::clone(&source.source().name),
                source: Some(source),
                retired: CancellationToken::new(),
            })
            .collect();
        Slots(Arc::new(RwLock::new(slots)))
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<Slot>> {
        // Each slot is replaced by one assignment: consistent after a panic elsewhere.
        self.0.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Vec<Slot>> {
        self.0.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many places, removed servers' included.
    pub(crate) fn len(&self) -> usize {
        self.read().len()
    }

    /// The source at `index`, unless it was removed.
    pub(crate) fn get(&self, index: usize) -> Option<Arc<Cached>> {
        self.read().get(index)?.source.clone()
    }

    /// The name of the server at `index`, removed or not.
    pub(crate) fn name(&self, index: usize) -> Option<Arc<str>> {
        self.read().get(index).map(|slot| Arc::clone(&slot.name))
    }

    /// Every source served now, with its place, in the order they were added.
    pub(crate) fn all(&self) -> Vec<(usize, Arc<Cached>)> {
        (self.read().iter().enumerate())
            .filter_map(|(index, slot)| Some((index, slot.source.clone()?)))
            .collect()
    }

    /// The token cancelled when the source now at `index` leaves it.
    pub(crate) fn retired(&self, index: usize) -> CancellationToken {
        (self.read().get(index)).map_or_else(CancellationToken::new, |slot| slot.retired.clone())
    }

    /// Puts `source` in its name's place (the one it had before, if any) and returns the
    /// place and the source it replaces.
    pub(crate) fn put(&self, source: Arc<Cached>) -> (usize, Option<Retired>) {
        let name = Arc::clone(&source.source().name);
        let mut slots = self.write();
        let fresh = Slot {
            name: Arc::clone(&name),
            source: Some(source),
            retired: CancellationToken::new(),
        };
        match slots.iter().position(|slot| slot.name == name) {
            Some(index) => {
                let old = std::mem::replace(&mut slots[index], fresh);
                old.retired.cancel();
                (index, old.source.map(Retired))
            }
            None => {
                slots.push(fresh);
                (slots.len() - 1, None)
            }
        }
    }

    /// Empties the place at `index`, its name kept.
    pub(crate) fn remove(&self, index: usize) -> Option<Retired> {
        let mut slots = self.write();
        let slot = slots.get_mut(index)?;
        slot.retired.cancel();
        slot.retired = CancellationToken::new();
        slot.source.take().map(Retired)
    }
}
