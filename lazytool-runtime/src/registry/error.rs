//! Why a registry could not be built: [`RegistryError`].

use std::fmt;

use crate::tool::{SchemaError, SourceLocation, ToolNameError};

/// Everything wrong with the tools given to a registry, reported together.
///
/// Building a registry never panics: duplicate names, invalid names or schemas, and states
/// nobody registered all end up here, each naming the tool and where it was declared.
///
/// ```
/// use lazytool_runtime::{DynamicTool, Registry};
/// use serde_json::json;
///
/// let tool = DynamicTool::new("get forecast", "A tool.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!(null)) });
/// let error = Registry::builder().without_inventory().tool(tool).build().unwrap_err();
/// assert!(error.to_string().contains("get forecast"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryError {
    problems: Vec<RegistryProblem>,
}

/// One reason a registry could not be built.
///
/// ```
/// use lazytool_runtime::{DynamicTool, Registry, RegistryProblem};
/// use serde_json::json;
///
/// let run = |_, _| async { Ok::<_, String>(json!(null)) };
/// let first = DynamicTool::new("search", "Searches issues.", json!({"type": "object"}), run);
/// let second = DynamicTool::new("search", "Searches code.", json!({"type": "object"}), run);
/// let error = Registry::builder().without_inventory().tools([first, second]).build().unwrap_err();
/// match &error.problems()[0] {
///     RegistryProblem::DuplicateName { name, first, second } => {
///         assert_eq!(name, "search");
///         assert_eq!(second.line(), first.line() + 1); // where each was built
///     }
///     other => panic!("unexpected {other:?}"),
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryProblem {
    /// Two tools have the same name.
    DuplicateName {
        /// The name both tools use.
        name: String,
        /// Where the first one was declared.
        first: SourceLocation,
        /// Where the second one was declared.
        second: SourceLocation,
    },
    /// A name that does not match `^[a-zA-Z0-9_-]{1,64}$` (the strictest common rule of
    /// OpenAI, Anthropic and Gemini), or the reserved discovery tool name.
    InvalidName {
        /// The offending name.
        name: String,
        /// Where the tool was declared.
        location: SourceLocation,
        /// What is wrong with it.
        reason: ToolNameError,
    },
    /// A schema that is not a usable JSON Schema for tool arguments.
    InvalidSchema {
        /// The tool.
        tool: String,
        /// Where the tool was declared.
        location: SourceLocation,
        /// What is wrong with it.
        reason: SchemaError,
    },
    /// An example of a tool (`#[tool(example(...))]`, [`DynamicTool::examples`]) is not
    /// valid arguments of it: its schema says more than the parameters' types (a length
    /// bound, a range, a pattern), or a dynamic tool's example does not match its schema.
    ///
    /// [`DynamicTool::examples`]: crate::DynamicTool::examples
    InvalidExample {
        /// The tool.
        tool: String,
        /// Where the tool was declared.
        location: SourceLocation,
        /// The example's position among the tool's examples, from 0.
        index: usize,
        /// What is wrong with it: the schema's violations, each at its path.
        reason: String,
    },
    /// A tool takes `State<T>` but no value of type `T` was registered.
    MissingState {
        /// The tool.
        tool: String,
        /// The type name of the missing state.
        type_name: String,
        /// Where the tool was declared.
        location: SourceLocation,
    },
    /// A tool is a method of a `#[tools]` impl, but no instance of its type was registered
    /// with [`RegistryBuilder::tools_of`](crate::RegistryBuilder::tools_of).
    MissingInstance {
        /// The tool.
        tool: String,
        /// The type name of the missing instance.
        type_name: String,
        /// Where the tool was declared.
        location: SourceLocation,
    },
}

impl RegistryError {
    pub(crate) fn new(problems: Vec<RegistryProblem>) -> Self {
        RegistryError { problems }
    }

    /// Every problem found, in a stable order.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry, RegistryProblem};
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("lookup", "A tool.", json!({"type": "array"}),
    ///     |_, _| async { Ok::<_, String>(json!(null)) });
    /// let error = Registry::builder().without_inventory().tool(tool).build().unwrap_err();
    /// assert!(matches!(&error.problems()[0], RegistryProblem::InvalidSchema { tool, .. } if tool == "lookup"));
    /// ```
    pub fn problems(&self) -> &[RegistryProblem] {
        &self.problems
    }
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.problems.as_slice() {
            [single] => write!(f, "cannot build the tool registry: {single}"),
            problems => {
                write!(
                    f,
                    "cannot build the tool registry ({} problems):",
                    problems.len()
                )?;
                for problem in problems {
                    write!(f, "\n  - {problem}")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for RegistryProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryProblem::DuplicateName {
                name,
                first,
                second,
            } => write!(
                f,
                "two tools are named `{name}`: one at {first}, one at {second}; rename one with `#[tool(name = \"...\")]`"
            ),
            RegistryProblem::InvalidName {
                name,
                location,
                reason,
            } => write!(f, "invalid tool name `{name}` at {location}: {reason}"),
            RegistryProblem::InvalidSchema {
                tool,
                location,
                reason,
            } => write!(
                f,
                "invalid input schema of tool `{tool}` at {location}: {reason}"
            ),
            RegistryProblem::InvalidExample {
                tool,
                location,
                index,
                reason,
            } => write!(
                f,
                "example {index} of tool `{tool}` at {location} is not valid arguments of the tool: {reason}"
            ),
            RegistryProblem::MissingState {
                tool,
                type_name,
                location,
            } => write!(
                f,
                "tool `{tool}` at {location} takes `State<{type_name}>`, but no `{type_name}` was registered; add `.state(value)` to `Registry::builder()`"
            ),
            RegistryProblem::MissingInstance {
                tool,
                type_name,
                location,
            } => write!(
                f,
                "tool `{tool}` at {location} is a method of `{type_name}`, but no `{type_name}` was registered; add `.tools_of(Arc::new(instance))` to `Registry::builder()`, or leave the tool out with `.filter(...)`"
            ),
        }
    }
}

impl std::error::Error for RegistryError {}
