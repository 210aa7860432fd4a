//! A future boxed where it is built: [`boxed_in_place`].

use std::pin::Pin;

/// The future `make` builds, pinned in a box allocated before it is built, so that the
/// optimiser can build it in the box.
///
/// `Box::pin(future)` builds the future on the stack, then allocates and copies all of its
/// size into the box, though only what the future captured has been written yet: an async
/// block's state has room for every future it awaits, 6-7 KiB for a request's guard or its
/// handler. Allocated first, the box is where the future is built (in release builds, as
/// measured: `bench/HISTORY.md`, 2026-12-04).
pub(super) fn boxed_in_place<F: Future>(make: impl FnOnce() -> F) -> Pin<Box<F>> {
    Box::into_pin(Box::write(Box::new_uninit(), make()))
}
