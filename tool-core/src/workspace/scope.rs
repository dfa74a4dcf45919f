//! The workspace a [`WorkspacePath`](super::WorkspacePath) argument is resolved against while
//! it is parsed.
//!
//! `Deserialize` has no way to receive context, and `Tool::prepare` parses a call's arguments
//! synchronously on the caller's thread, so the coordinator puts its workspace in a
//! thread-local for the duration of `prepare` ([`with_workspace`]). Outside such a scope there
//! is no workspace, and paths are kept as sent.

use std::cell::RefCell;
use std::path::Path;

use super::{Resolution, Workspace};

thread_local! {
    static IN_SCOPE: RefCell<Option<Workspace>> = const { RefCell::new(None) };
}

/// Runs `f` with `workspace` in scope on this thread (`None`: with none), then restores what was
/// in scope before, also when `f` panics.
pub(crate) fn with_workspace<R>(workspace: Option<&Workspace>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Workspace>);

    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            // `try_with`: during thread teardown the slot may already be gone.
            let _ = IN_SCOPE.try_with(|slot| *slot.borrow_mut() = previous);
        }
    }

    let previous = IN_SCOPE.with(|slot| slot.replace(workspace.cloned()));
    let _restore = Restore(previous);
    f()
}

/// `path` resolved (leniently: it may name a file to create) against the workspace in scope;
/// `None` when there is none (or the path is not UTF-8, which JSON cannot send).
pub(super) fn resolve_in_scope(path: &Path) -> Option<Resolution> {
    IN_SCOPE.with_borrow(|workspace| {
        let workspace = workspace.as_ref()?;
        Some(workspace.resolve_lenient(path.to_str()?))
    })
}

#[cfg(test)]
mod tests {
    use std::panic::{AssertUnwindSafe, catch_unwind};

    use super::{IN_SCOPE, with_workspace};
    use crate::Workspace;

    fn in_scope() -> Option<Workspace> {
        IN_SCOPE.with_borrow(Clone::clone)
    }

    #[test]
    fn the_workspace_is_in_scope_only_inside() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        assert_eq!(in_scope(), None);
        let inside = with_workspace(Some(&ws), in_scope);
        assert_eq!(inside, Some(ws));
        assert_eq!(in_scope(), None);
    }

    #[test]
    fn an_inner_scope_is_undone_when_it_ends() {
        let outer_dir = tempfile::tempdir().unwrap();
        let outer = Workspace::new(outer_dir.path()).unwrap();
        with_workspace(Some(&outer), || {
            assert_eq!(with_workspace(None, in_scope), None);
            assert_eq!(in_scope().as_ref(), Some(&outer));
        });
    }

    #[test]
    fn a_panic_inside_still_restores_the_scope() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let result = catch_unwind(AssertUnwindSafe(|| {
            with_workspace(Some(&ws), || panic!("a tool's prepare panicked"))
        }));
        assert!(result.is_err());
        assert_eq!(in_scope(), None);
    }
}
