//! Which argument check a `#[tool]` gets, chosen by its parameters' types at compile time:
//! [`Probe`].
//!
//! A tool whose parameters are all of [`TypedArgument`] types gets the typed check; one with a
//! parameter of any other type (a struct or an enum deriving `JsonSchema`, whose schema may say
//! what its type does not) gets the JSON Schema validator. The choice is made by method
//! resolution on the parameter's type (autoref specialization): `(&Probe::<T>::new()).validation()`
//! finds [`TypedValidation`] on `Probe<T>` when `T: TypedArgument`, and otherwise
//! [`SchemaValidation`] on `&Probe<T>`. The fallback is generic, so its reference to the
//! validator is compiled only into a crate where some parameter chooses it, and a binary whose
//! tools all choose the typed check does not link the validator.

use std::marker::PhantomData;

use super::argument_validation::ArgumentValidation;

/// A parameter type's argument check, found by method resolution (see the module's text).
///
/// ```
/// use lazytool_runtime::__private::{Probe, SchemaValidation as _, TypedValidation as _};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Address { city: String }
///
/// assert!((&Probe::<Option<Vec<u32>>>::new()).validation().is_none());
/// assert!((&Probe::<Address>::new()).validation().is_some());
/// ```
pub struct Probe<T: ?Sized>(PhantomData<fn() -> Box<T>>);

impl<T: ?Sized> Probe<T> {
    /// The probe of `T`.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Probe(PhantomData)
    }
}

/// A type whose JSON Schema says nothing its type does not: serde reading it refuses exactly
/// what the schema refuses (booleans, strings, the integers within their bounds, floats, and
/// `Option`s and `Vec`s of these). Sealed: the typed check knows each one's schema.
pub trait TypedArgument: sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! typed_arguments {
    ($($type:ty),* $(,)?) => {
        $(
            impl sealed::Sealed for $type {}
            impl TypedArgument for $type {}
        )*
    };
}

typed_arguments!(
    bool, String, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64
);

impl<T: TypedArgument> sealed::Sealed for Option<T> {}
impl<T: TypedArgument> TypedArgument for Option<T> {}
impl<T: TypedArgument> sealed::Sealed for Vec<T> {}
impl<T: TypedArgument> TypedArgument for Vec<T> {}

/// The typed check's side of [`Probe`]: nothing to add for a [`TypedArgument`].
pub trait TypedValidation {
    /// `None`: the typed check covers this parameter.
    fn validation(&self) -> Option<ArgumentValidation>;
}

impl<T: TypedArgument> TypedValidation for Probe<T> {
    #[inline(always)]
    fn validation(&self) -> Option<ArgumentValidation> {
        None
    }
}

/// The validator's side of [`Probe`]: every other type.
pub trait SchemaValidation {
    /// The JSON Schema validator.
    fn validation(&self) -> Option<ArgumentValidation>;
}

impl<T: ?Sized> SchemaValidation for &Probe<T> {
    #[inline(always)]
    fn validation(&self) -> Option<ArgumentValidation> {
        Some(ArgumentValidation::JSON_SCHEMA)
    }
}

/// A tool's argument check from its parameters' [`Probe`]s: the validator if any parameter
/// needs it, else the typed check.
///
/// ```
/// use lazytool_runtime::__private::{ArgumentValidation, validation_of};
///
/// let typed = validation_of(&[None, None]);
/// let validator = validation_of(&[None, Some(ArgumentValidation::JSON_SCHEMA)]);
/// # let _ = (typed, validator);
/// ```
pub fn validation_of(parameters: &[Option<ArgumentValidation>]) -> ArgumentValidation {
    parameters
        .iter()
        .find_map(|validation| *validation)
        .unwrap_or(ArgumentValidation::TYPED)
}
