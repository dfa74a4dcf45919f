//! `~` and environment variables in a model's path: what a shell would have made of them.
//!
//! Expansion is an interpretation, not a repair: `~/notes.md` means the home directory even
//! when that is outside the workspace, and the boundary then says so. A variable that is not
//! set is never replaced by nothing (that would turn `$DATA/x` into `/x`); the path is then not
//! expanded at all.

use std::path::{Path, PathBuf};

/// A path with `~` and `$VAR` / `${VAR}` replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Expanded {
    /// The expanded text.
    pub(super) path: String,
    /// `true` when a leading `~` was replaced.
    pub(super) home: bool,
    /// The variables replaced, in order of appearance, without `$`.
    pub(super) variables: Vec<String>,
}

/// The user's home directory, when there is one.
pub(super) fn home_dir() -> Option<PathBuf> {
    std::env::home_dir().filter(|home| !home.as_os_str().is_empty())
}

/// Replaces a leading `~` (alone or followed by `/`) with the home directory. `None` when the
/// path does not start with one, or there is no home directory to put there.
pub(crate) fn expand_home(path: &str) -> Option<PathBuf> {
    expand_home_with(path, home_dir().as_deref())
}

fn expand_home_with(path: &str, home: Option<&Path>) -> Option<PathBuf> {
    let rest = tilde_rest(path)?;
    Some(home?.join(rest))
}

/// `true` when `path` starts with a `~` that means the home directory (`~` or `~/...`).
pub(super) fn expands_home(path: &str) -> bool {
    tilde_rest(path).is_some()
}

/// What follows a leading `~` or `~/`; `None` for any other path (`~user` is not expanded).
fn tilde_rest(path: &str) -> Option<&str> {
    match path.strip_prefix('~')? {
        "" => Some(""),
        rest => rest.strip_prefix('/'),
    }
}

/// Expands `~` and environment variables with the process's environment. `None` when there is
/// nothing to expand or something cannot be (an unset variable, no home directory).
pub(super) fn expand(path: &str) -> Option<Expanded> {
    expand_with(path, home_dir().as_deref(), |name| std::env::var(name).ok())
}

fn expand_with(
    path: &str,
    home: Option<&Path>,
    var: impl Fn(&str) -> Option<String>,
) -> Option<Expanded> {
    let (text, home_used) = match tilde_rest(path) {
        Some(rest) => {
            let home = home?.to_str()?;
            let joined = if rest.is_empty() {
                home.to_owned()
            } else {
                format!("{}/{rest}", home.trim_end_matches('/'))
            };
            (joined, true)
        }
        None => (path.to_owned(), false),
    };
    let (text, variables) = expand_variables(&text, var)?;
    (home_used || !variables.is_empty()).then_some(Expanded {
        path: text,
        home: home_used,
        variables,
    })
}

/// Replaces `$NAME` and `${NAME}` (a name is a letter or `_`, then letters, digits and `_`).
/// A `$` not followed by a name stays as it is.
pub(crate) fn expand_variables(
    text: &str,
    var: impl Fn(&str) -> Option<String>,
) -> Option<(String, Vec<String>)> {
    let mut out = String::with_capacity(text.len());
    let mut variables = Vec::new();
    let mut rest = text;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        let (name, consumed) = if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) if is_variable_name(&braced[..end]) => (&braced[..end], end + 2),
                _ => ("", 0),
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let name = &after[..end];
            if is_variable_name(name) {
                (name, end)
            } else {
                ("", 0)
            }
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        out.push_str(&var(name)?);
        variables.push(name.to_owned());
        rest = &after[consumed..];
    }
    out.push_str(rest);
    Some((out, variables))
}

fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{Expanded, expand_home_with, expand_with};

    fn vars(name: &str) -> Option<String> {
        match name {
            "DATA" => Some("/srv/data".to_owned()),
            "USER_2" => Some("ana".to_owned()),
            _ => None,
        }
    }

    fn expanded(path: &str) -> Option<Expanded> {
        expand_with(path, Some(Path::new("/home/ana")), vars)
    }

    #[test]
    fn a_leading_tilde_is_the_home_directory() {
        let result = expanded("~/notes/a.md").unwrap();
        assert_eq!(result.path, "/home/ana/notes/a.md");
        assert!(result.home);
        assert_eq!(expanded("~").unwrap().path, "/home/ana");
    }

    #[test]
    fn a_tilde_elsewhere_or_before_a_user_name_is_text() {
        assert_eq!(expanded("a/~/b"), None);
        assert_eq!(expanded("~bob/x"), None);
    }

    #[test]
    fn without_a_home_directory_tilde_is_not_expanded() {
        assert_eq!(expand_with("~/x", None, vars), None);
        assert_eq!(expand_home_with("~/x", None), None);
    }

    #[test]
    fn plain_and_braced_variables_are_replaced() {
        let result = expanded("$DATA/${USER_2}/x").unwrap();
        assert_eq!(result.path, "/srv/data/ana/x");
        assert_eq!(result.variables, ["DATA", "USER_2"]);
        assert!(!result.home);
    }

    #[test]
    fn an_unset_variable_leaves_the_path_unexpanded() {
        assert_eq!(expanded("$NOPE/x"), None);
        assert_eq!(expanded("$DATA/$NOPE"), None);
    }

    #[test]
    fn a_dollar_without_a_name_is_text() {
        assert_eq!(expanded("price$/a$1/${}/b"), None);
        assert_eq!(expanded("a$/$DATA").unwrap().path, "a$//srv/data");
    }
}
