//! `toolbox serve`: the toolset over MCP, on stdio or (with `--http`) over streamable HTTP, with
//! the HTTP server's flags (where to listen, who may call, the approval-state key); how the
//! signals stop it is [`signals`]'s.

use std::io::IsTerminal as _;
use std::path::PathBuf;

use tool_core::Toolset;
use tool_core::context::CancellationToken;
use tool_core::mcp::ServeError;

use crate::{FAILED, Failure, SessionArgs, coordinator, imports, runtime, signals, start_runtime};

pub(crate) const SERVE_HELP: &str = "\
Over HTTP the server is stateless (run several behind any load balancer), speaks MCP 2026-07-28
and 2025-11-25 at one endpoint (/mcp), and by default listens on loopback only, answers only
requests whose Host is a loopback name, and refuses (403) browser requests from any Origin but
a loopback one. A non-loopback address needs a bearer token (--token-env or --token-file; never
on the command line, where `ps` shows it) or --allow-unauthenticated.

Over stdio, a line that is not JSON-RPC is answered with a parse error (-32700) and the session
goes on; a message over --max-message-bytes is answered with an error naming the limit. A client
that closes stdin before its first message ends the server with status 0; one that sends no MCP
handshake, with status 2.

subtask and web_search are not served: they need a model to run sub-agents and a search
engine, which an application linking tool-std gives them and a command line cannot.

Examples:
  toolbox serve --workspace .                          # stdio, for a client that spawns it
  toolbox serve --http 8080                            # http://127.0.0.1:8080/mcp
  MCP_TOKEN=... toolbox serve --http 0.0.0.0:8080 --token-env MCP_TOKEN --allow-host mcp.example.com";

/// What `toolbox serve` serves, and how.
#[derive(clap::Args)]
pub(crate) struct ServeArgs {
    /// Serve only the read-only tools.
    #[arg(long)]
    read_only: bool,
    /// Serve only these tools (names or aliases, comma-separated or repeated), with those of
    /// --tags.
    #[arg(long, value_name = "TOOL", value_delimiter = ',')]
    tools: Vec<String>,
    /// Serve only the tools with one of these tags (comma-separated or repeated), with those
    /// of --tools: `fs` is the file tools (read, write, edit, patch, list, grep, glob,
    /// repo_map); `toolbox list --json` shows each tool's tags.
    #[arg(long, value_name = "TAG", value_delimiter = ',')]
    tags: Vec<String>,
    /// The largest message read, in bytes, or with a unit (`64M`, `512K`); a longer one is
    /// answered with an error naming the limit.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "16M")]
    max_message_bytes: usize,
    #[command(flatten)]
    http: HttpArgs,
}

/// `toolbox serve --http`: where to listen and who may call.
#[derive(clap::Args)]
pub(crate) struct HttpArgs {
    /// Serve over streamable HTTP at ADDR instead of stdio: `127.0.0.1:8080`, `[::1]:8080`,
    /// or a port alone (on 127.0.0.1). Port 0 picks a free port. The URL is printed on stderr.
    #[arg(long, value_name = "ADDR", value_parser = parse_http_address)]
    http: Option<std::net::SocketAddr>,
    /// Allow browser requests from this Origin (`https://app.example.com`, `http://host:*`);
    /// repeatable. Loopback origins are allowed when listening on loopback.
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    allow_origin: Vec<String>,
    /// Answer requests for this Host (`mcp.example.com`, `host:port`); repeatable. Loopback
    /// names are always answered on loopback; elsewhere, with none given, any Host is.
    #[arg(long, value_name = "HOST", requires = "http")]
    allow_host: Vec<String>,
    /// Require `Authorization: Bearer <token>`, the token read from this environment variable.
    #[arg(
        long,
        value_name = "VAR",
        requires = "http",
        conflicts_with = "token_file"
    )]
    token_env: Option<String>,
    /// Require `Authorization: Bearer <token>`, the token read from this file (one line).
    #[arg(long, value_name = "FILE", requires = "http")]
    token_file: Option<PathBuf>,
    /// One client per line of this file, `NAME TOKEN`: each client is admitted by its own
    /// bearer token and served in a session of its own (grants, files read, artifacts,
    /// background jobs, todo list, mode), dropped after an hour without a request. `#` lines
    /// are comments.
    #[arg(long, value_name = "FILE", requires = "http")]
    client_tokens_file: Option<PathBuf>,
    /// Serve on a non-loopback address without a token, because a proxy in front
    /// authenticates.
    #[arg(long, requires = "http")]
    allow_unauthenticated: bool,
    /// Seal approval round trips (protocol 2026-07-28) with the key in this environment
    /// variable (32 bytes or more), so that several instances behind one address accept each
    /// other's. Without it, each process makes a random key.
    #[arg(long, value_name = "VAR", requires = "http")]
    state_key_env: Option<String>,
    /// Give clients speaking MCP 2025-11-25 a session, so that they can be asked while a call
    /// runs (approvals, a tool's questions). Ties each such client to this instance: behind
    /// several instances, the balancer must keep sessions sticky.
    #[arg(long, requires = "http")]
    legacy_sessions: bool,
}

