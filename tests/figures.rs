//! The figures hold their provenance (issue 31, item 5): BENCHMARKS.md and the README's figures
//! are written by `benches/record.py` from one record, so every figure in BENCHMARKS.md names
//! the commit, date and machine of its run, and every figure the README shows is the one
//! BENCHMARKS.md has, from the same run. A figure edited by hand in either fails here.

use std::path::Path;

fn read(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).unwrap()
}

/// The cells of a Markdown table row, trimmed.
fn cells(row: &str) -> Vec<String> {
    row.trim()
        .trim_matches('|')
        .split(" | ")
        .map(|cell| cell.trim().to_owned())
        .collect()
}

/// The rows of the README's table between its `figures` markers, header and rule left out.
fn readme_figures() -> Vec<Vec<String>> {
    let readme = read("README.md");
    let inside = readme
        .split("<!-- figures:begin -->\n")
        .nth(1)
        .and_then(|rest| rest.split("<!-- figures:end -->").next())
        .expect("README.md marks its figures with <!-- figures:begin --> and <!-- figures:end -->");
    inside
        .lines()
        .skip(2)
        .filter(|line| line.starts_with('|'))
        .map(cells)
        .collect()
}

#[test]
fn the_readme_shows_figures_only_as_benchmarks_md_has_them() {
    let benchmarks = read("BENCHMARKS.md");
    let headlines: Vec<Vec<String>> = benchmarks
        .lines()
        .filter(|line| line.starts_with("| [") && line.contains("](#"))
        .map(cells)
        .collect();
    let rows = readme_figures();
    assert!(!rows.is_empty(), "the README shows no figure");
    for row in rows {
        let [what, figure, run, _command] = row.as_slice() else {
            panic!("a README figure row has four cells: {row:?}");
        };
        let commit = run.split(", ").next().unwrap();
        let found = headlines.iter().any(|headline| {
            headline[0].ends_with(&format!(": {what}"))
                && headline[1] == *figure
                && headline[3].starts_with(commit)
        });
        assert!(
            found,
            "the README's `{what}: {figure}` ({run}) is not in BENCHMARKS.md's table; run benches/record.py --render"
        );
    }
}

#[test]
fn every_recorded_figure_names_its_commit_date_and_machine() {
    let benchmarks = read("BENCHMARKS.md");
    let sections: Vec<&str> = benchmarks.split("\n## ").skip(1).collect();
    assert!(sections.len() >= 20, "{} sections", sections.len());
    for section in sections {
        let name = section.lines().next().unwrap();
        if section.contains("\nNot yet recorded.") {
            continue;
        }
        let provenance = section
            .lines()
            .find(|line| line.starts_with("Run at "))
            .unwrap_or_else(|| panic!("`{name}` has figures without the run they came from"));
        assert!(
            provenance.contains(" UTC")
                && provenance.contains(" cores")
                && provenance.contains("rustc"),
            "`{name}`: {provenance}"
        );
    }
}
