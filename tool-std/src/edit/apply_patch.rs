//! `apply_patch`: Codex's patch format over the workspace, staged in memory and committed all
//! or nothing, every file kept in its own format.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Read as _;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer};
use tool_core::context::ToolContext;
use tool_core::{ToolError, Workspace, WorkspacePath, tool};

use crate::edit::patch::{self, FileChange, Operation, Patch};
use crate::fs::{self, Format, TextFile, io_error};

/// A patch as sent, parsed while the arguments are: every path it names (a move's destination
/// too) becomes a workspace path, so the policy confines it and path rules apply to it, as for
/// any path argument.
#[derive(Debug)]
pub struct PatchText {
    patch: Patch,
    paths: HashMap<String, WorkspacePath>,
}

impl<'de> Deserialize<'de> for PatchText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let patch = patch::parse(&text).map_err(serde::de::Error::custom)?;
        let mut paths: HashMap<String, WorkspacePath> = HashMap::new();
        for operation in &patch.operations {
            // A file added, deleted or moved to is taken as named, never as a guess at another
            // existing file (`WorkspacePath::to_create`); a file updated may be found by one,
            // since its hunks must match it.
            let (updated, created) = match operation {
                Operation::Add { path, .. } | Operation::Delete { path, .. } => (None, Some(path)),
                Operation::Update { path, move_to, .. } => (Some(path), move_to.as_ref()),
            };
            for (named, create) in updated
                .map(|p| (p, false))
                .into_iter()
                .chain(created.map(|p| (p, true)))
            {
                if create || !paths.contains_key(named) {
                    let resolved = WorkspacePath::deserialize(
                        serde::de::value::StrDeserializer::<D::Error>::new(named),
                    )?;
                    let resolved = if create {
                        resolved.to_create()
                    } else {
                        resolved
                    };
                    paths.insert(named.clone(), resolved);
                }
            }
        }
        Ok(PatchText { patch, paths })
    }
}

impl JsonSchema for PatchText {
    fn schema_name() -> Cow<'static, str> {
        "PatchText".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string" })
    }
}

/// Apply a patch in Codex's format to files in the workspace: `*** Begin Patch`, then
/// `*** Add File: path` (lines `+text`), `*** Delete File: path` or `*** Update File: path`
/// (optionally `*** Move to: path`) with hunks (`@@ context`, then lines ` context`,
/// `-removed`, `+added`), then `*** End Patch`. Every file is changed, or none is; each keeps
/// its encoding, byte order mark and line endings.
///
/// # Arguments
/// * `patch` - The whole patch text.
#[tool(closed_world, blocking, name = "apply_patch", tags("fs"))]
fn apply_patch(
    ctx: &ToolContext,
    ws: &Workspace,
    #[serde(alias = "input")] patch: PatchText,
) -> Result<String, ToolError> {
    let PatchText { patch, paths } = patch;
    let located = |path: &str| -> Result<&WorkspacePath, String> {
        paths
            .get(path)
            .ok_or_else(|| format!("`{path}` was not among the patch's paths"))
    };
    refuse_two_spellings(ws, &patch, &paths)?;
    // What each file was before the patch: its bytes (to restore it if the commit fails) and
    // its format (to write the new text in).
    let mut before: HashMap<String, (Vec<u8>, Format)> = HashMap::new();
    let plan = patch::plan(&patch, |path| {
        let target = located(path)?;
        let mut bytes = Vec::new();
        match ws.open(target) {
            Ok(mut file) => file
                .read_to_end(&mut bytes)
                .map_err(|error| format!("`{path}`: {error}"))?,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(format!("`{path}`: {error}")),
        };
        let file = TextFile::decode(&bytes).map_err(|error| format!("`{path}`: {error}"))?;
        before.insert(path.to_owned(), (bytes, file.format));
        Ok(Some(file.text))
    })
    .map_err(|error| {
        ToolError::failed(format!(
            "{error}\nThe patch was not applied: no file changed."
        ))
    })?;

    // Every new file's bytes first: a text one file's encoding cannot hold fails the whole
    // patch before anything is written.
    let mut writes = Vec::new();
    let mut deletes = Vec::new();
    for change in &plan.changes {
        match change {
            FileChange::Write {
                path,
                text,
                format_of,
            } => {
                let format = format_of
                    .as_deref()
                    .and_then(|source| before.get(source))
                    .map_or(Format::NEW, |(_, format)| *format);
                let bytes = fs::encode(format, text).map_err(|error| {
                    ToolError::failed(format!(
                        "`{path}`: {error}\nThe patch was not applied: no file changed."
                    ))
                })?;
                writes.push((
                    path.as_str(),
                    located(path).map_err(ToolError::failed)?,
                    bytes,
                ));
            }
            FileChange::Delete { path } => {
                deletes.push((path.as_str(), located(path).map_err(ToolError::failed)?));
            }
        }
    }
    // A file that is written over without the patch having read it (an added file or a move's
    // destination that already exists) is saved too, so a failed commit puts it back instead
    // of removing it.
    for (path, target, _) in &writes {
        if before.contains_key(*path) {
            continue;
        }
        let mut bytes = Vec::new();
        match ws.open(target) {
            Ok(mut file) => {
                file.read_to_end(&mut bytes).map_err(|error| {
                    ToolError::failed(format!(
                        "`{path}`: {error}\nThe patch was not applied: no file changed."
                    ))
                })?;
                before.insert((*path).to_owned(), (bytes, Format::NEW));
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                return Err(ToolError::failed(format!(
                    "{}\nThe patch was not applied: no file changed.",
                    io_error(ws, path, &error)
                )));
            }
        }
    }
    commit(ws, &writes, &deletes, &before)?;
    let session = fs::session(ctx);
    for (_, target, bytes) in &writes {
        let modified = ws
            .metadata(target)
            .ok()
            .and_then(|m| m.modified().ok())
            .map(|time| time.into_std());
        session.record_content(&target.in_workspace(ws), bytes, modified);
    }
    Ok(plan.summary)
}

