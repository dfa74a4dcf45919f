//! [`McpClientError`]: why a server could not be started, reached or used.

/// Why a server could not be started, reached or used. Each names the server; a process's
/// errors carry the tail of its stderr.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpClientError {
    /// The command could not be started.
    #[error("cannot start MCP server `{server}` (`{command}`): {source}")]
    Spawn {
        /// The server's name.
        server: String,
        /// The command line.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The server started (or was reached) but the MCP handshake failed.
    #[error(
        "MCP server `{server}` (`{target}`) did not start: {reason}{}",
        StderrNote(stderr)
    )]
    Start {
        /// The server's name.
        server: String,
        /// The command line or URL.
        target: String,
        /// Why.
        reason: String,
        /// The tail of its stderr.
        stderr: String,
    },
    /// The server's process ended.
    #[error(
        "MCP server `{server}` {status}; it will be restarted on the next call{}",
        StderrNote(stderr)
    )]
    Exited {
        /// The server's name.
        server: String,
        /// How it ended ("exited with status 1", "was killed by signal 9").
        status: String,
        /// The tail of its stderr.
        stderr: String,
    },
    /// The connection to an HTTP server closed.
    #[error("the connection to MCP server `{server}` closed; it will be reopened on the next call")]
    Closed {
        /// The server's name.
        server: String,
    },
    /// The HTTP client could not be set up (a bad header, TLS).
    #[error("cannot reach MCP server `{server}` over HTTP: {reason}")]
    Http {
        /// The server's name.
        server: String,
        /// Why.
        reason: String,
    },
    /// A request failed: the server answered with an error, or the answer was not MCP.
    #[error("MCP server `{server}` failed to {action}: {reason}")]
    Request {
        /// The server's name.
        server: String,
        /// What was asked ("list its tools", "call `read`").
        action: String,
        /// Why.
        reason: String,
    },
}

/// "; its stderr ends with: ..." when there is any.
struct StderrNote<'a>(&'a str);

impl std::fmt::Display for StderrNote<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, "; its stderr ends with:\n{}", self.0)
        }
    }
}
