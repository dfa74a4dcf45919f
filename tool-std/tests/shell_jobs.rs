//! Background jobs: `run_shell` with `run_in_background` answers at once with an id;
//! `shell_output` reads what is new, filtered; `kill_shell` stops the whole process group;
//! `list_shells` lists them; and no job outlives the coordinator. Claude Code's names
//! (`BashOutput` with `bash_id`, `KillShell` with `shell_id`) work too.
#![cfg(unix)]

use std::time::{Duration, Instant};

use serde_json::json;

mod shell_support;
use shell_support::{Shell, first_line_pgid, group_gone, live_members, structured};

#[test]
fn a_background_job_answers_at_once_with_its_id() {
    let shell = Shell::new();
    let started = Instant::now();
    let id = shell.start("sleep 30");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(id, "shell_1");
    assert_eq!(shell.start("sleep 30"), "shell_2");
    let output = shell.job_output(&id, json!({}));
    assert_eq!(output.status, "running");
    assert_eq!((output.exit_code, output.signal), (None, None));
}

#[test]
fn a_jobs_output_is_read_incrementally_since_the_last_read() {
    let shell = Shell::new();
    let id = shell.start("echo one; while [ ! -e go ]; do sleep 0.02; done; echo two; sleep 30");
    assert_eq!(shell.read_until(&id, |seen| seen.contains("one")), "one\n");
    assert_eq!(shell.job_output(&id, json!({})).output, "", "nothing new");
    std::fs::write(shell.root().join("go"), "").unwrap();
    assert_eq!(shell.read_until(&id, |seen| seen.contains("two")), "two\n");
    let all = shell.job_output(&id, json!({"since_last": false}));
    assert_eq!(all.output, "one\ntwo\n");
    assert_eq!(all.status, "running");
}

#[test]
fn a_line_not_yet_ended_waits_for_its_end() {
    let shell = Shell::new();
    let id = shell.start("printf 'whole\\npart'; while [ ! -e go ]; do sleep 0.02; done; echo ial");
    assert_eq!(
        shell.read_until(&id, |seen| seen.contains("whole")),
        "whole\n"
    );
    let held = shell.job_output(&id, json!({}));
    assert_eq!(held.output, "");
    assert!(
        held.note
            .unwrap()
            .contains("4 bytes of a line not yet ended")
    );
    std::fs::write(shell.root().join("go"), "").unwrap();
    assert_eq!(
        shell.read_until(&id, |seen| seen.contains("partial")),
        "partial\n"
    );
}

#[test]
fn a_jobs_output_is_filtered_by_a_regular_expression() {
    let shell = Shell::new();
    let id = shell.start("printf 'error: a\\ninfo: b\\nerror: c\\n'");
    let output = wait_for_end(&shell, &id);
    assert_eq!(output.exit_code, Some(0));
    let filtered = shell.job_output(&id, json!({"filter": "^error", "since_last": false}));
    assert_eq!(filtered.output, "error: a\nerror: c\n");
    let result = shell.call("shell_output", json!({"id": id, "filter": "(unclosed"}));
    assert!(result.is_error());
    assert!(
        result
            .text()
            .contains("filter is not a valid regular expression"),
        "{}",
        result.text()
    );
}

#[test]
fn a_killed_job_stops_its_whole_process_group() {
    let shell = Shell::new();
    let id = shell.start("echo $(cut -d' ' -f5 /proc/$$/stat); sleep 30 & sleep 30 & wait");
    let pgid = first_line_pgid(&shell.read_until(&id, |seen| seen.contains('\n')));
    assert!(!live_members(pgid).is_empty());
    let killed: tool_std::JobKilled = shell.reply("kill_shell", json!({"id": id}));
    assert!(!killed.already_ended);
    assert_eq!(killed.status, "killed by SIGTERM (stopped by kill_shell)");
    assert_eq!(group_gone(pgid), Ok(()));
    // Killing it again changes nothing and says so.
    let again: tool_std::JobKilled = shell.reply("kill_shell", json!({"id": id}));
    assert!(again.already_ended);
    assert_eq!(
        shell.job_output(&id, json!({})).signal.as_deref(),
        Some("SIGTERM")
    );
}

