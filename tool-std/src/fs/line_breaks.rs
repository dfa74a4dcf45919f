//! Line breaks kept line by line when a file with a mix of CRLF and LF is rewritten whole
//! (issue 28): every line the new text keeps from the old keeps its own break, a changed line
//! the break of the line it replaces, and an added line the break of the line before it.
//! Which lines are kept is a line diff
//! (Myers' algorithm over what is left once the common head and tail are set aside), so
//! inserting or deleting lines shifts nothing.

use super::LineEnding;

/// Diffs whose edit distance passes this give up on matching the middle: its lines then pair
/// up with the old middle's in order. A bound on time and memory (the trace grows with its square).
const MAX_EDIT_DISTANCE: usize = 1_000;

/// `new` (a model's text; `\n` or `\r\n` breaks) with the line breaks of `old`, the file's
/// text as it was, with its own breaks.
pub(crate) fn keep_line_breaks(old: &str, new: &str) -> String {
    let commonest = LineEnding::of(old).for_new_lines();
    let old: Vec<(&str, &str)> = old.split_inclusive('\n').map(split_break).collect();
    let new = new.replace("\r\n", "\n");
    let lines: Vec<(&str, bool)> = new
        .split_inclusive('\n')
        .map(|l| match l.strip_suffix('\n') {
            Some(content) => (content, true),
            None => (l, false),
        })
        .collect();
    let source = source_lines(
        &old.iter().map(|&(c, _)| c).collect::<Vec<_>>(),
        &lines.iter().map(|&(c, _)| c).collect::<Vec<_>>(),
    );
    let mut breaks: Vec<Option<&str>> = source
        .iter()
        .map(|k| k.map(|i| old[i].1).filter(|b| !b.is_empty()))
        .collect();
    // A line with no break of its own takes the one before it, at the top the one after.
    let mut previous = None;
    for b in &mut breaks {
        match b {
            Some(found) => previous = Some(*found),
            None => *b = previous,
        }
    }
    let first = breaks.iter().flatten().next().copied().unwrap_or(commonest);
    let mut out = String::with_capacity(new.len() + new.len() / 8);
    for (&(content, broken), b) in lines.iter().zip(breaks) {
        out.push_str(content);
        if broken {
            out.push_str(b.unwrap_or(first));
        }
    }
    out
}

/// A line's text and its break (`"\r\n"`, `"\n"`, or `""` for a last line without one).
fn split_break(line: &str) -> (&str, &str) {
    if let Some(content) = line.strip_suffix("\r\n") {
        (content, "\r\n")
    } else if let Some(content) = line.strip_suffix('\n') {
        (content, "\n")
    } else {
        (line, "")
    }
}

/// For each line of `new`, the line of `old` it keeps (by a shortest line diff) or replaces
/// (the lines between two kept ones pair up in order, as an edit of those lines would).
fn source_lines(old: &[&str], new: &[&str]) -> Vec<Option<usize>> {
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (a, b) = (&old[head..old.len() - tail], &new[head..new.len() - tail]);
    let kept = (0..head)
        .map(|i| (i, i))
        .chain(myers(a, b).into_iter().map(|(x, y)| (head + x, head + y)))
        .chain(
            (0..tail)
                .rev()
                .map(|j| (old.len() - 1 - j, new.len() - 1 - j)),
        )
        .chain([(old.len(), new.len())]);
    let mut source = vec![None; new.len()];
    let (mut x, mut y) = (0, 0);
    for (kx, ky) in kept {
        for (i, slot) in source[y..ky].iter_mut().enumerate() {
            *slot = (x + i < kx).then_some(x + i);
        }
        if ky < new.len() {
            source[ky] = Some(kx);
        }
        (x, y) = (kx + 1, ky + 1);
    }
    source
}

