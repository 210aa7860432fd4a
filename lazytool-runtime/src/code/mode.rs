//! What code mode is configured with: [`CodeMode`].

use std::time::Duration;

/// Code mode's options and the limits every script obeys
/// ([`SessionOptions::code_mode`](crate::SessionOptions::code_mode)). Each limit has a
/// default; a script that reaches one is stopped, and its result is an error naming it.
///
/// The output of a script (its return value and `console.log` lines) obeys the registry's
/// [`CallLimits::max_output_bytes`](crate::CallLimits::max_output_bytes), and its wall time
/// the registry's call timeout unless [`wall_time`](CodeMode::wall_time) sets one.
///
/// Where scripts run is its [`runner`](CodeMode::runner): on Linux, by default, each in a worker
/// process of its own that the OS bounds ([`ScriptRunner::Worker`]); [`CodeMode::in_process`] runs
/// them on the server's own async workers, with no security boundary.
///
/// ```
/// use lazytool_runtime::CodeMode;
///
/// let code = CodeMode::new().max_tool_calls(20).max_memory_bytes(16 << 20).direct_calls(true);
/// assert_eq!(code.max_tool_calls, 20);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[must_use]
pub struct CodeMode {
    /// Whether the tools stay callable by name beside the code tool (default: false, the
    /// request carries the code tool and the discovery tool only).
    pub direct_calls: bool,
    /// The heap a script may use, in bytes (default 64 MiB).
    pub max_memory_bytes: usize,
    /// The native stack a script may use, in bytes (default 256 KiB): deep recursion ends
    /// there.
    pub max_stack_bytes: usize,
    /// How many tool calls one script may make (default 100).
    pub max_tool_calls: usize,
    /// How many tool calls of one script run at once (default 8); more wait their turn.
    pub max_concurrent_calls: usize,
    /// The largest script, in bytes of source (default 64 KiB).
    pub max_source_bytes: usize,
    /// How long a script may run; `None` (the default): the registry's call timeout, or 60
    /// seconds without one.
    pub wall_time: Option<Duration>,
    /// Where scripts run (default: [`ScriptRunner::Worker`]).
    pub runner: ScriptRunner,
    /// How many scripts run at once in the whole process, each holding a worker also while it
    /// awaits a tool (default 16). Every `CodeMode` with the same worker settings shares the
    /// cap. Workers only.
    pub max_scripts: usize,
    /// How many scripts may wait for a place past [`max_scripts`](CodeMode::max_scripts)
    /// (default 64); more are refused at once. Workers only.
    pub max_queued_scripts: usize,
    /// How long a script waits for a place before it is refused (default 10 seconds).
    /// Workers only.
    pub max_queue_wait: Duration,
    /// How many workers are kept between scripts (default 4); more are ended when their
    /// script ends. Workers only.
    pub max_idle_workers: usize,
    /// After how many scripts a worker is ended and replaced (default 100). Workers only.
    pub recycle_after_scripts: usize,
    /// Above how many resident bytes after a script a worker is ended and replaced, its memory
    /// back to the OS (default 128 MiB). Workers only.
    pub recycle_above_bytes: usize,
}

/// Where [`CodeMode`]'s scripts run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ScriptRunner {
    /// Each script in a worker process, one at a time: the same executable started again,
    /// with its address space and CPU time bounded, no descriptor but its pipes, and a system
    /// call filter that leaves it memory, its pipes and exit. A worker that outlives its
    /// script's wall time is killed. Linux only: elsewhere a script gets an error naming
    /// [`ScriptRunner::InProcess`].
    Worker,
    /// On the server's own async workers, in its address space: **no security boundary**.
    /// For scripts you trust (tests, benchmarks): QuickJS does not interrupt some of its
    /// builtins, so a hostile script can hold a thread past its wall time.
    InProcess,
}

impl Default for CodeMode {
    fn default() -> Self {
        CodeMode {
            direct_calls: false,
            max_memory_bytes: 64 << 20,
            max_stack_bytes: 256 << 10,
            max_tool_calls: 100,
            max_concurrent_calls: 8,
            max_source_bytes: 64 << 10,
            wall_time: None,
            runner: ScriptRunner::Worker,
            max_scripts: 16,
            max_queued_scripts: 64,
            max_queue_wait: Duration::from_secs(10),
            max_idle_workers: 4,
            recycle_after_scripts: 100,
            recycle_above_bytes: 128 << 20,
        }
    }
}

/// The wall time of a script when neither the code mode nor the registry sets one.
pub(super) const DEFAULT_WALL_TIME: Duration = Duration::from_secs(60);

impl CodeMode {
    /// The defaults: code mode alone, 64 MiB, 256 KiB of stack, 100 tool calls, 8 at once,
    /// 64 KiB of source, the call timeout.
    ///
    /// ```
    /// use lazytool_runtime::CodeMode;
    ///
    /// assert_eq!(CodeMode::new().max_memory_bytes, 64 << 20);
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The defaults, with scripts run in the server's own process ([`ScriptRunner::InProcess`]):
    /// **no security boundary**, for scripts you trust.
    ///
    /// ```
    /// use lazytool_runtime::{CodeMode, ScriptRunner};
    ///
    /// assert_eq!(CodeMode::in_process().runner, ScriptRunner::InProcess);
    /// ```
    pub fn in_process() -> Self {
        Self::new().runner(ScriptRunner::InProcess)
    }

