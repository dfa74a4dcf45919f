//! Executable scripts written so that running them cannot fail with "Text file busy".
//!
//! A test that writes a script and then runs it races every other test thread of the
//! process: a thread that forks while the script is still open for writing gives its child
//! a copy of that descriptor, and until the child's `exec` closes it the kernel refuses to
//! run the script (`ETXTBSY`). Writing through a short-lived `sh` keeps the only writable
//! descriptor in a process this one never forks from.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// Writes `text` to `path` with mode 0755, from a child process.
pub fn write_executable(path: &Path, text: &str) {
    let mut child = Command::new("/bin/sh")
        .args(["-c", r#"cat > "$1" && chmod 755 "$1""#, "sh"])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()
        .expect("sh starts");
    child
        .stdin
        .take()
        .expect("a pipe to sh")
        .write_all(text.as_bytes())
        .expect("script text written to sh");
    let status = child.wait().expect("sh finishes");
    assert!(
        status.success(),
        "writing {} failed: {status}",
        path.display()
    );
}