/// The matched pairs `(index in a, index in b)` of a shortest edit script from `a` to `b`, or
/// none when it is longer than [`MAX_EDIT_DISTANCE`].
fn myers(a: &[&str], b: &[&str]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    if n == 0 || m == 0 {
        return Vec::new();
    }
    let limit = (n + m).min(MAX_EDIT_DISTANCE as isize);
    // `v[k]` is the furthest x reached on diagonal k = x - y; `trace[d]` is `v` before round
    // d, kept for diagonals -d..=d so the path can be walked back.
    let offset = limit + 1;
    let mut v = vec![0isize; 2 * offset as usize + 1];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    let at = |k: isize| (k + offset) as usize;
    for d in 0..=limit {
        trace.push(v[at(-d)..=at(d)].to_vec());
        for k in (-d..=d).step_by(2) {
            let mut x = if k == -d || (k != d && v[at(k - 1)] < v[at(k + 1)]) {
                v[at(k + 1)]
            } else {
                v[at(k - 1)] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[at(k)] = x;
            if x >= n && y >= m {
                return walk_back(&trace, n, m);
            }
        }
    }
    Vec::new()
}

/// The diagonal moves (kept lines) of the path the forward rounds in `trace` found.
fn walk_back(trace: &[Vec<isize>], n: isize, m: isize) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    let (mut x, mut y) = (n, m);
    for (d, v) in trace.iter().enumerate().rev() {
        let d = d as isize;
        let get = |k: isize| v[(k + d) as usize];
        let k = x - y;
        let prev_k = if k == -d || (k != d && get(k - 1) < get(k + 1)) {
            k + 1
        } else {
            k - 1
        };
        let prev_x = if d == 0 { 0 } else { get(prev_k) };
        let prev_y = if d == 0 { 0 } else { prev_x - prev_k };
        while x > prev_x && y > prev_y {
            x -= 1;
            y -= 1;
            pairs.push((x as usize, y as usize));
        }
        x = prev_x;
        y = prev_y;
    }
    pairs.reverse();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_untouched_lf_line_among_crlf_lines_keeps_lf() {
        // Issue 28: three CRLF lines and one LF line, one CRLF line changed.
        let old = "one\r\ntwo\r\nthree\nfour\r\n";
        let new = "one\nTWO\nthree\nfour\n";
        assert_eq!(keep_line_breaks(old, new), "one\r\nTWO\r\nthree\nfour\r\n");
    }

    #[test]
    fn a_changed_line_keeps_the_break_of_the_line_it_replaces() {
        let old = "a\nb\r\nc\n";
        assert_eq!(keep_line_breaks(old, "a\nB\nc\n"), "a\nB\r\nc\n");
        let old = "a\r\nb\nc\r\n";
        assert_eq!(keep_line_breaks(old, "a\nB\nc\n"), "a\r\nB\nc\r\n");
        // Two lines for one: the first replaces it, the second is added after it.
        assert_eq!(
            keep_line_breaks(old, "a\nB1\nB2\nc\n"),
            "a\r\nB1\nB2\nc\r\n"
        );
    }

    #[test]
    fn inserted_and_deleted_lines_shift_nothing() {
        let old = "a\r\nb\nc\r\nd\ne\r\n";
        // Insert after b, delete d.
        assert_eq!(
            keep_line_breaks(old, "a\nb\nnew\nc\ne\n"),
            "a\r\nb\nnew\nc\r\ne\r\n"
        );
        // Insert at the top: the line after gives the break.
        assert_eq!(
            keep_line_breaks(old, "top\na\nb\nc\nd\ne\n"),
            "top\r\na\r\nb\nc\r\nd\ne\r\n"
        );
    }

    #[test]
    fn the_last_line_keeps_having_or_lacking_a_break_as_sent() {
        let old = "a\r\nb\nc";
        assert_eq!(keep_line_breaks(old, "a\nb\nc"), "a\r\nb\nc");
        assert_eq!(keep_line_breaks(old, "a\nb\nc\nd"), "a\r\nb\nc\nd");
        assert_eq!(keep_line_breaks(old, "a\nb\nc\n"), "a\r\nb\nc\n");
    }

    #[test]
    fn crlf_sent_by_the_model_counts_as_a_line_break() {
        let old = "a\r\nb\nc\r\n";
        assert_eq!(keep_line_breaks(old, "a\r\nb\r\nc\r\n"), old);
    }

    #[test]
    fn moved_and_repeated_lines_are_matched_by_a_shortest_diff() {
        let old = "x\r\ny\nx\r\ny\nz\r\n";
        let new = "y\nx\ny\nz\nx\n";
        // Kept: y(1) x(2) y(3) z(4); the new x at the end follows z.
        assert_eq!(keep_line_breaks(old, new), "y\nx\r\ny\nz\r\nx\r\n");
    }

    #[test]
    fn myers_finds_a_longest_common_subsequence() {
        let a = ["a", "b", "c", "a", "b", "b", "a"];
        let b = ["c", "b", "a", "b", "a", "c"];
        let pairs = myers(&a, &b);
        assert_eq!(pairs.len(), 4, "{pairs:?}");
        assert!(pairs.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
        assert!(pairs.iter().all(|&(x, y)| a[x] == b[y]));
    }

    #[test]
    fn a_rewrite_past_the_diff_bound_pairs_lines_in_order() {
        let old: String = (0..5000)
            .map(|i| format!("{i}{}", if i % 3 == 0 { "\n" } else { "\r\n" }))
            .collect();
        let new: String = (0..5000).map(|i| format!("n{i}\n")).collect();
        let want: String = (0..5000)
            .map(|i| format!("n{i}{}", if i % 3 == 0 { "\n" } else { "\r\n" }))
            .collect();
        assert_eq!(keep_line_breaks(&old, &new), want);
    }
}
