//! Application state injected into tools: `State<T>` parameters.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A shared value the application registers once (a database pool, an HTTP client, a
/// configuration) and that tools receive as a parameter of type `State<T>`.
///
/// `State<T>` parameters are injected by the runtime and never appear in a tool's schema.
/// Register the value with [`RegistryBuilder::state`](crate::RegistryBuilder::state);
/// building a registry that contains a tool needing a state nobody registered is an error
/// ([`RegistryProblem::MissingState`](crate::RegistryProblem::MissingState)) naming the tool and
/// the type, so a missing state is found at start-up, not on the model's first call.
///
/// ```rust,standalone_crate
/// use lazytool_runtime::{tool, Registry, State};
///
/// struct Greeting(&'static str);
///
/// /// Greets someone.
/// #[tool]
/// async fn greet(name: String, greeting: State<Greeting>) -> String {
///     format!("{}, {name}!", greeting.0)
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let registry = Registry::builder().state(Greeting("Hello")).build().unwrap();
/// let result = registry.call("greet", serde_json::json!({"name": "Ada"})).await;
/// assert_eq!(result.content(), "Hello, Ada!");
/// # }
/// ```
pub struct State<T: ?Sized>(Arc<T>);

impl<T: ?Sized> State<T> {
    /// Wraps a shared value.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use lazytool_runtime::State;
    ///
    /// struct Config {
    ///     currency: &'static str,
    /// }
    /// let state = State::new(Arc::new(Config { currency: "EUR" }));
    /// assert_eq!(state.currency, "EUR"); // `State<T>` derefs to `T`
    /// ```
    pub fn new(value: Arc<T>) -> Self {
        State(value)
    }

    /// The shared handle, for moving the state into a spawned task.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use lazytool_runtime::State;
    ///
    /// let state = State::new(Arc::new(vec![1, 2, 3]));
    /// let shared = Arc::clone(state.arc());
    /// let sum = tokio::spawn(async move { shared.iter().sum::<i32>() }).await.unwrap();
    /// assert_eq!(sum, 6);
    /// # }
    /// ```
    pub fn arc(&self) -> &Arc<T> {
        &self.0
    }
}

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        State(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&&*self.0).finish()
    }
}

pub(crate) type AnyState = Arc<dyn Any + Send + Sync>;

/// The type a tool's `State<T>` parameter (or, for a method of a `#[tools]` impl, its
/// `&self`) asks for, recorded by `#[tool]` in its spec.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct StateRequirement {
    type_id: fn() -> TypeId,
    type_name: fn() -> &'static str,
    instance: bool,
}

impl StateRequirement {
    /// The requirement of a `State<T>` parameter.
    pub const fn of<T: Any + Send + Sync>() -> Self {
        StateRequirement {
            type_id: TypeId::of::<T>,
            type_name: std::any::type_name::<T>,
            instance: false,
        }
    }

    /// The requirement of a tool method's `&self`: an instance registered with
    /// [`RegistryBuilder::tools_of`](crate::RegistryBuilder::tools_of).
    pub const fn instance_of<T: Any + Send + Sync>() -> Self {
        StateRequirement {
            instance: true,
            ..Self::of::<T>()
        }
    }

    pub(crate) fn type_id(&self) -> TypeId {
        (self.type_id)()
    }

    pub(crate) fn type_name(&self) -> &'static str {
        (self.type_name)()
    }

    pub(crate) fn is_instance(&self) -> bool {
        self.instance
    }
}

/// The states registered on a [`RegistryBuilder`](crate::RegistryBuilder), by type.
#[derive(Default, Clone)]
pub(crate) struct StateMap(HashMap<TypeId, AnyState>);

impl StateMap {
    pub(crate) fn insert<T: Any + Send + Sync>(&mut self, value: Arc<T>) {
        self.0.insert(TypeId::of::<T>(), value);
    }

    pub(crate) fn get(&self, requirement: &StateRequirement) -> Option<AnyState> {
        self.0.get(&requirement.type_id()).cloned()
    }
}

/// The states of one tool, resolved when the registry was built: one entry per injected
/// parameter in parameter order (`None` for a `ToolContext`, which needs no state).
#[doc(hidden)]
#[derive(Clone, Default)]
pub struct ResolvedStates(Arc<[Option<AnyState>]>);

impl ResolvedStates {
    pub(crate) fn new(states: Vec<Option<AnyState>>) -> Self {
        ResolvedStates(states.into())
    }

    /// Whether the tool has no injected parameter (nor an instance).
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The state of the injected parameter at `index`. `None` only if the spec and the
    /// resolved states disagree, which the registry rules out when it is built.
    pub fn get<T: Any + Send + Sync>(&self, index: usize) -> Option<State<T>> {
        let state = self.0.get(index)?.clone()?;
        state.downcast::<T>().ok().map(State)
    }
}
