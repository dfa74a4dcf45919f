//! Which calls of a batch may run together: each call's footprint (what it reads or writes,
//! from its effect and resource arguments) and the calls it must wait for.
//!
//! Two calls conflict when at least one of them changes something and their footprints meet:
//! they name the same path, or one path contains the other, or one of them has no known
//! footprint (a mutating call without path or URL arguments, or one running a command, could
//! touch anything). A call waits for every earlier call it conflicts with, so conflicting calls
//! run in the order the model sent them; everything else runs in parallel. Read-only calls never
//! wait for each other.

use std::path::{Path, PathBuf};

use crate::definition::spec::ResourceKind;
use crate::definition::tool::Resource;
use crate::definition::workspace::ResolvedPath;

/// What one call may touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Footprint {
    read_only: bool,
    /// `None` when unknown: the call may touch anything.
    scope: Option<Vec<Target>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Path(PathBuf),
    Url(String),
}

impl Footprint {
    /// The footprint of a call from its effect, resources and resolved paths (preferred over
    /// the raw values, so `./a.txt` and `a.txt` are the same file).
    pub(crate) fn of(read_only: bool, resources: &[Resource], paths: &[ResolvedPath]) -> Self {
        let mut targets = Vec::new();
        for resource in resources {
            match resource.kind {
                // A command can do anything; it has no footprint we can know.
                ResourceKind::Command if !read_only => {
                    return Footprint {
                        read_only,
                        scope: None,
                    };
                }
                ResourceKind::Command => {}
                ResourceKind::Url => targets.push(Target::Url(resource.value.clone())),
                ResourceKind::Path if paths.is_empty() => {
                    targets.push(Target::Path(lexical(Path::new(&resource.value))));
                }
                ResourceKind::Path => {}
            }
        }
        targets.extend(paths.iter().map(|p| Target::Path(p.absolute.clone())));
        Footprint {
            read_only,
            scope: (!targets.is_empty()).then_some(targets),
        }
    }

    /// A footprint that conflicts with nothing (a call that failed before it could run).
    pub(crate) fn none() -> Self {
        Footprint {
            read_only: true,
            scope: Some(Vec::new()),
        }
    }

    fn conflicts_with(&self, other: &Footprint) -> bool {
        if self.read_only && other.read_only {
            return false;
        }
        match (&self.scope, &other.scope) {
            (None, _) | (_, None) => true,
            (Some(mine), Some(theirs)) => {
                mine.iter().any(|a| theirs.iter().any(|b| overlaps(a, b)))
            }
        }
    }
}

fn overlaps(a: &Target, b: &Target) -> bool {
    match (a, b) {
        (Target::Path(a), Target::Path(b)) => a.starts_with(b) || b.starts_with(a),
        (Target::Url(a), Target::Url(b)) => a == b,
        _ => false,
    }
}

/// `a/./b/../c` as `a/c`, without touching the file system.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// For each call, the earlier calls it must wait for.
pub(crate) fn dependencies(footprints: &[Footprint]) -> Vec<Vec<usize>> {
    footprints
        .iter()
        .enumerate()
        .map(|(i, call)| {
            (0..i)
                .filter(|&earlier| footprints[earlier].conflicts_with(call))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    fn path(value: &str) -> Resource {
        Resource {
            arg: Cow::Borrowed("path"),
            kind: ResourceKind::Path,
            value: value.to_owned(),
        }
    }

    fn command(value: &str) -> Resource {
        Resource {
            arg: Cow::Borrowed("command"),
            kind: ResourceKind::Command,
            value: value.to_owned(),
        }
    }

    fn read(resources: &[Resource]) -> Footprint {
        Footprint::of(true, resources, &[])
    }

    fn write(resources: &[Resource]) -> Footprint {
        Footprint::of(false, resources, &[])
    }

    const NONE: Vec<usize> = Vec::new();

    #[test]
    fn reads_never_wait() {
        let calls = [read(&[path("a")]), read(&[]), read(&[path("a")])];
        assert_eq!(dependencies(&calls), [NONE; 3]);
    }

    #[test]
    fn writes_to_distinct_paths_run_together() {
        let calls = [write(&[path("a.txt")]), write(&[path("b.txt")])];
        assert_eq!(dependencies(&calls), [NONE; 2]);
    }

    #[test]
    fn writes_to_the_same_path_wait_in_order_however_spelled() {
        let calls = [
            write(&[path("src/a.rs")]),
            write(&[path("./src/x/../a.rs")]),
            read(&[path("src/a.rs")]),
        ];
        assert_eq!(dependencies(&calls), [vec![], vec![0], vec![0, 1]]);
    }

    #[test]
    fn a_write_inside_a_directory_conflicts_with_reading_the_directory() {
        let calls = [read(&[path("src")]), write(&[path("src/a.rs")])];
        assert_eq!(dependencies(&calls), [vec![], vec![0]]);
    }

    #[test]
    fn a_write_without_resources_waits_for_everything_before_it() {
        let calls = [
            read(&[path("a")]),
            write(&[path("b")]),
            write(&[]),
            read(&[path("c")]),
        ];
        assert_eq!(dependencies(&calls), [vec![], vec![], vec![0, 1], vec![2]]);
    }

    #[test]
    fn a_mutating_command_has_no_known_footprint() {
        let calls = [read(&[path("a")]), write(&[command("make")])];
        assert_eq!(dependencies(&calls), [vec![], vec![0]]);
    }
}
