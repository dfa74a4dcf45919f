//! Re-indenting the new text when the block was found at another indentation than the model
//! wrote. The model's indentation maps onto the file's level by level, not column by column:
//! a model writing 2-space steps into a file of 4-space steps gets 4-space steps (issue 28),
//! and a file indented with tabs keeps tabs (claude-code#9163, "edits fail on tabs").
//!
//! How a model step maps onto a file step is learnt from the matched block first (its lines
//! at several depths show the ratio), then from each side's indent unit, the most common step
//! between neighbouring lines. Where neither tells and `new_string` nests deeper or shallower
//! than its first line, the edit is refused rather than guessed.

use super::normalize::indentation;

/// Columns a tab counts for. Any fixed width works: a tab-indented side then simply has a
/// unit of this many columns, and the file's tabs are written back as tabs.
const TAB_COLUMNS: usize = 4;

/// One side's indent step in columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    /// The most common step between neighbouring lines.
    Known(usize),
    /// No line steps in or out by two columns or more: there is no convention to follow.
    Unknown,
    /// Two steps are equally common, so neither can be called the unit.
    Unclear,
}

impl Unit {
    /// The unit of `runs`, each a sequence of neighbouring lines. Steps of one column are left
    /// out: they are alignment (` * ` under `/**`), not indentation.
    pub fn of<'a, R>(runs: impl IntoIterator<Item = R>) -> Unit
    where
        R: IntoIterator<Item = &'a str>,
    {
        let mut counts: Vec<(usize, usize)> = Vec::new();
        for run in runs {
            let mut previous: Option<usize> = None;
            for line in run.into_iter().filter(|l| !l.trim().is_empty()) {
                let width = columns(indentation(line));
                if let Some(p) = previous {
                    let step = width.abs_diff(p);
                    if step >= 2 {
                        match counts.iter_mut().find(|(s, _)| *s == step) {
                            Some((_, n)) => *n += 1,
                            None => counts.push((step, 1)),
                        }
                    }
                }
                previous = Some(width);
            }
        }
        let Some(most) = counts.iter().map(|&(_, n)| n).max() else {
            return Unit::Unknown;
        };
        let mut commonest = counts.iter().filter(|&&(_, n)| n == most);
        match (commonest.next(), commonest.next()) {
            (Some(&(step, _)), None) => Unit::Known(step),
            _ => Unit::Unclear,
        }
    }
}

/// How the model's indentation maps onto the file's for one matched block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Shift {
    /// Columns of the block's first non-blank line as the model wrote it.
    model_base: usize,
    /// The same line's columns in the file.
    file_base: usize,
    /// Model and file columns of every other non-blank line of the block.
    pairs: Vec<(usize, usize)>,
    /// The file's indent unit.
    file_unit: Unit,
    /// The file indents this block with tabs.
    file_tabs: bool,
}

/// `new_string` nests its lines, but nothing shows how the model's steps map onto the file's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnclearIndent {
    /// The file's indent unit in columns, when it has one.
    pub file_unit: Option<usize>,
    /// The model's, likewise.
    pub model_unit: Option<usize>,
}

/// How many columns of the file one step of the model's indentation becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Scale {
    model: usize,
    file: usize,
}

impl Shift {
    /// Whether the block's first non-blank line sits at another indentation in the file than
    /// the model wrote, so the new text must be re-indented.
    pub fn needed(file_lines: &[&str], model_lines: &[String]) -> bool {
        model_lines
            .iter()
            .position(|l| !l.trim().is_empty())
            .is_some_and(|first| indentation(&model_lines[first]) != indentation(file_lines[first]))
    }

    /// `file_lines` are the matched lines of the file, `model_lines` the model's; `file_unit`
    /// is asked only when a shift is needed. `None` when the first non-blank lines already
    /// agree, so the new text goes in as written.
    pub fn between(
        file_lines: &[&str],
        model_lines: &[String],
        file_unit: impl FnOnce() -> Unit,
    ) -> Option<Shift> {
        if !Shift::needed(file_lines, model_lines) {
            return None;
        }
        let mut pairs = model_lines
            .iter()
            .zip(file_lines)
            .filter(|(m, _)| !m.trim().is_empty())
            .map(|(m, f)| (columns(indentation(m)), columns(indentation(f))));
        let (model_base, file_base) = pairs.next()?;
        let file = indentation(file_lines[model_lines.iter().position(|l| !l.trim().is_empty())?]);
        let file_tabs = if file.is_empty() {
            file_lines.iter().any(|l| l.starts_with('\t'))
        } else {
            file.contains('\t')
        };
        Some(Shift {
            model_base,
            file_base,
            pairs: pairs.collect(),
            // A file indented with tabs steps by one tab, whatever its continuation lines do.
            file_unit: if file_tabs {
                Unit::Known(TAB_COLUMNS)
            } else {
                file_unit()
            },
            file_tabs,
        })
    }

