//! Handing freed memory back to the system once a server is stopped: [`return_freed_memory`].

/// Asks the allocator to return the free pages of its heaps to the system.
///
/// A stopped server frees what its connection held (buffers, definitions, the rmcp service),
/// but glibc's `malloc` keeps freed pages mapped in its per-thread arenas until the top of a
/// heap is free, so a gateway whose servers stop when idle would stay at the size of its
/// busiest moment. Elsewhere this does nothing.
#[allow(unsafe_code)]
pub(crate) fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` takes no pointer and only walks glibc's own heaps under their locks.
    unsafe {
        libc::malloc_trim(0);
    }
}
