//! Named sessions (`toolbox call --session NAME`): what one call leaves for the next in the same
//! session, kept on disk under the user's state directory, and `toolbox session list|remove`.
//!
//! Kept: the artifacts the output limit cut (so `read_artifact` finds `art_1` next time), the
//! session's grants ("yes, for this session"), the record of files read (so an edit after a
//! read in an earlier call is an edit of a file the model has seen, and a change on disk since
//! is caught), the todo list, and a mode a call switched to (plan mode). Background jobs run on
//! in the session's keeper (`keeper`), which `remove` stops with them.
//!
//! A session belongs to one workspace; one call at a time uses it (a lock file); every write
//! replaces its file atomically, and the folder is the user's alone (0700).

use std::fs::File;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tool_core::Coordinator;
use tool_core::coordinator::CoordinatorBuilder;
use tool_core::middleware::{Artifact, Artifacts};
use tool_core::policy::Mode;
use tool_std::fs::{FileSession, Seen};
use tool_std::{TodoItem, TodoList};

use crate::Failure;
use crate::keeper::{ARTIFACT_PREFIX, Link};
use crate::replace::replace_file;

/// The state directory's variable a test or a user can point elsewhere.
pub(crate) const STATE_DIR_VARIABLE: &str = "TOOLBOX_STATE_DIR";

/// What a session keeps, as written to `session.json`.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Saved {
    /// The workspace root the session belongs to.
    workspace: PathBuf,
    /// Seconds since the Unix epoch of the last call.
    #[serde(default)]
    used: u64,
    /// A mode a call switched to (not one given with `--mode`).
    #[serde(default)]
    mode: Option<Mode>,
    #[serde(default)]
    grants: Vec<String>,
    #[serde(default)]
    todos: Vec<TodoItem>,
    #[serde(default)]
    files_read: Vec<FileRead>,
    /// The artifacts, oldest first; each one's text is `artifacts/<id>.txt`.
    #[serde(default)]
    artifacts: Vec<ArtifactEntry>,
}

#[derive(Debug, Serialize, Deserialize)]
struct FileRead {
    path: PathBuf,
    seen: Seen,
}

#[derive(Debug, Serialize, Deserialize)]
struct ArtifactEntry {
    id: String,
    tool: String,
    call_id: String,
}

/// A named session, open for one call: its folder is locked until this is dropped.
pub(crate) struct NamedSession {
    name: String,
    dir: PathBuf,
    saved: Saved,
    /// The values the coordinator is given, filled from disk, read back after the call.
    artifacts: Artifacts,
    files: Arc<FileSession>,
    /// The mode the call started in, to tell a mode a call switched to.
    started_in: Option<Mode>,
    _lock: File,
}

/// Checks a session name as clap reads it: it names a folder, so no path in it.
pub(crate) fn valid_name(name: &str) -> Result<String, String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    let starts_well = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    if starts_well && name.len() <= 64 && name.chars().all(allowed) {
        Ok(name.to_owned())
    } else {
        Err(format!(
            "`{name}` is not a session name: use up to 64 letters, digits, `.`, `_` and `-`, starting with a letter or digit (e.g. `fix-login`)"
        ))
    }
}

/// Where sessions are kept: `$TOOLBOX_STATE_DIR/sessions`, else under `$XDG_STATE_HOME/toolbox`,
/// else `~/.local/state/toolbox`.
pub(crate) fn sessions_dir() -> Result<PathBuf, Failure> {
    let non_empty = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    let state = if let Some(dir) = non_empty(STATE_DIR_VARIABLE) {
        PathBuf::from(dir)
    } else if let Some(dir) = non_empty("XDG_STATE_HOME") {
        PathBuf::from(dir).join("toolbox")
    } else if let Some(home) = non_empty("HOME") {
        PathBuf::from(home).join(".local/state/toolbox")
    } else {
        return Err(Failure::setup(format!(
            "cannot tell where to keep sessions: neither {STATE_DIR_VARIABLE}, XDG_STATE_HOME nor HOME is set; set {STATE_DIR_VARIABLE} to a folder"
        )));
    };
    // Absolute, so that a relative `TOOLBOX_STATE_DIR` names the same folder for the sandbox's
    // denied reads (taken from the workspace root) and for a keeper started elsewhere.
    std::path::absolute(state.join("sessions")).map_err(|error| {
        Failure::setup(format!(
            "cannot tell where to keep sessions ({error}); set {STATE_DIR_VARIABLE} to an absolute folder"
        ))
    })
}

/// The folder of session `name`, refused when it is a link: what the sandbox hides from
/// commands is the sessions folder, so a session kept elsewhere would not be hidden.
pub(crate) fn session_dir(name: &str) -> Result<PathBuf, Failure> {
    let dir = sessions_dir()?.join(name);
    if std::fs::symlink_metadata(&dir).is_ok_and(|found| !found.is_dir()) {
        return Err(Failure::setup(format!(
            "`{}` of session `{name}` is not a folder (a link?): sessions are kept in folders of their own; remove it, or name another session",
            dir.display()
        )));
    }
    Ok(dir)
}

