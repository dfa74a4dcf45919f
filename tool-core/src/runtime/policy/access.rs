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
        let index = set.first_match(&candidate, self.home.as_deref())?;
        Some(rules[index].0.clone())
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
