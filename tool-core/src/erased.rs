//! [`ErasedArgs`]: a call's parsed arguments with their type erased, between `prepare` and
//! `invoke`, stored inline when small.
//!
//! `Box<dyn Any>` would allocate once per call, a measurable share of dispatch; the `smallbox`
//! crate avoids that but compiles to some twenty small functions per arguments type, and every
//! tool has its own type. This store needs three per type: `new`, `take` and `drop_inline`.

use std::any::{Any, TypeId};
use std::mem::{MaybeUninit, align_of, size_of};

/// Room for four words: a call's arguments are usually a few integers and strings.
type Inline = MaybeUninit<[usize; 4]>;

/// A value of some `T: Send + 'static`, recoverable as a `T` only.
pub(crate) struct ErasedArgs(Repr);

enum Repr {
    /// The value lives in `bytes`. Invariant: `bytes` holds an initialized value of the type
    /// `type_id` names, and `drop` is `drop_inline` for that type.
    Inline {
        bytes: Inline,
        type_id: TypeId,
        drop: unsafe fn(*mut Inline),
    },
    /// The value was too large or too aligned for `Inline`.
    Boxed(Box<dyn Any + Send>),
    /// The boxed value was taken out.
    Taken,
}

// SAFETY: `new` accepts only `T: Send`, so whatever `Inline` holds may move between threads;
// `Boxed` is `Send` by its type.
unsafe impl Send for ErasedArgs {}

impl ErasedArgs {
    pub(crate) fn new<T: Send + 'static>(value: T) -> Self {
        // An inline `const` condition: only the branch taken is compiled for each `T`.
        if const { fits_inline::<T>() } {
            let mut bytes = Inline::uninit();
            // SAFETY: `bytes` is large and aligned enough for a `T` (checked above) and ours.
            unsafe { bytes.as_mut_ptr().cast::<T>().write(value) };
            ErasedArgs(Repr::Inline {
                bytes,
                type_id: TypeId::of::<T>(),
                drop: drop_inline::<T>,
            })
        } else {
            ErasedArgs(Repr::Boxed(Box::new(value)))
        }
    }

    /// The value, if it is a `T`; otherwise `None`, and the value is dropped.
    pub(crate) fn take<T: 'static>(mut self) -> Option<T> {
        if const { fits_inline::<T>() } {
            // A `T` that fits was stored inline by `new`, so only the inline case can match.
            if let Repr::Inline { bytes, type_id, .. } = &self.0
                && *type_id == TypeId::of::<T>()
            {
                // SAFETY: by the invariant, `bytes` holds an initialized `T`. It is read out
                // once: `self` is forgotten right after, so `Drop` does not drop the value
                // again, and an inline value owns no other memory that forgetting could leak.
                let value = unsafe { bytes.as_ptr().cast::<T>().read() };
                std::mem::forget(self);
                return Some(value);
            }
            return None;
        }
        match std::mem::replace(&mut self.0, Repr::Taken) {
            Repr::Boxed(boxed) => boxed.downcast::<T>().ok().map(|boxed| *boxed),
            other => {
                // Another type: put it back, so that `Drop` drops it.
                self.0 = other;
                None
            }
        }
    }
}

impl Drop for ErasedArgs {
    fn drop(&mut self) {
        if let Repr::Inline { bytes, drop, .. } = &mut self.0 {
            // SAFETY: by the invariant, `drop` is `drop_inline` for the type `bytes` holds, and
            // the value is still there (`take` forgets the store when it reads the value out).
            unsafe { drop(bytes) };
        }
    }
}

/// `true` if a `T` is stored inline.
const fn fits_inline<T>() -> bool {
    size_of::<T>() <= size_of::<Inline>() && align_of::<T>() <= align_of::<Inline>()
}

/// # Safety
/// `bytes` must hold an initialized `T`, which is dropped in place and must not be used again.
unsafe fn drop_inline<T>(bytes: *mut Inline) {
    // SAFETY: guaranteed by the caller.
    unsafe { bytes.cast::<T>().drop_in_place() };
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::ErasedArgs;

    /// Counts its drops.
    struct Tracked(Arc<AtomicUsize>);

    impl Drop for Tracked {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_small_value_round_trips() {
        let args = ErasedArgs::new((7_i64, String::from("text")));
        assert_eq!(args.take::<(i64, String)>(), Some((7, "text".to_owned())));
    }

    #[test]
    fn a_large_value_round_trips() {
        let args = ErasedArgs::new([9_u64; 16]);
        assert_eq!(args.take::<[u64; 16]>(), Some([9; 16]));
    }

    #[test]
    fn an_over_aligned_value_round_trips() {
        let args = ErasedArgs::new(u128::MAX);
        assert_eq!(args.take::<u128>(), Some(u128::MAX));
    }

    #[test]
    fn the_wrong_type_gives_none_and_drops_the_value_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let args = ErasedArgs::new(Tracked(Arc::clone(&drops)));
        assert!(args.take::<String>().is_none());
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn an_untaken_value_is_dropped_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        drop(ErasedArgs::new(Tracked(Arc::clone(&drops))));
        drop(ErasedArgs::new((Tracked(Arc::clone(&drops)), [0_u64; 8])));
        assert_eq!(drops.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_taken_value_is_not_dropped_by_the_store() {
        let drops = Arc::new(AtomicUsize::new(0));
        let value = ErasedArgs::new(Tracked(Arc::clone(&drops)))
            .take::<Tracked>()
            .unwrap();
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        drop(value);
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }
}
