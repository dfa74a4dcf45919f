//! An imported tool whose server asks questions while it runs: the MCP client carries them to
//! the calling session, and our approver answers. The server is tool-core's, serving fixture
//! tools that ask (`Session::elicit`, `sample`, `roots`) in this process over streamable HTTP:
//! at 2026-07-28 the questions come as `input_required` results and the call is sent again
//! with the answers; at 2025-11-25 (`legacy_protocol`, a server with sessions for such
//! clients) as `elicitation/create`, `sampling/createMessage` and `roots/list` requests on the
//! call's response stream, while the call waits. Over stdio at 2025-11-25 (through a relay
//! process, as `mcp_questions.rs` does) the request carries no tie to its call, and is the
//! only call's in flight.
//!
//! Each test: the answer arrives in the server's tool's result; a declined question; an
//! approver that cannot answer questions, whose reason the result carries; roots answered with
//! our workspace root; a message from our session's model.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rmcp::ServiceExt;
use serde_json::{Value, json};
use tool_core::approval::{
    Answer, ApprovalRequest, ApprovalResponse, Approver, AutoApprove, Question, QuestionRequest,
    Sampled, SamplingRequest, Unanswered,
};
use tool_core::coordinator::Session;
use tool_core::hooks::{CommandHook, HookEvent, HookInput, HookOutput, Hooks, hook_fn};
use tool_core::mcp::client::{McpClient, McpServerConfig};
use tool_core::mcp::{HttpOptions, HttpServer, McpServer};
use tool_core::policy::PolicyBuilder;
use tool_core::{
    BoxFuture, Coordinator, ToolCall, ToolError, ToolResult, Toolset, Workspace, tool,
};

mod peers;
use peers::python;

/// Ask the user's name and greet them.
#[tool(read_only, name = "cq_greet")]
async fn greet(#[ctx] session: Session) -> Result<String, ToolError> {
    let schema =
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    match session
        .elicit(Question::new("What is your name?", schema)?)
        .await?
    {
        Answer::Accept(content) => Ok(format!(
            "Hello, {}!",
            content["name"].as_str().unwrap_or("?")
        )),
        Answer::Decline => Ok("declined".to_owned()),
        _ => Ok("cancelled".to_owned()),
    }
}

/// List the client's roots.
#[tool(read_only, name = "cq_roots")]
async fn roots(#[ctx] session: Session) -> Result<String, ToolError> {
    let roots: Vec<String> = session
        .roots()
        .await?
        .into_iter()
        .map(|root| root.uri)
        .collect();
    Ok(format!("roots: {}", roots.join(" ")))
}

/// Ask the client's model for a color.
#[tool(read_only, name = "cq_sample")]
async fn sample(#[ctx] session: Session) -> Result<String, ToolError> {
    let sampled = session
        .sample(SamplingRequest::new("Name a color.", 20).with_system_prompt("One word."))
        .await?;
    Ok(format!("{} said {}", sampled.model, sampled.text))
}

/// Ask the user ten questions, one after the other.
#[tool(read_only, name = "cq_ten")]
async fn ten(#[ctx] session: Session) -> Result<String, ToolError> {
    let schema =
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    let mut names = Vec::new();
    for number in 1..=10 {
        let question = Question::new(format!("Name number {number}?"), schema.clone())?;
        if let Answer::Accept(content) = session.elicit(question).await? {
            names.push(content["name"].as_str().unwrap_or("?").to_owned());
        }
    }
    Ok(format!("{} names", names.len()))
}

/// Ask the user questions for ever.
#[tool(read_only, name = "cq_nag")]
async fn nag(#[ctx] session: Session) -> Result<String, ToolError> {
    let schema =
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    for number in 1.. {
        let question = Question::new(format!("Name number {number}?"), schema.clone())?;
        session.elicit(question).await?;
    }
    Ok("never".to_owned())
}

/// Ask the user a question and return without waiting for the answer.
#[tool(read_only, name = "cq_hit_and_run")]
async fn hit_and_run(#[ctx] session: Session) -> Result<String, ToolError> {
    let schema =
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    let question = Question::new("Still there?", schema)?;
    tokio::spawn(async move { session.elicit(question).await });
    // Long enough for the question to reach the client while the call is in flight.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    Ok("gone".to_owned())
}

