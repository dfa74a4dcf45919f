//! `toolbox serve` against two other MCP filesystem servers, `rust-mcp-filesystem` (Rust) and
//! `@modelcontextprotocol/server-filesystem` (the reference server, Node): the same rmcp
//! client sends the same requests to each over stdio, on the same tree (4 copies of this
//! repository's tracked files, about 1,700 files). The servers take turns, [`ROUNDS`] turns of
//! a tenth of the calls each per operation, so that a drift in the machine's speed (this VM's
//! drifts by tens of percent over minutes) falls on all of them alike. Per operation (read a
//! 10 kB file, list a directory, a file-name glob, a regex content search): p50, p95 and p99 of
//! sequential calls after a warm-up, calls per second, the bytes of text each answer held (the
//! same work gives about the same size), and each peer's p50 as a multiple of toolbox's. Then
//! calls per second with [`IN_FLIGHT`] calls in flight on the one connection, as an agent
//! running tools in parallel sends them: what a server sustains when it is kept busy, without
//! the wake-ups of an idle machine that a single call's latency is mostly made of.
//!
//! Before the calls, each server is started [`STARTS`] times (in turns too) and timed from its
//! command to its first `tools/list` answer: an agent starts every stdio server it is
//! configured with before its first turn. After them, each server's resident memory: idle once
//! connected, at the end, and its peak.
//!
//! Run with `cargo bench -p tool-std --features cli --bench mcp_servers`; `MCP_BENCH_CALLS` sets the calls per
//! operation (default 300), a server stopping early once its calls of an operation took 15 s
//! (its row then says how many it made), so the whole run stays within a few minutes. The
//! peers: `rust-mcp-filesystem` from `RUST_MCP_FILESYSTEM`,
//! `~/.cache/toolkit-bench-tools/bin` (`cargo install rust-mcp-filesystem --root
//! ~/.cache/toolkit-bench-tools`) or the `PATH`; the Node server from `TOOLKIT_NODE` and
//! `TOOLKIT_NODE_MODULES` as `.ci/run` exports them. A peer that is not installed is reported
//! and left out.

mod mcp_support;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcp_support::{Sample, anon_rss_kb, micros, peak_rss_kb, percentile, rss_kb, timed_call};
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

/// Warm-up calls per operation, enough for the Node server's JIT to settle, so that each
/// server is measured at its best.
const WARM_UP: usize = 200;
/// The warm-up stops early after this long, and the measured calls after [`BUDGET`].
const WARM_UP_BUDGET: Duration = Duration::from_secs(2);
const BUDGET: Duration = Duration::from_secs(15);
/// Calls in flight at once in the throughput run.
const IN_FLIGHT: usize = 8;
/// The turns the servers take at each operation.
const ROUNDS: usize = 10;
/// The timed starts of each server.
const STARTS: usize = 20;

/// The file read, the directory listed, the glob (on file names, the one form all three
/// servers read alike: `rust-mcp-filesystem` matches the name only) and the content search.
const READ: &str = "copy1/tool-std/src/shell/run_shell.rs";
const LIST: &str = "copy1/tool-std/src";
const GLOB: &str = "**/[a-c]*.rs";
const REGEX: &str = r"impl .*Display for";

#[derive(Clone, Copy, PartialEq)]
enum Operation {
    /// The cheapest call each server answers (toolbox's `think`, the peers'
    /// `list_allowed_directories`): what a call costs before any file is touched.
    Floor,
    Read,
    List,
    Glob,
    Search,
}

const OPERATIONS: [Operation; 5] = [
    Operation::Floor,
    Operation::Read,
    Operation::List,
    Operation::Glob,
    Operation::Search,
];

impl Operation {
    fn name(self) -> &'static str {
        match self {
            Operation::Floor => "floor",
            Operation::Read => "read",
            Operation::List => "list",
            Operation::Glob => "glob",
            Operation::Search => "search",
        }
    }
}

