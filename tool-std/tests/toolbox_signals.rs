//! `toolbox call` and `toolbox serve` on stdio stopped by a signal, or by their client leaving,
//! while a command runs: the command must not outlive `toolbox`. Each command writes its pid
//! to a file before it sleeps; the test waits for the file, stops `toolbox`, and then checks
//! the exit status and that the pid is gone.
#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

/// Bounds a wait for something that should happen at once, so that a hang fails the test
/// instead of stalling it; not a measure of speed.
const LIVENESS: Duration = Duration::from_secs(15);

/// Waits until `condition` holds, failing after [`LIVENESS`].
fn wait_until(what: &str, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + LIVENESS;
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The pid the command wrote to `pid` in `workspace`, once it has.
fn pid_written(workspace: &Path) -> i32 {
    let file = workspace.join("pid");
    wait_until("the command has written its pid", || {
        std::fs::read_to_string(&file).is_ok_and(|text| text.ends_with('\n'))
    });
    std::fs::read_to_string(&file)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Whether process `pid` is gone: no such process, or a zombie that only waits to be reaped
/// (its parent, `toolbox`, exited; whoever adopted it reaps it in its own time).
fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name, which is in parentheses.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => true,
    }
}

fn signal(child: &Child, signal: Signal) {
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
}

/// `toolbox`'s exit status, once it has exited; kills it and fails after [`LIVENESS`].
fn exited(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + LIVENESS;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("toolbox did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stderr(child: &mut Child) -> String {
    let mut text = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut text).unwrap();
    text
}

/// `toolbox call run_shell` of `command` in `workspace`, in bypass mode (the command writes).
fn call(workspace: &Path, command: &str) -> Child {
    let arguments = serde_json::json!({ "command": command }).to_string();
    Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args([
            "call",
            "run_shell",
            &arguments,
            "--mode",
            "bypass",
            "--workspace",
        ])
        .arg(workspace)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Asserts that `toolbox` (sent `sent`) exited with `code`, saying why on stderr, and that the
/// command `pid` did not outlive it.
fn assert_stopped(toolbox: &mut Child, sent: &str, code: i32, pid: i32) {
    let status = exited(toolbox);
    let said = stderr(toolbox);
    assert_eq!(status.code(), Some(code), "{status}; stderr: {said}");
    assert!(
        said.contains(&format!("stopped by {sent}")),
        "stderr says why: {said}"
    );
    wait_until("the command toolbox started is gone", || gone(pid));
}

#[test]
fn sigint_during_a_call_stops_its_command_and_exits_130() {
    let workspace = tempfile::tempdir().unwrap();
    let mut toolbox = call(workspace.path(), "echo $$ > pid; sleep 131; echo done");
    let pid = pid_written(workspace.path());
    signal(&toolbox, Signal::INT);
    assert_stopped(&mut toolbox, "SIGINT", 130, pid);
}

#[test]
fn sigterm_during_a_call_stops_its_command_and_exits_143() {
    let workspace = tempfile::tempdir().unwrap();
    let mut toolbox = call(workspace.path(), "echo $$ > pid; exec sleep 132");
    let pid = pid_written(workspace.path());
    signal(&toolbox, Signal::TERM);
    assert_stopped(&mut toolbox, "SIGTERM", 143, pid);
}

#[test]
fn sigint_while_imported_mcp_servers_start_stops_them_and_exits_130() {
    let workspace = tempfile::tempdir().unwrap();
    // A server that never answers the handshake, in a process group of its own (as every
    // imported server is), which a signal to toolbox alone does not reach.
    let config = workspace.path().join(".mcp.json");
    let command = format!(
        "echo $$ > {}; exec sleep 133",
        workspace.path().join("pid").display()
    );
    let servers =
        serde_json::json!({"mcpServers": {"slow": {"command": "sh", "args": ["-c", command]}}});
    std::fs::write(&config, servers.to_string()).unwrap();
    let mut toolbox = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["list", "--mcp-config"])
        .arg(&config)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = pid_written(workspace.path());
    signal(&toolbox, Signal::INT);
    let status = exited(&mut toolbox);
    let said = stderr(&mut toolbox);
    assert_eq!(status.code(), Some(130), "{status}; stderr: {said}");
    assert!(
        said.contains("stopped by SIGINT while the MCP servers were starting"),
        "{said}"
    );
    wait_until("the server toolbox started is gone", || gone(pid));
}

