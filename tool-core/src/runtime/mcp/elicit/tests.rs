//! The elicitation transport's unit tests: forms, answers, rounds and sealed states.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::{Value, json};

use crate::runtime::approval::{
    Answer, ApprovalRequest, ApprovalResponse, ApprovalScope, Approver, Question, QuestionRequest,
    RequestKind, Root, Sampled, SamplingRequest, Speaker, UnansweredKind,
};

use super::round_trip::{Answered, MAX_ANSWER_BYTES, QuestionsRound, RoundTripApprover};
use super::sealed::{ApprovalStates, RoundState, StateRefused, unix_now};
use super::session::ClientAbilities;
use super::wire::{
    MAX_GUIDANCE_BYTES, answer, elicit_result, form, input_request, normalized_approval, question,
    question_digest, roots_result, sampled_result, sampling_params, to_answer, to_question,
    to_roots, to_sampled, to_sampling_request,
};
use crate::definition::context::CallInfo;

fn plan() -> ApprovalRequest {
    ApprovalRequest::plan(&CallInfo::new("c1", "present_plan", 0), "1. Do it")
}

#[test]
fn the_question_is_a_valid_elicitation_and_input_request() {
    let params = question(&plan(), true);
    let value = serde_json::to_value(&params).unwrap();
    assert_eq!(value["mode"], "form");
    assert_eq!(value["requestedSchema"]["required"][0], "decision");
    // A plan is accepted or not: no session grant is offered for it.
    let choices = value["requestedSchema"]["properties"]["decision"]["oneOf"]
        .as_array()
        .unwrap();
    assert_eq!(choices.len(), 2, "{choices:?}");
    let request = serde_json::to_value(input_request("elicitation/create", &params)).unwrap();
    assert_eq!(request["method"], "elicitation/create");
}

#[test]
fn every_form_question_new_accepts_reaches_rmcp_unchanged() {
    for properties in [
        json!({"name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 4_294_967_295_u32, "default": "Ada"}}),
        json!({"mail": {"type": "string", "format": "email", "description": "where"}}),
        json!({"age": {"type": "integer", "minimum": -3, "maximum": 150, "default": 30}}),
        json!({"score": {"type": "number", "minimum": 0.5, "maximum": 99.5, "default": 1.5}}),
        json!({"ok": {"type": "boolean", "default": true}}),
        json!({"s": {"type": "string", "enum": ["a", "b"], "default": "a"}}),
        json!({"s": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}}),
        json!({"s": {"type": "string", "oneOf": [{"const": "a", "title": "A"}], "default": "a"}}),
        json!({"m": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "minItems": 1, "maxItems": 2}}),
        json!({"m": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}, "default": ["x"]}}),
    ] {
        let schema = json!({"type": "object", "properties": properties, "required": []});
        let question = Question::new("q", schema.clone()).unwrap();
        let ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } = form(&question).unwrap()
        else {
            panic!("a form")
        };
        assert_eq!(serde_json::to_value(requested_schema).unwrap(), schema);
    }
}

#[test]
fn answers_map_to_approvals() {
    let accept = |content: Value| {
        let mut result = ElicitResult::new(ElicitationAction::Accept);
        result.content = Some(content);
        result
    };
    assert_eq!(
        answer(&accept(json!({"decision": "once"})), true),
        ApprovalResponse::once()
    );
    assert_eq!(
        answer(&accept(json!({"decision": "session"})), true),
        ApprovalResponse::Approve(ApprovalScope::Session)
    );
    assert_eq!(
        answer(&accept(json!({"decision": "session"})), false),
        ApprovalResponse::once(),
        "a session grant that was not offered is not taken"
    );
    assert_eq!(
        answer(
            &accept(json!({"decision": "reject", "guidance": "use notes.md"})),
            true
        ),
        ApprovalResponse::reject("use notes.md")
    );
    assert!(matches!(
        answer(&ElicitResult::new(ElicitationAction::Decline), true),
        ApprovalResponse::Reject { guidance: Some(g) } if g.contains("declined")
    ));
    // No offered decision: nobody answered, not a rejection by the user.
    assert!(matches!(
        answer(&accept(json!({"decision": "always"})), true),
        ApprovalResponse::NotAsked { .. }
    ));
}