/// A server to measure: how to start it, and its tool and arguments for each operation (`None`
/// where it has no such tool).
struct Server {
    name: &'static str,
    program: PathBuf,
    args: Vec<OsString>,
    request: fn(Operation, &Path) -> Option<(&'static str, Value)>,
}

impl Server {
    fn command(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(&self.program);
        command.args(&self.args);
        command
    }
}

fn path(root: &Path, relative: &str) -> String {
    root.join(relative).display().to_string()
}

/// `toolbox serve`: read_file, list_dir one level deep, glob and grep with limits above what
/// the tree gives, so it returns everything the others do.
fn toolbox_request(operation: Operation, root: &Path) -> Option<(&'static str, Value)> {
    Some(match operation {
        Operation::Floor => ("think", json!({ "thought": "x" })),
        Operation::Read => ("read_file", json!({ "path": path(root, READ) })),
        Operation::List => ("list_dir", json!({ "path": path(root, LIST), "depth": 1 })),
        Operation::Glob => (
            "glob",
            json!({ "pattern": GLOB, "path": path(root, ""), "limit": 5000 }),
        ),
        Operation::Search => (
            "grep",
            json!({
                "pattern": REGEX,
                "path": path(root, ""),
                "glob": "*.rs",
                "output_mode": "content",
                "line_numbers": true,
                "head_limit": 5000,
            }),
        ),
    })
}

/// `rust-mcp-filesystem`: read_text_file with line numbers (as read_file gives them),
/// list_directory, search_files, search_files_content with a regex.
fn rust_mcp_request(operation: Operation, root: &Path) -> Option<(&'static str, Value)> {
    Some(match operation {
        Operation::Floor => ("list_allowed_directories", json!({})),
        Operation::Read => (
            "read_text_file",
            json!({ "path": path(root, READ), "with_line_numbers": true }),
        ),
        Operation::List => ("list_directory", json!({ "path": path(root, LIST) })),
        Operation::Glob => (
            "search_files",
            json!({ "path": path(root, ""), "pattern": GLOB }),
        ),
        Operation::Search => (
            "search_files_content",
            json!({ "path": path(root, ""), "pattern": "*.rs", "query": REGEX, "is_regex": true }),
        ),
    })
}

/// The reference server: read_text_file, list_directory, search_files; no content search.
fn node_request(operation: Operation, root: &Path) -> Option<(&'static str, Value)> {
    Some(match operation {
        Operation::Floor => ("list_allowed_directories", json!({})),
        Operation::Read => ("read_text_file", json!({ "path": path(root, READ) })),
        Operation::List => ("list_directory", json!({ "path": path(root, LIST) })),
        Operation::Glob => (
            "search_files",
            json!({ "path": path(root, ""), "pattern": GLOB }),
        ),
        Operation::Search => return None,
    })
}

/// What one server did for one operation.
enum Measured {
    Done {
        p50: Duration,
        p95: Duration,
        p99: Duration,
        per_second: f64,
        /// Calls per second with [`IN_FLIGHT`] in flight (measured after the sequential runs).
        in_flight_per_second: f64,
        bytes: usize,
        calls: usize,
    },
    NoSuchTool,
    Failed(String),
}

fn servers(root: &Path) -> Vec<Server> {
    let mut servers = vec![Server {
        name: "toolbox serve",
        program: PathBuf::from(env!("CARGO_BIN_EXE_toolbox")),
        args: ["serve", "--read-only", "--workspace"]
            .map(OsString::from)
            .into_iter()
            .chain([root.as_os_str().to_owned()])
            .collect(),
        request: toolbox_request,
    }];
    match mcp_support::installed("RUST_MCP_FILESYSTEM", "rust-mcp-filesystem") {
        Some(program) => servers.push(Server {
            name: "rust-mcp-filesystem",
            program,
            args: vec![root.as_os_str().to_owned()],
            request: rust_mcp_request,
        }),
        None => println!(
            "rust-mcp-filesystem: not installed (cargo install rust-mcp-filesystem --root ~/.cache/toolkit-bench-tools); left out"
        ),
    }
    match mcp_support::node_filesystem_server() {
        Ok((node, script)) => servers.push(Server {
            name: "server-filesystem (npm)",
            program: node,
            args: vec![script.into_os_string(), root.as_os_str().to_owned()],
            request: node_request,
        }),
        Err(why) => println!("@modelcontextprotocol/server-filesystem: {why}; left out"),
    }
    servers
}

/// A server started, its client connected.
struct Connected {
    name: &'static str,
    request: fn(Operation, &Path) -> Option<(&'static str, Value)>,
    /// The server's process, for its memory.
    pid: Option<u32>,
    /// The names of its tools, as its first `tools/list` gave them.
    tools: Vec<String>,
    client: rmcp::service::RunningService<rmcp::service::RoleClient, ()>,
}

/// `server` started and connected: its process spawned, the MCP handshake made, its first
/// `tools/list` answered.
async fn connect(server: &Server) -> Result<Connected, String> {
    let transport = TokioChildProcess::builder(server.command())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|error| format!("cannot start it: {error}"))?
        .0;
    let pid = transport.id();
    let client = ()
        .serve(transport)
        .await
        .map_err(|error| format!("the MCP handshake failed: {error}"))?;
    let tools = client
        .list_all_tools()
        .await
        .map_err(|error| format!("tools/list failed: {error}"))?;
    Ok(Connected {
        name: server.name,
        request: server.request,
        pid,
        tools: tools.iter().map(|tool| tool.name.to_string()).collect(),
        client,
    })
}

/// How long each server takes from its command to its first `tools/list` answer, what an agent
/// waits for each stdio server it starts: [`STARTS`] starts each, the servers taking turns,
/// after one start each not timed (it fills the page cache). Each server is stopped before
/// the next starts.
async fn start_ups(servers: &[Server]) -> Vec<Result<Vec<Duration>, String>> {
    let mut timed: Vec<Result<Vec<Duration>, String>> =
        servers.iter().map(|_| Ok(Vec::new())).collect();
    for start in 0..=STARTS {
        for (server, timed) in servers.iter().zip(&mut timed) {
            let Ok(times) = timed else { continue };
            let started = Instant::now();
            match connect(server).await {
                Ok(connected) => {
                    if start > 0 {
                        times.push(started.elapsed());
                    }
                    let _ = connected.client.cancel().await;
                    // Dropping the transport kills the process from a task: let it run, and
                    // the process go, before the next start.
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(why) => *timed = Err(why),
            }
        }
    }
    timed
}

/// One server's calls of one operation so far.
#[derive(Default)]
struct Calls {
    times: Vec<Duration>,
    /// Their sum, kept as they come rather than summed again before each call.
    spent: Duration,
    bytes: usize,
    failed: Option<String>,
}

impl Calls {
    /// `count` more calls, unless this server already failed or spent its budget.
    async fn make(&mut self, connected: &Connected, request: &(&str, Value), count: usize) {
        for _ in 0..count {
            if self.failed.is_some() || self.spent > BUDGET {
                return;
            }
            match timed_call(&connected.client, request.0, &request.1).await {
                Ok(Sample { took, bytes }) => {
                    self.times.push(took);
                    self.spent += took;
                    self.bytes = bytes;
                }
                Err(error) => self.failed = Some(error),
            }
        }
    }

    fn measured(mut self) -> Measured {
        if let Some(error) = self.failed {
            return Measured::Failed(error);
        }
        self.times.sort_unstable();
        Measured::Done {
            p50: percentile(&self.times, 50),
            p95: percentile(&self.times, 95),
            p99: percentile(&self.times, 99),
            per_second: self.times.len() as f64 / self.spent.as_secs_f64(),
            in_flight_per_second: f64::NAN,
            bytes: self.bytes,
            calls: self.times.len(),
        }
    }
}

/// Every operation on every server, the servers taking turns: per server, what it measured.
async fn measure(servers: &[Connected], root: &Path, calls: usize) -> Vec<Vec<Measured>> {
    let mut measured: Vec<Vec<Measured>> = servers.iter().map(|_| Vec::new()).collect();
    for operation in OPERATIONS {
        let requests: Vec<_> = servers
            .iter()
            .map(|server| (server.request)(operation, root))
            .collect();
        let mut made: Vec<Calls> = servers.iter().map(|_| Calls::default()).collect();
        for ((server, request), made) in servers.iter().zip(&requests).zip(&mut made) {
            if let Some(request) = request {
                made.failed = warm_up(server, request).await.err();
            }
        }
        for _ in 0..ROUNDS {
            for ((server, request), made) in servers.iter().zip(&requests).zip(&mut made) {
                if let Some(request) = request {
                    made.make(server, request, calls.div_ceil(ROUNDS)).await;
                }
            }
        }
        for ((request, made), measured) in requests.iter().zip(made).zip(&mut measured) {
            measured.push(match request {
                Some(_) => made.measured(),
                None => Measured::NoSuchTool,
            });
        }
    }
    // The calls in flight come after every sequential run: a burst leaves a server more
    // threads for a while (Tokio keeps an idle blocking thread 10 s), which would change
    // the sequential runs after it.
    for (server, measured) in servers.iter().zip(&mut measured) {
        for (operation, measured) in OPERATIONS.into_iter().zip(measured.iter_mut()) {
            let (
                Some((tool, arguments)),
                Measured::Done {
                    in_flight_per_second,
                    ..
                },
            ) = ((server.request)(operation, root), &mut *measured)
            else {
                continue;
            };
            match in_flight(&server.client, tool, &arguments, calls).await {
                Ok(per_second) => *in_flight_per_second = per_second,
                Err(error) => *measured = Measured::Failed(error),
            }
        }
    }
    measured
}

/// [`WARM_UP`] calls (at most [`WARM_UP_BUDGET`] of them), not measured.
async fn warm_up(server: &Connected, (tool, arguments): &(&str, Value)) -> Result<(), String> {
    let warming = Instant::now();
    for _ in 0..WARM_UP {
        timed_call(&server.client, tool, arguments).await?;
        if warming.elapsed() > WARM_UP_BUDGET {
            break;
        }
    }
    Ok(())
}

/// Calls per second over `calls` calls made [`IN_FLIGHT`] at a time (each of that many tasks
/// calls in turn), within [`BUDGET`].
async fn in_flight(
    client: &rmcp::service::Peer<rmcp::service::RoleClient>,
    tool: &str,
    arguments: &Value,
    calls: usize,
) -> Result<f64, String> {
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..IN_FLIGHT {
        let (client, tool, arguments) = (client.clone(), tool.to_owned(), arguments.clone());
        tasks.spawn(async move {
            let mut made = 0;
            while made < calls.div_ceil(IN_FLIGHT) && started.elapsed() < BUDGET {
                timed_call(&client, &tool, &arguments).await?;
                made += 1;
            }
            Ok::<usize, String>(made)
        });
    }
    let mut made = 0;
    while let Some(joined) = tasks.join_next().await {
        made += joined.map_err(|error| format!("a calling task failed: {error}"))??;
    }
    Ok(made as f64 / started.elapsed().as_secs_f64())
}

fn main() {
    let calls: usize = std::env::var("MCP_BENCH_CALLS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(300);
    let tree = mcp_support::make_tree();
    let root = tree
        .path()
        .canonicalize()
        .expect("the tree's canonical path");
    println!(
        "tree: {} copies of the repository's tracked files under {}; {calls} calls per operation after {WARM_UP} warm-up calls",
        mcp_support::COPIES,
        root.display()
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    let servers = servers(&root);
    let starts = runtime.block_on(start_ups(&servers));
    // All started at once, called in turns: one call in flight at a time, so they never
    // compete for the cores; the others wait idle on their stdin.
    let (results, memory) = runtime.block_on(async {
        let mut connected = Vec::new();
        for server in &servers {
            match connect(server).await {
                Ok(server) => {
                    println!("{} tools: {}", server.name, server.tools.join(", "));
                    connected.push(server);
                }
                Err(why) => println!("{}: {why}; left out", server.name),
            }
        }
        let idle: Vec<[Option<u64>; 2]> = connected
            .iter()
            .map(|server| memory_kb(server.pid))
            .collect();
        let measured = measure(&connected, &root, calls).await;
        let mut results = Vec::new();
        let mut memory = Vec::new();
        for (server, (measured, idle)) in connected.into_iter().zip(measured.into_iter().zip(idle))
        {
            let [rss, anon] = memory_kb(server.pid);
            let peak = server.pid.and_then(peak_rss_kb);
            memory.push((server.name, [idle[0], idle[1], rss, anon, peak]));
            results.push((server.name, measured));
            let _ = server.client.cancel().await;
        }
        (results, memory)
    });
    println!();
    println!(
        "{:<8} {:<24} {:>10} {:>10} {:>10} {:>9} {:>6} {:>8} {:>14} {:>12} {:>16}",
        "op",
        "server",
        "p50 µs",
        "p95 µs",
        "p99 µs",
        "calls/s",
        "calls",
        "bytes",
        "p50 / toolbox",
        format!("calls/s ×{IN_FLIGHT}"),
        "toolbox's / this"
    );
    for (index, operation) in OPERATIONS.iter().enumerate() {
        let baseline = match results.first().map(|(_, measured)| &measured[index]) {
            Some(Measured::Done {
                p50,
                in_flight_per_second,
                ..
            }) => Some((*p50, *in_flight_per_second)),
            _ => None,
        };
        for (name, measured) in &results {
            match &measured[index] {
                Measured::Done {
                    p50,
                    p95,
                    p99,
                    per_second,
                    in_flight_per_second,
                    bytes,
                    calls,
                } => {
                    let (ratio, in_flight_ratio) = baseline.map_or(
                        ("n/a".to_owned(), "n/a".to_owned()),
                        |(p50_base, in_flight_base)| {
                            (
                                format!("{:.2}x", p50.as_secs_f64() / p50_base.as_secs_f64()),
                                format!("{:.2}x", in_flight_base / in_flight_per_second),
                            )
                        },
                    );
                    println!(
                        "{:<8} {:<24} {:>10.0} {:>10.0} {:>10.0} {:>9.1} {:>6} {:>8} {:>14} {:>12.1} {:>16}",
                        operation.name(),
                        name,
                        micros(*p50),
                        micros(*p95),
                        micros(*p99),
                        per_second,
                        calls,
                        bytes,
                        ratio,
                        in_flight_per_second,
                        in_flight_ratio
                    );
                }
                Measured::NoSuchTool => println!(
                    "{:<8} {:<24} {:>10} {:>10} {:>10} {:>9} {:>6} {:>8} {:>14}",
                    operation.name(),
                    name,
                    "n/a",
                    "n/a",
                    "n/a",
                    "n/a",
                    "n/a",
                    "n/a",
                    "no such tool"
                ),
                Measured::Failed(why) => {
                    println!("{:<8} {:<24} failed: {why}", operation.name(), name);
                }
            }
        }
    }
    print_start_ups(&servers, &starts, &memory);
}

/// Process `pid`'s resident memory and the anonymous part of it, in kB.
fn memory_kb(pid: Option<u32>) -> [Option<u64>; 2] {
    [pid.and_then(rss_kb), pid.and_then(anon_rss_kb)]
}

/// Each server's start-up (p50 and slowest of [`STARTS`]) and memory in MB: resident (and the
/// anonymous part of it, the memory that is the process's own) when connected and idle, the
/// same at the end of the runs, and its peak.
fn print_start_ups(
    servers: &[Server],
    starts: &[Result<Vec<Duration>, String>],
    memory: &[(&'static str, [Option<u64>; 5])],
) {
    println!();
    println!(
        "{:<24} {:>12} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "server", "start p50 ms", "slowest ms", "RSS idle", "anon", "at end", "anon", "peak"
    );
    for (server, starts) in servers.iter().zip(starts) {
        let (p50, slowest) = match starts {
            Ok(times) if !times.is_empty() => {
                let mut times = times.clone();
                times.sort_unstable();
                let millis = |time: Duration| format!("{:.1}", time.as_secs_f64() * 1e3);
                (
                    millis(percentile(&times, 50)),
                    millis(times[times.len() - 1]),
                )
            }
            Ok(_) => ("n/a".to_owned(), "n/a".to_owned()),
            Err(why) => {
                println!("{:<24} failed to start: {why}", server.name);
                continue;
            }
        };
        let megabytes = memory
            .iter()
            .find(|(name, _)| *name == server.name)
            .map_or([None; 5], |(_, kb)| *kb)
            .map(|kb| kb.map_or("n/a".to_owned(), |kb| format!("{:.1}", kb as f64 / 1024.0)));
        let [idle, idle_anon, at_end, end_anon, peak] = megabytes;
        println!(
            "{:<24} {p50:>12} {slowest:>10} {idle:>9} {idle_anon:>9} {at_end:>9} {end_anon:>9} {peak:>9}",
            server.name
        );
    }
}