fn server_coordinator() -> Coordinator {
    Coordinator::builder()
        .toolset(
            Toolset::named([
                "cq_greet",
                "cq_roots",
                "cq_sample",
                "cq_ten",
                "cq_nag",
                "cq_hit_and_run",
            ])
            .unwrap(),
        )
        .build()
        .unwrap()
}

/// How the fixture server is reached.
#[derive(Clone, Copy, Debug)]
enum Reach {
    /// Stateless HTTP, protocol 2026-07-28: `input_required` rounds.
    Modern,
    /// HTTP with sessions, protocol 2025-11-25: requests on the call's response stream.
    LegacyHttp,
    /// stdio through a relay, protocol 2025-11-25: requests that name no call.
    LegacyStdio,
}

const EVERY_WAY: [Reach; 3] = [Reach::Modern, Reach::LegacyHttp, Reach::LegacyStdio];

/// The fixture server, reached `reach`'s way, as server `fx`; `None` when the relay's Python
/// is missing (and not required).
async fn connect(reach: Reach) -> Option<McpClient> {
    let config = match reach {
        Reach::Modern | Reach::LegacyHttp => {
            let legacy = matches!(reach, Reach::LegacyHttp);
            let options = HttpOptions::loopback(0).legacy_sessions(legacy);
            let server = HttpServer::bind(server_coordinator(), options)
                .await
                .unwrap();
            let url = server.url();
            tokio::spawn(server.run());
            McpServerConfig::http("fx", url).legacy_protocol(legacy)
        }
        Reach::LegacyStdio => {
            let python = python()?;
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let port = listener.local_addr().unwrap().port();
            tokio::spawn(async move {
                while let Ok((stream, _)) = listener.accept().await {
                    let server = McpServer::new(server_coordinator());
                    tokio::spawn(async move {
                        if let Ok(running) = server.serve(stream.into_split()).await {
                            let _ = running.waiting().await;
                        }
                    });
                }
            });
            let relay = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/questions.py");
            McpServerConfig::stdio(
                "fx",
                python.display().to_string(),
                [
                    relay.display().to_string(),
                    "relay".to_owned(),
                    port.to_string(),
                ],
            )
            .legacy_protocol(true)
        }
    };
    Some(McpClient::connect(config).await.unwrap())
}

/// What our user does with each question, and what they were shown.
#[derive(Clone)]
struct User {
    answer: Answer,
    asked: Arc<Mutex<Vec<QuestionRequest>>>,
}

impl User {
    fn answering(answer: Answer) -> Self {
        User {
            answer,
            asked: Arc::default(),
        }
    }
}

impl Approver for User {
    fn approve<'a>(&'a self, _request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        Box::pin(async { ApprovalResponse::once() })
    }

    fn elicit<'a>(
        &'a self,
        request: &'a QuestionRequest,
    ) -> BoxFuture<'a, Result<Answer, Unanswered>> {
        self.asked.lock().unwrap().push(request.clone());
        let answer = self.answer.clone();
        Box::pin(async move { Ok(answer) })
    }

    fn sample<'a>(
        &'a self,
        _tool: &'a str,
        request: &'a SamplingRequest,
    ) -> BoxFuture<'a, Result<Sampled, Unanswered>> {
        let text = format!(
            "blue (asked {:?} with {:?})",
            request.messages()[0].1,
            request.system_prompt()
        );
        Box::pin(async move { Ok(Sampled::new(text, "our-model")) })
    }
}

/// Calls `tool` of the fixture server, reached `reach`'s way, through a coordinator over a
/// temporary workspace whose approver is `approver`. `None` when the server cannot be reached
/// for want of the relay's Python.
async fn call_through(
    reach: Reach,
    tool: &str,
    approver: impl Approver,
) -> Option<(ToolResult, PathBuf)> {
    call_hooked(reach, tool, approver, Hooks::new()).await
}

