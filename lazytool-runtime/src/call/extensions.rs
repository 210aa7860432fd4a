//! Values a caller attaches to a call for the tool to read by their type: [`Extensions`].

use std::any::Any;
use std::sync::Arc;

/// What the transport of a call gives its tool, each value found by its type (the MCP
/// request a call runs for, say): a few values, cheap to clone (the clones share them).
#[derive(Clone, Default)]
pub(crate) struct Extensions {
    values: Option<Arc<[Arc<dyn Any + Send + Sync>]>>,
}

impl Extensions {
    /// These extensions and `value`, which replaces a value of its type.
    pub(crate) fn with<T: Any + Send + Sync>(&self, value: T) -> Extensions {
        let kept = self.iter().filter(|kept| !kept.is::<T>()).cloned();
        let value: Arc<dyn Any + Send + Sync> = Arc::new(value);
        Extensions {
            values: Some(kept.chain(std::iter::once(value)).collect()),
        }
    }

    /// The value of type `T`, if there is one.
    pub(crate) fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.iter().find_map(|value| value.downcast_ref::<T>())
    }

    /// How many values there are.
    pub(crate) fn len(&self) -> usize {
        self.values.as_ref().map_or(0, |values| values.len())
    }

    fn iter(&self) -> impl Iterator<Item = &Arc<dyn Any + Send + Sync>> {
        self.values.iter().flat_map(|values| values.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_found_by_its_type_and_replaced_by_one_of_the_same_type() {
        let extensions = Extensions::default().with(1_u32).with("first");
        assert_eq!(extensions.get::<u32>(), Some(&1));
        assert_eq!(extensions.get::<&str>(), Some(&"first"));
        assert_eq!(extensions.get::<i64>(), None);
        let replaced = extensions.with("second");
        assert_eq!(replaced.get::<&str>(), Some(&"second"));
        assert_eq!(replaced.len(), 2);
        // The original is left as it was.
        assert_eq!(extensions.get::<&str>(), Some(&"first"));
    }
}
