//! `--mcp-config FILE`: the tools of the MCP servers a `.mcp.json` names, imported into the
//! toolset as `mcp__<server>__<tool>`. The servers the settings' `toolkit.trustedMcpServers`
//! names have their annotations believed. A server that does not start is reported on stderr
//! and the others are still imported; a file that cannot be read or parsed is a set-up error.

use std::path::Path;

use tool_core::Toolset;
use tool_core::mcp::client::{self, McpConfig};
use tool_core::settings::Settings;

/// `toolset` with the servers' tools added; `read_only` keeps only the read-only ones (those of
/// trusted servers that say so). Must run on `runtime`, which then runs the calls: the
/// connections live on it.
pub(crate) fn add(
    runtime: &tokio::runtime::Runtime,
    toolset: Toolset,
    config: Option<&Path>,
    settings: Option<&Path>,
    read_only: bool,
) -> Result<Toolset, String> {
    let Some(config) = config else {
        return Ok(toolset);
    };
    let mut config = McpConfig::load(config).map_err(|error| error.to_string())?;
    if let Some(settings) = settings {
        let settings = Settings::load(settings).map_err(|error| error.to_string())?;
        config.trust(&settings.trusted_mcp_servers);
    }
    let imported = runtime.block_on(client::import(&config));
    for failure in &imported.failures {
        eprintln!("toolbox: warning: {failure}");
    }
    let mut toolset = toolset;
    for tool in imported.toolset.iter() {
        if read_only && !tool.spec().effect.is_read_only() {
            continue;
        }
        toolset
            .add(tool.clone())
            .map_err(|error| error.to_string())?;
    }
    Ok(toolset)
}
