//! Telling a model the sandbox refused something, instead of leaving it to guess at
//! `Permission denied`: the failed command's output is searched for the kernel's refusals
//! (`Permission denied`, `Operation not permitted`, `EACCES`, `EPERM`), the paths those lines
//! name are checked against what the sandbox lets the command write and read, and a note names
//! the path (or the network) and the configuration field that would allow it.
//!
//! It reads what programs print, so it is a guess with a known shape: a refusal printed
//! without the path (or with it in a form not recognised here) gets the general note, and a
//! `Permission denied` that file modes caused, on a path the sandbox would have allowed, gets
//! no note.

use std::path::{Path, PathBuf};

/// The words programs print for what the sandbox answers: `EACCES` and `EPERM` (Landlock, the
/// seccomp filter, a covered path under bubblewrap), `EROFS` (a write outside the writable
/// paths under bubblewrap) and `EBUSY` (a covered path moved or removed under bubblewrap).
const REFUSALS: &[&str] = &[
    "Permission denied",
    "Operation not permitted",
    "Read-only file system",
    "Device or resource busy",
    "EACCES",
    "EPERM",
    "EROFS",
    "EBUSY",
];

/// Words of a refused network operation, on a line that also holds a refusal.
const NETWORK_WORDS: &[&str] = &["connect", "Connect", "bind", "socket", "port", "network"];

/// What the sandbox let a command do, for judging its refusals (kept with a background job,
/// for `shell_output`).
#[derive(Debug, Clone)]
pub(crate) struct Bounds {
    /// The directory the command ran in (relative paths in its output start there).
    pub(crate) workdir: PathBuf,
    /// Writable beneath these (resolved).
    pub(crate) writable: Vec<PathBuf>,
    /// Not readable (resolved).
    pub(crate) deny_read: Vec<PathBuf>,
    /// Not writable though beneath a writable path (resolved).
    pub(crate) deny_write: Vec<PathBuf>,
    /// TCP refused (on every port, or all but some).
    pub(crate) network_off: bool,
}

/// The note for a failed sandboxed command's `output`, when it shows the sandbox refusing
/// something: each path refused (at most a few) or the network.
pub(crate) fn denial_note(output: &str, bounds: &Bounds) -> Option<String> {
    let refused: Vec<&str> = output
        .lines()
        .filter(|line| REFUSALS.iter().any(|word| line.contains(word)))
        .collect();
    if refused.is_empty() {
        return None;
    }
    let mut notes: Vec<String> = Vec::new();
    let mut paths_seen: Vec<PathBuf> = Vec::new();
    let mut network = false;
    let mut signal = false;
    for line in &refused {
        for candidate in path_candidates(line) {
            let path = bounds.workdir.join(&candidate);
            let resolved = resolve(&path);
            if paths_seen.contains(&resolved) || paths_seen.len() >= 3 {
                continue;
            }
            if let Some(denied) = bounds
                .deny_read
                .iter()
                .find(|denied| resolved.starts_with(denied))
            {
                paths_seen.push(resolved.clone());
                notes.push(format!(
                    "the sandbox refused reading `{candidate}`: `{}` is denied to commands (SandboxConfig::deny_read, from the policy's Read deny rules)",
                    denied.display()
                ));
            } else if let Some(denied) = bounds
                .deny_write
                .iter()
                .find(|denied| resolved.starts_with(denied))
            {
                paths_seen.push(resolved.clone());
                notes.push(format!(
                    "the sandbox refused writing `{candidate}`: `{}` is read-only to commands (SandboxConfig::deny_write, from the policy's Edit deny rules)",
                    denied.display()
                ));
            } else if !bounds
                .writable
                .iter()
                .any(|root| resolved.starts_with(root))
            {
                paths_seen.push(resolved.clone());
                notes.push(format!(
                    "the sandbox refused `{candidate}`: commands may write only beneath the workspace, $TMPDIR and SandboxConfig::writable; add the directory to SandboxConfig::writable to allow it, or write inside the workspace or $TMPDIR"
                ));
            }
        }
        if bounds.network_off && NETWORK_WORDS.iter().any(|word| line.contains(word)) {
            network = true;
        }
        signal |= line.contains("kill");
    }
    if signal {
        notes.push(
            "the sandbox lets a command signal only the processes it started itself; stop a background job with kill_shell"
                .to_owned(),
        );
    }
    if network {
        notes.push(
            "the sandbox has the network off (TCP connections and listening refused, loopback included, except on the ports of Network::Ports); set SandboxConfig::network to Network::Ports(vec![port]) or Network::All to allow it"
                .to_owned(),
        );
    }
    if notes.is_empty() {
        return Some(
            "the command ran in the sandbox and something was refused (`Permission denied`), at a path its output does not name: commands may write only beneath the workspace, $TMPDIR and SandboxConfig::writable, read everything but SandboxConfig::deny_read, and have the network only with Network::All"
                .to_owned(),
        );
    }
    Some(notes.join("; "))
}

