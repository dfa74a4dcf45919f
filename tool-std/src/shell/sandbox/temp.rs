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
    let namespace = pid_namespace();
    if let Some(namespace) = namespace {
        SWEPT.call_once(|| sweep(&base, namespace));
    }
    loop {
        // The pid namespace in the name: a pid means nothing outside its own namespace, and a
        // temporary directory may be shared with processes of another (a container's).
        let dir = base.join(format!(
            "tool-std-sandbox-{}-{}-ns{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed),
            namespace.unwrap_or(0)
        ));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            // Landlock grants by the path's real location: resolve a symlinked /tmp once here.
            Ok(()) => return std::fs::canonicalize(&dir),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
    }
}

/// The inode of this process's pid namespace, `None` where `/proc` does not say.
fn pid_namespace() -> Option<u64> {
    let link = std::fs::read_link("/proc/self/ns/pid").ok()?;
    let link = link.to_str()?;
    link.strip_prefix("pid:[")?.strip_suffix(']')?.parse().ok()
}

/// Removes the directories in `base` that a process of this user, in pid namespace
/// `namespace`, made and did not remove because it never dropped its coordinator (killed, or
/// ended with `exit`): those whose process is gone. A live process's, another user's and
/// another namespace's are left alone.
fn sweep(base: &std::path::Path, namespace: u64) {
    use std::os::unix::fs::MetadataExt as _;
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    let me = rustix::process::getuid().as_raw();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name
            .to_str()
            .and_then(|name| name.strip_prefix("tool-std-sandbox-"))
        else {
            continue;
        };
        // `PID-N-nsNAMESPACE`, of this namespace.
        let mut parts = rest.split('-');
        let (Some(pid), Some(_), Some(ns), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if ns.strip_prefix("ns").and_then(|ns| ns.parse::<u64>().ok()) != Some(namespace) {
            continue;
        }
        let Some(pid) = pid
            .parse::<i32>()
            .ok()
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
        let ns = pid_namespace().expect("Linux says which pid namespace");
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        let left = base
            .path()
            .join(format!("tool-std-sandbox-{gone}-0-ns{ns}"));
        let live = base
            .path()
            .join(format!("tool-std-sandbox-{}-0-ns{ns}", std::process::id()));
        // The same pid in another namespace says nothing about its process.
        let elsewhere = base
            .path()
            .join(format!("tool-std-sandbox-{gone}-0-ns{}", ns + 1));
        let other = base.path().join("tool-std-sandbox-notes");
        for dir in [&left, &live, &elsewhere, &other] {
            std::fs::create_dir_all(dir.join("tmp")).unwrap();
        }
        // A link named like a gone process's folder is not followed to what it leads to.
        let target = tempfile::tempdir().unwrap();
        std::fs::write(target.path().join("keep.txt"), "kept").unwrap();
        let link = base
            .path()
            .join(format!("tool-std-sandbox-{gone}-1-ns{ns}"));
        std::os::unix::fs::symlink(target.path(), &link).unwrap();
        sweep(base.path(), ns);
        assert!(target.path().join("keep.txt").exists());
        assert!(link.symlink_metadata().is_ok());
        assert!(!left.exists());
        assert!(live.exists());
        assert!(elsewhere.exists());
        assert!(other.exists());
    }
}
