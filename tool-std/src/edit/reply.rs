//! What the edit tools answer (`edit_file`, `multi_edit`, `hashline_edit`): what changed, how
//! it was found when not exactly, the numbered lines around it now, and a note when the file
//! had changed on disk since the session read it. One place, so the three tools say it alike.

use super::{Applied, MatchLevel, snippet};

/// The reply, with a note when the file had changed on disk since this session read it.
pub(crate) fn with_staleness(mut reply: String, shown: &str, stale: bool) -> String {
    if stale {
        let at = reply.find('\n').unwrap_or(reply.len());
        reply.insert_str(
            at,
            &format!(" `{shown}` had changed on disk since this session read it; the edit was made to it as it is now."),
        );
    }
    reply
}

/// The reply of an edit: what changed, how it was found when not exactly, the lines around it.
pub(crate) fn report(shown: &str, edits: &[Applied]) -> String {
    let mut text = String::new();
    let replacements: usize = edits.iter().map(|applied| applied.replacements).sum();
    text.push_str(&format!(
        "Edited `{shown}`: {replacements} replacement{}",
        if replacements == 1 { "" } else { "s" }
    ));
    let loose: Vec<&str> = edits
        .iter()
        .filter(|applied| applied.level != MatchLevel::Exact)
        .map(|applied| applied.level.describe())
        .collect();
    if !loose.is_empty() {
        text.push_str(&format!(" ({})", loose.join("; ")));
    }
    text.push('.');
    let Some(last) = edits.last() else {
        return text;
    };
    let regions = regions_now(edits);
    let named: Vec<String> = regions
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    let word = match regions.as_slice() {
        [(a, b)] if a == b => "Line",
        _ => "Lines",
    };
    text.push_str(&format!("\n{word} {} now:\n", named.join(", ")));
    let shown: Vec<String> = regions
        .iter()
        .map(|&region| snippet(&last.text, region, 3))
        .collect();
    text.push_str(&shown.join("     ⋮\n"));
    text
}

/// Where the lines each edit made are in the final text, in order, those that meet or overlap
/// merged: an edit's span is carried through the edits after it, each of which moves the lines
/// after its own region by the lines it added or removed (and takes in a span it overlaps).
fn regions_now(edits: &[Applied]) -> Vec<(usize, usize)> {
    let line_breaks = |text: &str| text.bytes().filter(|&b| b == b'\n').count();
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(edits.len());
    for (index, applied) in edits.iter().enumerate() {
        if let Some(before) = index.checked_sub(1).map(|i| &edits[i]) {
            let added =
                line_breaks(&applied.text).cast_signed() - line_breaks(&before.text).cast_signed();
            let (start, end) = applied.span;
            // The last line of this edit's region as it was before the edit.
            let old_end = end.cast_signed() - added;
            for span in &mut spans {
                if span.1 < start {
                    continue;
                }
                if span.0.cast_signed() > old_end {
                    *span = (
                        (span.0.cast_signed() + added).max(1).cast_unsigned(),
                        (span.1.cast_signed() + added).max(1).cast_unsigned(),
                    );
                } else {
                    *span = (
                        span.0.min(start),
                        (span.1.cast_signed() + added)
                            .max(end.cast_signed())
                            .cast_unsigned(),
                    );
                }
            }
        }
        spans.push(applied.span);
    }
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (start, end) in spans {
        match merged.last_mut() {
            // Within the context shown around each: one region.
            Some(last) if start <= last.1 + 7 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}