/// The paths a line names: quoted (`'p'`, `"p"`, `` `p` ``, GNU's `‘p’` and `` `p' ``) or in
/// the field before the refusal (`bash: p: Permission denied`), and that look like paths (they
/// hold a `/`, or start with `.` or `~`).
fn path_candidates(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    // GNU tools quote with ‘…’ in a UTF-8 locale and `…' in the C locale.
    for (open, close) in [
        ('\'', '\''),
        ('"', '"'),
        ('`', '`'),
        ('`', '\''),
        ('‘', '’'),
    ] {
        let mut rest = line;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len_utf8()..];
            let Some(end) = after.find(close) else {
                break;
            };
            found.push(after[..end].to_owned());
            rest = &after[end + close.len_utf8()..];
        }
    }
    // `prog: [line N: ]PATH: Permission denied`: the path is the field just before the
    // refusal, never the first, which is the program that printed the line (bash prints its
    // own path there: `/usr/bin/bash: line 1: /x: Read-only file system`).
    let fields: Vec<&str> = line.split(": ").collect();
    if let Some(at) = fields
        .iter()
        .position(|field| REFUSALS.iter().any(|word| field.contains(word)))
        && at >= 2
    {
        let field = fields[at - 1].trim();
        found.push(field.to_owned());
        // dash: `/bin/sh: 1: cannot create /x: Permission denied`.
        if let Some((_, last)) = field.rsplit_once(' ') {
            found.push(last.to_owned());
        }
    }
    found.retain(|candidate| {
        !candidate.is_empty()
            && !candidate.contains(' ')
            && (candidate.contains('/') || candidate.starts_with('.') || candidate.starts_with('~'))
    });
    let home = std::env::var_os("HOME").map(PathBuf::from);
    found
        .into_iter()
        .map(|candidate| match (candidate.strip_prefix("~/"), &home) {
            (Some(rest), Some(home)) => home.join(rest).display().to_string(),
            _ => candidate,
        })
        .fold(Vec::new(), |mut unique, candidate| {
            if !unique.contains(&candidate) {
                unique.push(candidate);
            }
            unique
        })
}

