//! Stages 1 to 3 of a call (see `pipeline.rs`): look the tool up, prepare its arguments,
//! classify the call (its effect, its commands analysed, its paths resolved).

use std::borrow::Cow;
use std::path::Path;

use super::{Coordinator, reach};
use crate::ToolError;
use crate::definition::panic::guard;
use crate::definition::spec::{Effect, ResourceKind};
use crate::definition::tool::{Prepared, Resource, ToolHandle};
use crate::definition::workspace::{
    Normalization, ParsedPath, ResolvedPath, with_workspace_recording,
};
use crate::runtime::policy::shell::CommandLine;

impl Coordinator {
    /// The tool answering to `name` now, or an error naming the closest names.
    pub(super) fn lookup(&self, name: &str) -> Result<ToolHandle, ToolError> {
        let toolset = self.toolset();
        toolset
            .get(name)
            .cloned()
            .ok_or_else(|| match toolset.withheld(name) {
                Some(reason) => ToolError::Unavailable {
                    name: name.to_owned(),
                    reason: reason.to_owned(),
                },
                None => ToolError::UnknownTool {
                    name: name.to_owned(),
                    suggestions: toolset.suggest(name),
                },
            })
    }

    /// Parses and validates arguments, with the workspace in scope so `WorkspacePath`
    /// arguments arrive resolved.
    pub(crate) fn prepare(
        &self,
        tool: &ToolHandle,
        arguments: &str,
    ) -> Result<Prepared, ToolError> {
        let Some(workspace) = self.inner.shared.workspace.as_ref() else {
            // Nothing to put in scope (and nothing can be in scope: scopes never outlive
            // `prepare`), so skip the thread-local.
            return guard(|| tool.prepare(arguments));
        };
        let (prepared, parsed) =
            with_workspace_recording(Some(workspace), || guard(|| tool.prepare(arguments)));
        let mut prepared = prepared?;
        // Every `WorkspacePath` parsed counts as a path of the call, also those the macro
        // cannot see (inside an `Args<T>` struct, a list of edits): each is confined and
        // matched by path rules like a top-level one.
        for ParsedPath { path, .. } in &parsed {
            let value = path.to_string_lossy();
            let known = prepared
                .resources()
                .iter()
                .any(|r| r.kind == ResourceKind::Path && r.value == value);
            if !known {
                let value = value.into_owned();
                prepared = prepared.with_resource(Resource {
                    arg: Cow::Borrowed("path"),
                    kind: ResourceKind::Path,
                    value,
                });
            }
        }
        Ok(prepared.with_parsed_paths(parsed))
    }

    /// What the policy judges of a prepared call besides its tool: its effect, its command
    /// arguments analysed, and its paths resolved against the workspace boundary.
    ///
    /// A command line that writes a file, or that runs something known only at run time, is
    /// never read-only, whatever the tool's own classifier said.
    pub(crate) fn classify(
        &self,
        tool: &ToolHandle,
        prepared: &Prepared,
    ) -> (Effect, Vec<CommandLine>, Vec<ResolvedPath>) {
        let commands = analyze_commands(prepared);
        let mut effect = prepared.effect(tool.spec());
        let writes_or_unknown =
            |line: &CommandLine| !line.writes().is_empty() || !line.is_fully_known();
        if effect.is_read_only() && commands.iter().any(writes_or_unknown) {
            effect = Effect::Mutating;
        }
        let paths = self.resolve_paths_of(prepared, &commands, effect);
        (effect, commands, paths)
    }

