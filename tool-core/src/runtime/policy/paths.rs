//! Gitignore-style path patterns, as Claude Code's `Read(..)` and `Edit(..)` rules write them,
//! and their matching against resolved paths.
//!
//! | Pattern           | Matches                                                         |
//! |-------------------|-----------------------------------------------------------------|
//! | `//etc/hosts`     | the absolute path `/etc/hosts`                                  |
//! | `~/.ssh/**`       | inside `.ssh` in the home directory                             |
//! | `/src/**`, `./src/**`, `src/**` | inside `src` at the workspace root                |
//! | `*.env`, `.git`   | (no slash) a name at any depth                                  |
//!
//! A pattern that matches a directory covers everything inside it: a path matches when it or
//! one of its ancestors matches. Globs follow `globset` with `literal_separator`: `*` stays
//! within one path component, `**` crosses them. Patterns compile once, when the policy is
//! built; a whole list compiles into one [`globset::GlobSet`] so a path is tested against every
//! pattern of a list in one pass.

use std::path::Path;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// What a pattern is relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    /// The workspace root (a path's `relative` form).
    Workspace,
    /// The file-system root.
    Absolute,
    /// The home directory the policy was built with.
    Home,
}

const ANCHORS: [Anchor; 3] = [Anchor::Workspace, Anchor::Absolute, Anchor::Home];

/// One path pattern, compiled.
///
/// ```
/// use std::path::Path;
/// use tool_core::policy::{PathCandidate, PathPattern};
///
/// let secrets = PathPattern::parse("./secrets/**").unwrap();
/// assert!(secrets.matches(&PathCandidate::relative(Path::new("secrets/api/key")), None));
/// assert!(!secrets.matches(&PathCandidate::relative(Path::new("src/secrets/key")), None));
///
/// let env = PathPattern::parse(".env").unwrap();
/// assert!(env.matches(&PathCandidate::relative(Path::new("deploy/.env")), None));
/// ```
#[derive(Debug, Clone)]
pub struct PathPattern {
    text: String,
    anchor: Anchor,
    glob: String,
    /// The glob and `glob/**`: a path matches when it or an ancestor matches the glob.
    matcher: GlobSet,
}

impl PathPattern {
    /// Parses a pattern.
    ///
    /// # Errors
    /// When the pattern is empty or is not a valid glob (an unclosed `[` or `{`, say).
    pub fn parse(text: &str) -> Result<Self, PathPatternError> {
        let written = text.trim();
        if written.is_empty() {
            return Err(PathPatternError::Empty);
        }
        let (anchor, rest) = if let Some(rest) = written.strip_prefix("//") {
            (Anchor::Absolute, format!("/{rest}"))
        } else if written == "~" {
            (Anchor::Home, String::new())
        } else if let Some(rest) = written.strip_prefix("~/") {
            (Anchor::Home, rest.to_owned())
        } else if let Some(rest) = written.strip_prefix("./") {
            (Anchor::Workspace, rest.to_owned())
        } else if let Some(rest) = written.strip_prefix('/') {
            (Anchor::Workspace, rest.to_owned())
        } else if written.trim_end_matches('/').contains('/') {
            (Anchor::Workspace, written.to_owned())
        } else {
            // Gitignore: a pattern without a slash (a trailing one aside) matches at any depth.
            (Anchor::Workspace, format!("**/{written}"))
        };
        let trimmed = rest.trim_end_matches('/');
        let glob = match (anchor, trimmed) {
            (Anchor::Absolute, "") => "/**".to_owned(),
            (_, "" | ".") => "**".to_owned(),
            (_, glob) => glob.to_owned(),
        };
        let pair = glob_pair(&glob).map_err(|error| PathPatternError::InvalidGlob {
            message: error.kind().to_string(),
        })?;
        let mut builder = GlobSetBuilder::new();
        builder.add(pair.0).add(pair.1);
        let matcher = builder
            .build()
            .map_err(|error| PathPatternError::InvalidGlob {
                message: error.kind().to_string(),
            })?;
        Ok(PathPattern {
            text: written.to_owned(),
            anchor,
            glob,
            matcher,
        })
    }