    /// Re-indents `new` (line ends already `\n`). `old_lines` are the model's `old_string`,
    /// which with `new` shows the model's indent unit.
    pub fn apply(&self, new: &str, old_lines: &[String]) -> Result<String, UnclearIndent> {
        let model_unit = Unit::of([
            old_lines.iter().map(String::as_str).collect::<Vec<_>>(),
            new.split('\n').collect(),
        ]);
        let scale = match self.scale(model_unit) {
            Ok(scale) => scale,
            // Lines all at the first line's depth need no scale: the shift alone places them.
            Err(_) if self.all_at_base(new) => Scale { model: 1, file: 1 },
            Err(unclear) => return Err(unclear),
        };
        let lines: Vec<String> = new
            .split('\n')
            .map(|line| {
                if line.trim().is_empty() {
                    return line.to_owned();
                }
                let indent = indentation(line);
                let cols = self.place(columns(indent), scale);
                let prefix = if self.file_tabs {
                    "\t".repeat(cols / TAB_COLUMNS) + &" ".repeat(cols % TAB_COLUMNS)
                } else {
                    " ".repeat(cols)
                };
                prefix + &line[indent.len()..]
            })
            .collect();
        Ok(lines.join("\n"))
    }

    /// The scale the block itself shows (its deeper lines sit at a consistent ratio in the
    /// file), else the ratio of the two sides' units.
    fn scale(&self, model_unit: Unit) -> Result<Scale, UnclearIndent> {
        let units = match (model_unit, self.file_unit) {
            (Unit::Known(model), Unit::Known(file)) => Some(Scale { model, file }),
            _ => None,
        };
        if let Some(shown) = self.shown_scale() {
            // The same ratio in the units' own terms keeps alignment remainders as they were.
            return Ok(match units {
                Some(u) if u.file * shown.model == shown.file * u.model => u,
                _ => shown,
            });
        }
        match (model_unit, self.file_unit) {
            (Unit::Known(model), Unit::Known(file)) => Ok(Scale { model, file }),
            // A side with no steps of its own has no convention to convert from or to.
            (Unit::Unknown, _) | (_, Unit::Unknown) => Ok(Scale { model: 1, file: 1 }),
            _ => Err(UnclearIndent {
                file_unit: known(self.file_unit),
                model_unit: known(model_unit),
            }),
        }
    }

    /// The ratio the block's deeper (or shallower) lines show, when every such line agrees on
    /// one positive ratio.
    fn shown_scale(&self) -> Option<Scale> {
        let rel = |(m, f): (usize, usize)| {
            (
                m as i64 - self.model_base as i64,
                f as i64 - self.file_base as i64,
            )
        };
        let mut moved = self.pairs.iter().map(|&p| rel(p)).filter(|&(m, _)| m != 0);
        let (m0, f0) = moved.next()?;
        if f0 == 0 || (m0 > 0) != (f0 > 0) {
            return None;
        }
        if !moved.all(|(m, f)| m * f0 == f * m0) {
            return None;
        }
        let (m0, f0) = (m0.unsigned_abs() as usize, f0.unsigned_abs() as usize);
        let g = gcd(m0, f0);
        Some(Scale {
            model: m0 / g,
            file: f0 / g,
        })
    }

    fn all_at_base(&self, new: &str) -> bool {
        let first = new
            .split('\n')
            .find(|l| !l.trim().is_empty())
            .map(|l| columns(indentation(l)));
        new.split('\n')
            .filter(|l| !l.trim().is_empty())
            .all(|l| Some(columns(indentation(l))) == first)
            && first == Some(self.model_base)
    }

    /// The file column for a line the model indented `cols` columns: whole model steps become
    /// file steps, a remainder (alignment) stays as written. Never left of column 0.
    fn place(&self, cols: usize, scale: Scale) -> usize {
        let rel = cols as i64 - self.model_base as i64;
        let steps = rel.div_euclid(scale.model as i64);
        let rest = rel.rem_euclid(scale.model as i64);
        (self.file_base as i64 + steps * scale.file as i64 + rest).max(0) as usize
    }
}

fn known(unit: Unit) -> Option<usize> {
    match unit {
        Unit::Known(n) => Some(n),
        _ => None,
    }
}

/// Width of an indentation in columns, a tab counting [`TAB_COLUMNS`].
fn columns(indent: &str) -> usize {
    indent
        .chars()
        .map(|c| if c == '\t' { TAB_COLUMNS } else { 1 })
        .sum()
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}
