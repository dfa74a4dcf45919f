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

/// A new directory of this process's own under the system's temporary directory.
fn make() -> io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt as _;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let base = std::env::temp_dir();
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

impl Drop for SandboxTemp {
    fn drop(&mut self) {
        let dir = self.dir.get_mut().unwrap_or_else(PoisonError::into_inner);
        if let Some(dir) = dir.as_ref() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