    /// Every path the call names, resolved against the workspace boundary (none without a
    /// workspace): its path arguments, and the files its commands write.
    ///
    /// A `WorkspacePath` is checked where it was resolved, which is where the tool will look;
    /// for a call that is not read-only, also as sent when the resolution guessed at another
    /// file that exists, since a tool that creates or deletes files acts there
    /// ([`WorkspacePath::to_create`](crate::WorkspacePath::to_create)).
    /// Any other path argument reaches the tool as text, as sent, so it is checked everywhere
    /// the tool might take it: where a shell would (`~` and `$VAR` expanded), as it reads
    /// literally when it has something to expand, and where the workspace would resolve it (a
    /// dropped first component).
    pub(crate) fn resolve_paths(&self, prepared: &Prepared, effect: Effect) -> Vec<ResolvedPath> {
        self.resolve_paths_of(prepared, &analyze_commands(prepared), effect)
    }

    pub(super) fn resolve_paths_of(
        &self,
        prepared: &Prepared,
        commands: &[CommandLine],
        effect: Effect,
    ) -> Vec<ResolvedPath> {
        let Some(workspace) = &self.inner.shared.workspace else {
            return Vec::new();
        };
        let mut paths = Vec::new();
        let mut lines = commands.iter();
        for resource in prepared.resources() {
            match resource.kind {
                ResourceKind::Path => {
                    let (arg, value) = (&resource.arg, resource.value.as_str());
                    let parsed = prepared
                        .parsed_paths()
                        .iter()
                        .find(|parsed| parsed.path.as_os_str() == value);
                    if let Some(parsed) = parsed {
                        paths.push(workspace.confine_target(
                            arg.clone(),
                            &parsed.sent,
                            &parsed.path,
                        ));
                        if let Some(unrepaired) = parsed
                            .unrepaired
                            .as_ref()
                            .filter(|_| !effect.is_read_only())
                        {
                            paths.push(workspace.confine_target(
                                arg.clone(),
                                &parsed.sent,
                                unrepaired,
                            ));
                        }
                        continue;
                    }
                    paths.push(workspace.confine(arg.clone(), value));
                    let lenient = workspace.resolve_lenient(value);
                    match lenient.normalization {
                        None => {}
                        Some(Normalization::Expanded { .. }) => {
                            paths.push(workspace.confine_target(
                                arg.clone(),
                                value,
                                Path::new(value),
                            ));
                        }
                        Some(_) => {
                            paths.push(workspace.confine_target(arg.clone(), value, &lenient.path));
                        }
                    }
                }
                // A redirection writes a file, relative to the workspace root where commands
                // run: confined like a path argument. (A target known only at run time makes
                // the command unknown, which no allow rule covers.)
                ResourceKind::Command => {
                    let Some(line) = lines.next() else { continue };
                    for write in line.writes() {
                        // A pattern (`rm -rf .git/*`, `rm .*`) writes what it matches now, as
                        // the shell will expand it; a target with an expansion is left out
                        // here (it makes the command unknown).
                        let targets = if write.target.is_exact() {
                            vec![write.target.text.clone()]
                        } else if write.target.pattern && !write.target.dynamic {
                            reach::pattern_matches(workspace, &write.target.text)
                        } else {
                            continue;
                        };
                        for sent in &targets {
                            // `rm link` removes the link, not what it points to.
                            let target = if write.follows_link {
                                workspace.confine(resource.arg.clone(), sent)
                            } else {
                                workspace.confine_link(resource.arg.clone(), sent)
                            };
                            // `rm -rf .` changes `.git` as surely as `rm -rf .git`.
                            let reached = reach::denied_beneath(
                                workspace,
                                resource.arg.clone(),
                                sent,
                                &target,
                                &write.beneath,
                            );
                            paths.push(target);
                            paths.extend(reached);
                        }
                    }
                }
                ResourceKind::Url => {}
            }
        }
        paths
    }
}

/// Each command argument of a prepared call, analysed, in order.
fn analyze_commands(prepared: &Prepared) -> Vec<CommandLine> {
    prepared
        .resources()
        .iter()
        .filter(|resource| resource.kind == ResourceKind::Command)
        .map(|resource| CommandLine::analyze(&resource.value))
        .collect()
}
