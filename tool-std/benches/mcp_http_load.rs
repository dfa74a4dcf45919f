//! A bounded load test of `toolbox serve --http` on loopback: 50 concurrent rmcp clients over
//! streamable HTTP share 20,000 `read_file` calls (a 10 kB file of a tree of 4 copies of this
//! repository's tracked files). Prints p50, p99 and the slowest call, calls per second, the
//! errors (there must be none: the bench exits 1 otherwise) and the server's resident memory
//! from `/proc/PID/status` when idle, once the clients are connected, at each quarter of the
//! calls and at the end, to show it stays flat once the 50 streams are under way.
//!
//! Each client has a bearer token of its own (`--client-tokens-file`), so each runs in a session
//! of its own, and the bench asserts they stay apart: before the timed calls every client
//! reads a file of its own and starts a background job; after them, each sees its own job
//! alone, and is refused when it replaces the file the next client read (it never read it
//! itself). Any mix-up fails the bench.
//!
//! Run with `cargo bench -p tool-std --features cli --bench mcp_http_load`; `MCP_LOAD_CALLS` and
//! `MCP_LOAD_CLIENTS` change the totals. The server is started as `toolbox serve --http
//! 127.0.0.1:0 --mode bypass --client-tokens-file FILE --workspace TREE` (bypass, so that the
//! jobs start without an approval no client here could give) and announces its URL on stderr.

mod mcp_support;

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_support::{micros, percentile, rss_kb, timed_call};
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};

const READ: &str = "copy1/tool-std/src/shell/run_shell.rs";

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(default)
}

/// Starts the server and returns it with the URL it printed on stderr.
async fn start(root: &Path, tokens: &Path) -> Result<(tokio::process::Child, String), String> {
    let mut server = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["serve", "--http", "127.0.0.1:0", "--mode", "bypass"])
        .arg("--client-tokens-file")
        .arg(tokens)
        .arg("--workspace")
        .arg(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|error| format!("cannot start toolbox serve --http: {error}"))?;
    let stderr = server.stderr.take().ok_or("no stderr")?;
    let mut lines = BufReader::new(stderr).lines();
    let mut said = Vec::new();
    let found = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(at) = line.find("http://") {
                let url = line[at..]
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_owned();
                return Some(url);
            }
            said.push(line);
        }
        None
    })
    .await;
    let Ok(Some(url)) = found else {
        return Err(format!(
            "toolbox serve --http printed no URL on stderr; it said:\n{}",
            said.join("\n")
        ));
    };
    // Keep reading stderr, so a full pipe never blocks the server.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok((server, url))
}

/// What one client did: its latencies and its errors (the first one's text kept).
struct ClientRun {
    times: Vec<Duration>,
    errors: usize,
    first_error: Option<String>,
    /// The client, kept for the checks after the timed calls.
    peer: Option<Client>,
}

type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

/// Connects one client with its bearer `token`, within 30 s.
async fn connect(url: &str, token: &str) -> Result<Client, String> {
    let transport = StreamableHttpClientTransport::from_config(
        rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
            url.to_owned(),
        )
        .auth_header(token.to_owned()),
    );
    match tokio::time::timeout(Duration::from_secs(30), ().serve(transport)).await {
        Ok(Ok(peer)) => Ok(peer),
        Ok(Err(error)) => Err(format!("connecting: {error}")),
        Err(_) => Err("connecting: no answer in 30 s".to_owned()),
    }
}

/// A call's text, or why it failed (a transport error or an `isError` result).
async fn call(peer: &Client, tool: &str, arguments: serde_json::Value) -> Result<String, String> {
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    let params = rmcp::model::CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    let result = peer
        .call_tool(params)
        .await
        .map_err(|error| format!("{tool}: {error}"))?;
    let text = mcp_support::text_of(&result);
    if result.is_error == Some(true) {
        Err(text)
    } else {
        Ok(text)
    }
}

/// What client `index` leaves in its session before the timed calls: `own-N.md` read, and a
/// background job. Returns the job's id.
async fn settle_in(peer: &Client, index: usize) -> Result<String, String> {
    call(
        peer,
        "read_file",
        json!({"path": format!("own-{index}.md")}),
    )
    .await?;
    let started = call(
        peer,
        "run_shell",
        json!({"command": format!("sleep 20 # job of client-{index}."), "run_in_background": true}),
    )
    .await?;
    let job = started
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .find(|word| word.starts_with("shell_"))
        .ok_or_else(|| format!("no job id in {started:?}"))?
        .to_owned();
    Ok(job)
}

/// Whether client `index`'s session is still its own alone: its job listed and no other, and
/// the file client `index + 1` read not replaceable by it.
async fn check_apart(peer: &Client, index: usize, clients: usize, job: &str) -> Result<(), String> {
    // Job ids are numbered per session (every client's first is `shell_1`): the command
    // tells whose a listed job is.
    let listed = call(peer, "list_shells", json!({})).await?;
    let own = format!("job of client-{index}.");
    if !listed.contains(job) || !listed.contains(&own) {
        return Err(format!(
            "client {index} does not see its own job {job}: {listed}"
        ));
    }
    if listed.matches("job of client-").count() != 1 {
        return Err(format!(
            "client {index} sees another client's job: {listed}"
        ));
    }
    let next = (index + 1) % clients;
    let replaced = call(
        peer,
        "write_file",
        json!({"path": format!("own-{next}.md"), "content": "taken\n"}),
    )
    .await;
    match replaced {
        Err(why) if why.contains("has not been read in this session") => {}
        other => {
            return Err(format!(
                "client {index} replaced own-{next}.md, which only client {next} read: {other:?}"
            ));
        }
    }
    let _ = call(peer, "kill_shell", json!({"shell_id": job})).await;
    Ok(())
}

