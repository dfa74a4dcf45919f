//! The workspace: finding the path a model meant (normalizations, suggestions) and the hard
//! boundary every path argument is checked against.

// Symlinks are made with the Unix call.
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use tempfile::TempDir;
use tool_core::{
    Workspace,
    workspace::{BoundaryError, Normalization, ResolveError},
};

/// A workspace root named `myproj` inside a scratch directory, which is outside it. Holds
/// `src/main.rs`, `src/lib.rs` and `Cargo.toml`; `outside/secret.txt` lies next to it.
struct Fixture {
    scratch: TempDir,
    ws: Workspace,
}

impl Fixture {
    fn new() -> Self {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().join("myproj");
        fs::create_dir_all(root.join("src")).unwrap();
        fs::write(root.join("src/main.rs"), "fn main() {}").unwrap();
        fs::write(root.join("src/lib.rs"), "").unwrap();
        fs::write(root.join("Cargo.toml"), "").unwrap();
        fs::create_dir(scratch.path().join("outside")).unwrap();
        fs::write(scratch.path().join("outside/secret.txt"), "").unwrap();
        let ws = Workspace::new(&root).unwrap();
        Fixture { scratch, ws }
    }

    fn root(&self) -> &Path {
        self.ws.root()
    }

    fn outside(&self) -> PathBuf {
        self.scratch.path().canonicalize().unwrap().join("outside")
    }

    fn is_inside(&self, path: &str) -> bool {
        self.ws.confine("path", path).is_inside()
    }
}

// Resolution: the path as sent, then the normalizations.

#[test]
fn an_existing_path_resolves_as_sent() {
    let fx = Fixture::new();
    let found = fx.ws.resolve("src/main.rs").unwrap();
    assert_eq!(found.path, fx.root().join("src/main.rs"));
    assert_eq!(found.normalization, None);
}

#[test]
fn a_leading_tilde_is_expanded_to_the_home_directory() {
    let home = std::env::home_dir().expect("the tests need a home directory");
    let in_home = tempfile::tempdir_in(&home).unwrap();
    fs::write(in_home.path().join("notes.md"), "").unwrap();
    let name = in_home.path().file_name().unwrap().to_str().unwrap();
    let ws = Workspace::new(in_home.path()).unwrap();

    let found = ws.resolve(&format!("~/{name}/notes.md")).unwrap();

    assert_eq!(found.path, home.join(name).join("notes.md"));
    assert!(matches!(
        found.normalization,
        Some(Normalization::Expanded { home: true, .. })
    ));
}

#[test]
fn environment_variables_are_expanded() {
    // Cargo sets it for the tests it runs.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let fx = Fixture::new();

    let found = fx.ws.resolve("$CARGO_MANIFEST_DIR/Cargo.toml").unwrap();

    assert_eq!(found.path, Path::new(&manifest).join("Cargo.toml"));
    let Some(Normalization::Expanded { variables, .. }) = found.normalization else {
        panic!("expected an expansion, got {:?}", found.normalization);
    };
    assert_eq!(variables, ["CARGO_MANIFEST_DIR"]);
}

#[test]
fn a_path_to_create_under_tilde_or_a_variable_resolves_where_they_point() {
    // Not to a literal `~` or `$CARGO_MANIFEST_DIR` directory in the workspace, even when the
    // directory to create the file in does not exist yet.
    let home = std::env::home_dir().expect("the tests need a home directory");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let fx = Fixture::new();
    let cases = [
        (
            "~/new-dir-8f3a/x.md",
            home.join("new-dir-8f3a/x.md"),
            "`~/` in front",
        ),
        ("~", home.clone(), "`~` alone"),
        (
            "$CARGO_MANIFEST_DIR/new-8f3a/x",
            manifest.join("new-8f3a/x"),
            "`$VAR`",
        ),
        ("${CARGO_MANIFEST_DIR}/x", manifest.join("x"), "`${VAR}`"),
    ];
    for (sent, expected, why) in cases {
        let resolved = fx.ws.resolve_lenient(sent);
        assert_eq!(resolved.path, expected, "{why}");
        assert!(
            matches!(resolved.normalization, Some(Normalization::Expanded { .. })),
            "{why}: {:?}",
            resolved.normalization
        );
    }
}