/// Refuses named sessions kept where commands may write: beneath a workspace root (`roots`),
/// where the kernel sandbox can hide the sessions from a command but not keep it from moving
/// or rewriting them (a forged grant, a keeper's socket moved away).
pub(crate) fn kept_apart_from(roots: &[PathBuf]) -> Result<(), Failure> {
    let sessions = sessions_dir()?;
    match roots.iter().find(|root| sessions.starts_with(root)) {
        Some(root) => Err(Failure::setup(format!(
            "the sessions folder `{}` is inside the workspace `{}`, where commands may write: keep sessions elsewhere (set {STATE_DIR_VARIABLE} to a folder outside it)",
            sessions.display(),
            root.display()
        ))),
        None => Ok(()),
    }
}

/// `duration` in whole minutes, as a person reads it (`15 minutes`), or seconds under one.
pub(crate) fn minutes(duration: std::time::Duration) -> String {
    match duration.as_secs() {
        0..60 => format!("{} seconds", duration.as_secs()),
        60..120 => "1 minute".to_owned(),
        seconds => format!("{} minutes", seconds / 60),
    }
}

impl NamedSession {
    /// Opens (or starts) the session `name` for a call in `workspace`, waiting while another
    /// call uses it.
    pub(crate) fn open(name: &str, workspace: &Path) -> Result<Self, Failure> {
        kept_apart_from(&[workspace.to_owned()])?;
        let dir = session_dir(name)?;
        let io = |what: &str, path: &Path, error: std::io::Error| {
            Failure::setup(format!(
                "cannot {what} `{}` for session `{name}`: {error}",
                path.display()
            ))
        };
        let lock_path = dir.join("lock");
        let lock = loop {
            create_private_dir(&dir).map_err(|error| io("make the folder", &dir, error))?;
            let lock = File::options()
                .create(true)
                .truncate(false)
                .write(true)
                .mode(0o600)
                .open(&lock_path)
                .map_err(|error| io("open the lock file", &lock_path, error))?;
            take_lock(&lock, name).map_err(|error| io("lock", &lock_path, error))?;
            // The session may have been removed while this call waited: its lock then guards
            // nothing, so start again in a folder of its own.
            if still_at(&lock, &lock_path) {
                break lock;
            }
        };
        let saved = read_saved(&dir, name)?;
        let saved = match saved {
            None => Saved {
                workspace: workspace.to_owned(),
                ..Saved::default()
            },
            Some(saved) if saved.workspace == workspace => saved,
            Some(saved) => {
                return Err(Failure::setup(format!(
                    "session `{name}` belongs to the workspace `{}`, not `{}`: pass --workspace {0}, or name another session (`toolbox session list` shows them)",
                    saved.workspace.display(),
                    workspace.display()
                )));
            }
        };
        let artifacts = Artifacts::default();
        for entry in &saved.artifacts {
            // Ids name files: only the store's own form is read back.
            if !is_artifact_id(&entry.id) {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(artifact_path(&dir, &entry.id)) {
                artifacts.restore(Artifact {
                    id: entry.id.clone(),
                    tool: entry.tool.clone(),
                    call_id: entry.call_id.clone(),
                    text: text.into(),
                });
            }
        }
        let files = Arc::new(FileSession::default());
        for file in &saved.files_read {
            files.record(&file.path, file.seen);
        }
        Ok(NamedSession {
            name: name.to_owned(),
            dir,
            saved,
            artifacts,
            files,
            started_in: None,
            _lock: lock,
        })
    }

    /// The session's name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The session's folder.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// `builder` with the session's artifact store and record of files read.
    pub(crate) fn attach(&self, builder: CoordinatorBuilder) -> CoordinatorBuilder {
        builder
            .state(self.artifacts.clone())
            .shared_state(Arc::clone(&self.files))
    }

    /// Gives the built `coordinator` the session's grants, todo list and mode (unless
    /// `mode_given` on the command line, which wins).
    pub(crate) fn restore(
        &mut self,
        coordinator: &Coordinator,
        mode_given: bool,
    ) -> Result<(), Failure> {
        for rule in &self.saved.grants {
            coordinator.grant(rule).map_err(|error| {
                Failure::setup(format!(
                    "session `{}` holds the grant `{rule}`, which is not a rule ({error}); remove the session with `toolbox session remove {0}`",
                    self.name
                ))
            })?;
        }
        if !self.saved.todos.is_empty() {
            // Written by this program from a list that kept the rule; one that no longer does
            // is left out rather than refusing the call.
            let _ = coordinator
                .session_state::<TodoList>()
                .replace(self.saved.todos.clone());
        }
        match self.saved.mode {
            Some(mode) if !mode_given => coordinator.set_mode(mode),
            _ => {}
        }
        self.started_in = Some(coordinator.mode());
        Ok(())
    }

    /// Writes what the call left: artifacts first, then `session.json` in one rename, then the
    /// texts of artifacts no longer kept are removed.
    pub(crate) fn save(mut self, coordinator: &Coordinator) -> Result<(), Failure> {
        let io = |what: &str, path: &Path, error: std::io::Error| {
            Failure::setup(format!(
                "cannot {what} `{}` of session `{}`: {error}",
                path.display(),
                self.name
            ))
        };
        let artifacts_dir = self.dir.join("artifacts");
        let kept = self.artifacts.list();
        if !kept.is_empty() {
            create_private_dir(&artifacts_dir)
                .map_err(|error| io("make the folder", &artifacts_dir, error))?;
        }
        // Written into and cleaned below: only the folder this program made, never what a link
        // put in its place leads to.
        if std::fs::symlink_metadata(&artifacts_dir).is_ok_and(|kind| !kind.is_dir()) {
            return Err(Failure::setup(format!(
                "`{}` of session `{}` is not a folder (a link?); remove the session with `toolbox session remove {1}`",
                artifacts_dir.display(),
                self.name
            )));
        }
        for artifact in &kept {
            let path = artifact_path(&self.dir, &artifact.id);
            if is_artifact_id(&artifact.id) && !path.exists() {
                replace_file(&path, artifact.text.as_bytes(), Some(0o600))
                    .map_err(|error| io("write", &path, error))?;
            }
        }
        // Only a mode a call switched to is kept: one given with --mode is for that call, so
        // `--mode bypass_permissions` once never sticks to the session.
        let mode = coordinator.mode();
        if self.started_in != Some(mode) {
            self.saved.mode = Some(mode);
        }
        self.saved.used = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        self.saved.grants = coordinator
            .snapshot()
            .grants
            .rules()
            .iter()
            .map(ToString::to_string)
            .collect();
        self.saved.todos = coordinator.session_state::<TodoList>().snapshot();
        let mut files_read: Vec<FileRead> = self
            .files
            .files()
            .into_iter()
            .map(|(path, seen)| FileRead { path, seen })
            .collect();
        files_read.sort_by(|a, b| a.path.cmp(&b.path));
        self.saved.files_read = files_read;
        self.saved.artifacts = kept
            .iter()
            .filter(|artifact| is_artifact_id(&artifact.id))
            .map(|artifact| ArtifactEntry {
                id: artifact.id.clone(),
                tool: artifact.tool.clone(),
                call_id: artifact.call_id.clone(),
            })
            .collect();
        let mut text = serde_json::to_vec_pretty(&self.saved).map_err(|error| {
            Failure::setup(format!("cannot write session `{}`: {error}", self.name))
        })?;
        text.push(b'\n');
        let file = self.dir.join("session.json");
        replace_file(&file, &text, Some(0o600)).map_err(|error| io("write", &file, error))?;
        // Texts the store dropped (past its size cap), now that session.json no longer names
        // them.
        if let Ok(entries) = std::fs::read_dir(&artifacts_dir) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(id) = name.to_str().and_then(|name| name.strip_suffix(".txt")) else {
                    continue;
                };
                // Only the texts this program writes; anything else is left alone.
                if is_artifact_id(id) && !self.saved.artifacts.iter().any(|kept| kept.id == id) {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        Ok(())
    }
}

/// `toolbox session list`: each session with its workspace, when it was last used and what it
/// keeps.
pub(crate) fn list() -> Result<String, Failure> {
    let dir = sessions_dir()?;
    let mut names: Vec<String> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .flatten()
            .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
            .filter_map(|entry| entry.file_name().into_string().ok())
            .collect(),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(error) => {
            return Err(Failure::setup(format!(
                "cannot read `{}`: {error}",
                dir.display()
            )));
        }
    };
    if names.is_empty() {
        return Ok(format!(
            "No sessions in {}. Start one with `toolbox call TOOL ARGS --session NAME`.\n",
            dir.display()
        ));
    }
    names.sort();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    let mut text = format!("Sessions in {}:\n", dir.display());
    let runtime = crate::runtime()?;
    for name in names {
        let jobs = runtime
            .block_on(Link::new(&name, &dir.join(&name)).running())
            .map(|running| format!(", {}", count(running, "job running")))
            .unwrap_or_default();
        let line = match read_saved(&dir.join(&name), &name) {
            Ok(Some(saved)) => format!(
                "  {name}  {}  used {} ago; {}, {}, {}, {}{jobs}",
                saved.workspace.display(),
                age(now.saturating_sub(saved.used)),
                count(saved.artifacts.len(), "artifact"),
                count(saved.grants.len(), "grant"),
                count(saved.files_read.len(), "file read"),
                count(saved.todos.len(), "todo")
            ),
            Ok(None) => format!("  {name}  (no call finished in it yet)"),
            Err(failure) => format!("  {name}  (unreadable: {})", failure.message),
        };
        text.push_str(&line);
        text.push('\n');
    }
    Ok(text)
}

/// `toolbox session remove NAME`: the session's folder and everything it keeps, unless a call
/// is using it.
pub(crate) fn remove(name: &str) -> Result<String, Failure> {
    let dir = sessions_dir()?.join(name);
    if std::fs::symlink_metadata(&dir).is_ok_and(|found| found.is_symlink()) {
        // Never used as a session (see `session_dir`): the link goes, what it leads to stays.
        std::fs::remove_file(&dir).map_err(|error| {
            Failure::setup(format!("cannot remove `{}`: {error}", dir.display()))
        })?;
        return Ok(format!(
            "Removed `{}`, a link in place of session `{name}`'s folder; what it led to is left as it was.\n",
            dir.display()
        ));
    }
    if !dir.is_dir() {
        return Err(Failure::setup(format!(
            "there is no session `{name}` in {}; `toolbox session list` shows the sessions",
            dir.parent().unwrap_or(&dir).display()
        )));
    }
    // Held while the folder goes, so no call starts in it meanwhile.
    let lock = File::options().write(true).open(dir.join("lock")).ok();
    if let Some(lock) = &lock
        && rustix::fs::flock(lock, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_err()
    {
        return Err(Failure::setup(format!(
            "session `{name}` is in use by a call that is still running; remove it when that call has ended"
        )));
    }
    let stopped = crate::runtime()?.block_on(Link::new(name, &dir).stop());
    std::fs::remove_dir_all(&dir)
        .map_err(|error| Failure::setup(format!("cannot remove `{}`: {error}", dir.display())))?;
    let jobs = match stopped {
        Some(1) => "; its background job was stopped".to_owned(),
        Some(n) if n > 1 => format!("; its {n} background jobs were stopped"),
        _ => String::new(),
    };
    Ok(format!(
        "Removed session `{name}` ({}){jobs}.\n",
        dir.display()
    ))
}

/// `session.json` of the session in `dir`, `None` when no call has finished in it.
fn read_saved(dir: &Path, name: &str) -> Result<Option<Saved>, Failure> {
    let file = dir.join("session.json");
    let text = match std::fs::read(&file) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(Failure::setup(format!(
                "cannot read `{}`: {error}",
                file.display()
            )));
        }
    };
    serde_json::from_slice(&text).map(Some).map_err(|error| {
        Failure::setup(format!(
            "`{}` is not a session this program wrote ({error}); remove it with `toolbox session remove {name}`",
            file.display()
        ))
    })
}

