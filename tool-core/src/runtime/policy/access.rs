//! The policy's path rules as the workspace's handles apply them at the I/O
//! ([`AccessRules`]): `Read(..)` deny rules for every read, `Edit(..)` deny rules and the
//! protected paths for every write, whichever tool reaches the path and however (a walk, a
//! nested call, a link). The coordinator gives them to its workspace when it is built.
//!
//! Only deny rules: an ask rule needs a user, and the I/O layer has none to ask; the policy
//! asks about the paths a call names before it runs.

use std::path::PathBuf;
use std::sync::Arc;

use crate::definition::workspace::{Access, AccessPath, AccessRules};

use super::paths::{PathCandidate, PathPattern, PathPatternSet};

/// The path deny rules of a [`Policy`](super::Policy), as the workspace's handles apply them.
/// [`Policy::access_rules`](super::Policy::access_rules) makes one.
///
/// ```
/// use tool_core::Workspace;
/// use tool_core::policy::Policy;
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::create_dir(dir.path().join("secrets")).unwrap();
/// std::fs::write(dir.path().join("secrets/key.txt"), "hunter2").unwrap();
/// let policy = Policy::builder().deny("Read(./secrets/**)").build().unwrap();
/// let ws = Workspace::new(dir.path()).unwrap().with_access_rules(policy.access_rules());
///
/// let error = ws.read_to_string("secrets/key.txt").unwrap_err();
/// assert!(error.to_string().contains("`Read(./secrets/**)`"), "{error}");
/// ```
#[derive(Debug, Clone)]
pub struct PolicyAccessRules {
    /// The rules (as written) and the pattern of each, for reading and for writing.
    read: Vec<(String, PathPattern)>,
    write: Vec<(String, PathPattern)>,
    /// How many of `write` are the user's `Edit(..)` rules; the rest are protected paths.
    user_writes: usize,
    read_set: PathPatternSet,
    write_set: PathPatternSet,
    home: Option<PathBuf>,
}

impl PolicyAccessRules {
    /// Rules from `(rule as written, its pattern)` lists; `protected` patterns deny writes only
    /// and are named as protected paths.
    pub(super) fn new(
        read: Vec<(String, PathPattern)>,
        edit: Vec<(String, PathPattern)>,
        protected: &[PathPattern],
        home: Option<PathBuf>,
    ) -> Self {
        let user_writes = edit.len();
        let mut write = edit;
        write.extend(protected.iter().map(|pattern| {
            (
                format!("protected path {}", pattern.as_str()),
                pattern.clone(),
            )
        }));
        let set = |rules: &[(String, PathPattern)]| {
            PathPatternSet::new(rules.iter().enumerate().map(|(index, (_, p))| (index, p)))
        };
        PolicyAccessRules {
            read_set: set(&read),
            write_set: set(&write),
            read,
            write,
            user_writes,
            home,
        }
    }

    fn rules(&self, access: Access) -> (&[(String, PathPattern)], &PathPatternSet) {
        match access {
            Access::Read => (&self.read, &self.read_set),
            Access::Write => (&self.write, &self.write_set),
        }
    }
}

impl AccessRules for PolicyAccessRules {
    fn denying_rule(&self, access: Access, path: AccessPath<'_>) -> Option<String> {
        let (rules, set) = self.rules(access);
        let candidate = PathCandidate {
            relative: path.relative,
            absolute: Some(path.absolute),
        };
        if let Some(index) = set.first_match(&candidate, self.home.as_deref()) {
            return Some(rules[index].0.clone());
        }
        if access == Access::Write
            && let Some(relative) = path.relative
        {
            return in_git_directory(path.absolute, relative);
        }
        None
    }

    fn governs(&self, access: Access) -> bool {
        !self.rules(access).0.is_empty()
    }

    fn denied_paths(&self, access: Access) -> Vec<PathBuf> {
        let rules = match access {
            Access::Read => &self.read[..],
            // Protected paths (`.git`) stay writable to commands: `git commit` writes there.
            Access::Write => &self.write[..self.user_writes],
        };
        rules
            .iter()
            .filter_map(|(_, pattern)| pattern.concrete_path(self.home.as_deref()))
            .collect()
    }
}