#[test]
fn tilde_means_the_home_directory_even_when_the_workspace_has_a_directory_named_so() {
    let home = std::env::home_dir().expect("the tests need a home directory");
    let fx = Fixture::new();
    fs::create_dir(fx.root().join("~")).unwrap();
    fs::write(fx.root().join("~/x"), "").unwrap();
    assert_eq!(fx.ws.resolve_lenient("~/x").path, home.join("x"));
    assert!(!fx.is_inside("~/x"));
}

#[test]
fn an_unset_variable_leaves_the_path_as_sent() {
    let fx = Fixture::new();
    let resolved = fx.ws.resolve_lenient("$TOOL_CORE_UNSET_8F3A/x");
    assert_eq!(resolved.path, fx.root().join("$TOOL_CORE_UNSET_8F3A/x"));
    assert_eq!(resolved.normalization, None);
    assert!(fx.is_inside("$TOOL_CORE_UNSET_8F3A/x"));
}

#[test]
fn a_redundant_workspace_name_is_stripped() {
    let fx = Fixture::new();
    let found = fx.ws.resolve("myproj/src/main.rs").unwrap();
    assert_eq!(found.path, fx.root().join("src/main.rs"));
    assert_eq!(
        found.normalization.unwrap().to_string(),
        "resolved `myproj/src/main.rs` as `src/main.rs` (the workspace is `myproj`)"
    );
}

#[test]
fn a_wrong_first_component_is_dropped() {
    let fx = Fixture::new();
    let found = fx.ws.resolve("app/src/main.rs").unwrap();
    assert_eq!(found.path, fx.root().join("src/main.rs"));
    assert!(matches!(
        found.normalization,
        Some(Normalization::FirstComponent { ref component, .. }) if component == "app"
    ));
}

#[test]
fn dropping_a_component_never_leads_out_of_the_workspace() {
    let fx = Fixture::new();
    // Without `x`, `../outside/secret.txt` exists, but outside.
    let error = fx.ws.resolve("x/../outside/secret.txt").unwrap_err();
    assert!(matches!(error, ResolveError::NotFound { .. }));
}

#[test]
fn an_absolute_path_outside_stays_as_sent_for_the_boundary_to_deny() {
    let fx = Fixture::new();
    let secret = fx.outside().join("secret.txt");
    let found = fx.ws.resolve(secret.to_str().unwrap()).unwrap();
    assert_eq!(found.path, secret);
    assert_eq!(found.normalization, None);
    assert!(!fx.is_inside(found.path.to_str().unwrap()));
}

#[test]
fn a_typo_is_answered_with_the_existing_path() {
    let fx = Fixture::new();
    let error = fx.ws.resolve("src/mian.rs").unwrap_err();
    assert_eq!(
        error,
        ResolveError::NotFound {
            path: "src/mian.rs".to_owned(),
            suggestions: vec!["src/main.rs".to_owned()],
        }
    );
    assert_eq!(
        error.to_string(),
        "`src/mian.rs` does not exist in the workspace (paths are relative to the workspace \
         root, or absolute); did you mean `src/main.rs`?"
    );
}

#[test]
fn nonsense_gets_no_suggestions() {
    let fx = Fixture::new();
    let error = fx.ws.resolve("zzqx/wvut.bin").unwrap_err();
    assert!(matches!(
        &error,
        ResolveError::NotFound { suggestions, .. } if suggestions.is_empty()
    ));
    assert!(!error.to_string().contains("did you mean"));
}

#[test]
fn suggestions_skip_build_output_and_hidden_directories() {
    let fx = Fixture::new();
    for skipped in ["target/debug", ".git", "node_modules/x", ".cache"] {
        fs::create_dir_all(fx.root().join(skipped)).unwrap();
        fs::write(fx.root().join(skipped).join("main.rs"), "").unwrap();
    }
    assert_eq!(fx.ws.suggest("main.rs", 10), ["src/main.rs"]);
}

// Lenient resolution: a path that may name a file to create.

#[test]
fn a_new_file_resolves_as_sent() {
    let fx = Fixture::new();
    let found = fx.ws.resolve_lenient("src/new.rs");
    assert_eq!(found.path, fx.root().join("src/new.rs"));
    assert_eq!(found.normalization, None);
}

#[test]
fn a_new_file_loses_a_redundant_workspace_name_when_its_directory_exists_that_way() {
    let fx = Fixture::new();
    let found = fx.ws.resolve_lenient("myproj/src/new.rs");
    assert_eq!(found.path, fx.root().join("src/new.rs"));
    assert!(matches!(
        found.normalization,
        Some(Normalization::WorkspaceName { .. })
    ));
}

