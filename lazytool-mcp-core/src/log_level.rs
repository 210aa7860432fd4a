//! How severe a log message is: [`LogLevel`].

use std::fmt;
use std::str::FromStr;

/// The severity of a log message a tool sends its client ([`McpRequest::log`](crate::McpRequest::log)),
/// and the least severe a client asks for: RFC 5424's levels, in order, `Debug` the least.
///
/// lazytool's own type rather than rmcp's `LoggingLevel`, which rmcp marks deprecated (SEP-2577
/// deprecates MCP logging): the 2025-11-25 revision has it, and a 2026-07-28 request asks for
/// logs with its `_meta` `logLevel`.
///
/// ```
/// use lazytool_mcp_core::LogLevel;
///
/// assert!(LogLevel::Warning > LogLevel::Info);
/// assert_eq!("notice".parse::<LogLevel>(), Ok(LogLevel::Notice));
/// assert_eq!(LogLevel::Emergency.to_string(), "emergency");
/// assert!("loud".parse::<LogLevel>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// General information.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

const NAMES: [(LogLevel, &str); 8] = [
    (LogLevel::Debug, "debug"),
    (LogLevel::Info, "info"),
    (LogLevel::Notice, "notice"),
    (LogLevel::Warning, "warning"),
    (LogLevel::Error, "error"),
    (LogLevel::Critical, "critical"),
    (LogLevel::Alert, "alert"),
    (LogLevel::Emergency, "emergency"),
];

impl LogLevel {
    /// The level's name on the wire: `debug`, `info`, ..., `emergency`.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp_core::LogLevel::Critical.as_str(), "critical");
    /// ```
    pub fn as_str(self) -> &'static str {
        NAMES[self as usize].1
    }

    /// The same level in rmcp's model.
    ///
    /// ```
    /// use lazytool_mcp_core::LogLevel;
    ///
    /// let level = LogLevel::Warning.to_rmcp();
    /// assert_eq!(LogLevel::of_rmcp(level), LogLevel::Warning);
    /// ```
    #[allow(deprecated)]
    pub fn to_rmcp(self) -> rmcp::model::LoggingLevel {
        use rmcp::model::LoggingLevel;
        match self {
            LogLevel::Debug => LoggingLevel::Debug,
            LogLevel::Info => LoggingLevel::Info,
            LogLevel::Notice => LoggingLevel::Notice,
            LogLevel::Warning => LoggingLevel::Warning,
            LogLevel::Error => LoggingLevel::Error,
            LogLevel::Critical => LoggingLevel::Critical,
            LogLevel::Alert => LoggingLevel::Alert,
            LogLevel::Emergency => LoggingLevel::Emergency,
        }
    }

    /// The level of rmcp's model as a `LogLevel` ([`to_rmcp`](LogLevel::to_rmcp) the other
    /// way).
    #[allow(deprecated)]
    pub fn of_rmcp(level: rmcp::model::LoggingLevel) -> LogLevel {
        use rmcp::model::LoggingLevel;
        match level {
            LoggingLevel::Debug => LogLevel::Debug,
            LoggingLevel::Info => LogLevel::Info,
            LoggingLevel::Notice => LogLevel::Notice,
            LoggingLevel::Warning => LogLevel::Warning,
            LoggingLevel::Error => LogLevel::Error,
            LoggingLevel::Critical => LogLevel::Critical,
            LoggingLevel::Alert => LogLevel::Alert,
            LoggingLevel::Emergency => LogLevel::Emergency,
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no [`LogLevel`]'s.
///
/// ```
/// let error = "loud".parse::<lazytool_mcp_core::LogLevel>().unwrap_err();
/// assert_eq!(error.to_string(), "`loud` is no log level (debug, info, notice, warning, error, critical, alert, emergency)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLogLevel(String);

impl fmt::Display for UnknownLogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = NAMES.iter().map(|(_, name)| *name).collect();
        write!(f, "`{}` is no log level ({})", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownLogLevel {}

impl FromStr for LogLevel {
    type Err = UnknownLogLevel;

    fn from_str(name: &str) -> Result<LogLevel, UnknownLogLevel> {
        NAMES
            .iter()
            .find(|(_, known)| *known == name)
            .map(|(level, _)| *level)
            .ok_or_else(|| UnknownLogLevel(name.to_owned()))
    }
}