#[test]
fn a_sealed_state_opens_only_for_its_own_call_and_unchanged() {
    let states = ApprovalStates::random();
    let sealed = states.seal(&RoundState::new(
        "write_file",
        r#"{"path":"a"}"#,
        Some("write_file (mutating): path = a".into()),
        true,
    ));
    assert!(
        states
            .open(&sealed, "write_file", r#"{"path":"a"}"#)
            .is_ok()
    );
    assert!(matches!(
        states.open(&sealed, "write_file", r#"{"path":"b"}"#),
        Err(StateRefused::OtherCall { .. })
    ));
    assert!(matches!(
        states.open(&sealed, "run_shell", r#"{"path":"a"}"#),
        Err(StateRefused::OtherCall { .. })
    ));
    // A character in the middle of the body: every bit of it is data (the last character
    // of a part may hold only padding bits, and be refused by the decoding instead).
    let body_start = sealed.find('.').unwrap() + 1;
    let at = body_start + (sealed[body_start..].find('.').unwrap() / 2);
    let mut tampered = sealed.clone();
    let changed = if &sealed[at..=at] == "A" { "B" } else { "A" };
    tampered.replace_range(at..=at, changed);
    assert!(matches!(
        states.open(&tampered, "write_file", r#"{"path":"a"}"#),
        Err(StateRefused::Forged)
    ));
    // Another process's key (a restart, an instance without the shared key).
    assert!(matches!(
        ApprovalStates::random().open(&sealed, "write_file", r#"{"path":"a"}"#),
        Err(StateRefused::Forged)
    ));
    // Taken once above: brought back again, it is refused.
    assert!(matches!(
        states.open(&sealed, "write_file", r#"{"path":"a"}"#),
        Err(StateRefused::Taken)
    ));
}

fn call_request(call_id: &str, tool: &'static str, arguments: Value) -> ApprovalRequest {
    let mut request = plan();
    request.kind = RequestKind::Call;
    request.call_id = call_id.into();
    request.tool = tool.into();
    request.arguments = arguments;
    request
}

fn round(answer: Option<ApprovalResponse>) -> RoundTripApprover {
    RoundTripApprover::new(
        "mcp-1".into(),
        "write_file",
        r#"{"path": "a"}"#,
        answer,
        Arc::default(),
    )
}

#[tokio::test]
async fn the_answer_approves_only_the_calls_own_first_question_once() {
    let approver = round(Some(ApprovalResponse::once()));
    let own = call_request("mcp-1", "write_file", json!({"path": "a"}));
    assert_eq!(approver.approve(&own).await, ApprovalResponse::once());
    // Asked again in the same round (a tool asking mid-run): refused, not approved.
    assert!(matches!(
        approver.approve(&own).await,
        ApprovalResponse::NotAsked { reason } if reason.contains("already running")
    ));
}

#[tokio::test]
async fn a_question_about_other_arguments_or_another_tool_is_not_the_calls_own() {
    for other in [
        call_request("mcp-1", "write_file", json!({"path": "b"})),
        call_request("mcp-1", "run_shell", json!({"path": "a"})),
        call_request("mcp-2", "write_file", json!({"path": "a"})),
    ] {
        let approver = round(Some(ApprovalResponse::once()));
        assert!(
            matches!(
                approver.approve(&other).await,
                ApprovalResponse::NotAsked { .. }
            ),
            "{other:?}"
        );
        assert!(approver.asked.lock().unwrap().is_none());
    }
}

fn name_question() -> QuestionRequest {
    let schema =
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    QuestionRequest::new("mcp-1", "greet", Question::new("Name?", schema).unwrap())
}

fn answered(question: Option<String>, response: Value) -> Answered {
    Answered { question, response }
}

#[tokio::test]
async fn questions_asked_at_once_are_pending_together_under_their_order_of_asking() {
    let questions = Arc::new(Mutex::new(QuestionsRound::default()));
    let approver = round(None).with_answers(HashMap::new(), Arc::clone(&questions));
    let (one, two) = (name_question(), name_question());
    let (first, second) = tokio::join!(approver.elicit(&one), approver.elicit(&two));
    assert!(first.unwrap_err().is_pending());
    assert!(second.unwrap_err().is_pending());
    let keys: Vec<String> = questions
        .lock()
        .unwrap()
        .pending
        .iter()
        .map(|p| p.0.clone())
        .collect();
    assert_eq!(keys, ["question-1", "question-2"]);
}

#[tokio::test]
async fn a_second_request_under_a_used_key_is_the_tools_error_naming_the_key() {
    let questions = Arc::new(Mutex::new(QuestionsRound::default()));
    let response = json!({"action": "accept", "content": {"name": "Ada"}});
    let answers = HashMap::from([("name".to_owned(), answered(None, response))]);
    let approver = round(None).with_answers(answers, Arc::clone(&questions));
    let keyed = || {
        let mut request = name_question();
        request.question = request.question.with_key("name").unwrap();
        request
    };
    assert!(approver.elicit(&keyed()).await.is_ok());
    // Asked again under the same key: not the first answer again (the tool would loop).
    let error = approver.elicit(&keyed()).await.unwrap_err();
    assert!(
        error.reason.contains("`name`") && error.reason.contains("its own key"),
        "{error}"
    );
    assert!(questions.lock().unwrap().pending.is_empty());
}

#[tokio::test]
async fn after_a_pending_error_every_later_request_of_the_run_is_pending_at_once() {
    let questions = Arc::new(Mutex::new(QuestionsRound::default()));
    // The second question is answered: still not taken once the tool carried on past
    // the first one's pending error, lest the tool act on it twice.
    let response = json!({"action": "accept", "content": {"name": "Ada"}});
    let answers = HashMap::from([("question-2".to_owned(), answered(None, response))]);
    let approver = round(None)
        .with_answers(answers, Arc::clone(&questions))
        .with_client(ClientAbilities {
            sampling: true,
            roots: true,
        });
    let pending = approver.elicit(&name_question()).await.unwrap_err();
    assert!(pending.is_pending(), "{pending}");
    assert!(
        crate::ToolError::from_error(pending).is_pending(),
        "the tool can tell it apart"
    );
    let later = approver.elicit(&name_question()).await.unwrap_err();
    assert!(later.is_pending(), "{later}");
    assert!(
        approver
            .sample("greet", &SamplingRequest::new("hi", 10))
            .await
            .unwrap_err()
            .is_pending()
    );
    assert!(approver.list_roots("greet").await.unwrap_err().is_pending());
    let questions = questions.lock().unwrap();
    assert_eq!(questions.pending.len(), 1, "only the first went out");
    assert!(questions.used.is_empty());
}

#[tokio::test]
async fn a_brought_answer_is_taken_and_carried_on() {
    let questions = Arc::new(Mutex::new(QuestionsRound::default()));
    let response = json!({"action": "accept", "content": {"name": "Ada"}});
    let answers = HashMap::from([("question-1".to_owned(), answered(None, response))]);
    let approver = round(None).with_answers(answers, Arc::clone(&questions));
    let answer = approver.elicit(&name_question()).await.unwrap();
    assert!(matches!(answer, Answer::Accept(content) if content["name"] == "Ada"));
    let questions = questions.lock().unwrap();
    assert!(questions.pending.is_empty());
    let used = &questions.used["question-1"];
    assert_eq!(
        used.question.as_deref(),
        Some(question_digest(&name_question().question).as_str())
    );
}

#[tokio::test]
async fn an_answer_that_does_not_fit_or_was_for_another_question_is_asked_again() {
    for brought in [
        answered(None, json!({"action": "accept", "content": {"name": 7}})),
        answered(None, json!(12345)),
        answered(
            Some("another question".into()),
            json!({"action": "accept", "content": {"name": "Ada"}}),
        ),
    ] {
        let questions = Arc::new(Mutex::new(QuestionsRound::default()));
        let answers = HashMap::from([("question-1".to_owned(), brought.clone())]);
        let approver = round(None).with_answers(answers, Arc::clone(&questions));
        assert!(
            approver.elicit(&name_question()).await.is_err(),
            "{brought:?}"
        );
        assert_eq!(questions.lock().unwrap().pending.len(), 1, "{brought:?}");
    }
}

#[tokio::test]
async fn an_answer_that_does_not_fit_is_asked_again_saying_why_under_the_same_digest() {
    let questions = Arc::new(Mutex::new(QuestionsRound::default()));
    let brought = answered(None, json!({"action": "accept", "content": {"name": 7}}));
    let answers = HashMap::from([("question-1".to_owned(), brought)]);
    let approver = round(None).with_answers(answers, Arc::clone(&questions));
    assert!(approver.elicit(&name_question()).await.is_err());
    let questions = questions.lock().unwrap();
    let (key, digest, request) = &questions.pending[0];
    assert_eq!(key, "question-1");
    assert_eq!(digest, &question_digest(&name_question().question));
    let message = serde_json::to_value(request).unwrap()["params"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        message.starts_with("Name?") && message.contains("`name` should be a string"),
        "{message}"
    );
}

#[tokio::test]
async fn only_the_answer_as_read_travels_on_not_what_the_client_sent_along() {
    let questions = Arc::new(Mutex::new(QuestionsRound::default()));
    let response = json!({
        "action": "accept",
        "content": {"name": "Ada"},
        "_meta": {"padding": "x".repeat(10_000)},
    });
    let answers = HashMap::from([("question-1".to_owned(), answered(None, response))]);
    let approver = round(None).with_answers(answers, Arc::clone(&questions));
    assert!(approver.elicit(&name_question()).await.is_ok());
    assert_eq!(
        questions.lock().unwrap().used["question-1"].response,
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
}

#[tokio::test]
async fn an_answer_too_large_to_carry_is_asked_again_saying_so() {
    let questions = Arc::new(Mutex::new(QuestionsRound::default()));
    let huge = "x".repeat(MAX_ANSWER_BYTES + 1);
    let response = json!({"action": "accept", "content": {"name": huge}});
    let answers = HashMap::from([("question-1".to_owned(), answered(None, response))]);
    let approver = round(None).with_answers(answers, Arc::clone(&questions));
    assert!(
        approver
            .elicit(&name_question())
            .await
            .unwrap_err()
            .is_pending()
    );
    let questions = questions.lock().unwrap();
    assert!(questions.used.is_empty());
    let message = serde_json::to_value(&questions.pending[0].2).unwrap()["params"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("bytes an answer may have"), "{message}");
}

#[test]
fn an_approval_carried_on_keeps_only_the_decision_and_the_guidance() {
    let mut result = ElicitResult::new(ElicitationAction::Accept);
    result.content = Some(json!({
        "decision": "once",
        "guidance": "g".repeat(MAX_GUIDANCE_BYTES + 10),
        "extra": "not carried",
    }));
    let normalized = normalized_approval(&result);
    assert_eq!(normalized["action"], "accept");
    assert_eq!(normalized["content"]["decision"], "once");
    assert_eq!(
        normalized["content"]["guidance"].as_str().unwrap().len(),
        MAX_GUIDANCE_BYTES
    );
    assert!(normalized["content"].get("extra").is_none());
}

#[test]
fn a_state_past_the_first_rounds_deadline_is_expired() {
    let states = ApprovalStates::random();
    let mut state = RoundState::new("write_file", "{}", None, false);
    state.deadline = unix_now().saturating_sub(1);
    let sealed = states.seal(&state);
    assert!(matches!(
        states.open(&sealed, "write_file", "{}"),
        Err(StateRefused::Expired)
    ));
}

#[tokio::test]
async fn sampling_without_the_capability_is_refused_and_recorded_as_missing() {
    let questions = Arc::new(Mutex::new(QuestionsRound::default()));
    let approver = round(None).with_answers(HashMap::new(), Arc::clone(&questions));
    let error = approver
        .sample("greet", &SamplingRequest::new("hi", 10))
        .await
        .unwrap_err();
    assert!(error.reason.contains("sampling capability"), "{error}");
    assert_eq!(
        error.kind,
        UnansweredKind::MissingCapability("sampling"),
        "the server tells it apart from the tool's other failures"
    );
    assert_eq!(questions.lock().unwrap().missing, [("sampling", 0)]);
}

#[tokio::test]
async fn a_capability_missing_beside_a_pending_question_is_known_before_the_round() {
    let questions = Arc::new(Mutex::new(QuestionsRound::default()));
    let approver = round(None).with_answers(HashMap::new(), Arc::clone(&questions));
    let (question, sampling) = (name_question(), SamplingRequest::new("hi", 10));
    let (asked, sampled) = tokio::join!(
        approver.elicit(&question),
        approver.sample("greet", &sampling)
    );
    assert!(asked.unwrap_err().is_pending());
    assert!(sampled.is_err());
    assert_eq!(
        questions.lock().unwrap().missing_beside_pending(),
        ["sampling"]
    );
}

#[tokio::test]
async fn a_capability_missing_before_a_question_the_tool_went_on_to_ask_is_not_beside_it() {
    // The tool took the missing sampling in its stride, then asked: the question goes out.
    let questions = Arc::new(Mutex::new(QuestionsRound::default()));
    let approver = round(None).with_answers(HashMap::new(), Arc::clone(&questions));
    assert!(
        approver
            .sample("greet", &SamplingRequest::new("hi", 10))
            .await
            .is_err()
    );
    assert!(
        approver
            .elicit(&name_question())
            .await
            .unwrap_err()
            .is_pending()
    );
    let questions = questions.lock().unwrap();
    assert_eq!(questions.pending.len(), 1);
    assert!(questions.missing_beside_pending().is_empty());
}

#[test]
fn sampling_requests_and_answers_map_to_and_from_the_protocol() {
    let request = SamplingRequest::new("hi", 10)
        .with_message(Speaker::Assistant, "hello")
        .with_system_prompt("be brief");
    let params = sampling_params(&request);
    assert_eq!(params["messages"][1]["role"], "assistant");
    assert_eq!(params["systemPrompt"], "be brief");
    assert!(matches!(
        serde_json::to_value(input_request("sampling/createMessage", &params)).unwrap()["method"]
            .as_str(),
        Some("sampling/createMessage")
    ));
    let sampled = to_sampled(&json!({
        "role": "assistant", "model": "m", "stopReason": "endTurn",
        "content": {"type": "text", "text": "Paris"}
    }))
    .unwrap();
    assert_eq!(
        (sampled.text.as_str(), sampled.model.as_str()),
        ("Paris", "m")
    );
    assert!(
        to_sampled(
            &json!({"role": "user", "model": "m", "content": {"type": "text", "text": "x"}})
        )
        .is_err()
    );
    let roots = to_roots(&json!({"roots": [{"uri": "file:///a", "name": "a"}]})).unwrap();
    assert_eq!(roots, [Root::new("file:///a", Some("a".into()))]);
    assert!(to_roots(&json!({"roots": [{"name": "no uri"}]})).is_err());
}

#[test]
fn the_clients_conversions_invert_the_servers() {
    let request = SamplingRequest::new("hi", 10)
        .with_message(Speaker::Assistant, "hello")
        .with_system_prompt("be brief");
    assert_eq!(
        to_sampling_request(&sampling_params(&request)).unwrap(),
        request
    );
    let mut sampled = Sampled::new("Paris", "m");
    sampled.stop_reason = Some("endTurn".into());
    assert_eq!(to_sampled(&sampled_result(&sampled)).unwrap(), sampled);
    let roots = [
        Root::new("file:///a", Some("a".into())),
        Root::new("file:///b", None),
    ];
    assert_eq!(to_roots(&roots_result(&roots)).unwrap(), roots);
    let question = Question::new(
        "Name?",
        json!({"type": "object", "properties": {"name": {"type": "string", "minLength": 1}}, "required": ["name"]}),
    )
    .unwrap();
    assert_eq!(to_question(&form(&question).unwrap()).unwrap(), question);
    for answer in [
        Answer::Decline,
        Answer::Cancel,
        Answer::Accept(serde_json::Map::new()),
    ] {
        assert_eq!(to_answer(&elicit_result(&answer)), Some(answer));
    }
}

#[test]
fn a_sampling_request_without_text_or_tokens_is_refused_saying_what_is_missing() {
    let image = json!({"maxTokens": 5, "messages": [{"role": "user", "content": {"type": "image", "data": "", "mimeType": "image/png"}}]});
    assert!(
        to_sampling_request(&image)
            .unwrap_err()
            .contains("only text")
    );
    let no_tokens =
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "x"}}]});
    assert!(
        to_sampling_request(&no_tokens)
            .unwrap_err()
            .contains("maxTokens")
    );
    let mixed = json!({"maxTokens": 5, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "What is in this picture?"},
        {"type": "image", "data": "", "mimeType": "image/png"}
    ]}]});
    let request = to_sampling_request(&mixed).unwrap();
    let text = &request.messages()[0].1;
    assert!(text.starts_with("What is in this picture?"), "{text}");
    assert!(
        text.contains("[1 part(s) of this message that are not text"),
        "{text}"
    );
    let zero_tokens = json!({"maxTokens": 0, "messages": [{"role": "user", "content": {"type": "text", "text": "x"}}]});
    assert!(
        to_sampling_request(&zero_tokens)
            .unwrap_err()
            .contains("a positive whole number")
    );
}