/// [`call_through`], with `hooks` in the calling coordinator.
async fn call_hooked(
    reach: Reach,
    tool: &str,
    approver: impl Approver,
    hooks: Hooks,
) -> Option<(ToolResult, PathBuf)> {
    let client = connect(reach).await?;
    let mut toolset = Toolset::empty();
    for tool in client.tools().await.unwrap() {
        toolset.add(tool).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let workspace = Workspace::new(dir.path()).unwrap();
    let root = workspace.roots()[0].clone();
    let coordinator = Coordinator::builder()
        .toolset(toolset)
        .workspace(workspace)
        .policy(PolicyBuilder::default().allow("mcp__fx__*"))
        .approver(approver)
        .hooks(hooks)
        .build()
        .unwrap();
    let result = coordinator.call(ToolCall::new(tool, "{}")).await;
    Some((result, root))
}

fn accept(name: &str) -> Answer {
    let mut content = serde_json::Map::new();
    content.insert("name".to_owned(), Value::from(name));
    Answer::Accept(content)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_users_answer_reaches_the_servers_tool_and_its_result_comes_back() {
    for reach in EVERY_WAY {
        let user = User::answering(accept("Ada"));
        let Some((result, _)) = call_through(reach, "mcp__fx__cq_greet", user.clone()).await else {
            continue;
        };
        assert!(!result.is_error(), "{reach:?}: {}", result.text());
        assert_eq!(result.text(), "Hello, Ada!", "{reach:?}");
        let asked = user.asked.lock().unwrap();
        assert_eq!(asked.len(), 1, "{reach:?}: asked {asked:?}");
        // Asked in the name of the imported tool, the call our user made.
        assert_eq!(asked[0].tool, "mcp__fx__cq_greet", "{reach:?}");
        assert_eq!(
            asked[0].question.message(),
            "What is your name?",
            "{reach:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_our_user_declines_is_declined_on_the_server() {
    for reach in EVERY_WAY {
        let user = User::answering(Answer::Decline);
        let Some((result, _)) = call_through(reach, "mcp__fx__cq_greet", user).await else {
            continue;
        };
        assert_eq!(result.text(), "declined", "{reach:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approver_that_cannot_answer_questions_refuses_with_its_reason() {
    for reach in EVERY_WAY {
        let Some((result, _)) = call_through(reach, "mcp__fx__cq_greet", AutoApprove).await else {
            continue;
        };
        assert!(result.is_error(), "{reach:?}: {}", result.text());
        // The reason our session gave, as the server's tool (2025-11-25) or our client
        // (2026-07-28, whose retry carries answers only) reports it.
        assert!(
            result.text().contains("answers approval requests only"),
            "{reach:?}: {}",
            result.text()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_roots_are_our_workspace_root() {
    for reach in EVERY_WAY {
        let user = User::answering(Answer::Cancel);
        let Some((result, root)) = call_through(reach, "mcp__fx__cq_roots", user).await else {
            continue;
        };
        let uri = url::Url::from_directory_path(&root).unwrap().to_string();
        assert_eq!(result.text(), format!("roots: {uri}"), "{reach:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_sampling_request_is_answered_by_our_sessions_model() {
    for reach in EVERY_WAY {
        let user = User::answering(Answer::Cancel);
        let Some((result, _)) = call_through(reach, "mcp__fx__cq_sample", user).await else {
            continue;
        };
        assert_eq!(
            result.text(),
            r#"our-model said blue (asked "Name a color." with Some("One word."))"#,
            "{reach:?}"
        );
    }
}

/// A coordinator that serves imported tools passes their questions on to its own client: the
/// fixture server's question goes to a coordinator served over stateless HTTP (2026-07-28),
/// whose session asks its client by an `input_required` result; the imported call is abandoned
/// and made again with the answer the client brought.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_served_coordinator_passes_an_imported_tools_question_on_to_its_own_client() {
    for reach in [Reach::Modern, Reach::LegacyHttp] {
        let inner = connect(reach).await.unwrap();
        let mut imported = Toolset::empty();
        for tool in inner.tools().await.unwrap() {
            imported.add(tool).unwrap();
        }
        let middle = Coordinator::builder()
            .toolset(imported)
            .policy(PolicyBuilder::default().allow("mcp__fx__*"))
            .build()
            .unwrap();
        let server = HttpServer::bind(middle, HttpOptions::loopback(0))
            .await
            .unwrap();
        let url = server.url();
        tokio::spawn(server.run());
        let outer = McpClient::connect(McpServerConfig::http("mid", url))
            .await
            .unwrap();
        let mut toolset = Toolset::empty();
        for tool in outer.tools().await.unwrap() {
            toolset.add(tool).unwrap();
        }
        let user = User::answering(accept("Ada"));
        let top = Coordinator::builder()
            .toolset(toolset)
            .policy(PolicyBuilder::default().allow("mcp__mid__*"))
            .approver(user.clone())
            .build()
            .unwrap();
        let result = top
            .call(ToolCall::new("mcp__mid__mcp__fx__cq_greet", "{}"))
            .await;
        assert_eq!(result.text(), "Hello, Ada!", "{reach:?}");
        let asked = user.asked.lock().unwrap();
        assert_eq!(asked.len(), 1, "{reach:?}: asked {asked:?}");
        assert_eq!(asked[0].question.message(), "What is your name?");
    }
}

/// At 2026-07-28 each question is a round: the tenth answer our user gives is sent to the
/// server like the nine before it, not asked and then dropped for the round limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tenth_round_of_answers_is_sent_to_the_server() {
    let user = User::answering(accept("Ada"));
    let (result, _) = call_through(Reach::Modern, "mcp__fx__cq_ten", user.clone())
        .await
        .unwrap();
    assert_eq!(user.asked.lock().unwrap().len(), 10);
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(result.text(), "10 names");
}

/// A server that never stops asking is given up on after ten rounds of answers, with our
/// user asked ten times, not eleven.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_asking_for_ever_is_given_up_after_ten_rounds() {
    let user = User::answering(accept("Ada"));
    let (result, _) = call_through(Reach::Modern, "mcp__fx__cq_nag", user.clone())
        .await
        .unwrap();
    assert_eq!(user.asked.lock().unwrap().len(), 10);
    assert!(result.is_error());
    assert!(
        result.text().contains("after 10 rounds"),
        "{}",
        result.text()
    );
}

/// Our user, asked a question that is never answered, and whether the asking was given up.
#[derive(Clone, Default)]
struct Waiting {
    asked: Arc<std::sync::atomic::AtomicBool>,
    given_up: Arc<std::sync::atomic::AtomicBool>,
}

/// Sets its flag when dropped.
struct SetOnDrop(Arc<std::sync::atomic::AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Approver for Waiting {
    fn approve<'a>(&'a self, _request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        Box::pin(async { ApprovalResponse::once() })
    }

    fn elicit<'a>(
        &'a self,
        _request: &'a QuestionRequest,
    ) -> BoxFuture<'a, Result<Answer, Unanswered>> {
        self.asked.store(true, std::sync::atomic::Ordering::SeqCst);
        let dropped = SetOnDrop(Arc::clone(&self.given_up));
        Box::pin(async move {
            let _dropped = dropped;
            std::future::pending().await
        })
    }
}

/// A question that comes with a call but outlives it (the server's tool returned without
/// waiting for the answer) is withdrawn from our user when the call ends: the call it was
/// asked for is over, and nothing would show the user whose it is any longer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_is_withdrawn_from_our_user_when_its_call_ends() {
    for reach in [Reach::LegacyHttp, Reach::LegacyStdio] {
        let user = Waiting::default();
        let Some((result, _)) = call_through(reach, "mcp__fx__cq_hit_and_run", user.clone()).await
        else {
            continue;
        };
        assert_eq!(result.text(), "gone", "{reach:?}");
        assert!(
            user.asked.load(std::sync::atomic::Ordering::SeqCst),
            "{reach:?}: never asked"
        );
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
        while !user.given_up.load(std::sync::atomic::Ordering::SeqCst) {
            assert!(
                std::time::Instant::now() < deadline,
                "{reach:?}: our user is still asked a question of a call that has ended"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}

/// A client of `server` (an rmcp server written here, served over TCP) through the Python
/// relay of `questions.py`, named `name`. `None` without the relay's Python.
async fn relayed(name: &str, server: impl rmcp::ServerHandler + Clone) -> Option<McpClient> {
    let python = python()?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let server = server.clone();
            tokio::spawn(async move {
                if let Ok(running) = server.serve(stream.into_split()).await {
                    let _ = running.waiting().await;
                }
            });
        }
    });
    let relay = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/questions.py");
    let config = McpServerConfig::stdio(
        name,
        python.display().to_string(),
        [
            relay.display().to_string(),
            "relay".to_owned(),
            port.to_string(),
        ],
    );
    Some(McpClient::connect(config).await.unwrap())
}

/// The configuration of a server with tools and nothing else.
fn tools_only() -> rmcp::model::ServerConfig {
    rmcp::model::ServerConfig::new(
        rmcp::model::ServerCapabilities::builder()
            .enable_tools()
            .build(),
    )
}

/// A tool list of one tool taking any object.
fn one_tool(name: &'static str, description: &'static str) -> rmcp::model::ListToolsResult {
    let schema = json!({"type": "object"}).as_object().unwrap().clone();
    rmcp::model::ListToolsResult::with_all_items(vec![rmcp::model::Tool::new(
        name,
        description,
        schema,
    )])
}

/// A server whose one tool answers its first three calls with an `input_required` result that
/// asks for nothing but carries a request state ("come back later"), then with a result;
/// when each call came.
#[derive(Clone, Default)]
struct ComeBackLater {
    calls: Arc<Mutex<Vec<std::time::Instant>>>,
}

impl rmcp::ServerHandler for ComeBackLater {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        tools_only()
    }

    async fn list_tools(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, rmcp::ErrorData> {
        Ok(one_tool("later", "Ready after a while."))
    }

    async fn call_tool(
        &self,
        _request: rmcp::model::CallToolRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        let mut calls = self.calls.lock().unwrap();
        calls.push(std::time::Instant::now());
        Ok(if calls.len() <= 3 {
            rmcp::model::CallToolResponse::InputRequired(rmcp::model::InputRequiredResult::new(
                None,
                Some(format!("round {}", calls.len())),
            ))
        } else {
            rmcp::model::CallToolResponse::Complete(rmcp::model::CallToolResult::success(vec![
                rmcp::model::ContentBlock::text("ready"),
            ]))
        })
    }
}

/// An `input_required` result with a request state and no questions asks the client to come
/// back: the call is sent again after a pause that grows (as rmcp's own client does: 50, 100,
/// 200 ms, at most 250), not at once, which would spend the rounds in a few milliseconds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_asking_nothing_is_sent_again_after_a_pause() {
    let server = ComeBackLater::default();
    let Some(client) = relayed("later", server.clone()).await else {
        return;
    };
    let coordinator = importing(&client, "later", User::answering(Answer::Cancel)).await;
    let result = coordinator
        .call(ToolCall::new("mcp__later__later", "{}"))
        .await;
    assert_eq!(result.text(), "ready");
    let calls = server.calls.lock().unwrap();
    assert_eq!(calls.len(), 4);
    let waited = calls[3] - calls[0];
    assert!(
        waited >= std::time::Duration::from_millis(300),
        "sent again after {waited:?} in all"
    );
}

/// A coordinator calling the tools of `client` (the server `name`), its approver `approver`.
async fn importing(client: &McpClient, name: &str, approver: impl Approver) -> Coordinator {
    let mut toolset = Toolset::empty();
    for tool in client.tools().await.unwrap() {
        toolset.add(tool).unwrap();
    }
    Coordinator::builder()
        .toolset(toolset)
        .policy(PolicyBuilder::default().allow(format!("mcp__{name}__*")))
        .approver(approver)
        .build()
        .unwrap()
}

/// A 2026-07-28 server whose tool `forms` asks `count` questions in one `input_required`
/// round, then answers with the responses it was sent.
#[derive(Clone)]
struct ManyForms {
    count: usize,
}

impl rmcp::ServerHandler for ManyForms {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        tools_only()
    }

    async fn list_tools(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, rmcp::ErrorData> {
        Ok(one_tool("forms", "Asks several questions at once."))
    }

    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        if let Some(responses) = request.input_responses {
            let text = serde_json::to_string(&responses).unwrap();
            return Ok(rmcp::model::CallToolResponse::Complete(
                rmcp::model::CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)]),
            ));
        }
        let questions = (0..self.count)
            .map(|index| {
                let request = json!({
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": format!("Question {index}?"),
                        "requestedSchema": {"type": "object", "properties": {"answer": {"type": "string"}}},
                    },
                });
                (format!("q{index:02}"), serde_json::from_value(request).unwrap())
            })
            .collect();
        Ok(rmcp::model::CallToolResponse::InputRequired(
            rmcp::model::InputRequiredResult::new(Some(questions), Some("asked".to_owned())),
        ))
    }
}

