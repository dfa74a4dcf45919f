//! `glob` and `list_dir`: walked as ripgrep walks (`.gitignore` and hidden files respected,
//! symbolic links never followed), with what they leave out said rather than hidden.

use std::time::{Duration, SystemTime};

use serde_json::json;

mod common;
use common::ok;

/// The shared fixture over `glob` and `list_dir`, whose files have ages.
struct Fixture(common::Fixture);

impl std::ops::Deref for Fixture {
    type Target = common::Fixture;

    fn deref(&self) -> &common::Fixture {
        &self.0
    }
}

impl Fixture {
    fn new() -> Self {
        Fixture(common::Fixture::new(&["glob", "list_dir"]))
    }

    /// A file, modified `age` seconds ago.
    fn file(&self, name: &str, age: u64) {
        self.0.file(name, name.as_bytes());
        let time = SystemTime::now() - Duration::from_secs(age);
        std::fs::File::options()
            .write(true)
            .open(self.root.join(name))
            .unwrap()
            .set_modified(time)
            .unwrap();
    }
}

#[test]
fn glob_finds_files_newest_first_relative_to_the_root() {
    let fx = Fixture::new();
    fx.file("src/old.rs", 300);
    fx.file("src/new.rs", 10);
    fx.file("src/deep/mid.rs", 100);
    fx.file("README.md", 5);
    assert_eq!(
        ok(&fx.call("glob", json!({"pattern": "**/*.rs"}))),
        "src/new.rs\nsrc/deep/mid.rs\nsrc/old.rs"
    );
    assert_eq!(
        ok(&fx.call("glob", json!({"pattern": "*.rs", "path": "src"}))),
        "src/new.rs\nsrc/old.rs"
    );
}

#[test]
fn glob_respects_gitignore_and_hidden_files_unless_named() {
    let fx = Fixture::new();
    fx.file(".gitignore", 50);
    std::fs::write(fx.dir.path().join(".gitignore"), "target/\n*.log\n").unwrap();
    fx.file("target/build.rs", 10);
    fx.file("app.log", 10);
    fx.file("src/main.rs", 10);
    fx.file(".github/workflows/ci.yml", 10);
    assert_eq!(
        ok(&fx.call("glob", json!({"pattern": "**/*"}))),
        "src/main.rs"
    );
    assert_eq!(
        ok(&fx.call("glob", json!({"pattern": ".github/**/*.yml"}))),
        ".github/workflows/ci.yml"
    );
    // An exact path is found even when ignored (opencode#31994).
    assert_eq!(
        ok(&fx.call("glob", json!({"pattern": "app.log"}))),
        "app.log"
    );
    let none = ok(&fx.call("glob", json!({"pattern": "**/*.py"})));
    assert!(
        none.contains("no file matches") && none.contains(".gitignore"),
        "{none}"
    );
}

#[test]
fn glob_pages_without_gaps_or_repeats() {
    let fx = Fixture::new();
    for i in 0..7 {
        fx.file(&format!("f{i}.txt"), 100 - i);
    }
    let first = ok(&fx.call("glob", json!({"pattern": "*.txt", "limit": 3})));
    assert!(
        first.ends_with("(paths 1-3 of 7; continue with offset=3)"),
        "{first}"
    );
    let second = ok(&fx.call("glob", json!({"pattern": "*.txt", "limit": 3, "offset": 3})));
    let third = ok(&fx.call("glob", json!({"pattern": "*.txt", "limit": 3, "offset": 6})));
    let mut all: Vec<&str> = [first.as_str(), second.as_str(), third.as_str()]
        .iter()
        .flat_map(|page| page.lines().filter(|line| !line.starts_with('(')))
        .collect();
    all.dedup();
    assert_eq!(
        all,
        [
            "f6.txt", "f5.txt", "f4.txt", "f3.txt", "f2.txt", "f1.txt", "f0.txt"
        ]
    );
}

#[test]
fn glob_reports_a_bad_pattern_with_an_example() {
    let fx = Fixture::new();
    let result = fx.call("glob", json!({"pattern": "src/[a-"}));
    assert!(
        result.is_error() && result.text().contains("not a valid glob"),
        "{}",
        result.text()
    );
}