    /// The pattern as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The one path this pattern names, when it names one (a file, or a directory with
    /// everything inside): no wildcard but a trailing `/**`, and anchored (`./x`, `/x`, `a/b`,
    /// `//abs`, `~/x`). Relative to the workspace root unless absolute; `None` for `~/` without
    /// a home, and for a name matched at any depth (`.env`).
    ///
    /// ```
    /// use std::path::{Path, PathBuf};
    /// use tool_core::policy::PathPattern;
    ///
    /// let concrete = |text: &str| PathPattern::parse(text).unwrap().concrete_path(Some(Path::new("/home/ada")));
    /// assert_eq!(concrete("./secrets/**"), Some(PathBuf::from("secrets")));
    /// assert_eq!(concrete("//etc/shadow"), Some(PathBuf::from("/etc/shadow")));
    /// assert_eq!(concrete("~/.ssh/**"), Some(PathBuf::from("/home/ada/.ssh")));
    /// assert_eq!(concrete("*.pem"), None);
    /// assert_eq!(concrete(".env"), None);
    /// ```
    #[must_use]
    pub fn concrete_path(&self, home: Option<&Path>) -> Option<std::path::PathBuf> {
        let glob = self.glob.strip_suffix("/**").unwrap_or(&self.glob);
        if glob.is_empty() || glob.contains(['*', '?', '[', ']', '{', '}', '\\']) {
            return None;
        }
        match self.anchor {
            Anchor::Workspace => Some(glob.into()),
            Anchor::Absolute => Some(glob.into()),
            Anchor::Home => Some(home?.join(glob)),
        }
    }

    /// `true` when the path, or a directory containing it, matches. `home` anchors `~/`
    /// patterns; without it they match nothing.
    #[must_use]
    pub fn matches(&self, path: &PathCandidate<'_>, home: Option<&Path>) -> bool {
        path.form(self.anchor, home)
            .is_some_and(|form| self.matcher.is_match(form))
    }
}

/// Why a path pattern could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathPatternError {
    /// Nothing was written.
    #[error("the path pattern is empty")]
    Empty,
    /// The glob does not compile.
    #[error("the path pattern is not a valid glob: {message}")]
    InvalidGlob {
        /// What the glob compiler said.
        message: String,
    },
}

fn glob_pair(glob: &str) -> Result<(Glob, Glob), globset::Error> {
    let build = |text: &str| {
        GlobBuilder::new(text)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
    };
    let inside = if glob.ends_with('/') {
        format!("{glob}**")
    } else {
        format!("{glob}/**")
    };
    Ok((build(glob)?, build(&inside)?))
}

/// A path as the patterns see it: relative to the workspace root that contains it, and
/// absolute. Either may be missing (a path outside the workspace has no relative form; a raw
/// path argument without a workspace may have no absolute form).
///
/// ```
/// use std::path::Path;
/// use tool_core::policy::{PathCandidate, PathPattern};
///
/// let hosts = PathPattern::parse("//etc/hosts").unwrap();
/// assert!(hosts.matches(&PathCandidate::lexical("/etc/hosts"), None));
///
/// let src = PathPattern::parse("src/**").unwrap();
/// assert!(src.matches(&PathCandidate::lexical("./src/main.rs"), None));
/// assert!(!src.matches(&PathCandidate::lexical("/etc/hosts"), None));
///
/// // A path known both ways, as the coordinator resolves one.
/// let both = PathCandidate {
///     relative: Some(Path::new("src/main.rs")),
///     absolute: Some(Path::new("/work/app/src/main.rs")),
/// };
/// assert!(src.matches(&both, None));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct PathCandidate<'a> {
    /// Relative to the containing workspace root.
    pub relative: Option<&'a Path>,
    /// Absolute.
    pub absolute: Option<&'a Path>,
}

