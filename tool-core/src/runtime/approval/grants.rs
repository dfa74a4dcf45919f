//! [`GrantsFile`]: where "always" answers are kept, read when a coordinator is built and
//! written as they are given.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::definition::suggest::did_you_mean;
use crate::runtime::config;

/// Why the grants file could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GrantsError {
    /// The file exists but could not be read, or could not be written.
    #[error("grants file `{}`: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
    /// The file is not JSON.
    #[error(
        "grants file `{}` is not valid ({source}); expected a JSON object like {{\"allow\": [\"run_shell(cargo test:*)\"]}}",
        path.display()
    )]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        source: serde_json::Error,
    },
    /// The file is JSON, but not a grants file: a value of the wrong kind, or a key that is not
    /// `allow` (which a write would drop).
    #[error(
        "grants file `{}`: {problem}; expected a JSON object like {{\"allow\": [\"run_shell(cargo test:*)\"]}}",
        path.display()
    )]
    Content {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where (`allow[1]` should be a string, found a number).
        problem: String,
    },
}

/// The file where "always" approvals are kept between sessions: a JSON object
/// `{"allow": ["rule", ...]}` in the policy's rule syntax. Writes replace the file atomically
/// (a temporary file in the same directory, then a rename), so a crash never leaves half a file.
///
/// ```
/// use tool_core::approval::GrantsFile;
///
/// let dir = tempfile::tempdir().unwrap();
/// let grants = GrantsFile::new(dir.path().join("grants.json"));
/// assert!(grants.load().unwrap().is_empty()); // no file yet: no grants
/// grants.add("run_shell(cargo test:*)").unwrap();
/// grants.add("run_shell(cargo test:*)").unwrap(); // kept once
/// assert_eq!(grants.load().unwrap(), ["run_shell(cargo test:*)"]);
/// ```
#[derive(Debug, Clone)]
pub struct GrantsFile {
    path: PathBuf,
}

/// One writer at a time within the process, whatever `GrantsFile` value it goes through (an
/// agent and its subagent may each have one for the same file): read-modify-write must not
/// interleave. Another process writing the same file at the same moment can still lose a grant.
static WRITING: Mutex<()> = Mutex::new(());

/// The file's content. Only its own key: another (`"alow"`) would be dropped by the next
/// write, so it is refused.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct GrantsDocument {
    #[serde(default)]
    allow: Vec<String>,
}

impl GrantsFile {
    /// The grants file at `path` (it need not exist yet).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        GrantsFile { path: path.into() }
    }

    /// Where the file is.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The rules granted so far; none when the file does not exist.
    ///
    /// # Errors
    /// When the file cannot be read or is not a grants file.
    pub fn load(&self) -> Result<Vec<String>, GrantsError> {
        Ok(self.read()?.allow)
    }

    /// Adds a rule (once) and writes the file atomically.
    ///
    /// # Errors
    /// When the file cannot be read, parsed or written; the old file is then left as it was.
    pub fn add(&self, rule: &str) -> Result<(), GrantsError> {
        let _writing = WRITING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut document = self.read()?;
        if document.allow.iter().any(|existing| existing == rule) {
            return Ok(());
        }
        document.allow.push(rule.to_owned());
        self.write(&document)
    }

    fn read(&self) -> Result<GrantsDocument, GrantsError> {
        let text = match config::read_file(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(GrantsDocument::default());
            }
            Err(source) => {
                return Err(GrantsError::Io {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|source| GrantsError::Invalid {
                path: self.path.clone(),
                source,
            })?;
        config::read(&value, "").map_err(|error| {
            let problem = match error.unknown_field() {
                Some((key, known)) => format!(
                    "`{key}` is not a key of a grants file (its only key is `allow`){}",
                    did_you_mean(key, known.iter().copied())
                ),
                None => {
                    let (expected, found) = error.expected_and_found();
                    let location = error.location_or("the file");
                    format!("`{location}` should be {expected}, found {found}")
                }
            };
            GrantsError::Content {
                path: self.path.clone(),
                problem,
            }
        })
    }

    fn write(&self, document: &GrantsDocument) -> Result<(), GrantsError> {
        let io = |source| GrantsError::Io {
            path: self.path.clone(),
            source,
        };
        let dir = match self.path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir).map_err(io)?;
        let mut text = serde_json::to_vec_pretty(document).map_err(|error| io(error.into()))?;
        text.push(b'\n');
        let file_name = self
            .path
            .file_name()
            .map_or_else(|| "grants".into(), |name| name.to_string_lossy());
        // Unique per write, so no two writers ever share a temporary file.
        static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let write = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let temp = dir.join(format!(".{file_name}.{}.{write}.tmp", std::process::id()));
        let written = (|| {
            let mut file = std::fs::File::create(&temp)?;
            file.write_all(&text)?;
            file.sync_all()?;
            std::fs::rename(&temp, &self.path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        written.map_err(io)
    }
}
