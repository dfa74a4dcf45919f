//! The middleware chain: timeouts, the output limit with its artifacts, tracing spans named by
//! the OpenTelemetry GenAI conventions, and user middleware in the order it was added.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tool_core::{
    BoxFuture, Coordinator, State, ToolCall, ToolError, ToolOutput, Toolset,
    context::CancellationToken,
    middleware::{Artifacts, Downstream, Invocation, Middleware},
    tool,
};

/// Wait until cancelled.
#[tool(read_only, name = "mw_hang", timeout_ms = 50)]
async fn hang(cancel: CancellationToken, seen: State<Mutex<Option<CancellationToken>>>) -> String {
    *seen.lock().unwrap() = Some(cancel.clone());
    cancel.cancelled().await;
    "cancelled".into()
}

/// Sleep for a long time; no timeout of its own.
#[tool(read_only, name = "mw_sleep")]
async fn sleep() -> String {
    tokio::time::sleep(Duration::from_secs(600)).await;
    "woke".into()
}

/// Print many numbered lines.
#[tool(read_only, name = "mw_lines")]
fn lines(count: usize) -> String {
    (1..=count)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Page through a kept output.
#[tool(read_only, name = "read_artifact")]
fn read_artifact(
    artifacts: State<Artifacts>,
    id: String,
    offset: usize,
    limit: usize,
) -> Result<String, ToolError> {
    artifacts
        .read(&id, offset, limit)
        .map_err(ToolError::failed)
}

/// Answer.
#[tool(read_only, name = "mw_answer")]
fn answer() -> &'static str {
    "42"
}

fn toolset() -> Toolset {
    Toolset::named([
        "mw_hang",
        "mw_sleep",
        "mw_lines",
        "read_artifact",
        "mw_answer",
    ])
    .unwrap()
}

#[tokio::test]
async fn a_tool_running_past_its_timeout_ends_timed_out_and_its_token_is_cancelled() {
    let seen: Mutex<Option<CancellationToken>> = Mutex::new(None);
    let coordinator = Coordinator::builder()
        .toolset(toolset())
        .state(seen)
        .build()
        .unwrap();
    let result = coordinator.call(ToolCall::new("mw_hang", "{}")).await;
    assert_eq!(result.error().map(ToolError::kind), Some("timed_out"));
    assert!(result.text().contains("50 ms"), "{}", result.text());
    let state = coordinator.call(ToolCall::new("mw_answer", "{}")).await;
    assert_eq!(state.text(), "42", "the coordinator goes on");
}

#[tokio::test]
async fn a_timeout_cancels_only_its_own_call() {
    let token = CancellationToken::new();
    let seen: Mutex<Option<CancellationToken>> = Mutex::new(None);
    let coordinator = Coordinator::builder()
        .toolset(toolset())
        .cancellation(token.clone())
        .state(seen)
        .build()
        .unwrap();
    coordinator.call(ToolCall::new("mw_hang", "{}")).await;
    assert!(
        !token.is_cancelled(),
        "the coordinator's token is untouched"
    );
}

#[tokio::test]
async fn a_default_timeout_applies_to_tools_without_one() {
    let coordinator = Coordinator::builder()
        .toolset(toolset())
        .default_timeout(Duration::from_millis(30))
        .build()
        .unwrap();
    let result = coordinator.call(ToolCall::new("mw_sleep", "{}")).await;
    assert_eq!(result.error().map(ToolError::kind), Some("timed_out"));
}