/// The user cancelling one form of a round dismisses the round's other forms with it: they
/// are answered `cancel` without being put in front of the user one after another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_the_user_cancels_cancels_the_other_forms_of_its_round_unasked() {
    let Some(client) = relayed("many", ManyForms { count: 3 }).await else {
        return;
    };
    let user = User::answering(Answer::Cancel);
    let asked = Arc::clone(&user.asked);
    let coordinator = importing(&client, "many", user).await;
    let result = coordinator
        .call(ToolCall::new("mcp__many__forms", "{}"))
        .await;
    assert!(!result.is_error(), "{}", result.text());
    let sent: Value = serde_json::from_str(&result.text()).unwrap();
    for key in ["q00", "q01", "q02"] {
        assert_eq!(sent[key]["action"], "cancel", "{sent}");
    }
    assert_eq!(asked.lock().unwrap().len(), 1, "the user is asked once");
}

/// A round asking for more than 16 answers at once is refused before the user is asked any.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_of_more_than_sixteen_questions_is_refused_before_any_is_asked() {
    let Some(client) = relayed("many", ManyForms { count: 17 }).await else {
        return;
    };
    let user = User::answering(Answer::Decline);
    let asked = Arc::clone(&user.asked);
    let coordinator = importing(&client, "many", user).await;
    let result = coordinator
        .call(ToolCall::new("mcp__many__forms", "{}"))
        .await;
    assert!(result.is_error());
    assert!(
        result
            .text()
            .contains("asked for 17 answers at once; at most 16"),
        "{}",
        result.text()
    );
    assert!(asked.lock().unwrap().is_empty(), "nobody was asked");
}

