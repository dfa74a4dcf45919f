//! The workspace a [`WorkspacePath`](super::WorkspacePath) argument is resolved against while
//! it is parsed.
//!
//! `Deserialize` has no way to receive context, and `Tool::prepare` parses a call's arguments
//! synchronously on the caller's thread, so the coordinator puts its workspace in a
//! thread-local for the duration of `prepare` ([`with_workspace_recording`]). Outside such a scope there
//! is no workspace, and paths are kept as sent.
//!
//! Every path resolved in a scope is also recorded, wherever it sits in the arguments (inside
//! an `Args<T>` struct, a list of edits), so that the coordinator confines every one of them to
//! the workspace, not only the top-level path arguments the macro can see.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use super::{Resolution, Workspace};

/// What is in scope: the workspace, and the paths resolved against it so far.
struct Scope {
    workspace: Workspace,
    resolved: Vec<ParsedPath>,
}

/// A `WorkspacePath` parsed in scope: the text the call sent, and where the workspace resolved
/// it (what the tool receives, so what the boundary must check as it is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParsedPath {
    /// The path as sent.
    pub(crate) sent: String,
    /// Where it was resolved: absolute.
    pub(crate) path: PathBuf,
    /// Where a tool that creates or removes files acts instead, when the resolution guessed
    /// at another, existing file ([`Workspace::unrepaired`]); the boundary checks it too for a
    /// call that is not read-only.
    pub(crate) unrepaired: Option<PathBuf>,
}

thread_local! {
    static IN_SCOPE: RefCell<Option<Scope>> = const { RefCell::new(None) };
}

/// Runs `f` with `workspace` in scope on this thread (`None`: with none), then restores what was
/// in scope before, also when `f` panics.
#[cfg(test)]
pub(crate) fn with_workspace<R>(workspace: Option<&Workspace>, f: impl FnOnce() -> R) -> R {
    with_workspace_recording(workspace, f).0
}

/// Runs `f` with `workspace` in scope on this thread (`None`: with none), then restores what was
/// in scope before, also when `f` panics. Returns `f`'s result and every path resolved inside,
/// in the order parsed.
pub(crate) fn with_workspace_recording<R>(
    workspace: Option<&Workspace>,
    f: impl FnOnce() -> R,
) -> (R, Vec<ParsedPath>) {
    struct Restore(Option<Option<Scope>>);

    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(previous) = self.0.take() {
                // `try_with`: during thread teardown the slot may already be gone.
                let _ = IN_SCOPE.try_with(|slot| *slot.borrow_mut() = previous);
            }
        }
    }

    let scope = workspace.map(|workspace| Scope {
        workspace: workspace.clone(),
        resolved: Vec::new(),
    });
    let previous = IN_SCOPE.with(|slot| slot.replace(scope));
    let mut restore = Restore(Some(previous));
    let result = f();
    let ours = IN_SCOPE.with(|slot| slot.replace(restore.0.take().flatten()));
    (result, ours.map(|scope| scope.resolved).unwrap_or_default())
}

/// `path` resolved (leniently: it may name a file to create) against the workspace in scope,
/// and where a tool creating or removing it acts when that differs
/// ([`Workspace::unrepaired`]); `None` when there is no workspace in scope (or the path is not
/// UTF-8, which JSON cannot send).
pub(super) fn resolve_in_scope(path: &Path) -> Option<(Resolution, Option<PathBuf>)> {
    IN_SCOPE.with_borrow_mut(|scope| {
        let scope = scope.as_mut()?;
        let sent = path.to_str()?;
        let resolution = scope.workspace.resolve_lenient(sent);
        let unrepaired = scope.workspace.unrepaired(sent, &resolution);
        scope.resolved.push(ParsedPath {
            sent: sent.to_owned(),
            path: resolution.path.clone(),
            unrepaired: unrepaired.clone(),
        });
        Some((resolution, unrepaired))
    })
}

#[cfg(test)]
mod tests {
    use std::panic::{AssertUnwindSafe, catch_unwind};

    use super::{IN_SCOPE, with_workspace};
    use crate::Workspace;

    fn in_scope() -> Option<Workspace> {
        IN_SCOPE.with_borrow(|scope| scope.as_ref().map(|scope| scope.workspace.clone()))
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
    fn every_path_resolved_inside_is_recorded_wherever_it_sits() {
        #[derive(serde::Deserialize)]
        struct Edit {
            path: crate::WorkspacePath,
        }
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let (edits, resolved) = super::with_workspace_recording(Some(&ws), || {
            serde_json::from_str::<Vec<Edit>>(r#"[{"path": "a.txt"}, {"path": "../b.txt"}]"#)
        });
        let edits = edits.unwrap();
        assert_eq!(edits[0].path.sent(), std::path::Path::new("a.txt"));
        let resolved: Vec<_> = resolved
            .into_iter()
            .map(|parsed| (parsed.sent, parsed.path))
            .collect();
        assert_eq!(
            resolved,
            [
                ("a.txt".to_owned(), ws.root().join("a.txt")),
                ("../b.txt".to_owned(), ws.root().join("../b.txt"))
            ]
        );
        assert!(super::with_workspace_recording(None, || ()).1.is_empty());
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