#[test]
fn a_long_output_keeps_head_and_tail_and_the_whole_is_an_artifact_the_model_can_page() {
    let coordinator = Coordinator::builder()
        .toolset(toolset())
        .output_limit(2_000)
        .build()
        .unwrap();
    let result = coordinator.call_blocking(ToolCall::new("mw_lines", r#"{"count": 5000}"#));
    let text = result.text();
    assert!(text.chars().count() < 2_400, "cut to about the limit");
    assert!(text.starts_with("line 1\nline 2\n"));
    assert!(text.ends_with("line 4999\nline 5000"));
    assert!(text.contains("artifact `art_1`"), "{text}");
    assert!(text.contains("read_artifact"));
    let page = coordinator.call_blocking(ToolCall::new(
        "read_artifact",
        r#"{"id": "art_1", "offset": 2500, "limit": 3}"#,
    ));
    assert_eq!(page.text(), "line 2500\nline 2501\nline 2502");
}

#[test]
fn every_coordinator_has_an_artifact_store_even_without_an_output_limit() {
    let coordinator = Coordinator::builder().toolset(toolset()).build().unwrap();
    let result = coordinator.call_blocking(ToolCall::new(
        "read_artifact",
        r#"{"id": "art_1", "offset": 1, "limit": 1}"#,
    ));
    assert!(result.is_error());
    assert!(
        result.text().contains("no output has been kept"),
        "the store is there and empty: {}",
        result.text()
    );
}

#[test]
fn the_output_limit_spills_into_the_store_given_as_state() {
    let store = Artifacts::new(1 << 20);
    let coordinator = Coordinator::builder()
        .toolset(toolset())
        .state(store.clone())
        .output_limit(1_000)
        .build()
        .unwrap();
    coordinator.call_blocking(ToolCall::new("mw_lines", r#"{"count": 5000}"#));
    assert_eq!(
        store.list().len(),
        1,
        "the caller's store holds the spilled output"
    );
}

/// Fail with a long message.
#[tool(read_only, name = "mw_fail_long")]
fn fail_long() -> Result<String, ToolError> {
    Err(ToolError::failed("é🙂 ".repeat(5_000)))
}

#[test]
fn a_long_error_message_is_cut_like_a_long_output() {
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["mw_fail_long", "read_artifact"]).unwrap())
        .output_limit(1_000)
        .build()
        .unwrap();
    let result = coordinator.call_blocking(ToolCall::new("mw_fail_long", "{}"));
    assert_eq!(result.error().map(ToolError::kind), Some("failed"));
    assert!(
        result.text().chars().count() < 1_400,
        "cut to about the limit"
    );
    assert!(
        result.text().contains("artifact `art_1`"),
        "{}",
        result.text()
    );
}

#[test]
fn the_note_names_read_artifact_only_when_the_model_has_that_tool() {
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["mw_lines"]).unwrap())
        .output_limit(1_000)
        .build()
        .unwrap();
    let text = coordinator
        .call_blocking(ToolCall::new("mw_lines", r#"{"count": 5000}"#))
        .text()
        .into_owned();
    assert!(text.contains("kept as artifact `art_1`"), "{text}");
    assert!(!text.contains("read_artifact"), "{text}");
}

/// Cancels the call's own token, then lets the call run.
struct CancelEachCall;

impl Middleware for CancelEachCall {
    fn handle<'a>(
        &'a self,
        call: &'a Invocation<'a>,
        next: Downstream<'a>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        call.ctx.cancellation().cancel();
        Box::pin(next.run())
    }
}

#[tokio::test]
async fn a_middleware_cancelling_a_call_cancels_only_that_call() {
    let token = CancellationToken::new();
    let seen: Mutex<Option<CancellationToken>> = Mutex::new(None);
    let coordinator = Coordinator::builder()
        .toolset(toolset())
        .cancellation(token.clone())
        .state(seen)
        .middleware(CancelEachCall)
        .build()
        .unwrap();
    let result = coordinator.call(ToolCall::new("mw_hang", "{}")).await;
    assert_eq!(
        result.text(),
        "cancelled",
        "the tool saw its token cancelled"
    );
    assert!(
        !token.is_cancelled(),
        "the coordinator's token is untouched"
    );
}

#[test]
fn a_short_output_is_left_alone() {
    let coordinator = Coordinator::builder()
        .toolset(toolset())
        .output_limit(2_000)
        .build()
        .unwrap();
    let result = coordinator.call_blocking(ToolCall::new("mw_lines", r#"{"count": 3}"#));
    assert_eq!(result.text(), "line 1\nline 2\nline 3");
}

/// Records the order middlewares run in.
struct Record {
    name: &'static str,
    log: Arc<Mutex<Vec<String>>>,
}

impl Middleware for Record {
    fn handle<'a>(
        &'a self,
        call: &'a Invocation<'a>,
        next: Downstream<'a>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            self.log
                .lock()
                .unwrap()
                .push(format!("{} before {}", self.name, call.spec.name));
            let result = next.run().await;
            self.log
                .lock()
                .unwrap()
                .push(format!("{} after", self.name));
            result
        })
    }
}

/// Refuses every call.
struct Refuse;

impl Middleware for Refuse {
    fn handle<'a>(
        &'a self,
        _: &'a Invocation<'a>,
        _: Downstream<'a>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async { Err(ToolError::failed("refused by middleware")) })
    }
}

#[test]
fn middleware_runs_in_the_order_added_around_the_tool() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let coordinator = Coordinator::builder()
        .toolset(toolset())
        .middleware(Record {
            name: "outer",
            log: Arc::clone(&log),
        })
        .middleware(Record {
            name: "inner",
            log: Arc::clone(&log),
        })
        .build()
        .unwrap();
    let result = coordinator.call_blocking(ToolCall::new("mw_answer", "{}"));
    assert_eq!(result.text(), "42");
    assert_eq!(
        *log.lock().unwrap(),
        [
            "outer before mw_answer",
            "inner before mw_answer",
            "inner after",
            "outer after"
        ]
    );
}

