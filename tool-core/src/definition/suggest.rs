//! "Did you mean …?": the closest names to a misspelled one (unknown tools, unknown arguments,
//! unknown selections) and the closest paths to a missing one (`Workspace::suggest`, which
//! walks the tree and scores each entry here).
//!
//! Names are compared case-insensitively with `_` and `-` ignored (so `ReadFile` finds
//! `read_file`), by Jaro-Winkler similarity, and a name that contains the other as a whole
//! `_`-separated part (`file_path` and `path`) counts as close. Paths are compared on their
//! file names (Jaro-Winkler) and whole (Damerau-Levenshtein, so a swapped or wrong directory
//! counts). Both rank alike ([`ranked`]): nothing under a threshold, and a clearly best match
//! stands alone. The module also owns how suggestions read in messages ([`DidYouMean`]).

use std::fmt;

/// The candidates close to `target`, best first, at most `limit` of them.
pub(crate) fn closest<'a>(
    target: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    limit: usize,
) -> Vec<&'a str> {
    let wanted = normalize(target);
    let scored = candidates
        .into_iter()
        .filter(|candidate| *candidate != target)
        .map(|candidate| (similarity(target, &wanted, candidate), candidate))
        .collect();
    ranked(scored, limit)
}

/// The candidates worth offering, best first, at most `limit`: none scoring under the
/// threshold, ties in name order, and a clearly best match alone (near-ties are all offered).
pub(crate) fn ranked<T: Ord>(mut scored: Vec<(f64, T)>, limit: usize) -> Vec<T> {
    const THRESHOLD: f64 = 0.8;
    const NEAR_TIE: f64 = 0.05;
    scored.retain(|(score, _)| *score >= THRESHOLD);
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    let best = scored.first().map_or(0.0, |(score, _)| *score);
    scored
        .into_iter()
        .take_while(|(score, _)| best - score <= NEAR_TIE)
        .take(limit)
        .map(|(_, candidate)| candidate)
        .collect()
}

/// How similar an existing root-relative path is to the wanted one (`/`-separated, lowercase
/// or not), from 0 to 1: the better of the whole paths' similarity and one that weighs the
/// file names twice (so `main.rs` finds `src/main.rs`).
pub(crate) fn path_similarity(wanted: &str, candidate: &str) -> f64 {
    let file_name = |path: &str| path.rsplit('/').next().unwrap_or(path).to_lowercase();
    let whole =
        strsim::normalized_damerau_levenshtein(&wanted.to_lowercase(), &candidate.to_lowercase());
    let name = strsim::jaro_winkler(&file_name(wanted), &file_name(candidate));
    whole.max((2.0 * name + whole) / 3.0)
}

fn normalize(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

fn similarity(target: &str, normalized_target: &str, candidate: &str) -> f64 {
    let normalized = normalize(candidate);
    if normalized == normalized_target {
        return 1.0;
    }
    let score = strsim::jaro_winkler(normalized_target, &normalized);
    if shares_whole_part(target, candidate) {
        score.max(0.85)
    } else {
        score
    }
}

/// `true` when one name is a `_`/`-`-separated part of the other, such as `path` in
/// `file_path`; parts shorter than three letters do not count.
fn shares_whole_part(a: &str, b: &str) -> bool {
    let parts = |name: &str| -> Vec<String> {
        name.split(['_', '-'])
            .filter(|part| part.len() >= 3)
            .map(str::to_ascii_lowercase)
            .collect()
    };
    let (a_parts, b_parts) = (parts(a), parts(b));
    let whole = |name: &str| name.to_ascii_lowercase();
    (a_parts.len() > 1 && a_parts.contains(&whole(b)))
        || (b_parts.len() > 1 && b_parts.contains(&whole(a)))
}

/// "; did you mean `X`?" for the one of `known` that `written` likely misspells (a key, a
/// name), else nothing: the tail of a message about a name that is none of `known`.
pub(crate) fn did_you_mean<'a>(written: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let meant: Vec<String> = closest(written, known, 1)
        .into_iter()
        .map(str::to_owned)
        .collect();
    DidYouMean(&meant).to_string()
}

/// The tail of an error message offering suggestions: nothing, "; did you mean `a`?" or
/// "; did you mean one of `a`, `b`?".
pub(crate) struct DidYouMean<'a>(pub(crate) &'a [String]);

impl fmt::Display for DidYouMean<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            [] => Ok(()),
            [only] => write!(f, "; did you mean `{only}`?"),
            many => write!(f, "; did you mean one of {}?", Backticked(many)),
        }
    }
}

/// Names in backticks, separated by commas: "`a`, `b`".
pub(crate) struct Backticked<'a>(pub(crate) &'a [String]);

impl fmt::Display for Backticked<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "`{name}`")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{DidYouMean, closest, path_similarity};

    #[test]
    fn suggestions_read_as_one_name_or_a_list() {
        let names = |list: &[&str]| {
            list.iter()
                .map(|name| (*name).to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(DidYouMean(&names(&[])).to_string(), "");
        assert_eq!(
            DidYouMean(&names(&["a"])).to_string(),
            "; did you mean `a`?"
        );
        assert_eq!(
            DidYouMean(&names(&["a", "b"])).to_string(),
            "; did you mean one of `a`, `b`?"
        );
    }

    #[test]
    fn a_longer_name_containing_an_allowed_one_finds_it() {
        assert_eq!(
            closest("file_path", ["path", "offset", "limit"], 3),
            ["path"]
        );
    }

    #[test]
    fn case_and_separators_are_ignored() {
        assert_eq!(
            closest("ReadFile", ["read_file", "write_file"], 3)[0],
            "read_file"
        );
    }

    #[test]
    fn a_typo_finds_the_name() {
        assert_eq!(
            closest("raed_file", ["read_file", "list_dir"], 3),
            ["read_file"]
        );
    }

    #[test]
    fn a_clearly_best_match_stands_alone() {
        assert_eq!(closest("set_on", ["set_one", "set_two"], 3), ["set_one"]);
    }

    #[test]
    fn near_ties_are_all_offered() {
        assert_eq!(
            closest("read", ["read_a", "read_b", "write"], 3),
            ["read_a", "read_b"]
        );
    }

    #[test]
    fn unrelated_names_are_not_suggested() {
        assert!(closest("deploy", ["read_file", "list_dir"], 3).is_empty());
    }

    #[test]
    fn a_transposed_file_name_is_a_close_path() {
        assert!(path_similarity("src/mian.rs", "src/main.rs") > 0.9);
    }

    #[test]
    fn the_same_file_name_in_another_directory_is_a_close_path() {
        assert!(path_similarity("main.rs", "src/main.rs") > 0.8);
    }

    #[test]
    fn another_file_in_the_same_directory_is_not_a_close_path() {
        assert!(path_similarity("src/mian.rs", "src/lib.rs") < 0.8);
    }
}
