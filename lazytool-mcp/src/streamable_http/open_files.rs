//! The process's limit of open files: [`raise_open_files_limit`] lifts the soft limit to the
//! hard one at start (as Go's runtime and most servers do: the common soft default of 1,024
//! is far below what a server may hold), and serving keeps its connection cap within half of
//! it, so that holding connections runs into the cap (which sheds idle ones) before the
//! process runs out of descriptors (where nothing can be accepted, not even to refuse it).

/// The soft limit of open files before and after [`raise_open_files_limit`].
///
/// ```
/// let limit = lazytool_mcp::OpenFilesLimit { before: 1_024, now: 524_288 };
/// assert!(limit.raised());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenFilesLimit {
    /// The soft limit the process started with.
    pub before: u64,
    /// The soft limit now.
    pub now: u64,
}

impl OpenFilesLimit {
    /// Whether the soft limit was raised.
    ///
    /// ```
    /// let limit = lazytool_mcp::OpenFilesLimit { before: 4_096, now: 4_096 };
    /// assert!(!limit.raised());
    /// ```
    pub fn raised(&self) -> bool {
        self.now > self.before
    }
}

/// Raises the process's soft limit of open files (`RLIMIT_NOFILE`) to its hard limit, for a
/// server about to accept many connections; call it once at start. It says what it did in
/// the log at debug (target `lazytool::mcp`). An error says why the limit could not be read
/// or set (it stays as it was); not supported off Unix.
///
/// ```
/// match lazytool_mcp::raise_open_files_limit() {
///     Ok(limit) => assert!(limit.now >= limit.before),
///     Err(error) => eprintln!("the open-file limit stays: {error}"),
/// }
/// ```
pub fn raise_open_files_limit() -> std::io::Result<OpenFilesLimit> {
    let raised = imp::raise();
    match &raised {
        Ok(limit) if limit.raised() => {
            tracing::debug!(target: "lazytool::mcp", before = limit.before, now = limit.now, "raised the open-file limit (RLIMIT_NOFILE) to its hard limit");
        }
        Ok(limit) => {
            tracing::debug!(target: "lazytool::mcp", limit = limit.now, "the open-file limit (RLIMIT_NOFILE) is already at its hard limit");
        }
        Err(error) => {
            tracing::debug!(target: "lazytool::mcp", %error, "cannot raise the open-file limit (RLIMIT_NOFILE)");
        }
    }
    raised
}

/// The soft limit of open files now, if it can be read (and is not unlimited).
pub(crate) fn open_files_limit() -> Option<u64> {
    imp::soft()
}

#[cfg(unix)]
mod imp {
    use nix::sys::resource::{RLIM_INFINITY, Resource, getrlimit, setrlimit};

    use super::OpenFilesLimit;

    pub(super) fn raise() -> std::io::Result<OpenFilesLimit> {
        let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE)?;
        if soft >= hard {
            return Ok(OpenFilesLimit {
                before: soft,
                now: soft,
            });
        }
        // macOS refuses an unlimited soft limit for files: it caps them at OPEN_MAX.
        let target = if hard == RLIM_INFINITY && cfg!(target_os = "macos") {
            10_240
        } else {
            hard
        };
        setrlimit(Resource::RLIMIT_NOFILE, target, hard)?;
        Ok(OpenFilesLimit {
            before: soft,
            now: target,
        })
    }

    pub(super) fn soft() -> Option<u64> {
        let (soft, _) = getrlimit(Resource::RLIMIT_NOFILE).ok()?;
        (soft != RLIM_INFINITY).then_some(soft)
    }
}

#[cfg(not(unix))]
mod imp {
    use super::OpenFilesLimit;

    pub(super) fn raise() -> std::io::Result<OpenFilesLimit> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "the open-file limit is raised on unix only",
        ))
    }

    pub(super) fn soft() -> Option<u64> {
        None
    }
}
