//! [`SandboxTemp`]: the session's private temporary directory, the one place outside the
//! workspace a sandboxed command may write by default. It is given to commands as `TMPDIR`,
//! made on first use (mode 0700, under the system's temporary directory) and removed with
//! everything in it when the coordinator is dropped.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// A session value (`ctx.session_state::<SandboxTemp>()`).
#[derive(Default)]
pub(crate) struct SandboxTemp {
    dir: OnceLock<PathBuf>,
}

impl SandboxTemp {
    /// The directory, made on the first call.
    pub(crate) fn dir(&self) -> io::Result<&Path> {
        if let Some(dir) = self.dir.get() {
            return Ok(dir);
        }
        let made = make()?;
        // Two first calls at once: the loser's directory is removed, the winner's kept.
        if let Err(unused) = self.dir.set(made) {
            let _ = std::fs::remove_dir_all(unused);
        }
        Ok(self.dir.get().map_or(Path::new(""), PathBuf::as_path))
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
        if let Some(dir) = self.dir.get() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