impl<'a> PathCandidate<'a> {
    /// A path known only relative to the workspace root.
    #[must_use]
    pub fn relative(path: &'a Path) -> Self {
        PathCandidate {
            relative: Some(path),
            absolute: None,
        }
    }

    /// A path known only as an absolute path.
    #[must_use]
    pub fn absolute(path: &'a Path) -> Self {
        PathCandidate {
            relative: None,
            absolute: Some(path),
        }
    }

    /// A raw path argument, without a workspace to resolve it: read lexically, as relative to
    /// the root unless it is absolute.
    #[must_use]
    pub fn lexical(raw: &'a str) -> Self {
        let path = Path::new(raw);
        if path.is_absolute() {
            PathCandidate::absolute(path)
        } else {
            let mut relative = raw;
            while let Some(rest) = relative.strip_prefix("./") {
                relative = rest;
            }
            PathCandidate::relative(Path::new(relative))
        }
    }

    fn form(&self, anchor: Anchor, home: Option<&Path>) -> Option<&'a Path> {
        match anchor {
            Anchor::Workspace => self.relative,
            Anchor::Absolute => self.absolute,
            Anchor::Home => self.absolute?.strip_prefix(home?).ok(),
        }
    }
}

/// Many patterns, each owned by an index (a rule's position), tested together.
#[derive(Debug, Clone, Default)]
pub(crate) struct PathPatternSet {
    /// One set per anchor; `owners[a][glob index / 2]` is the owner of a glob.
    sets: Vec<(Anchor, GlobSet, Vec<usize>)>,
    /// The patterns one by one, when the combined sets could not be built.
    fallback: Vec<(usize, PathPattern)>,
}