/// The clients of a `--client-tokens-file`: `NAME TOKEN` per line, blank and `#` lines skipped.
fn client_tokens(path: &std::path::Path) -> Result<Vec<(String, String)>, Failure> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|error| Failure::setup(format!("--client-tokens-file {shown}: {error}")))?;
    let mut clients = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let [name, token] = words[..] else {
            return Err(Failure::setup(format!(
                "--client-tokens-file {shown}, line {}: expected `NAME TOKEN` (two words), found {} word(s)",
                index + 1,
                words.len()
            )));
        };
        clients.push((name.to_owned(), token.to_owned()));
    }
    if clients.is_empty() {
        return Err(Failure::setup(format!(
            "--client-tokens-file {shown}: no client in it; write one `NAME TOKEN` per line"
        )));
    }
    Ok(clients)
}

fn parse_http_address(text: &str) -> Result<std::net::SocketAddr, String> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    if let Ok(address) = text.parse() {
        return Ok(address);
    }
    // A host name with a port (`localhost:8080`): its addresses, IPv4 first.
    let not_an_address = || {
        format!(
            "`{text}` is not an address: write HOST:PORT (`localhost:8080`, `127.0.0.1:8080`, `[::1]:8080`) or a port alone"
        )
    };
    if !text
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok())
    {
        return Err(not_an_address());
    }
    let addresses: Vec<std::net::SocketAddr> = std::net::ToSocketAddrs::to_socket_addrs(text)
        .map_err(|error| format!("`{text}`: the host name does not resolve ({error})"))?
        .collect();
    addresses
        .iter()
        .find(|address| address.is_ipv4())
        .or(addresses.first())
        .copied()
        .ok_or_else(not_an_address)
}

impl HttpArgs {
    /// The server's options, with the token read from where the flags say.
    fn options(
        &self,
        address: std::net::SocketAddr,
    ) -> Result<tool_core::mcp::HttpOptions, Failure> {
        let mut options = tool_core::mcp::HttpOptions::new(address)
            .allow_unauthenticated(self.allow_unauthenticated)
            .legacy_sessions(self.legacy_sessions);
        for origin in &self.allow_origin {
            options = options.allow_origin(origin);
        }
        for host in &self.allow_host {
            options = options.allow_host(host);
        }
        let token = match (&self.token_env, &self.token_file) {
            (Some(var), _) => Some((
                std::env::var(var).map_err(|_| {
                    Failure::setup(format!(
                        "--token-env {var}: the environment variable `{var}` is not set (or not UTF-8)"
                    ))
                })?,
                format!("--token-env {var}: the environment variable `{var}` is empty"),
            )),
            (None, Some(path)) => Some((
                std::fs::read_to_string(path).map_err(|error| {
                    Failure::setup(format!("--token-file {}: {error}", path.display()))
                })?,
                format!("--token-file {}: the file is empty", path.display()),
            )),
            (None, None) => None,
        };
        if let Some((token, empty)) = token {
            // An empty token would let any request through that sends `Bearer ` and nothing.
            if token.trim().is_empty() {
                return Err(Failure::setup(format!(
                    "{empty}; it should hold the token that clients send as `Authorization: Bearer <token>`"
                )));
            }
            options = options.bearer_token(token.trim());
        }
        if let Some(path) = &self.client_tokens_file {
            for (name, token) in client_tokens(path)? {
                options = options.client_token(name, token);
            }
        }
        Ok(options)
    }

