//! `--mcp-config FILE`, else the workspace's own `.mcp.json` (its servers once approved in
//! the settings): the tools of the MCP servers it names, imported into the toolset as
//! `mcp__<server>__<tool>`. The servers the settings' `toolkit.trustedMcpServers`
//! names have their annotations believed. Stdio servers start in the workspace
//! ([`McpConfig::start_in`]). A server that does not start is reported on stderr
//! and the others are still imported; a file that cannot be read or parsed is a set-up error.
//! `toolbox serve` keeps the imported tools in step with their servers' lists
//! ([`Imported::keep_in_sync`]), so a server's change reaches `serve`'s own clients.

use std::path::Path;

use tool_core::mcp::client::{self, Imported, McpConfig};
use tool_core::settings::Settings;
use tool_core::{Toolset, Workspace};

use crate::{Failure, signals};

/// Where the servers to import are named: `--mcp-config`, else (when discovering) the
/// workspace's `.mcp.json`, whose servers start only when the settings approve them
/// (`enableAllProjectMcpServers`, `enabledMcpjsonServers`, `disabledMcpjsonServers`).
pub(crate) struct Servers<'a> {
    /// `--mcp-config`.
    pub(crate) config: Option<&'a Path>,
    /// Whether to look for the workspace's `.mcp.json`.
    pub(crate) discover: bool,
    /// The session's settings: which servers are trusted, which project servers approved.
    pub(crate) settings: Option<&'a Settings>,
    /// Where the servers start.
    pub(crate) workspace: &'a Workspace,
}

/// `toolset` with the servers' tools added, and the servers imported (none when no
/// configuration names any); `read_only` keeps only the read-only tools (those of trusted
/// servers that say so: [`keeps`]). Must run on `runtime`, which then runs the calls: the
/// connections live on it.
pub(crate) fn add(
    runtime: &tokio::runtime::Runtime,
    toolset: Toolset,
    servers: &Servers<'_>,
    read_only: bool,
) -> Result<(Toolset, Option<Imported>), Failure> {
    let project = servers.workspace.root().join(".mcp.json");
    let mut config = match servers.config {
        Some(path) => McpConfig::load(path).map_err(|error| Failure::setup(error.to_string()))?,
        None if servers.discover && project.is_file() => {
            let mut config =
                McpConfig::load(&project).map_err(|error| Failure::setup(error.to_string()))?;
            // A project's servers come with its repository: they start once the user approves.
            config.servers.retain(|server| {
                let approved = servers
                    .settings
                    .is_some_and(|settings| settings.mcp_json.approves(&server.name));
                if !approved {
                    eprintln!(
                        "toolbox: note: `{}`'s server `{}` is not started: approve it with \"enabledMcpjsonServers\": [\"{}\"] (or \"enableAllProjectMcpServers\": true) in .claude/settings.local.json",
                        project.display(),
                        server.name,
                        server.name
                    );
                }
                approved
            });
            config
        }
        None => return Ok((toolset, None)),
    };
    // A misspelt key loads without effect: said, as the settings' warnings are.
    for warning in config.warnings() {
        eprintln!("toolbox: warning: {warning}");
    }
    // Started where the session's tools work, never in whatever directory toolbox ran from.
    config
        .start_in(servers.workspace)
        .map_err(|error| Failure::setup(error.to_string()))?;
    if let Some(settings) = servers.settings {
        config.trust(&settings.trusted_mcp_servers);
    }
    // Servers start in process groups of their own, which a Ctrl-C at the terminal does not
    // reach: a signal while they start must end them, not leave them to init.
    let imported = runtime.block_on(async {
        let mut stop = signals::Listener::new();
        tokio::select! {
            imported = client::import(&config) => Ok(imported),
            stop = stop.next() => Err(stop),
        }
    });
    let imported = match imported {
        Ok(imported) => imported,
        // The servers started so far were dropped with the import, which kills them.
        Err(stop) => {
            return Err(Failure {
                code: stop.exit_code(),
                message: format!(
                    "stopped by {} while the MCP servers were starting",
                    stop.name()
                ),
            });
        }
    };
    for failure in &imported.failures {
        eprintln!("toolbox: warning: {failure}");
    }
    let mut toolset = toolset;
    for tool in imported.toolset.iter() {
        toolset
            .add(tool.clone())
            .map_err(|error| Failure::setup(error.to_string()))?;
        // Withheld, not left out: a client that calls it anyway is told why, rather than
        // that no such tool exists (and offered a name it never saw).
        if !keeps(read_only, tool.spec()) {
            toolset.withhold(
                &tool.spec().name,
                "this server serves only read-only tools (`toolbox serve --read-only`)",
            );
        }
    }
    Ok((toolset, Some(imported)))
}

/// Whether an imported tool belongs in the toolset: with `--read-only`, only a read-only one.
pub(crate) fn keeps(read_only: bool, spec: &tool_core::spec::ToolSpec) -> bool {
    !read_only || spec.effect.is_read_only()
}
