//! `call_batch`: what runs in parallel, what runs in order, and that results keep the order of
//! the calls. Parallelism is proven with barriers that only open when the calls meet, and order
//! with barriers that never open because the calls cannot meet — never with timings.

use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::watch;
use tool_core::{
    BoxFuture, Coordinator, State, ToolCall, ToolError, Toolset,
    approval::{ApprovalRequest, ApprovalResponse, Approver, AutoApprove},
    coordinator::BatchOptions,
    tool,
};

/// The meeting point of a test: how many of its calls run at once. A call "meets" the others
/// when, while it waits, the number of calls running at the same time reaches `parties`; the
/// peak only grows, so no meeting is missed however the calls are scheduled.
struct Meeting {
    parties: usize,
    /// (running now, most ever running at once).
    running: watch::Sender<(usize, usize)>,
    /// How long a call waits for the others before it concludes it runs alone.
    patience: Duration,
    log: Mutex<Vec<String>>,
}

impl Meeting {
    fn new(parties: usize, patience: Duration) -> Self {
        Meeting {
            parties,
            running: watch::Sender::new((0, 0)),
            patience,
            log: Mutex::new(Vec::new()),
        }
    }

    fn most_running(&self) -> usize {
        self.running.borrow().1
    }

    async fn attend(&self, who: &str) -> String {
        self.running.send_modify(|(now, peak)| {
            *now += 1;
            *peak = (*peak).max(*now);
        });
        let mut watching = self.running.subscribe();
        let met = tokio::time::timeout(
            self.patience,
            watching.wait_for(|(_, peak)| *peak >= self.parties),
        )
        .await
        .is_ok();
        self.log.lock().unwrap().push(who.to_owned());
        self.running.send_modify(|(now, _)| *now -= 1);
        if met { "met" } else { "alone" }.to_owned()
    }
}

/// Read something, meeting whoever reads at the same time.
#[tool(read_only, name = "batch_read")]
async fn read(meeting: State<Meeting>, #[arg(path)] path: String) -> String {
    meeting.attend(&format!("read {path}")).await
}

/// Write a file, meeting whoever writes at the same time.
#[tool(name = "batch_write")]
async fn write(meeting: State<Meeting>, #[arg(path)] path: String, tag: String) -> String {
    meeting.attend(&format!("write {path} {tag}")).await
}

/// Change something unknown, meeting whoever runs at the same time.
#[tool(name = "batch_touch")]
async fn touch(meeting: State<Meeting>, tag: String) -> String {
    meeting.attend(&format!("touch {tag}")).await
}

/// Fail.
#[tool(read_only, name = "batch_fail")]
fn fail() -> Result<String, ToolError> {
    Err(ToolError::failed("this tool always fails"))
}

fn coordinator(meeting: Meeting, options: BatchOptions) -> Coordinator {
    Coordinator::builder()
        .toolset(
            Toolset::named(["batch_read", "batch_write", "batch_touch", "batch_fail"]).unwrap(),
        )
        .state(meeting)
        .approver(AutoApprove)
        .batch(options)
        .build()
        .unwrap()
}