// Claude Code's Elicitation and ElicitationResult hooks, around an imported server's question
// (https://code.claude.com/docs/en/hooks#elicitation): matched by the server's name.

/// Every input an in-process hook of `event` on server `fx` receives, and its answer.
fn recording(
    hooks: &mut Hooks,
    event: HookEvent,
    matcher: &str,
    answer: HookOutput,
) -> Arc<Mutex<Vec<Value>>> {
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let log = Arc::clone(&seen);
    hooks
        .register(
            event,
            matcher,
            hook_fn(format!("{event} recorder"), move |input: &HookInput| {
                log.lock()
                    .unwrap()
                    .push(serde_json::to_value(input).unwrap());
                let answer = answer.clone();
                async move { answer }
            }),
        )
        .unwrap();
    seen
}

fn name_content(name: &str) -> serde_json::Map<String, Value> {
    let Answer::Accept(content) = accept(name) else {
        unreachable!()
    };
    content
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_hook_answers_the_servers_question_where_nobody_can_be_asked() {
    for reach in EVERY_WAY {
        let dir = tempfile::tempdir().unwrap();
        let stdin = dir.path().join("stdin.json");
        // A Claude Code script: reads the input, answers in the user's place.
        let script = format!(
            "cat > '{}'; echo '{{\"hookSpecificOutput\": {{\"hookEventName\": \"Elicitation\", \"action\": \"accept\", \"content\": {{\"name\": \"Script\"}}}}}}'",
            stdin.display()
        );
        let mut hooks = Hooks::new();
        hooks
            .register(HookEvent::Elicitation, "fx", CommandHook::new(script))
            .unwrap();
        let results = recording(
            &mut hooks,
            HookEvent::ElicitationResult,
            "*",
            HookOutput::default(),
        );
        // AutoApprove answers approvals only: without the hook, nobody could answer.
        let Some((result, _)) = call_hooked(reach, "mcp__fx__cq_greet", AutoApprove, hooks).await
        else {
            continue;
        };
        assert_eq!(result.text(), "Hello, Script!", "{reach:?}");
        let input: Value = serde_json::from_str(&std::fs::read_to_string(&stdin).unwrap()).unwrap();
        assert_eq!(input["hook_event_name"], "Elicitation", "{input}");
        assert_eq!(input["mcp_server_name"], "fx", "{input}");
        assert_eq!(input["message"], "What is your name?", "{input}");
        assert_eq!(input["mode"], "form", "{input}");
        assert_eq!(
            input["requested_schema"]["properties"]["name"]["type"], "string",
            "{input}"
        );
        assert!(
            input.get("tool_name").is_none(),
            "no tool is matched: {input}"
        );
        let id = input["elicitation_id"].as_str().expect("an elicitation id");
        // The result hook sees the hook's answer, under the same id.
        let results = results.lock().unwrap();
        assert_eq!(results.len(), 1, "{reach:?}");
        assert_eq!(results[0]["hook_event_name"], "ElicitationResult");
        assert_eq!(results[0]["elicitation_id"], id);
        assert_eq!(results[0]["action"], "accept");
        assert_eq!(results[0]["content"], json!({"name": "Script"}));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_hook_exiting_2_declines_without_asking_the_user() {
    let user = User::answering(accept("Ada"));
    let mut hooks = Hooks::new();
    hooks
        .register(
            HookEvent::Elicitation,
            "fx",
            CommandHook::new("echo 'not this server' >&2; exit 2"),
        )
        .unwrap();
    let (result, _) = call_hooked(Reach::Modern, "mcp__fx__cq_greet", user.clone(), hooks)
        .await
        .unwrap();
    assert_eq!(result.text(), "declined");
    assert!(user.asked.lock().unwrap().is_empty(), "the user was asked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_result_hook_replaces_the_users_answer() {
    let user = User::answering(accept("Ada"));
    let mut hooks = Hooks::new();
    let seen = recording(
        &mut hooks,
        HookEvent::ElicitationResult,
        "fx",
        HookOutput::default().answer(Answer::Accept(name_content("Grace"))),
    );
    let (result, _) = call_hooked(Reach::Modern, "mcp__fx__cq_greet", user.clone(), hooks)
        .await
        .unwrap();
    assert_eq!(result.text(), "Hello, Grace!");
    assert_eq!(
        user.asked.lock().unwrap().len(),
        1,
        "the user answered first"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0]["action"], "accept");
    assert_eq!(
        seen[0]["content"],
        json!({"name": "Ada"}),
        "the user's answer"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_result_hook_exiting_2_declines_the_users_answer() {
    let user = User::answering(accept("Ada"));
    let mut hooks = Hooks::new();
    hooks
        .register(
            HookEvent::ElicitationResult,
            "*",
            CommandHook::new("exit 2"),
        )
        .unwrap();
    let (result, _) = call_hooked(Reach::Modern, "mcp__fx__cq_greet", user, hooks)
        .await
        .unwrap();
    assert_eq!(result.text(), "declined");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_hooks_match_the_servers_name_not_its_tools() {
    let user = User::answering(accept("Ada"));
    let mut hooks = Hooks::new();
    let mut never = Vec::new();
    for matcher in ["other", "mcp__fx__cq_greet", "cq_greet"] {
        never.push(recording(
            &mut hooks,
            HookEvent::Elicitation,
            matcher,
            HookOutput::default().answer(Answer::Decline),
        ));
    }
    let (result, _) = call_hooked(Reach::Modern, "mcp__fx__cq_greet", user.clone(), hooks)
        .await
        .unwrap();
    assert_eq!(result.text(), "Hello, Ada!");
    assert_eq!(user.asked.lock().unwrap().len(), 1);
    for seen in never {
        assert!(seen.lock().unwrap().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_hooks_answer_that_does_not_fit_the_form_is_ignored_and_the_user_asked() {
    let user = User::answering(accept("Ada"));
    let mut hooks = Hooks::new();
    let mut wrong = serde_json::Map::new();
    wrong.insert("age".to_owned(), json!(3));
    recording(
        &mut hooks,
        HookEvent::Elicitation,
        "fx",
        HookOutput::default().answer(Answer::Accept(wrong)),
    );
    let (result, _) = call_hooked(Reach::Modern, "mcp__fx__cq_greet", user.clone(), hooks)
        .await
        .unwrap();
    assert_eq!(result.text(), "Hello, Ada!");
    assert_eq!(user.asked.lock().unwrap().len(), 1);
}