/// A git directory under another name is protected like `.git`: git runs what its `config`
/// names (`core.fsmonitor`, hooks), and `git --git-dir=gd status` would read one a tool wrote.
/// `path` (absolute, `relative` to its root) is in one when a directory on its way inside the
/// workspace holds both `HEAD` and `config`, or when it is one of the two and the other is
/// beside it.
fn in_git_directory(absolute: &std::path::Path, relative: &std::path::Path) -> Option<String> {
    let is_git_directory =
        |dir: &std::path::Path| dir.join("HEAD").exists() && dir.join("config").exists();
    let named = absolute.file_name().and_then(|name| name.to_str());
    let sibling = match named {
        Some("HEAD") => Some("config"),
        Some("config") => Some("HEAD"),
        _ => None,
    };
    let parent = absolute.parent()?;
    let protected = sibling.is_some_and(|other| parent.join(other).exists())
        || absolute
            .ancestors()
            .skip(1)
            .take(relative.components().count())
            .any(is_git_directory);
    protected.then(|| "protected path: a git directory (it holds HEAD and config)".to_owned())
}

/// Two sets of rules applied together: a path either denies is denied.
#[derive(Debug)]
pub(crate) struct BothRules(
    pub(crate) Arc<dyn AccessRules>,
    pub(crate) Arc<dyn AccessRules>,
);

impl AccessRules for BothRules {
    fn denying_rule(&self, access: Access, path: AccessPath<'_>) -> Option<String> {
        self.0
            .denying_rule(access, path)
            .or_else(|| self.1.denying_rule(access, path))
    }

    fn governs(&self, access: Access) -> bool {
        self.0.governs(access) || self.1.governs(access)
    }

    fn denied_paths(&self, access: Access) -> Vec<PathBuf> {
        let mut paths = self.0.denied_paths(access);
        paths.extend(self.1.denied_paths(access));
        paths
    }
}

#[cfg(test)]
mod tests {
    use std::io::ErrorKind;
    use std::path::Path;

    use crate::Workspace;
    use crate::definition::workspace::{Access, AccessDenied, AccessRules};
    use crate::runtime::policy::Policy;