/// Takes the session's lock, saying on stderr when another call holds it and this one waits.
fn take_lock(lock: &File, name: &str) -> std::io::Result<()> {
    use rustix::fs::{FlockOperation, flock};
    if flock(lock, FlockOperation::NonBlockingLockExclusive).is_ok() {
        return Ok(());
    }
    eprintln!("toolbox: session `{name}` is in use by another call; waiting for it to end");
    flock(lock, FlockOperation::LockExclusive).map_err(std::io::Error::from)
}

/// Whether `file` is still the file at `path` (not removed, nor replaced).
fn still_at(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(held), Ok(there)) => held.dev() == there.dev() && held.ino() == there.ino(),
        _ => false,
    }
}

/// An id the session's store gives (`art_N`) or its keeper's (`art_job_N`).
fn is_artifact_id(id: &str) -> bool {
    [ARTIFACT_PREFIX, "art_"].iter().any(|prefix| {
        id.strip_prefix(prefix)
            .is_some_and(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
    })
}

fn artifact_path(dir: &Path, id: &str) -> PathBuf {
    dir.join("artifacts").join(format!("{id}.txt"))
}

/// A folder only its owner can enter (sessions hold what tools read), with its parents.
pub(crate) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// `n` things: `1 grant`, `2 grants`, `3 files read`.
fn count(n: usize, thing: &str) -> String {
    match (n, thing.split_once(' ')) {
        (1, _) => format!("1 {thing}"),
        (_, Some((noun, rest))) => format!("{n} {noun}s {rest}"),
        (_, None) => format!("{n} {thing}s"),
    }
}

/// `seconds` as a person reads an age: `40 s`, `12 min`, `3 h`, `2 days`.
fn age(seconds: u64) -> String {
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{} min", seconds / 60),
        3600..86_400 => format!("{} h", seconds / 3600),
        _ => format!("{} days", seconds / 86_400),
    }
}