impl PathPatternSet {
    pub(crate) fn new<'p>(patterns: impl IntoIterator<Item = (usize, &'p PathPattern)>) -> Self {
        let patterns: Vec<(usize, &PathPattern)> = patterns.into_iter().collect();
        let mut sets = Vec::new();
        for anchor in ANCHORS {
            let mut builder = GlobSetBuilder::new();
            let mut owners = Vec::new();
            for &(owner, pattern) in patterns.iter().filter(|(_, p)| p.anchor == anchor) {
                // Each glob compiled once already, in `PathPattern::parse`.
                let Ok((glob, inside)) = glob_pair(&pattern.glob) else {
                    continue;
                };
                builder.add(glob).add(inside);
                owners.push(owner);
            }
            if owners.is_empty() {
                continue;
            }
            match builder.build() {
                Ok(set) => sets.push((anchor, set, owners)),
                Err(_) => {
                    // Too large to combine: test these patterns one by one instead.
                    return PathPatternSet {
                        sets: Vec::new(),
                        fallback: patterns
                            .iter()
                            .map(|&(owner, pattern)| (owner, pattern.clone()))
                            .collect(),
                    };
                }
            }
        }
        PathPatternSet {
            sets,
            fallback: Vec::new(),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.sets.is_empty() && self.fallback.is_empty()
    }

    /// The smallest owner of a pattern that matches the path.
    pub(crate) fn first_match(
        &self,
        path: &PathCandidate<'_>,
        home: Option<&Path>,
    ) -> Option<usize> {
        let mut first: Option<usize> = None;
        for (anchor, set, owners) in &self.sets {
            let Some(form) = path.form(*anchor, home) else {
                continue;
            };
            // The cheap test first: most paths match nothing.
            if !set.is_match(form) {
                continue;
            }
            if let Some(owner) = set
                .matches(form)
                .into_iter()
                .map(|glob| owners[glob / 2])
                .min()
            {
                first = Some(first.map_or(owner, |current| current.min(owner)));
            }
        }
        for (owner, pattern) in &self.fallback {
            if first.is_none_or(|current| *owner < current) && pattern.matches(path, home) {
                first = Some(*owner);
            }
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches_relative(pattern: &str, path: &str) -> bool {
        PathPattern::parse(pattern)
            .unwrap()
            .matches(&PathCandidate::relative(Path::new(path)), None)
    }

    #[test]
    fn a_pattern_without_a_slash_matches_at_any_depth() {
        assert!(matches_relative("*.env", "prod.env"));
        assert!(matches_relative("*.env", "deploy/prod.env"));
        assert!(matches_relative(".env", "a/b/.env"));
        assert!(!matches_relative(".env", "a/b/.envrc"));
    }

    #[test]
    fn a_pattern_with_a_slash_is_anchored_at_the_workspace_root() {
        for pattern in ["src/**", "./src/**", "/src/**", "src/lib.rs"] {
            assert!(matches_relative(pattern, "src/lib.rs"), "{pattern}");
            assert!(!matches_relative(pattern, "vendor/src/lib.rs"), "{pattern}");
        }
        assert!(matches_relative("src/*.rs", "src/lib.rs"));
        assert!(matches_relative("src/", "vendor/src/lib.rs"));
    }

    #[test]
    fn a_single_star_stays_within_one_component() {
        assert!(!matches_relative("src/*.rs", "src/nested/lib.rs"));
        assert!(matches_relative("src/**/*.rs", "src/nested/lib.rs"));
    }

    #[test]
    fn a_matching_directory_covers_everything_inside_it() {
        assert!(matches_relative(".git", ".git/config"));
        assert!(matches_relative(".git", "sub/.git/objects/ab/cd"));
        assert!(matches_relative("secrets", "secrets/a/b"));
        assert!(!matches_relative(".git", ".github/workflows/ci.yml"));
    }

    #[test]
    fn absolute_patterns_match_absolute_paths() {
        let hosts = PathPattern::parse("//etc/hosts").unwrap();
        assert!(hosts.matches(&PathCandidate::absolute(Path::new("/etc/hosts")), None));
        assert!(!hosts.matches(&PathCandidate::relative(Path::new("etc/hosts")), None));
    }

    #[test]
    fn home_patterns_match_under_the_given_home() {
        let ssh = PathPattern::parse("~/.ssh/**").unwrap();
        let key = PathCandidate::absolute(Path::new("/home/ada/.ssh/id_ed25519"));
        assert!(ssh.matches(&key, Some(Path::new("/home/ada"))));
        assert!(!ssh.matches(&key, Some(Path::new("/home/bob"))));
        assert!(!ssh.matches(&key, None));
    }

    #[test]
    fn lexical_candidates_strip_dot_slash() {
        let pattern = PathPattern::parse("secrets/**").unwrap();
        assert!(pattern.matches(&PathCandidate::lexical("./secrets/key"), None));
    }

    #[test]
    fn invalid_globs_and_empty_patterns_are_errors() {
        assert!(matches!(
            PathPattern::parse("src/[oops"),
            Err(PathPatternError::InvalidGlob { .. })
        ));
        assert_eq!(
            PathPattern::parse("  ").unwrap_err(),
            PathPatternError::Empty
        );
    }

    #[test]
    fn a_set_reports_the_first_owner_that_matches() {
        let a = PathPattern::parse("*.rs").unwrap();
        let b = PathPattern::parse("src/**").unwrap();
        let c = PathPattern::parse("//tmp/**").unwrap();
        let set = PathPatternSet::new([(7, &a), (3, &b), (9, &c)]);
        let lib = PathCandidate {
            relative: Some(Path::new("src/lib.rs")),
            absolute: Some(Path::new("/work/src/lib.rs")),
        };
        assert_eq!(set.first_match(&lib, None), Some(3));
        assert_eq!(
            set.first_match(&PathCandidate::relative(Path::new("x.rs")), None),
            Some(7)
        );
        assert_eq!(
            set.first_match(&PathCandidate::absolute(Path::new("/tmp/x")), None),
            Some(9)
        );
        assert_eq!(
            set.first_match(&PathCandidate::relative(Path::new("x.md")), None),
            None
        );
    }
}