    /// Sets where scripts run.
    ///
    /// ```
    /// use lazytool_runtime::{CodeMode, ScriptRunner};
    ///
    /// assert_eq!(CodeMode::in_process().runner(ScriptRunner::Worker).runner, ScriptRunner::Worker);
    /// ```
    pub fn runner(mut self, runner: ScriptRunner) -> Self {
        self.runner = runner;
        self
    }

    /// Sets how many scripts run at once in the whole process (at least one).
    ///
    /// ```
    /// use lazytool_runtime::CodeMode;
    ///
    /// assert_eq!(CodeMode::new().max_scripts(100).max_scripts, 100);
    /// ```
    pub fn max_scripts(mut self, scripts: usize) -> Self {
        self.max_scripts = scripts.max(1);
        self
    }

    /// Sets how many scripts may wait for a place, and for how long.
    ///
    /// ```
    /// use std::time::Duration;
    /// use lazytool_runtime::CodeMode;
    ///
    /// let code = CodeMode::new().queue(8, Duration::from_secs(2));
    /// assert_eq!((code.max_queued_scripts, code.max_queue_wait), (8, Duration::from_secs(2)));
    /// ```
    pub fn queue(mut self, scripts: usize, wait: Duration) -> Self {
        self.max_queued_scripts = scripts;
        self.max_queue_wait = wait;
        self
    }

    /// Sets how many workers are kept between scripts.
    ///
    /// ```
    /// use lazytool_runtime::CodeMode;
    ///
    /// assert_eq!(CodeMode::new().max_idle_workers(0).max_idle_workers, 0);
    /// ```
    pub fn max_idle_workers(mut self, workers: usize) -> Self {
        self.max_idle_workers = workers;
        self
    }

    /// Sets when a worker is replaced: after `scripts` scripts (at least one), or when it
    /// holds more than `bytes` after a script.
    ///
    /// ```
    /// use lazytool_runtime::CodeMode;
    ///
    /// let code = CodeMode::new().recycle(10, 64 << 20);
    /// assert_eq!((code.recycle_after_scripts, code.recycle_above_bytes), (10, 64 << 20));
    /// ```
    pub fn recycle(mut self, scripts: usize, bytes: usize) -> Self {
        self.recycle_after_scripts = scripts.max(1);
        self.recycle_above_bytes = bytes;
        self
    }

    /// Keeps the tools callable by name beside the code tool.
    ///
    /// ```
    /// use lazytool_runtime::CodeMode;
    ///
    /// assert!(CodeMode::new().direct_calls(true).direct_calls);
    /// ```
    pub fn direct_calls(mut self, direct_calls: bool) -> Self {
        self.direct_calls = direct_calls;
        self
    }

    /// Sets the heap a script may use, in bytes.
    ///
    /// ```
    /// use lazytool_runtime::CodeMode;
    ///
    /// assert_eq!(CodeMode::new().max_memory_bytes(8 << 20).max_memory_bytes, 8 << 20);
    /// ```
    pub fn max_memory_bytes(mut self, bytes: usize) -> Self {
        self.max_memory_bytes = bytes;
        self
    }

    /// Sets the native stack a script may use, in bytes.
    ///
    /// ```
    /// use lazytool_runtime::CodeMode;
    ///
    /// assert_eq!(CodeMode::new().max_stack_bytes(128 << 10).max_stack_bytes, 128 << 10);
    /// ```
    pub fn max_stack_bytes(mut self, bytes: usize) -> Self {
        self.max_stack_bytes = bytes;
        self
    }

    /// Sets how many tool calls one script may make.
    ///
    /// ```
    /// use lazytool_runtime::CodeMode;
    ///
    /// assert_eq!(CodeMode::new().max_tool_calls(10).max_tool_calls, 10);
    /// ```
    pub fn max_tool_calls(mut self, calls: usize) -> Self {
        self.max_tool_calls = calls;
        self
    }

    /// Sets how many tool calls of one script run at once (at least one).
    ///
    /// ```
    /// use lazytool_runtime::CodeMode;
    ///
    /// assert_eq!(CodeMode::new().max_concurrent_calls(0).max_concurrent_calls, 1);
    /// ```
    pub fn max_concurrent_calls(mut self, calls: usize) -> Self {
        self.max_concurrent_calls = calls.max(1);
        self
    }

    /// Sets the largest script, in bytes of source.
    ///
    /// ```
    /// use lazytool_runtime::CodeMode;
    ///
    /// assert_eq!(CodeMode::new().max_source_bytes(1024).max_source_bytes, 1024);
    /// ```
    pub fn max_source_bytes(mut self, bytes: usize) -> Self {
        self.max_source_bytes = bytes;
        self
    }

    /// Sets how long a script may run, in place of the registry's call timeout.
    ///
    /// ```
    /// use std::time::Duration;
    /// use lazytool_runtime::CodeMode;
    ///
    /// let code = CodeMode::new().wall_time(Duration::from_secs(5));
    /// assert_eq!(code.wall_time, Some(Duration::from_secs(5)));
    /// ```
    pub fn wall_time(mut self, wall_time: Duration) -> Self {
        self.wall_time = Some(wall_time);
        self
    }
}