#[test]
fn a_middleware_can_refuse_a_call_before_the_tool_runs() {
    let coordinator = Coordinator::builder()
        .toolset(toolset())
        .middleware(Refuse)
        .build()
        .unwrap();
    let result = coordinator.call_blocking(ToolCall::new("mw_answer", "{}"));
    assert_eq!(result.text(), "refused by middleware");
}

mod spans {
    //! A subscriber that records span names and fields, so the test reads what an
    //! OpenTelemetry exporter would receive.

    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    #[derive(Debug, Clone, Default)]
    pub struct Span {
        pub name: String,
        pub fields: BTreeMap<String, String>,
    }

    #[derive(Clone, Default)]
    pub struct Recorder {
        pub spans: Arc<Mutex<Vec<Span>>>,
    }

    struct Fields<'a>(&'a mut BTreeMap<String, String>);

    impl Visit for Fields<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            self.0.insert(field.name().to_owned(), format!("{value:?}"));
        }

        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.insert(field.name().to_owned(), value.to_owned());
        }
    }

    impl Subscriber for Recorder {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }

        fn new_span(&self, attributes: &Attributes<'_>) -> Id {
            let mut span = Span {
                name: attributes.metadata().name().to_owned(),
                ..Span::default()
            };
            attributes.record(&mut Fields(&mut span.fields));
            let mut spans = self.spans.lock().unwrap();
            spans.push(span);
            Id::from_u64(spans.len() as u64)
        }

        fn record(&self, id: &Id, values: &Record<'_>) {
            let mut spans = self.spans.lock().unwrap();
            let index = usize::try_from(id.into_u64()).unwrap() - 1;
            values.record(&mut Fields(&mut spans[index].fields));
        }

        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, _: &Event<'_>) {}
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }
}

/// Fail, for the span's error type.
#[tool(read_only, name = "mw_fail")]
fn fail() -> Result<String, ToolError> {
    Err(ToolError::failed("no"))
}

#[test]
fn each_call_is_a_span_named_by_the_opentelemetry_genai_conventions() {
    let recorder = spans::Recorder::default();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["mw_answer", "mw_fail"]).unwrap())
        .tracing()
        .build()
        .unwrap();
    tracing::subscriber::with_default(recorder.clone(), || {
        coordinator.call_blocking(ToolCall::new("mw_answer", "{}").with_call_id("call_7"));
        coordinator.call_blocking(ToolCall::new("mw_fail", "{}").with_call_id("call_8"));
    });
    let spans = recorder.spans.lock().unwrap();
    let tools: Vec<&spans::Span> = spans.iter().filter(|s| s.name == "execute_tool").collect();
    assert_eq!(tools.len(), 2, "{spans:?}");
    let ok = &tools[0].fields;
    assert_eq!(ok["gen_ai.operation.name"], "execute_tool");
    assert_eq!(ok["gen_ai.tool.name"], "mw_answer");
    assert_eq!(ok["gen_ai.tool.call.id"], "call_7");
    assert_eq!(ok["otel.name"], "execute_tool mw_answer");
    assert!(!ok.contains_key("error.type"));
    assert_eq!(tools[1].fields["error.type"], "failed");
}

/// Spin on the blocking pool until the call's token is cancelled, then say so.
#[tool(read_only, blocking, name = "mw_spin", timeout_ms = 50)]
fn spin(
    cancel: tool_core::context::CancellationToken,
    seen: State<std::sync::atomic::AtomicBool>,
) -> String {
    let started = std::time::Instant::now();
    while !cancel.is_cancelled() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(1));
    }
    seen.store(cancel.is_cancelled(), std::sync::atomic::Ordering::SeqCst);
    "stopped".into()
}

#[tokio::test]
async fn a_blocking_tool_sees_its_call_cancelled_at_the_timeout() {
    let seen = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["mw_spin"]).unwrap())
        .shared_state(Arc::clone(&seen))
        .build()
        .unwrap();
    let result = coordinator.call(ToolCall::new("mw_spin", "{}")).await;
    assert_eq!(result.error().map(ToolError::kind), Some("timed_out"));
    let waited = std::time::Instant::now();
    while !seen.load(std::sync::atomic::Ordering::SeqCst) {
        assert!(
            waited.elapsed() < Duration::from_secs(5),
            "the blocking thread never saw its token cancelled"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}