    /// A workspace with `secrets/key.txt` and `src/lib.rs`, under `policy`'s access rules.
    fn workspace(policy: &Policy) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("secrets")).unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("secrets/key.txt"), "hunter2").unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "fn f() {}").unwrap();
        let ws = Workspace::new(dir.path())
            .unwrap()
            .with_access_rules(policy.access_rules());
        (dir, ws)
    }

    fn denied(error: &std::io::Error) -> &AccessDenied {
        assert_eq!(error.kind(), ErrorKind::PermissionDenied, "{error}");
        error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<AccessDenied>())
            .unwrap_or_else(|| panic!("not a rule's denial: {error:?}"))
    }

    #[test]
    fn a_read_rule_refuses_every_reading_handle_and_names_itself() {
        let policy = Policy::builder()
            .deny("Read(./secrets/**)")
            .build()
            .unwrap();
        let (_dir, ws) = workspace(&policy);
        let errors = [
            ws.open("secrets/key.txt").unwrap_err(),
            ws.read_to_string("secrets/key.txt").unwrap_err(),
            ws.metadata("secrets/key.txt").unwrap_err(),
            ws.open_entry("secrets/key.txt").unwrap_err(),
            ws.entry_metadata("secrets/key.txt").unwrap_err(),
            // Moving it away would read it elsewhere.
            ws.rename("secrets/key.txt", "moved.txt").unwrap_err(),
        ];
        for error in &errors {
            let denial = denied(error);
            assert_eq!(
                (denial.access, denial.rule.as_str()),
                (Access::Read, "Read(./secrets/**)")
            );
        }
        assert_eq!(ws.read_to_string("src/lib.rs").unwrap(), "fn f() {}");
    }

    /// `lnk/../key.txt` reads as `key.txt` lexically, but the kernel follows `lnk` (into
    /// `secrets/sub`) and then climbs to `secrets/key.txt`.
    #[cfg(unix)]
    #[test]
    fn a_path_the_kernel_follows_into_a_denied_folder_is_refused_however_it_is_spelt() {
        let policy = Policy::builder()
            .deny("Read(./secrets/**)")
            .build()
            .unwrap();
        let (dir, ws) = workspace(&policy);
        std::fs::create_dir(dir.path().join("secrets/sub")).unwrap();
        std::os::unix::fs::symlink("secrets/sub", dir.path().join("lnk")).unwrap();
        for path in [
            "lnk/../key.txt",
            "./secrets/../secrets/key.txt",
            "src/../secrets//key.txt",
        ] {
            let error = ws.read_to_string(path).unwrap_err();
            assert_eq!(denied(&error).rule, "Read(./secrets/**)", "{path}");
        }
        assert_eq!(ws.read_to_string("src/../src/lib.rs").unwrap(), "fn f() {}");
    }

    #[test]
    fn a_walk_of_a_folder_a_rule_covers_whole_is_refused_but_not_of_one_it_covers_in_part() {
        let whole = Policy::builder()
            .deny("Read(./secrets/**)")
            .build()
            .unwrap();
        let (_dir, ws) = workspace(&whole);
        assert!(ws.check_walk(Path::new("secrets")).is_err());
        assert!(ws.check_walk(Path::new(".")).is_ok());
        let part = Policy::builder()
            .deny("Read(./secrets/*.pem)")
            .build()
            .unwrap();
        let (_dir, ws) = workspace(&part);
        assert!(ws.check_walk(Path::new("secrets")).is_ok());
        assert!(
            ws.check_access(Access::Read, Path::new("secrets/a.pem"))
                .is_err()
        );
    }

    #[test]
    fn an_edit_rule_and_a_protected_path_refuse_every_writing_handle() {
        let policy = Policy::builder().deny("Edit(./src/**)").build().unwrap();
        let (dir, ws) = workspace(&policy);
        let errors = [
            ws.write("src/lib.rs", "pwned").unwrap_err(),
            ws.create("src/new.rs").unwrap_err(),
            ws.create_dir_all("src/deeper").unwrap_err(),
            ws.remove_file("src/lib.rs").unwrap_err(),
            ws.rename("src/lib.rs", "lib.rs").unwrap_err(),
            ws.rename("secrets/key.txt", "src/key.txt").unwrap_err(),
        ];
        for error in &errors {
            assert_eq!(denied(error).access, Access::Write);
        }
        let error = ws.write(".git/config", "[core]").unwrap_err();
        assert_eq!(denied(&error).rule, "protected path .git");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
            "fn f() {}"
        );
        assert!(!dir.path().join("src/new.rs").exists());
        assert!(!dir.path().join(".git").exists());
    }

    #[test]
    fn the_sandbox_gets_the_concrete_paths_only_and_never_the_protected_ones() {
        let policy = Policy::builder()
            .deny("Read(./secrets/**)")
            .deny("Read(*.pem)")
            .deny("Edit(//etc/hosts)")
            .build()
            .unwrap();
        let rules = policy.access_rules();
        assert_eq!(rules.denied_paths(Access::Read), [Path::new("secrets")]);
        assert_eq!(rules.denied_paths(Access::Write), [Path::new("/etc/hosts")]);
    }

    #[test]
    fn a_git_directory_under_another_name_is_protected_like_git() {
        let (dir, ws) = workspace(&Policy::default());
        ws.write("gd/HEAD", "ref: refs/heads/main\n").unwrap();
        let error = ws
            .write("gd/config", "[core]\n\tfsmonitor = rm -rf ~\n")
            .unwrap_err();
        assert_eq!(
            denied(&error).rule,
            "protected path: a git directory (it holds HEAD and config)"
        );
        assert!(!dir.path().join("gd/config").exists());
        // The other way round, and anything inside one.
        std::fs::create_dir_all(dir.path().join("other")).unwrap();
        std::fs::write(dir.path().join("other/config"), "").unwrap();
        assert!(ws.write("other/HEAD", "x").is_err());
        std::fs::write(dir.path().join("other/HEAD"), "x").unwrap();
        assert!(ws.write("other/hooks/pre-commit", "x").is_err());
        // A file named `config` elsewhere is just a file.
        ws.write("src/config", "x").unwrap();
    }

    #[test]
    fn a_policy_without_path_rules_governs_writes_only_through_its_protected_paths() {
        let rules = Policy::default().access_rules();
        assert!(!rules.governs(Access::Read));
        assert!(rules.governs(Access::Write));
        assert!(rules.denied_paths(Access::Write).is_empty());
    }
}