/// One client's calls: it takes call numbers until `total` are handed out.
async fn client(peer: Client, path: String, next: Arc<AtomicUsize>, total: usize) -> ClientRun {
    let mut run = ClientRun {
        times: Vec::new(),
        errors: 0,
        first_error: None,
        peer: None,
    };
    let arguments = json!({ "path": path });
    while next.fetch_add(1, Ordering::Relaxed) < total {
        match timed_call(&peer, "read_file", &arguments).await {
            Ok(sample) => run.times.push(sample.took),
            Err(error) => {
                run.errors += 1;
                run.first_error.get_or_insert(error);
            }
        }
    }
    run.peer = Some(peer);
    run
}

fn main() {
    let total = setting("MCP_LOAD_CALLS", 20_000);
    let clients = setting("MCP_LOAD_CLIENTS", 50);
    let tree = mcp_support::make_tree();
    let root = tree
        .path()
        .canonicalize()
        .expect("the tree's canonical path");
    // The workspace's reqwest leaves rustls without a provider; ring, as fetch_url uses.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    let outcome = runtime.block_on(async {
        let tokens = root.join("client-tokens.txt");
        let lines: String = (0..clients)
            .map(|index| format!("client-{index} token-of-client-{index}\n"))
            .collect();
        std::fs::write(&tokens, lines).map_err(|error| error.to_string())?;
        for index in 0..clients {
            std::fs::write(
                root.join(format!("own-{index}.md")),
                format!("client {index}\n"),
            )
            .map_err(|error| error.to_string())?;
        }
        let (server, url) = start(&root, &tokens).await?;
        let pid = server.id().ok_or("the server exited at once")?;
        let idle = rss_kb(pid);
        // Every client connects before any call, so the calls run `clients` at a time.
        let mut peers = Vec::with_capacity(clients);
        for index in 0..clients {
            peers.push(connect(&url, &format!("token-of-client-{index}")).await?);
        }
        let mut jobs = Vec::with_capacity(clients);
        for (index, peer) in peers.iter().enumerate() {
            jobs.push(settle_in(peer, index).await?);
        }
        let next = Arc::new(AtomicUsize::new(0));
        let path = root.join(READ).display().to_string();
        let at_start = rss_kb(pid);
        let started = Instant::now();
        let tasks: Vec<_> = peers
            .into_iter()
            .map(|peer| tokio::spawn(client(peer, path.clone(), Arc::clone(&next), total)))
            .collect();
        // Sampled as each quarter of the calls has been handed out. A client that panicked
        // ends the wait too (it is reported below), so the bench never hangs.
        let mut quarters = Vec::new();
        while next.load(Ordering::Relaxed) < total && !tasks.iter().all(|task| task.is_finished()) {
            if quarters.len() < 3
                && next.load(Ordering::Relaxed) >= total * (quarters.len() + 1) / 4
            {
                quarters.push(rss_kb(pid));
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let mut times = Vec::with_capacity(total);
        let mut errors = 0;
        let mut first_error = None;
        let mut finished = Vec::with_capacity(clients);
        for task in tasks {
            let run = task
                .await
                .map_err(|error| format!("a client panicked: {error}"))?;
            times.extend(run.times);
            errors += run.errors;
            if first_error.is_none() {
                first_error = run.first_error;
            }
            finished.extend(run.peer);
        }
        let elapsed = started.elapsed();
        let at_end = rss_kb(pid);
        let mut mixed_up = Vec::new();
        for (index, peer) in finished.iter().enumerate() {
            if let Err(why) = check_apart(peer, index, clients, &jobs[index]).await {
                mixed_up.push(why);
            }
        }
        for peer in finished {
            let _ = peer.cancel().await;
        }
        drop(server);
        times.sort_unstable();
        let kb = |rss: Option<u64>| rss.map_or("n/a".to_owned(), |kb| format!("{kb} kB"));
        println!(
            "toolbox serve --http at {url}: {clients} clients, {} calls of read_file",
            times.len()
        );
        println!(
            "p50 {:.0} µs, p99 {:.0} µs, slowest {:.0} µs; {:.0} calls/s over {:.2} s",
            micros(percentile(&times, 50)),
            micros(percentile(&times, 99)),
            micros(times.last().copied().unwrap_or_default()),
            times.len() as f64 / elapsed.as_secs_f64(),
            elapsed.as_secs_f64()
        );
        let quarters: Vec<String> = quarters.into_iter().map(kb).collect();
        println!(
            "server RSS: idle {}, clients connected {}, at 1/4, 1/2, 3/4 of the calls {}, end {}",
            kb(idle),
            kb(at_start),
            quarters.join(", "),
            kb(at_end)
        );
        println!("errors: {errors}");
        println!(
            "isolation: {} of {clients} clients saw their own job and files read alone",
            clients - mixed_up.len()
        );
        if let Some(first) = mixed_up.first() {
            return Err(format!(
                "{} clients were not kept apart; the first: {first}",
                mixed_up.len()
            ));
        }
        match first_error {
            Some(error) => Err(format!("{errors} calls failed; the first: {error}")),
            None => Ok(()),
        }
    });
    if let Err(why) = outcome {
        eprintln!("mcp_http_load: {why}");
        std::process::exit(1);
    }
}
