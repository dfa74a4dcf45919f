//! Files `toolbox` writes outside a workspace (settings, a client's configuration, named
//! sessions), replaced whole or not at all.

use std::io::Write as _;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Replaces the file at `path` with `bytes`: written to a file beside it, synced, then renamed
/// over it, so a crash leaves the old file or the new one, never half of one. The new file
/// gets `mode`, or else the permissions of the file it replaces (the umask's for a new one).
/// A failed write leaves no temporary file behind.
pub(crate) fn replace_file(path: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    // Unique per write, so two writers never share a temporary file.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |name| name.to_string_lossy());
    let temp = path.with_file_name(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    let mode = mode.or_else(|| {
        std::fs::metadata(path)
            .ok()
            .map(|metadata| metadata.permissions().mode())
    });
    let written = (|| {
        let mut options = std::fs::File::options();
        options.write(true).create_new(true);
        if let Some(mode) = mode {
            options.mode(mode);
        }
        let mut file = options.open(&temp)?;
        if let Some(mode) = mode {
            // As asked, whatever the umask took away at creation.
            file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}