/// Refuses a patch that names one file by two spellings (`a.txt` and `./a.txt`): the patch is
/// staged per path as written, so two spellings would be two files each starting from the
/// original, and the later write would silently undo the earlier. Sections that spell a path
/// the same way apply in order, as before.
fn refuse_two_spellings(
    ws: &Workspace,
    patch: &Patch,
    paths: &HashMap<String, WorkspacePath>,
) -> Result<(), ToolError> {
    let mut seen: HashMap<std::path::PathBuf, &str> = HashMap::new();
    for operation in &patch.operations {
        let (path, move_to) = match operation {
            Operation::Add { path, .. } | Operation::Delete { path, .. } => (path, None),
            Operation::Update { path, move_to, .. } => (path, move_to.as_ref()),
        };
        for named in std::iter::once(path).chain(move_to) {
            let Some(target) = paths.get(named) else {
                continue;
            };
            let key = normalized(&target.in_workspace(ws));
            match seen.get(&key) {
                Some(earlier) if *earlier != named.as_str() => {
                    return Err(ToolError::failed(format!(
                        "`{earlier}` and `{named}` name the same file; spell each file the same way throughout the patch (sections for one path apply in order)\nThe patch was not applied: no file changed."
                    )));
                }
                Some(_) => {}
                None => {
                    seen.insert(key, named.as_str());
                }
            }
        }
    }
    Ok(())
}

/// `path` with `.` dropped and `..` taken back, without touching the disk.
fn normalized(path: &std::path::Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Writes, then deletes; on a failure, puts back what was already changed, so the patch lands
/// whole or not at all.
fn commit(
    ws: &Workspace,
    writes: &[(&str, &WorkspacePath, Vec<u8>)],
    deletes: &[(&str, &WorkspacePath)],
    before: &HashMap<String, (Vec<u8>, Format)>,
) -> Result<(), ToolError> {
    let mut done: Vec<&str> = Vec::new();
    let failure = |path: &str, error: &std::io::Error, done: &[&str]| -> ToolError {
        let mut undone = Vec::new();
        for path in done.iter().rev() {
            let Some(target) = writes
                .iter()
                .map(|(p, t, _)| (*p, *t))
                .chain(deletes.iter().copied())
                .find(|(p, _)| p == path)
                .map(|(_, t)| t)
            else {
                continue;
            };
            let restored = match before.get(*path) {
                Some((bytes, _)) => ws.write(target, bytes),
                None => ws.remove_file(target),
            };
            if restored.is_err() {
                undone.push(format!("`{path}`"));
            }
        }
        let shown = io_error(ws, path, error);
        if undone.is_empty() {
            ToolError::failed(format!(
                "{shown}\nThe patch was not applied: the files already changed were put back."
            ))
        } else {
            ToolError::failed(format!(
                "{shown}\nThe patch was not applied, but {} could not be put back as they were.",
                undone.join(", ")
            ))
        }
    };
    for (path, target, bytes) in writes {
        if let Err(error) = ws.write(target, bytes) {
            return Err(failure(path, &error, &done));
        }
        done.push(path);
    }
    for (path, target) in deletes {
        if let Err(error) = ws.remove_file(target) {
            return Err(failure(path, &error, &done));
        }
        done.push(path);
    }
    Ok(())
}
