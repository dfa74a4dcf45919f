//! What this session has read and written: per file, its size, modification time and a hash of
//! its bytes as last seen, so a write can tell a file the model has read from one it has not,
//! and one that changed on disk since.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

/// A file as this session last saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time.
    pub modified: Option<SystemTime>,
    /// A hash of its bytes.
    pub hash: u64,
}

impl Seen {
    /// A file's bytes and modification time, as seen now.
    #[must_use]
    pub fn of(bytes: &[u8], modified: Option<SystemTime>) -> Self {
        Seen {
            size: bytes.len() as u64,
            modified,
            hash: fnv1a(bytes),
        }
    }
}

/// The files a session has read or written. Give the coordinator one per session with
/// `.state(FileSession::default())`; without one, the tools share a process-wide record.
///
/// ```
/// use tool_std::fs::{FileSession, Seen};
///
/// let session = FileSession::default();
/// let path = std::path::Path::new("/work/notes.md");
/// assert!(session.seen(path).is_none());
/// session.record(path, Seen::of(b"# Notes\n", None));
/// assert_eq!(session.seen(path).unwrap().size, 8);
/// ```
#[derive(Debug, Default)]
pub struct FileSession {
    files: Mutex<HashMap<PathBuf, Seen>>,
}

impl FileSession {
    /// How this session last saw the file at `path` (an absolute, resolved path).
    #[must_use]
    pub fn seen(&self, path: &Path) -> Option<Seen> {
        self.lock().get(path).copied()
    }

    /// Remembers how the file at `path` is now.
    pub fn record(&self, path: &Path, seen: Seen) {
        self.lock().insert(path.to_owned(), seen);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Seen>> {
        self.files
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The record shared by coordinators that were given none.
    pub(crate) fn process_wide() -> &'static FileSession {
        static SHARED: OnceLock<FileSession> = OnceLock::new();
        SHARED.get_or_init(FileSession::default)
    }
}

/// FNV-1a, 64 bits: a fast hash that tells two versions of a file apart.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}