#[test]
fn a_new_file_in_a_new_directory_is_not_moved_to_the_root() {
    let fx = Fixture::new();
    let found = fx.ws.resolve_lenient("docs/guide/intro.md");
    assert_eq!(found.path, fx.root().join("docs/guide/intro.md"));
    assert_eq!(found.normalization, None);
}

// The boundary: outside.

#[test]
fn climbing_out_with_dot_dot_is_outside() {
    let fx = Fixture::new();
    assert!(!fx.is_inside("../outside/secret.txt"));
    assert!(!fx.is_inside("src/../../outside/secret.txt"));
    assert!(!fx.is_inside("new/../../x"));
}

#[test]
fn an_absolute_path_elsewhere_is_outside() {
    let fx = Fixture::new();
    let resolved = fx.ws.confine("path", "/etc/passwd");
    assert_eq!(resolved.relative, None);
    assert_eq!(resolved.sent, "/etc/passwd");
}

#[test]
fn a_symlink_to_a_file_outside_is_outside() {
    let fx = Fixture::new();
    symlink(
        fx.outside().join("secret.txt"),
        fx.root().join("secret.txt"),
    )
    .unwrap();
    let resolved = fx.ws.confine("path", "secret.txt");
    assert_eq!(resolved.absolute, fx.outside().join("secret.txt"));
    assert!(!resolved.is_inside());
}

#[test]
fn a_symlink_to_a_directory_outside_is_outside() {
    let fx = Fixture::new();
    symlink(fx.outside(), fx.root().join("data")).unwrap();
    assert!(!fx.is_inside("data"));
    assert!(!fx.is_inside("data/secret.txt"));
}

#[test]
fn a_new_file_under_a_symlinked_outside_directory_is_outside() {
    let fx = Fixture::new();
    symlink(fx.outside(), fx.root().join("data")).unwrap();
    let resolved = fx.ws.confine("path", "data/new/file.txt");
    assert_eq!(resolved.absolute, fx.outside().join("new/file.txt"));
    assert!(!resolved.is_inside());
}

#[test]
fn a_dangling_symlink_to_outside_is_outside() {
    let fx = Fixture::new();
    symlink(fx.outside().join("created.txt"), fx.root().join("log.txt")).unwrap();
    assert!(!fx.is_inside("log.txt"));
}

#[test]
fn dot_dot_after_a_symlink_goes_up_from_its_target() {
    let fx = Fixture::new();
    fs::create_dir(fx.outside().join("deeper")).unwrap();
    symlink(fx.outside().join("deeper"), fx.root().join("deep")).unwrap();
    // Lexically `secret.txt` in the root; the kernel opens `outside/secret.txt`.
    let resolved = fx.ws.confine("path", "deep/../secret.txt");
    assert_eq!(resolved.absolute, fx.outside().join("secret.txt"));
    assert!(!resolved.is_inside());
}

#[test]
fn tilde_is_checked_where_it_points() {
    let fx = Fixture::new();
    let resolved = fx.ws.confine("path", "~/x");
    assert_eq!(
        resolved.absolute,
        std::env::home_dir()
            .unwrap()
            .canonicalize()
            .unwrap()
            .join("x")
    );
    assert!(!resolved.is_inside());
}

#[test]
fn variables_are_checked_where_they_point() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let manifest = manifest.canonicalize().unwrap();
    let fx = Fixture::new();
    for sent in ["$CARGO_MANIFEST_DIR/x", "${CARGO_MANIFEST_DIR}/x"] {
        let resolved = fx.ws.confine("path", sent);
        assert_eq!(resolved.absolute, manifest.join("x"), "{sent}");
        assert!(!resolved.is_inside(), "{sent}");
    }
    let ws = Workspace::new(&manifest).unwrap();
    assert!(ws.confine("path", "$CARGO_MANIFEST_DIR/x").is_inside());
}

#[test]
fn a_symlink_loop_is_outside() {
    let fx = Fixture::new();
    symlink("b", fx.root().join("a")).unwrap();
    symlink("a", fx.root().join("b")).unwrap();
    assert!(!fx.is_inside("a/x"));
}

// Denials: each names its real cause, and quotes paths shortened.