fn read_call(id: &str, path: &str) -> ToolCall {
    ToolCall::new("batch_read", format!(r#"{{"path": "{path}"}}"#)).with_call_id(id)
}

fn write_call(id: &str, path: &str) -> ToolCall {
    ToolCall::new(
        "batch_write",
        format!(r#"{{"path": "{path}", "tag": "{id}"}}"#),
    )
    .with_call_id(id)
}

fn texts(results: &[tool_core::ToolResult]) -> Vec<String> {
    results.iter().map(|r| r.text().into_owned()).collect()
}

const LONG: Duration = Duration::from_secs(20);
const SHORT: Duration = Duration::from_millis(300);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_calls_run_in_parallel() {
    let coordinator = coordinator(Meeting::new(3, LONG), BatchOptions::default());
    let results = coordinator
        .call_batch(vec![
            read_call("1", "a"),
            read_call("2", "b"),
            read_call("3", "a"),
        ])
        .await;
    assert_eq!(texts(&results), ["met", "met", "met"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_calls_on_distinct_paths_run_in_parallel() {
    let coordinator = coordinator(Meeting::new(2, LONG), BatchOptions::default());
    let results = coordinator
        .call_batch(vec![write_call("1", "a.txt"), write_call("2", "b.txt")])
        .await;
    assert_eq!(texts(&results), ["met", "met"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_calls_on_the_same_path_run_in_order() {
    let meeting = Meeting::new(2, SHORT);
    let coordinator = coordinator(meeting, BatchOptions::default());
    let results = coordinator
        .call_batch(vec![
            write_call("first", "a.txt"),
            write_call("second", "./a.txt"),
        ])
        .await;
    // Had they overlapped, they would have met.
    assert_eq!(texts(&results), ["alone", "alone"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_waits_for_earlier_reads_of_its_path_and_later_reads_wait_for_it() {
    let meeting = std::sync::Arc::new(Meeting::new(2, SHORT));
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["batch_read", "batch_write"]).unwrap())
        .shared_state(std::sync::Arc::clone(&meeting))
        .approver(AutoApprove)
        .build()
        .unwrap();
    let results = coordinator
        .call_batch(vec![
            read_call("r1", "a.txt"),
            write_call("w", "a.txt"),
            read_call("r2", "a.txt"),
        ])
        .await;
    assert_eq!(texts(&results), ["alone", "alone", "alone"]);
    assert_eq!(
        *meeting.log.lock().unwrap(),
        ["read a.txt", "write a.txt w", "read a.txt"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_calls_without_resources_run_in_order() {
    let meeting = std::sync::Arc::new(Meeting::new(2, SHORT));
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["batch_touch"]).unwrap())
        .shared_state(std::sync::Arc::clone(&meeting))
        .approver(AutoApprove)
        .build()
        .unwrap();
    let results = coordinator
        .call_batch(vec![
            ToolCall::new("batch_touch", r#"{"tag": "one"}"#),
            ToolCall::new("batch_touch", r#"{"tag": "two"}"#),
            ToolCall::new("batch_touch", r#"{"tag": "three"}"#),
        ])
        .await;
    assert_eq!(texts(&results), ["alone", "alone", "alone"]);
    assert_eq!(
        *meeting.log.lock().unwrap(),
        ["touch one", "touch two", "touch three"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_concurrency_limit_caps_how_many_calls_run_at_once() {
    let meeting = std::sync::Arc::new(Meeting::new(2, LONG));
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["batch_read"]).unwrap())
        .shared_state(std::sync::Arc::clone(&meeting))
        .batch(BatchOptions::limit(2))
        .build()
        .unwrap();
    let calls = (0..6).map(|i| read_call(&i.to_string(), "a")).collect();
    let results = coordinator.call_batch(calls).await;
    // Pairs meet, so two ran at once; never more than two did.
    assert_eq!(texts(&results), ["met"; 6]);
    assert_eq!(meeting.most_running(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sequential_batches_run_one_call_after_another() {
    let meeting = std::sync::Arc::new(Meeting::new(2, SHORT));
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["batch_read"]).unwrap())
        .shared_state(std::sync::Arc::clone(&meeting))
        .batch(BatchOptions::sequential())
        .build()
        .unwrap();
    let results = coordinator
        .call_batch(vec![read_call("1", "a"), read_call("2", "b")])
        .await;
    assert_eq!(texts(&results), ["alone", "alone"]);
    assert_eq!(*meeting.log.lock().unwrap(), ["read a", "read b"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_keep_the_order_of_the_calls_and_one_failure_cancels_nothing() {
    let coordinator = coordinator(Meeting::new(2, LONG), BatchOptions::default());
    let results = coordinator
        .call_batch(vec![
            read_call("ok1", "a"),
            ToolCall::new("batch_fail", "{}").with_call_id("failing"),
            ToolCall::new("batch_nope", "{}").with_call_id("unknown"),
            ToolCall::new("batch_read", r#"{"pth": "a"}"#).with_call_id("bad"),
            read_call("ok2", "b"),
        ])
        .await;
    let ids: Vec<&str> = results.iter().map(|r| r.call_id.as_str()).collect();
    assert_eq!(ids, ["ok1", "failing", "unknown", "bad", "ok2"]);
    assert_eq!(results[0].text(), "met");
    assert_eq!(results[4].text(), "met");
    assert_eq!(results[1].error().unwrap().kind(), "failed");
    assert_eq!(results[2].error().unwrap().kind(), "unknown_tool");
    assert_eq!(results[3].error().unwrap().kind(), "invalid_arguments");
}

/// Aborts at the first request.
struct AbortAll;

impl Approver for AbortAll {
    fn approve<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        Box::pin(async { ApprovalResponse::Abort })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aborted_approval_cancels_the_calls_not_yet_started() {
    let meeting = std::sync::Arc::new(Meeting::new(2, SHORT));
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["batch_touch"]).unwrap())
        .shared_state(std::sync::Arc::clone(&meeting))
        .approver(AbortAll)
        .build()
        .unwrap();
    let results = coordinator
        .call_batch(vec![
            ToolCall::new("batch_touch", r#"{"tag": "one"}"#),
            ToolCall::new("batch_touch", r#"{"tag": "two"}"#),
        ])
        .await;
    assert!(
        results
            .iter()
            .all(|r| r.error().map(ToolError::kind) == Some("cancelled"))
    );
    assert!(meeting.log.lock().unwrap().is_empty(), "nothing ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_of_an_aborted_batch_is_reported_finished() {
    let meeting = std::sync::Arc::new(Meeting::new(2, SHORT));
    let (events, mut received) = tokio::sync::mpsc::unbounded_channel();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["batch_touch"]).unwrap())
        .shared_state(std::sync::Arc::clone(&meeting))
        .approver(AbortAll)
        .events(events)
        .build()
        .unwrap();
    coordinator
        .call_batch(vec![
            ToolCall::new("batch_touch", r#"{"tag": "one"}"#).with_call_id("1"),
            ToolCall::new("batch_touch", r#"{"tag": "two"}"#).with_call_id("2"),
        ])
        .await;
    let mut finished = Vec::new();
    while let Ok(event) = received.try_recv() {
        if let tool_core::events::CallEvent::Finished { call_id, .. } = event {
            finished.push(call_id);
        }
    }
    finished.sort();
    assert_eq!(finished, ["1", "2"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unbounded_concurrency_limit_is_accepted() {
    let coordinator = coordinator(Meeting::new(2, LONG), BatchOptions::limit(usize::MAX));
    let results = coordinator
        .call_batch(vec![read_call("1", "a"), read_call("2", "b")])
        .await;
    assert_eq!(texts(&results), ["met", "met"]);
}