#[test]
fn list_shells_lists_every_job_with_its_status() {
    let shell = Shell::new();
    assert!(
        shell
            .reply::<tool_std::ShellList>("list_shells", json!({}))
            .jobs
            .is_empty()
    );
    let done = shell.start("exit 4");
    wait_for_end(&shell, &done);
    let running = match shell.reply(
        "run_shell",
        json!({
            "command": "sleep 30",
            "run_in_background": true,
            "description": "Wait a while",
        }),
    ) {
        tool_std::ShellReply::Started(started) => started.job_id,
        other => panic!("expected a job, got {other:?}"),
    };
    let list: tool_std::ShellList = shell.reply("list_shells", json!({}));
    let rows: Vec<(&str, &str, Option<&str>, &str)> = list
        .jobs
        .iter()
        .map(|job| {
            (
                job.job_id.as_str(),
                job.command.as_str(),
                job.description.as_deref(),
                job.status.as_str(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (done.as_str(), "exit 4", None, "exited with code 4"),
            (
                running.as_str(),
                "sleep 30",
                Some("Wait a while"),
                "running"
            ),
        ]
    );
}

#[test]
fn no_job_survives_the_coordinator_being_dropped() {
    let shell = Shell::new();
    let id = shell.start("echo $(cut -d' ' -f5 /proc/$$/stat); sleep 30 & sleep 30");
    let pgid = first_line_pgid(&shell.read_until(&id, |seen| seen.contains('\n')));
    assert!(!live_members(pgid).is_empty());
    drop(shell);
    assert_eq!(group_gone(pgid), Ok(()));
}

#[test]
fn an_unknown_job_id_is_an_error_naming_the_jobs_there_are() {
    let shell = Shell::new();
    let result = shell.call("shell_output", json!({"id": "shell_9"}));
    assert!(
        result.text().contains("this session has started none"),
        "{}",
        result.text()
    );
    let id = shell.start("true");
    for tool in ["shell_output", "kill_shell"] {
        let result = shell.call(tool, json!({"id": "shell_9"}));
        assert!(result.is_error());
        assert!(
            result
                .text()
                .contains(&format!("no shell job `shell_9`; the jobs are: {id}")),
            "{}",
            result.text()
        );
    }
}

#[test]
fn claude_codes_bash_output_and_kill_shell_names_work() {
    let shell = Shell::new();
    let id = shell.start("echo ready; sleep 30");
    shell.read_until(&id, |seen| seen.contains("ready"));
    let output: tool_std::JobOutput =
        structured(&shell.call("BashOutput", json!({"bash_id": id, "since_last": false})));
    assert_eq!(output.output, "ready\n");
    let killed: tool_std::JobKilled = structured(&shell.call("KillShell", json!({"shell_id": id})));
    assert!(killed.status.starts_with("killed by"), "{}", killed.status);
}

#[test]
fn a_jobs_output_past_the_cap_keeps_the_newest_bytes_and_says_so() {
    let shell = Shell::new();
    // 12 MB in lines of 100 bytes, numbered, past the 8 MiB a job keeps.
    let id = shell.start("seq -f '%099g' 1 120000");
    wait_for_end(&shell, &id);
    let output = shell.job_output(&id, json!({"since_last": false}));
    let note = output.note.expect("the drop is said");
    assert!(
        note.contains("bytes of output were dropped before they were read"),
        "{note}"
    );
    assert!(output.output.ends_with(&format!("{:099}\n", 120_000)));
    // The whole of what was kept went to an artifact, which starts past the first lines.
    let artifact = shell.artifacts.get(&output.artifact.unwrap()).unwrap();
    assert!(artifact.text.len() <= 8 * 1024 * 1024 + 100);
    assert!(!artifact.text.starts_with(&format!("{:099}\n", 1)));
}

/// Job `id`'s output and status once it has ended (at most 10 seconds).
fn wait_for_end(shell: &Shell, id: &str) -> tool_std::JobOutput {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let list: tool_std::ShellList = shell.reply("list_shells", json!({}));
        let job = list.jobs.iter().find(|job| job.job_id == id).unwrap();
        if job.status != "running" {
            return shell.job_output(id, json!({"since_last": false}));
        }
        assert!(Instant::now() < deadline, "job {id} never ended");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn only_the_newest_ended_jobs_are_kept() {
    let shell = Shell::new();
    let ids: Vec<String> = (0..32).map(|_| shell.start("true")).collect();
    for id in &ids {
        wait_for_end(&shell, id);
    }
    let running = shell.start("sleep 30");
    let list: tool_std::ShellList = shell.reply("list_shells", json!({}));
    assert_eq!(list.jobs.len(), 32, "31 ended jobs and the running one");
    assert_eq!(list.jobs[0].job_id, "shell_2");
    assert_eq!(list.jobs[31].job_id, running);
    let result = shell.call("shell_output", json!({"id": "shell_1"}));
    assert!(
        result.text().contains(
            "shell job `shell_1` ended and was forgotten: only the 32 newest ended jobs are kept"
        ),
        "{}",
        result.text()
    );
}