#[test]
fn list_dir_shows_a_sorted_tree_with_ignored_directories_once() {
    let fx = Fixture::new();
    std::fs::write(fx.dir.path().join(".gitignore"), "node_modules/\n").unwrap();
    fx.file("src/lib.rs", 1);
    fx.file("src/util/mod.rs", 1);
    fx.file("node_modules/a/index.js", 1);
    fx.file("node_modules/b/index.js", 1);
    fx.file("Cargo.toml", 1);
    let listing = ok(&fx.call("list_dir", json!({})));
    assert_eq!(
        listing,
        "./\n  Cargo.toml\n  node_modules/ (ignored or hidden: 2 entries, not listed)\n  src/\n    lib.rs\n    util/"
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_is_listed_never_followed() {
    let fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "s").unwrap();
    std::os::unix::fs::symlink(outside.path(), fx.dir.path().join("out")).unwrap();
    std::os::unix::fs::symlink(fx.dir.path(), fx.dir.path().join("loop")).unwrap();
    let listing = ok(&fx.call("list_dir", json!({"depth": 3})));
    assert!(
        listing.contains("out@") && listing.contains("loop@"),
        "{listing}"
    );
    assert!(!listing.contains("secret"), "{listing}");
    assert!(!ok(&fx.call("glob", json!({"pattern": "**/*.txt"}))).contains("secret"));
}

#[test]
fn list_dir_pages_and_says_how_to_continue() {
    let fx = Fixture::new();
    for i in 0..5 {
        fx.file(&format!("f{i}"), 1);
    }
    let page = ok(&fx.call("list_dir", json!({"limit": 2})));
    assert!(
        page.ends_with("(More than 2 entries: 1-2 of 5 shown; continue with offset=3)"),
        "{page}"
    );
    let next = ok(&fx.call("list_dir", json!({"limit": 2, "offset": 3})));
    assert!(
        next.contains("f2") && next.contains("f3") && !next.contains("f1"),
        "{next}"
    );
}

#[test]
fn other_agents_names_are_accepted_and_paths_stay_inside() {
    let fx = Fixture::new();
    fx.file("src/a.rs", 1);
    assert!(ok(&fx.call("LS", json!({"dir_path": "src"}))).contains("a.rs"));
    assert_eq!(
        ok(&fx.call("Glob", json!({"pattern": "*.rs", "dir_path": "src"}))),
        "src/a.rs"
    );
    let outside = fx.call("list_dir", json!({"path": "../"}));
    assert!(
        outside.is_error() && outside.text().contains("outside"),
        "{}",
        outside.text()
    );
}

#[test]
fn glob_refuses_absolute_and_parent_patterns_instead_of_probing_outside() {
    let fx = Fixture::new();
    fx.file("inside.txt", 1);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "s").unwrap();
    let absolute = outside.path().join("secret.txt").display().to_string();
    let name = outside.path().file_name().unwrap().to_str().unwrap();
    let parent = format!("../{name}/secret.txt");
    for pattern in [absolute.as_str(), parent.as_str(), "../*"] {
        let result = fx.call("glob", json!({"pattern": pattern}));
        assert!(result.is_error(), "{pattern}: {}", result.text());
        assert!(
            result.text().contains("cannot be absolute or contain `..`"),
            "{}",
            result.text()
        );
        assert!(!result.text().contains("secret.txt\n"), "{}", result.text());
    }
    assert_eq!(
        ok(&fx.call("glob", json!({"pattern": "./inside.txt"}))),
        "inside.txt"
    );
}

#[test]
fn glob_does_not_find_an_exact_path_through_a_symlinked_directory() {
    let fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("shadow"), "s").unwrap();
    std::os::unix::fs::symlink(outside.path(), fx.dir.path().join("link")).unwrap();
    let result = fx.call("glob", json!({"pattern": "link/shadow"}));
    assert_eq!(ok(&result), "no file matches `link/shadow` in `.`");
    // A symlink itself, named exactly, is still found (as the walk lists it).
    assert_eq!(ok(&fx.call("glob", json!({"pattern": "link"}))), "link");
}