    /// `server` with the approval-state key `--state-key-env` names, if it names one.
    fn with_state_key(
        &self,
        server: tool_core::mcp::McpServer,
    ) -> Result<tool_core::mcp::McpServer, Failure> {
        let Some(var) = &self.state_key_env else {
            return Ok(server);
        };
        let key = std::env::var(var).map_err(|_| {
            Failure::setup(format!(
                "--state-key-env {var}: the environment variable `{var}` is not set (or not UTF-8)"
            ))
        })?;
        server
            .with_state_key(key.as_bytes())
            .map_err(|error| Failure::setup(format!("--state-key-env {var}: {error}")))
    }
}

/// The standard tools `toolbox serve` leaves out: `subtask` needs a runner of sub-agents (a
/// model) and `web_search` a search engine, which an application linking tool-std gives them
/// (`.state(...)` on its coordinator builder) and a command line cannot.
pub(crate) const NEEDS_AN_APPLICATION: [&str; 2] = ["subtask", "web_search"];

/// Withholds every tool that neither `tools` names nor `tags` covers (nothing, when both are
/// empty), saying why to a client that calls one anyway.
fn select(toolset: &mut Toolset, tools: &[String], tags: &[String]) -> Result<(), Failure> {
    if tools.is_empty() && tags.is_empty() {
        return Ok(());
    }
    let mut chosen = Vec::new();
    for name in tools {
        match toolset.get(name) {
            Some(tool) => chosen.push(tool.spec().name.to_string()),
            None => {
                let close = toolset.suggest(name);
                let hint = match close.first() {
                    Some(close) => format!("; did you mean `{close}`?"),
                    None => "; `toolbox list` shows the tools".to_owned(),
                };
                return Err(Failure::setup(format!(
                    "--tools {name}: no such tool{hint}"
                )));
            }
        }
    }
    let known: std::collections::BTreeSet<String> = toolset
        .iter()
        .flat_map(|tool| tool.spec().tags.iter().map(ToString::to_string))
        .collect();
    if let Some(unknown) = tags.iter().find(|tag| !known.contains(tag.as_str())) {
        let known: Vec<&str> = known.iter().map(String::as_str).collect();
        return Err(Failure::setup(format!(
            "--tags {unknown}: no tool has this tag; the tags are {}",
            known.join(", ")
        )));
    }
    let left_out: Vec<String> = toolset
        .iter()
        .map(|tool| tool.spec())
        .filter(|spec| {
            !chosen.iter().any(|name| *name == spec.name)
                && !spec
                    .tags
                    .iter()
                    .any(|tag| tags.iter().any(|wanted| wanted == tag))
        })
        .map(|spec| spec.name.to_string())
        .collect();
    for name in left_out {
        toolset.withhold(
            &name,
            "this server serves only the tools it was started with (`toolbox serve --tools`/`--tags`)",
        );
    }
    Ok(())
}

/// What a tool of [`NEEDS_AN_APPLICATION`] needs, in a few words for `toolbox list`.
pub(crate) fn needs_an_application(tool: &str) -> Option<&'static str> {
    match tool {
        "subtask" => Some("[needs a model to run sub-agents: not here] "),
        "web_search" => Some("[needs a search engine: not here] "),
        _ => None,
    }
}

