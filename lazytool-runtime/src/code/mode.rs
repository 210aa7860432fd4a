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