#[test]
fn a_command_that_ignores_sigterm_is_killed_before_toolbox_exits() {
    let workspace = tempfile::tempdir().unwrap();
    // Ignored signals stay ignored across exec: the sleep ignores SIGTERM too.
    let mut toolbox = call(
        workspace.path(),
        "trap '' TERM; echo $$ > pid; sleep 133; echo done",
    );
    let pid = pid_written(workspace.path());
    signal(&toolbox, Signal::HUP);
    assert_stopped(&mut toolbox, "SIGHUP", 129, pid);
}

/// `toolbox serve` on stdio in `workspace` (bypass mode), past the MCP handshake.
struct Server {
    toolbox: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
}

impl Server {
    fn start(workspace: &Path) -> Server {
        let mut toolbox = Command::new(env!("CARGO_BIN_EXE_toolbox"))
            .args(["serve", "--mode", "bypass", "--workspace"])
            .arg(workspace)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let input = toolbox.stdin.take();
        let output = BufReader::new(toolbox.stdout.take().unwrap());
        let mut server = Server {
            toolbox,
            input,
            output,
        };
        server.send(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#,
        );
        let answer = server.answer();
        assert!(answer.contains("\"protocolVersion\""), "{answer}");
        server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        server
    }

    fn send(&mut self, message: &str) {
        let input = self.input.as_mut().unwrap();
        input.write_all(message.as_bytes()).unwrap();
        input.write_all(b"\n").unwrap();
        input.flush().unwrap();
    }

    /// The next line the server writes.
    fn answer(&mut self) -> String {
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        line
    }

    /// Sends `tools/call` of run_shell with `arguments`, as request `id`.
    fn run_shell(&mut self, id: u32, arguments: &serde_json::Value) {
        let request = serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "tools/call",
            "params": { "name": "run_shell", "arguments": arguments },
        });
        self.send(&request.to_string());
    }
}

#[test]
fn sigterm_to_a_stdio_server_mid_call_stops_the_command_and_exits_143() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = Server::start(workspace.path());
    server.run_shell(
        2,
        &serde_json::json!({ "command": "echo $$ > pid; sleep 134; echo done" }),
    );
    let pid = pid_written(workspace.path());
    signal(&server.toolbox, Signal::TERM);
    assert_stopped(&mut server.toolbox, "SIGTERM", 143, pid);
}

#[test]
fn a_stdio_server_whose_client_closes_stdin_mid_call_exits_within_two_seconds() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = Server::start(workspace.path());
    server.run_shell(
        2,
        &serde_json::json!({ "command": "echo $$ > pid; exec sleep 135" }),
    );
    let pid = pid_written(workspace.path());
    // What the MCP Python SDK does when it leaves: close stdin, then SIGTERM 2 s later. The
    // server must be gone by then, its command with it: this bound is the client's.
    let closed = Instant::now();
    drop(server.input.take());
    let status = loop {
        if let Some(status) = server.toolbox.try_wait().unwrap() {
            break status;
        }
        if closed.elapsed() > Duration::from_secs(2) {
            signal(&server.toolbox, Signal::KILL);
            panic!("the server was still running 2 s after its stdin closed");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(
        status.success(),
        "{status}: {}",
        stderr(&mut server.toolbox)
    );
    wait_until("the command the call ran is gone", || gone(pid));
}

#[test]
fn a_background_job_is_stopped_when_a_signal_stops_the_server() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = Server::start(workspace.path());
    server.run_shell(
        2,
        &serde_json::json!({
            "command": "echo $$ > pid; exec sleep 136",
            "run_in_background": true,
        }),
    );
    let answer = server.answer();
    assert!(answer.contains("shell_1"), "the job started: {answer}");
    let pid = pid_written(workspace.path());
    signal(&server.toolbox, Signal::INT);
    assert_stopped(&mut server.toolbox, "SIGINT", 130, pid);
}