pub(crate) fn serve(
    toolset: Toolset,
    session: &SessionArgs,
    args: &ServeArgs,
) -> Result<u8, Failure> {
    let ServeArgs {
        read_only,
        max_message_bytes,
        ref http,
        ..
    } = *args;
    let mut toolset = toolset;
    // Tools that need what only an application can give them: served, every call would fail
    // and the model would spend its turns learning so. Withheld, not just removed: a client
    // that calls one anyway is told why, not that no such tool exists.
    for tool in NEEDS_AN_APPLICATION {
        toolset.withhold(
            tool,
            "`toolbox serve` leaves it out: it needs a model or a search engine, which only an application linking tool-std can give it",
        );
    }
    if read_only {
        let writers: Vec<String> = toolset
            .iter()
            .filter(|tool| !tool.spec().effect.is_read_only())
            .map(|tool| tool.spec().name.to_string())
            .collect();
        for tool in writers {
            toolset.withhold(
                &tool,
                "this server serves only read-only tools (`toolbox serve --read-only`)",
            );
        }
    }
    let runtime = if http.http.is_some() {
        runtime()?
    } else {
        stdio_runtime()?
    };
    let resolved = session.resolve()?;
    let (mut toolset, imported) =
        imports::add(&runtime, toolset, &session.servers(&resolved), read_only)?;
    select(&mut toolset, &args.tools, &args.tags)?;
    // stdin and stdout carry the protocol (or the server runs unattended): nobody can be
    // asked at the terminal.
    // Over stdio, SIGINT, SIGTERM and SIGHUP cancel every call in flight through this.
    let calls = CancellationToken::new();
    let coordinator = coordinator(
        toolset,
        session,
        resolved,
        false,
        calls.clone(),
        |builder| builder,
    )?;
    // An imported server's tool changes reach this server's clients: a chain.
    if let Some(imported) = &imported {
        runtime.block_on(
            imported.keep_in_sync(&coordinator, move |spec| imports::keeps(read_only, spec)),
        );
    }
    if let Some(address) = http.http {
        let options = http.options(address)?;
        return runtime.block_on(async {
            // (Approvals "for the session" are offered over HTTP only where each client has a
            // session of its own: --legacy-sessions, --client-tokens-file.)
            let server = tool_core::mcp::McpServer::new(coordinator)
                .named("toolbox", env!("CARGO_PKG_VERSION"))
                .max_message_bytes(max_message_bytes);
            let server = http.with_state_key(server)?;
            let server = tool_core::mcp::HttpServer::bind(server, options)
                .await
                .map_err(|error| match error {
                    // Said in this command's words: which flags fix it.
                    tool_core::mcp::HttpError::Unauthenticated { address } => Failure::setup(format!(
                        "refusing to serve on {address} without authentication: anyone who can reach it could call the tools. Require a token (--token-env VAR, --token-file FILE or --client-tokens-file FILE), listen on loopback (--http 127.0.0.1:PORT), or, when a proxy in front authenticates, pass --allow-unauthenticated"
                    )),
                    error => Failure::setup(error.to_string()),
                })?;
            // Ctrl-C, SIGTERM or SIGHUP end the server cleanly, so the coordinator is dropped
            // and the commands it still runs are killed with it.
            let mut stop = signals::Listener::new();
            let shutdown = server.shutdown_token();
            tokio::spawn(async move {
                stop.next().await;
                shutdown.cancel();
            });
            eprintln!("toolbox: serving MCP at {}", server.url());
            server.run().await.map_err(|error| Failure {
                code: FAILED,
                message: error.to_string(),
            })?;
            Ok(0)
        });
    }
    // The end of stdin cancels the calls in flight (tool-core's `serve_stdio`); a signal
    // cancels them too, and ends the process with the signal's status.
    if std::io::stdin().is_terminal() {
        eprintln!(
            "toolbox serve: waiting for an MCP client on stdin (JSON-RPC, one message per line); an MCP client starts this command itself. To try a tool by hand: toolbox call read_file '{{\"path\": \"README.md\"}}' (toolbox list shows the tools). Ctrl-D ends."
        );
    }
    let server = tool_core::mcp::McpServer::new(coordinator)
        .named("toolbox", env!("CARGO_PKG_VERSION"))
        .max_message_bytes(max_message_bytes);
    let served = runtime.block_on(signals::until_stopped(server.serve_stdio(), &calls));
    match served {
        // A client that left before it said anything (or Ctrl-D at a terminal): nothing failed.
        Ok(Ok(()) | Err(ServeError::ClosedBeforeHandshake)) => {}
        Ok(Err(error @ ServeError::NotMcp(_))) => {
            return Err(Failure::usage(format!(
                "{error}; `toolbox serve` talks MCP with a client that starts it, and `toolbox call TOOL '<json>'` runs a tool by hand"
            )));
        }
        Ok(Err(error)) => {
            return Err(Failure {
                code: FAILED,
                message: format!("the MCP connection failed: {error}"),
            });
        }
        Err(stop) => {
            drop(imported);
            return Ok(signals::shut_down(stop, runtime));
        }
    }
    Ok(0)
}

