//! Where a tool was declared: [`SourceLocation`].

use std::fmt;

/// Where a tool was declared.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use lazytool_runtime::{DynamicTool, Registry};
///
/// let tool = DynamicTool::new("noop", "Does nothing.", serde_json::json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(serde_json::Value::Null) });
/// let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
/// let location = registry.get("noop").unwrap().location();
/// assert!(location.file().ends_with(".rs"));
/// assert!(location.line() > 0);
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLocation {
    file: &'static str,
    line: u32,
    column: u32,
}

impl SourceLocation {
    pub(crate) fn new(file: &'static str, line: u32, column: u32) -> Self {
        SourceLocation { file, line, column }
    }

    /// The source file, as `file!()` gives it.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("noop", "Does nothing.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!(null)) });
    /// let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// let location = registry.get("noop").unwrap().location();
    /// assert!(location.file().ends_with(".rs"));
    /// ```
    pub fn file(&self) -> &'static str {
        self.file
    }

    /// The line, starting at 1.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("noop", "Does nothing.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!(null)) });
    /// let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// let location = registry.get("noop").unwrap().location();
    /// assert!(location.line() >= 1);
    /// ```
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The column, starting at 1.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("noop", "Does nothing.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!(null)) });
    /// let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// let location = registry.get("noop").unwrap().location();
    /// assert!(location.column() >= 1);
    /// ```
    pub fn column(&self) -> u32 {
        self.column
    }
}

impl From<&'static std::panic::Location<'static>> for SourceLocation {
    fn from(location: &'static std::panic::Location<'static>) -> Self {
        SourceLocation::new(location.file(), location.line(), location.column())
    }
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}