#[test]
fn each_denial_names_its_real_cause_and_what_would_be_right() {
    let fx = Fixture::new();
    symlink("b", fx.root().join("a")).unwrap();
    symlink("a", fx.root().join("b")).unwrap();
    let long_name = "n".repeat(300);
    let too_long = "d/".repeat(2500);
    let root = fx.root().display().to_string();
    type IsCause = fn(&BoundaryError) -> bool;
    let cases: [(&str, &str, IsCause, &[&str]); 5] = [
        (
            "outside every root",
            "../outside/secret.txt",
            |p| matches!(p, BoundaryError::OutsideRoots { .. }),
            &[
                "outside every workspace root",
                &root,
                "Use a path relative to",
            ],
        ),
        (
            "a symlink loop",
            "a/x",
            |p| matches!(p, BoundaryError::SymlinkLoop { .. }),
            &[
                "symlink loop",
                "Use a path that does not go through that link",
            ],
        ),
        (
            "a file name over 255 bytes",
            &long_name,
            |p| matches!(p, BoundaryError::NameTooLong { bytes: 300, .. }),
            &[
                "a file name of 300 bytes",
                "longer than the 255 bytes",
                "Use a shorter name",
            ],
        ),
        (
            "a path too long for the file system",
            &too_long,
            |p| matches!(p, BoundaryError::PathTooLong { .. }),
            &["too long for the file system", "Use a shorter path"],
        ),
        (
            "a NUL byte",
            "notes\0.txt",
            |p| *p == BoundaryError::NulByte,
            &["NUL byte", "`notes\\0.txt`", "Send the path without it"],
        ),
    ];
    for (why, sent, expected, parts) in cases {
        let resolved = fx.ws.confine("path", sent);
        assert!(!resolved.is_inside(), "{why}");
        let problem = resolved.problem.as_ref().expect("a problem");
        assert!(expected(problem), "{why}: {problem:?}");
        let denial = resolved.denial().expect("a denial");
        for part in parts {
            assert!(
                denial.contains(part),
                "{why}: `{part}` missing from: {denial}"
            );
        }
        assert!(!denial.contains("outside the workspace") || why == "outside every root");
        assert!(!denial.contains('\0'), "{why}: a raw NUL in: {denial:?}");
        assert!(
            denial.len() < 1000,
            "{why}: quoted whole: {} bytes",
            denial.len()
        );
    }
}

#[test]
fn a_long_path_outside_is_quoted_by_its_head_and_tail() {
    let fx = Fixture::new();
    // 15 names of 200 bytes: each name and the whole are short enough for the file system.
    let sent = format!("../{}", vec!["y".repeat(200); 15].join("/"));
    let denial = fx.ws.confine("path", &sent).denial().expect("outside");
    assert!(denial.contains("outside every workspace root"), "{denial}");
    assert!(denial.contains('…'), "{denial}");
    assert!(denial.len() < 1000, "{} bytes: {denial}", denial.len());
}

// The boundary: inside.

#[test]
fn a_new_file_inside_is_inside() {
    let fx = Fixture::new();
    let resolved = fx.ws.confine("path", "src/new/mod.rs");
    assert_eq!(resolved.absolute, fx.root().join("src/new/mod.rs"));
    assert_eq!(resolved.relative, Some(PathBuf::from("src/new/mod.rs")));
}

#[test]
fn a_symlink_inside_pointing_inside_is_inside() {
    let fx = Fixture::new();
    symlink("src/main.rs", fx.root().join("main.rs")).unwrap();
    let resolved = fx.ws.confine("path", "main.rs");
    assert_eq!(resolved.relative, Some(PathBuf::from("src/main.rs")));
}

#[test]
fn the_root_itself_is_inside() {
    let fx = Fixture::new();
    for root in [".", "", fx.root().to_str().unwrap()] {
        assert_eq!(
            fx.ws.confine("path", root).relative,
            Some(PathBuf::new()),
            "{root:?}"
        );
    }
}

#[test]
fn a_path_in_another_root_is_inside_relative_to_that_root() {
    let fx = Fixture::new();
    let ws = fx.ws.clone().with_root(fx.outside()).unwrap();
    let secret = fx.outside().join("secret.txt");
    let resolved = ws.confine("path", secret.to_str().unwrap());
    assert_eq!(resolved.relative, Some(PathBuf::from("secret.txt")));
}
