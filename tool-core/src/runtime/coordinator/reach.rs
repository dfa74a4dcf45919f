//! What a command's write at a directory reaches beneath it: `rm -rf .` removes `.git` as
//! surely as `rm -rf .git` does, so a rule that keeps `.git` (a protected path, an `Edit(..)`
//! deny rule) must hold against a write at any of its ancestors that reaches it.
//!
//! The shell analysis says what a write changes beneath its target ([`Beneath`]); this looks
//! beneath the target on disk, at the moment the call is decided, for an entry that the
//! workspace's write rules deny and that the write reaches, and names it as one more path the
//! call writes. The policy then refuses the call as it refuses a write at that entry itself,
//! with the same rule and message.
//!
//! The look is bounded ([`MAX_ENTRIES`]), breadth first, so the entries nearest the target
//! (a repository's own `.git`) are seen first; symlinks are not followed, as `rm -r`,
//! `find` without `-L` and `chmod -R` do not follow them. What lies past the bound is left to
//! the kernel sandbox of `run_shell`, which keeps the protected entries at the workspace roots
//! read-only.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use crate::definition::workspace::{Access, AccessPath, ResolvedPath, Workspace};
use crate::runtime::policy::shell::Beneath;

/// How many entries beneath one target are looked at: enough for a large source tree at
/// about a tenth of a second; past it, deeper entries are the sandbox's to hold.
pub(super) const MAX_ENTRIES: usize = 100_000;

/// What the pattern `sent` (a write's target with unquoted glob or brace characters) matches
/// now, as the shell will expand it, each spelt as the call would have spelt it: `.git/*` gives
/// `.git/config`, `.git/HEAD`, ...; `.*` gives `.git`, `.env`; `.gi?/config` gives
/// `.git/config`. Each part is matched in the folders the parts before it matched (followed,
/// as the shell follows them); a name starting with `.` matches only a part starting with
/// `.`, as in bash. The pattern itself is given too, for what it names when nothing matches.
/// Past [`MAX_ENTRIES`] entries read, the pattern alone: the kernel sandbox holds the rest.
pub(super) fn pattern_matches(workspace: &Workspace, sent: &str) -> Vec<String> {
    let alone = || vec![sent.to_owned()];
    // The matches so far, as spelt: "" is the workspace root, "/" the file system's.
    let mut spelt = vec![if sent.starts_with('/') {
        "/".to_owned()
    } else {
        String::new()
    }];
    let mut read = 0;
    for part in sent.split('/').filter(|part| !part.is_empty()) {
        let join = |prefix: &str, name: &str| match prefix {
            "" => name.to_owned(),
            "/" => format!("/{name}"),
            prefix => format!("{prefix}/{name}"),
        };
        if !crate::runtime::policy::shell::has_unquoted_pattern(part) {
            spelt = spelt.iter().map(|prefix| join(prefix, part)).collect();
            continue;
        }
        let Ok(glob) = globset::GlobBuilder::new(part)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
        else {
            return alone();
        };
        let matcher = glob.compile_matcher();
        let mut next = Vec::new();
        for prefix in &spelt {
            let Ok(entries) = std::fs::read_dir(workspace.root().join(prefix)) else {
                continue;
            };
            for entry in entries.flatten() {
                read += 1;
                if read > MAX_ENTRIES {
                    return alone();
                }
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                if (part.starts_with('.') || !name.starts_with('.')) && matcher.is_match(name) {
                    next.push(join(prefix, name));
                }
            }
        }
        spelt = next;
    }
    spelt.push(sent.to_owned());
    spelt
}

/// The first entry beneath `target` (which the call sent as `sent`) that a write rule of the
/// workspace denies and that a write reaching `beneath` changes, resolved as a path of the
/// call's argument `arg`; `None` when there is none, or nothing to look at (no rule about
/// writes, a target outside the workspace or not a directory).
pub(super) fn denied_beneath(
    workspace: &Workspace,
    arg: Cow<'static, str>,
    sent: &str,
    target: &ResolvedPath,
    beneath: &Beneath,
) -> Option<ResolvedPath> {
    if matches!(beneath, Beneath::Nothing) {
        return None;
    }
    let rules = workspace.access_rules()?;
    if !rules.governs(Access::Write) {
        return None;
    }
    // Outside every root, the boundary refuses the write already.
    let relative = target.relative.as_deref()?;
    if !std::fs::symlink_metadata(&target.absolute).is_ok_and(|meta| meta.is_dir()) {
        return None;
    }
    // Each directory to read: absolute, relative to its root, beneath the target, its depth,
    // and whether a rule denies it (so everything in it is denied too).
    let mut queue: VecDeque<(PathBuf, PathBuf, PathBuf, usize, bool)> = VecDeque::new();
    queue.push_back((
        target.absolute.clone(),
        relative.to_owned(),
        PathBuf::new(),
        0,
        false,
    ));
    let mut seen = 0;
    while let Some((absolute, relative, below, depth, denied_dir)) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&absolute) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_ENTRIES {
                return None;
            }
            let name = entry.file_name();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let letter = if kind.is_dir() {
                'd'
            } else if kind.is_symlink() {
                'l'
            } else if kind.is_file() {
                'f'
            } else {
                // A FIFO, socket or device: find's letters for them do not matter here.
                'p'
            };
            let (entry_absolute, entry_relative, entry_below) = (
                absolute.join(&name),
                relative.join(&name),
                below.join(&name),
            );
            let denied = denied_dir
                || rules
                    .denying_rule(
                        Access::Write,
                        AccessPath {
                            relative: Some(&entry_relative),
                            absolute: &entry_absolute,
                        },
                    )
                    .is_some();
            let reached = match beneath {
                Beneath::Selected(selection) => {
                    selection.selects(&name.to_string_lossy(), letter, depth + 1)
                }
                _ => true,
            };
            if denied && reached {
                return Some(workspace.confine(arg, &shown(sent, &entry_below)));
            }
            let deeper = match beneath {
                Beneath::Selected(selection) => {
                    selection.max_depth.is_none_or(|max| depth + 1 < max)
                }
                _ => true,
            };
            if letter == 'd' && deeper {
                queue.push_back((
                    entry_absolute,
                    entry_relative,
                    entry_below,
                    depth + 1,
                    denied,
                ));
            }
        }
    }
    None
}

/// The entry as the call would have named it: beneath the target as sent (`./.git` for `.`).
fn shown(sent: &str, below: &Path) -> String {
    format!("{}/{}", sent.trim_end_matches('/'), below.to_string_lossy())
}
