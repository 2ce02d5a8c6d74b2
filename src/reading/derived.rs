//! A value worked out on first use from the fields beside it (a cache of the learned reading's
//! lookups on decode's path), never part of what the reading holds.

use std::sync::OnceLock;

/// A value worked out from the fields beside it on first use ([`OnceLock`]): equal whatever it
/// holds, skipped by serde (`#[serde(skip)]`), and dropped by its owner whenever the fields it
/// comes from change (those fields are private to the owner, set through a method that does).
#[derive(Debug, Clone, Default)]
pub struct Derived<T>(OnceLock<T>);

impl<T> Derived<T> {
    /// The value, worked out by `f` on the first call.
    #[inline]
    pub fn get_or_init(&self, f: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(f)
    }
}

impl<T> PartialEq for Derived<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Eq for Derived<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_out_once_and_equal_whatever_it_holds() {
        let d = Derived::default();
        assert_eq!(*d.get_or_init(|| 3), 3);
        assert_eq!(*d.get_or_init(|| 4), 3);
        assert_eq!(d, Derived::default());
        let e: Derived<i32> = d.clone();
        assert_eq!(*e.get_or_init(|| 5), 3);
    }
}