/// A size in bytes as a person writes it: `1048576`, `512K`, `16M`, `1G` (also `KiB`, `MB`,
/// and so on; every unit is a power of 1024, as for memory).
pub(crate) fn parse_size(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let number: usize = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size: write a number of bytes, or one with a unit (`512K`, `16M`, `1G`)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        other => {
            return Err(format!(
                "`{other}` is not a unit of size: use K, M or G (powers of 1024), as in `16M`"
            ));
        }
    };
    match number.checked_mul(1 << shift) {
        Some(0) | None => Err(format!(
            "`{text}` is not a usable size: give at least one byte and at most what this machine can address"
        )),
        Some(bytes) => Ok(bytes),
    }
}

/// The runtime of a server over stdio: one thread. Its one client's requests arrive one line
/// at a time, and on a multi-threaded runtime each went from the thread reading stdin to
/// another that ran the call and on to the one writing the answer, each hand-over a wake-up of
/// a sleeping thread. What that costs depends on the machine: on this 2-core VM a call of
/// `think` took 61 µs that way and takes 19 µs on one thread while the other core is busy
/// (Python client, p50); with both cores idle, waking either way costs the same, about 60 µs
/// a round trip. Tools that block run on Tokio's blocking pool either way, and `execute`'s
/// interpreter on a thread of its own, so a long call does not stop the server reading the
/// next request or a cancellation.
fn stdio_runtime() -> Result<tokio::runtime::Runtime, Failure> {
    start_runtime(tokio::runtime::Builder::new_current_thread())
}

#[cfg(test)]
mod tests {
    use super::{parse_http_address, parse_size};

    #[test]
    fn an_http_address_may_be_a_port_an_ip_or_a_host_name() {
        assert_eq!(
            parse_http_address("8080").unwrap().to_string(),
            "127.0.0.1:8080"
        );
        assert_eq!(
            parse_http_address("[::1]:9").unwrap().to_string(),
            "[::1]:9"
        );
        let named = parse_http_address("localhost:8080").unwrap();
        assert!(named.ip().is_loopback() && named.port() == 8080, "{named}");
        for wrong in ["localhost", "localhost:http", ":8080", "8080:"] {
            let error = parse_http_address(wrong).unwrap_err();
            assert!(error.contains("HOST:PORT"), "{wrong}: {error}");
        }
    }

    #[test]
    fn a_size_is_bytes_or_a_number_with_a_unit_in_powers_of_1024() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("16M"), Ok(16 << 20));
        assert_eq!(parse_size("2 GiB"), Ok(2 << 30));
        assert!(parse_size("0").unwrap_err().contains("at least one byte"));
        assert!(parse_size("16Q").unwrap_err().contains("K, M or G"));
        assert!(parse_size("lots").unwrap_err().contains("not a size"));
    }
}
