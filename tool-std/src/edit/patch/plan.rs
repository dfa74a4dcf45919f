//! The whole patch staged in memory: every operation applied in order to the files as the
//! earlier operations left them, and the result handed back as a set of writes and deletions
//! for the caller to commit all or nothing.

use super::{Operation, Patch, PatchError, apply_update};

/// What the patch does to one path, for the caller to commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileChange {
    /// Write `text` at `path`, in the format (encoding, byte order mark) of the file at
    /// `format_of` as it was before the patch: the path itself for an update, the source of a
    /// move, `None` for a new file (UTF-8).
    Write {
        path: String,
        text: String,
        format_of: Option<String>,
    },
    /// Remove the file at `path`.
    Delete { path: String },
}

/// The outcome of a patch that applies: the changes, one per path in the order the patch
/// first touches them, and Codex's success report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    pub changes: Vec<FileChange>,
    pub summary: String,
}

/// A path's state while the patch is staged.
enum Staged {
    Text {
        text: String,
        format_of: Option<String>,
    },
    /// Deleted (or moved away); `existed` says whether there was a file before the patch, when
    /// known.
    Deleted { existed: Option<bool> },
}

struct Stage<F> {
    read: F,
    entries: Vec<(String, Staged)>,
}

impl<F> Stage<F>
where
    F: FnMut(&str) -> Result<Option<String>, String>,
{
    /// The file's text as the earlier operations left it, with its format's origin.
    fn current(
        &mut self,
        path: &str,
        line: usize,
    ) -> Result<Option<(String, Option<String>)>, PatchError> {
        match self.entries.iter().find(|(p, _)| p == path) {
            Some((_, Staged::Text { text, format_of })) => {
                Ok(Some((text.clone(), format_of.clone())))
            }
            Some((_, Staged::Deleted { .. })) => Ok(None),
            None => match (self.read)(path) {
                Ok(text) => Ok(text.map(|t| (t, Some(path.to_owned())))),
                Err(message) => Err(PatchError::Read {
                    path: path.to_owned(),
                    line,
                    message,
                }),
            },
        }
    }

    fn set(&mut self, path: &str, state: Staged) {
        match self.entries.iter_mut().find(|(p, _)| p == path) {
            Some(entry) => entry.1 = state,
            None => self.entries.push((path.to_owned(), state)),
        }
    }

    /// Whether `path` had a file before the patch, as far as staging has seen.
    fn existed(&self, path: &str) -> Option<bool> {
        match self.entries.iter().find(|(p, _)| p == path) {
            Some((_, Staged::Text { format_of, .. })) => {
                format_of.as_deref().filter(|f| *f == path).map(|_| true)
            }
            Some((_, Staged::Deleted { existed })) => *existed,
            None => None,
        }
    }
}

/// Stages every operation of `patch` in memory. `read` gives a file's decoded text as it is
/// before the patch (`Ok(None)`: no such file; `Err`: why it cannot be read as text); it is
/// called at most once per path. Nothing is written: on `Ok` the caller commits
/// [`Plan::changes`], on `Err` nothing.
pub(crate) fn plan<F>(patch: &Patch, read: F) -> Result<Plan, PatchError>
where
    F: FnMut(&str) -> Result<Option<String>, String>,
{
    if patch.operations.is_empty() {
        return Err(PatchError::NoOperations);
    }
    let mut stage = Stage {
        read,
        entries: Vec::new(),
    };
    for operation in &patch.operations {
        match operation {
            Operation::Add { path, contents, .. } => stage.set(
                path,
                Staged::Text {
                    text: contents.clone(),
                    format_of: None,
                },
            ),
            Operation::Delete { path, line } => {
                if stage.current(path, *line)?.is_none() {
                    return Err(PatchError::Missing {
                        path: path.clone(),
                        line: *line,
                        operation: "*** Delete File",
                    });
                }
                let existed = stage.existed(path);
                stage.set(path, Staged::Deleted { existed });
            }
            Operation::Update {
                path,
                move_to,
                chunks,
                line,
            } => {
                let Some((text, format_of)) = stage.current(path, *line)? else {
                    return Err(PatchError::Missing {
                        path: path.clone(),
                        line: *line,
                        operation: "*** Update File",
                    });
                };
                let text = apply_update(path, &text, chunks)?;
                match move_to.as_deref().filter(|to| *to != path) {
                    Some(to) => {
                        let existed = stage.existed(path);
                        stage.set(path, Staged::Deleted { existed });
                        stage.set(to, Staged::Text { text, format_of });
                    }
                    None => stage.set(path, Staged::Text { text, format_of }),
                }
            }
        }
    }
    let mut changes = Vec::with_capacity(stage.entries.len());
    for (path, state) in std::mem::take(&mut stage.entries) {
        match state {
            Staged::Text { text, format_of } => changes.push(FileChange::Write {
                path,
                text,
                format_of,
            }),
            Staged::Deleted { existed } => {
                // A file the patch added and then removed was never there to delete.
                let existed = match existed {
                    Some(existed) => existed,
                    None => matches!((stage.read)(&path), Ok(Some(_))),
                };
                if existed {
                    changes.push(FileChange::Delete { path });
                }
            }
        }
    }
    Ok(Plan {
        changes,
        summary: summary(&patch.operations),
    })
}

/// Codex's success report: added, then modified (a move under its destination), then deleted
/// files, each in patch order.
pub(crate) fn summary(operations: &[Operation]) -> String {
    let mut out = String::from("Success. Updated the following files:\n");
    let mut section = |letter: &str, pick: &dyn Fn(&Operation) -> Option<&str>| {
        for path in operations.iter().filter_map(pick) {
            out.push_str(&format!("{letter} {path}\n"));
        }
    };
    section("A", &|op| match op {
        Operation::Add { path, .. } => Some(path),
        _ => None,
    });
    section("M", &|op| match op {
        Operation::Update { path, move_to, .. } => Some(move_to.as_deref().unwrap_or(path)),
        _ => None,
    });
    section("D", &|op| match op {
        Operation::Delete { path, .. } => Some(path),
        _ => None,
    });
    out
}