/// `path` with `..` taken away and its nearest existing ancestor resolved (the refused file
/// itself usually does not exist).
pub(crate) fn resolve(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut existing = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                existing.pop();
            }
            Component::CurDir => {}
            other => existing.push(other),
        }
    }
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(&existing).is_err() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent.to_owned();
            }
            _ => break,
        }
    }
    let mut resolved = std::fs::canonicalize(&existing).unwrap_or(existing);
    for name in rest.into_iter().rev() {
        resolved.push(name);
    }
    resolved
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(writable: &[PathBuf], deny: &[PathBuf]) -> Bounds {
        Bounds {
            workdir: PathBuf::from("/work/project"),
            writable: writable.to_vec(),
            deny_read: deny.to_vec(),
            deny_write: Vec::new(),
            network_off: true,
        }
    }

    #[test]
    fn a_refused_write_outside_the_workspace_is_named_with_the_field_that_allows_it() {
        let writable = [PathBuf::from("/work/project")];
        let note = denial_note(
            "touch: cannot touch '/etc/passwd.new': Permission denied\n",
            &bounds(&writable, &[]),
        )
        .unwrap();
        assert!(note.contains("`/etc/passwd.new`"), "{note}");
        assert!(note.contains("SandboxConfig::writable"), "{note}");
    }

    #[test]
    fn a_read_only_file_system_outside_the_workspace_is_named_too() {
        let writable = [PathBuf::from("/work/project")];
        let note = denial_note(
            "chmod: changing permissions of '/etc/hostname': Read-only file system\n",
            &bounds(&writable, &[]),
        )
        .unwrap();
        assert!(note.contains("`/etc/hostname`"), "{note}");
        assert!(note.contains("SandboxConfig::writable"), "{note}");
    }

    #[test]
    fn paths_in_the_quotes_of_a_utf8_or_c_locale_are_recognised() {
        let writable = [PathBuf::from("/work/project")];
        for line in [
            "mkdir: cannot create directory ‘/etc/new’: Read-only file system\n",
            "mkdir: cannot create directory `/etc/new': Read-only file system\n",
        ] {
            let note = denial_note(line, &bounds(&writable, &[])).unwrap();
            assert!(note.contains("`/etc/new`"), "{line}: {note}");
        }
    }

    #[test]
    fn a_shell_redirection_refusal_is_recognised_by_its_colons() {
        let writable = [PathBuf::from("/work/project")];
        let note = denial_note(
            "bash: line 1: ../x: Permission denied\n",
            &bounds(&writable, &[]),
        )
        .unwrap();
        assert!(note.contains("`../x`"), "{note}");
    }

    /// Issue 26: bash starts its error lines with its own path, which the note named.
    #[test]
    fn the_note_names_the_refused_path_not_the_program_that_printed_it() {
        let writable = [PathBuf::from("/work/project")];
        for line in [
            "/usr/bin/bash: line 1: /etc/x: Read-only file system\n",
            "/bin/sh: 1: cannot create /etc/x: Permission denied\n",
            "./build.sh: line 3: /etc/x: Permission denied\n",
        ] {
            let note = denial_note(line, &bounds(&writable, &[])).unwrap();
            assert!(
                !note.contains("bash`") && !note.contains("/bin/sh`"),
                "{line}: {note}"
            );
            assert!(!note.contains("build.sh"), "{line}: {note}");
            assert!(note.contains("`/etc/x`"), "{line}: {note}");
        }
        let note = denial_note(
            "/usr/bin/bash: line 1: cannot write: Permission denied\n",
            &bounds(&writable, &[]),
        )
        .unwrap();
        assert!(note.contains("does not name"), "{note}");
    }

    #[test]
    fn a_refused_connection_says_the_network_is_off() {
        let note = denial_note(
            "curl: (7) Failed to connect to 127.0.0.1 port 8080: Permission denied\n",
            &bounds(&[], &[]),
        )
        .unwrap();
        assert!(note.contains("network off"), "{note}");
        assert!(note.contains("Network::All"), "{note}");
    }

    #[test]
    fn a_refused_kill_says_what_may_be_signalled() {
        let note = denial_note(
            "bash: line 1: kill: (4242) - Operation not permitted\n",
            &bounds(&[], &[]),
        )
        .unwrap();
        assert!(note.contains("kill_shell"), "{note}");
    }

    #[test]
    fn output_without_a_refusal_gets_no_note() {
        assert_eq!(
            denial_note("error: no such file\n", &bounds(&[], &[])),
            None
        );
    }
}
