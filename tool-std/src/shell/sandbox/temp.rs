//! [`SandboxTemp`]: the session's private directory (mode 0700, under the system's temporary
//! directory, made on first use, removed with everything in it when the coordinator is
//! dropped). It holds the one place outside the workspace a sandboxed command may write by
//! default, `tmp/` (given to commands as `TMPDIR`), and beside it, out of the command's reach,
//! `unreadable`: the empty file of mode 000 that bubblewrap lays over each denied file.

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

/// A session value (`ctx.session_state::<SandboxTemp>()`).
#[derive(Default)]
pub(crate) struct SandboxTemp {
    dir: Mutex<Option<PathBuf>>,
}

impl SandboxTemp {
    /// The commands' temporary directory, made on the first call (and again if that failed).
    pub(crate) fn dir(&self) -> io::Result<PathBuf> {
        Ok(self.base()?.join("tmp"))
    }

    /// The empty file no one may read, made on the first call.
    pub(crate) fn unreadable(&self) -> io::Result<PathBuf> {
        Ok(self.base()?.join("unreadable"))
    }

    fn base(&self) -> io::Result<PathBuf> {
        let mut dir = self.dir.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(dir) = dir.as_ref() {
            return Ok(dir.clone());
        }
        let made = make()?;
        let filled = std::fs::create_dir(made.join("tmp")).and_then(|()| {
            use std::os::unix::fs::OpenOptionsExt as _;
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o000)
                .open(made.join("unreadable"))
                .map(drop)
        });
        if let Err(error) = filled {
            let _ = std::fs::remove_dir_all(&made);
            return Err(error);
        }
        *dir = Some(made.clone());
        Ok(made)
    }
}

/// A new directory of this process's own under the system's temporary directory. The first
/// one a process makes also clears what processes of this user that are gone left behind.
fn make() -> io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt as _;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    static SWEPT: std::sync::Once = std::sync::Once::new();
    let base = std::env::temp_dir();
    SWEPT.call_once(|| sweep(&base));
    loop {
        let dir = base.join(format!(
            "tool-std-sandbox-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            // Landlock grants by the path's real location: resolve a symlinked /tmp once here.
            Ok(()) => return std::fs::canonicalize(&dir),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
    }
}

/// Removes the directories in `base` that a process of this user made and did not remove
/// because it never dropped its coordinator (killed, or ended with `exit`): those whose
/// process is gone. A live process's, and another user's, are left alone.
fn sweep(base: &std::path::Path) {
    use std::os::unix::fs::MetadataExt as _;
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    let me = rustix::process::getuid().as_raw();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix("tool-std-sandbox-"))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<i32>().ok())
            .and_then(rustix::process::Pid::from_raw)
        else {
            continue;
        };
        // Not following a link: only a real directory of this user's is a candidate.
        let ours = std::fs::symlink_metadata(entry.path())
            .is_ok_and(|found| found.is_dir() && found.uid() == me);
        let gone = matches!(
            rustix::process::test_kill_process(pid),
            Err(rustix::io::Errno::SRCH)
        );
        if ours && gone {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

impl Drop for SandboxTemp {
    fn drop(&mut self) {
        let dir = self.dir.get_mut().unwrap_or_else(PoisonError::into_inner);
        if let Some(dir) = dir.as_ref() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_process_that_is_gone_left_is_swept_and_a_live_ones_is_kept() {
        let base = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        let left = base.path().join(format!("tool-std-sandbox-{gone}-0"));
        let live = base
            .path()
            .join(format!("tool-std-sandbox-{}-0", std::process::id()));
        let other = base.path().join("tool-std-sandbox-notes");
        for dir in [&left, &live, &other] {
            std::fs::create_dir_all(dir.join("tmp")).unwrap();
        }
        sweep(base.path());
        assert!(!left.exists());
        assert!(live.exists());
        assert!(other.exists());
    }
}
