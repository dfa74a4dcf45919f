//! The wire form of what is asked and answered: an approval as an elicitation form and its
//! answer read back, a tool's question, sampling and roots converted both ways, digests of what
//! was asked, and requests as `input_required` input requests.

use rmcp::model::{
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, InputRequest,
};
use serde::Serialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::runtime::approval::{
    Answer, ApprovalRequest, ApprovalResponse, ApprovalScope, Question, RequestKind, Root, Sampled,
    SamplingRequest, Speaker, Unanswered,
};

/// The key of the approval question in an `input_required` result's `inputRequests`, and of
/// its answer in the retry's `inputResponses`.
pub(in crate::runtime::mcp) const INPUT_KEY: &str = "approval";

/// The longest guidance for the model an approval's answer carries on to a later round.
pub(super) const MAX_GUIDANCE_BYTES: usize = 4 * 1024;

/// The longest argument text shown in a question; longer is cut (the preview still names the
/// resources).
const MAX_ARGUMENTS_SHOWN: usize = 2_000;

/// The form that asks about `request`: its message and the schema of the answer.
pub(in crate::runtime::mcp) fn question(
    request: &ApprovalRequest,
    offer_session: bool,
) -> ElicitRequestParams {
    let message = match &request.kind {
        RequestKind::Plan { plan } => {
            format!("The model presents a plan. Accepting it lets the work begin.\n\n{plan}")
        }
        _ => {
            let mut arguments = request.arguments.to_string();
            if arguments.len() > MAX_ARGUMENTS_SHOWN {
                let mut cut = MAX_ARGUMENTS_SHOWN;
                while !arguments.is_char_boundary(cut) {
                    cut -= 1;
                }
                arguments.truncate(cut);
                arguments.push_str(" …");
            }
            format!(
                "Allow this tool call?\n{}\nWhy you are asked: {}\nArguments: {arguments}",
                request.preview, request.reason
            )
        }
    };
    let approve_once = match request.kind {
        RequestKind::Plan { .. } => "Accept the plan",
        _ => "Approve this call",
    };
    let mut choices = vec![json!({ "const": "once", "title": approve_once })];
    if offer_session && matches!(request.kind, RequestKind::Call) {
        choices.push(json!({
            "const": "session",
            "title": format!("Approve every `{}` call for this session", request.tool),
        }));
    }
    choices.push(json!({ "const": "reject", "title": "Reject" }));
    let schema = json!({
        "type": "object",
        "properties": {
            "decision": {
                "type": "string",
                "title": "Decision",
                "oneOf": choices,
            },
            "guidance": {
                "type": "string",
                "title": "Guidance for the model",
                "description": "Optional: what the model should do instead, or keep in mind.",
            },
        },
        "required": ["decision"],
    });
    let requested_schema: ElicitationSchema = serde_json::from_value(schema)
        .expect("the approval form is a valid elicitation schema (tested)");
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema,
    }
}

/// The client's answer as an approval: accepted with "once" or "session" approves (a session
/// only when it was offered), anything else rejects, with the user's guidance for the model.
pub(in crate::runtime::mcp) fn answer(
    result: &ElicitResult,
    offer_session: bool,
) -> ApprovalResponse {
    let content = result.content.as_ref();
    let field = |name: &str| {
        content
            .and_then(|content| content.get(name))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
    };
    let guidance = field("guidance").map(str::to_owned);
    match result.action {
        ElicitationAction::Accept => match field("decision") {
            Some("once") => ApprovalResponse::once(),
            Some("session") if offer_session => ApprovalResponse::Approve(ApprovalScope::Session),
            Some("session") => ApprovalResponse::once(),
            Some("reject") => ApprovalResponse::Reject { guidance },
            _ => ApprovalResponse::not_asked(
                "the client's answer chose none of the offered decisions (once, session, reject)",
            ),
        },
        ElicitationAction::Decline => ApprovalResponse::Reject {
            guidance: Some(guidance.unwrap_or_else(|| "the user declined the request".to_owned())),
        },
        ElicitationAction::Cancel => {
            ApprovalResponse::reject("the user dismissed the question without answering")
        }
        _ => ApprovalResponse::reject("the client's answer was none the server knows"),
    }
}

/// The client's answer to the approval question as a later round's state carries it: the
/// action, and only the decision and the guidance (cut to [`MAX_GUIDANCE_BYTES`]), never
/// whatever else the client sent along.
pub(in crate::runtime::mcp) fn normalized_approval(result: &ElicitResult) -> Value {
    let action = match result.action {
        ElicitationAction::Accept => "accept",
        ElicitationAction::Decline => "decline",
        _ => "cancel",
    };
    let mut content = serde_json::Map::new();
    for (name, limit) in [("decision", 64), ("guidance", MAX_GUIDANCE_BYTES)] {
        if let Some(text) = result
            .content
            .as_ref()
            .and_then(|content| content.get(name))
            .and_then(Value::as_str)
        {
            let mut cut = text.len().min(limit);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            content.insert(name.to_owned(), json!(&text[..cut]));
        }
    }
    json!({"action": action, "content": content})
}

/// `sampling/createMessage`'s params for `request`. Built as JSON: rmcp marks its sampling
/// types deprecated (SEP-2577 deprecates sampling and roots in a later protocol; both stay in
/// 2025-11-25 and 2026-07-28, which this server speaks).
pub(super) fn sampling_params(request: &SamplingRequest) -> Value {
    let messages: Vec<Value> = request
        .messages()
        .iter()
        .map(|(speaker, text)| {
            let role = match speaker {
                Speaker::Assistant => "assistant",
                _ => "user",
            };
            json!({"role": role, "content": {"type": "text", "text": text}})
        })
        .collect();
    let mut params = json!({"messages": messages, "maxTokens": request.max_tokens()});
    if let Some(prompt) = request.system_prompt() {
        params["systemPrompt"] = json!(prompt);
    }
    params
}

/// The text of a sampling message's content: one part, or an array of parts; parts that are
/// not text are left out.
fn text_parts(content: &Value) -> Vec<&str> {
    let parts = match content {
        Value::Array(parts) => parts.iter().collect::<Vec<_>>(),
        part => vec![part],
    };
    parts
        .into_iter()
        .filter(|part| part["type"] == "text")
        .filter_map(|part| part["text"].as_str())
        .collect()
}

/// A `CreateMessageResult` (JSON) as the message a tool reads: its text parts, joined.
pub(super) fn to_sampled(result: &Value) -> Result<Sampled, Unanswered> {
    let model = result["model"].as_str();
    let texts = text_parts(&result["content"]);
    match model {
        Some(model) if result["role"] == "assistant" && !texts.is_empty() => {
            let mut sampled = Sampled::new(texts.join("\n"), model);
            sampled.stop_reason = result["stopReason"].as_str().map(str::to_owned);
            Ok(sampled)
        }
        _ => Err(Unanswered::new(
            "the MCP client's answer is not a text message from its model (a CreateMessageResult with role assistant, text content and a model)",
        )),
    }
}

/// A `ListRootsResult` (JSON) as roots.
pub(super) fn to_roots(result: &Value) -> Result<Vec<Root>, Unanswered> {
    let bad =
        || Unanswered::new("the MCP client's answer is not a list of roots (a ListRootsResult)");
    result["roots"]
        .as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|root| {
            let uri = root["uri"].as_str().ok_or_else(bad)?;
            Ok(Root::new(uri, root["name"].as_str().map(str::to_owned)))
        })
        .collect()
}

/// The other way, for the client importing a server's tools: a `sampling/createMessage`
/// request (its params as JSON) as the [`SamplingRequest`] our session answers. Only text
/// passes: a message with no text part (an image, a tool result) is refused, saying so, and
/// one with text and other parts says in its text what was left out.
pub(in crate::runtime::mcp) fn to_sampling_request(
    params: &Value,
) -> Result<SamplingRequest, String> {
    let max_tokens = params["maxTokens"]
        .as_u64()
        .and_then(|tokens| u32::try_from(tokens).ok())
        .filter(|tokens| *tokens > 0)
        .ok_or("the sampling request has no `maxTokens` (a positive whole number)")?;
    let messages = params["messages"]
        .as_array()
        .filter(|messages| !messages.is_empty())
        .ok_or("the sampling request has no `messages`")?;
    let mut conversation = Vec::with_capacity(messages.len());
    for (index, message) in messages.iter().enumerate() {
        let speaker = match message["role"].as_str() {
            Some("assistant") => Speaker::Assistant,
            Some("user") => Speaker::User,
            _ => {
                return Err(format!(
                    "message {index} of the sampling request has no role `user` or `assistant`"
                ));
            }
        };
        let texts = text_parts(&message["content"]);
        if texts.is_empty() {
            return Err(format!(
                "message {index} of the sampling request has no text, and only text messages can be passed on"
            ));
        }
        let mut text = texts.join("\n");
        let left_out = match &message["content"] {
            Value::Array(parts) => parts.iter().filter(|part| part["type"] != "text").count(),
            _ => 0,
        };
        if left_out > 0 {
            // Said in the message, so that the model answering knows it has not seen all.
            text.push_str(&format!(
                "\n[{left_out} part(s) of this message that are not text (an image, audio) were left out: only text is passed on]"
            ));
        }
        conversation.push((speaker, text));
    }
    let mut request = SamplingRequest::from_conversation(conversation, max_tokens);
    if let Some(prompt) = params["systemPrompt"].as_str() {
        request = request.with_system_prompt(prompt);
    }
    Ok(request)
}

/// The other way: the message our session's model wrote, as a `CreateMessageResult` (JSON).
pub(in crate::runtime::mcp) fn sampled_result(sampled: &Sampled) -> Value {
    let mut result = json!({
        "role": "assistant",
        "content": {"type": "text", "text": sampled.text},
        "model": sampled.model,
    });
    if let Some(reason) = &sampled.stop_reason {
        result["stopReason"] = json!(reason);
    }
    result
}

/// The other way: roots as a `ListRootsResult` (JSON).
pub(in crate::runtime::mcp) fn roots_result(roots: &[Root]) -> Value {
    let roots: Vec<Value> = roots
        .iter()
        .map(|root| match &root.name {
            Some(name) => json!({"uri": root.uri, "name": name}),
            None => json!({"uri": root.uri}),
        })
        .collect();
    json!({ "roots": roots })
}

/// The other way: a server's form as the [`Question`] our session asks, or why it cannot be
/// asked (a URL elicitation, which we do not declare; a form [`Question::new`] refuses).
pub(in crate::runtime::mcp) fn to_question(
    params: &ElicitRequestParams,
) -> Result<Question, String> {
    match params {
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => {
            let schema = serde_json::to_value(requested_schema)
                .map_err(|error| format!("the form's schema cannot be read ({error})"))?;
            Question::new(message.clone(), schema).map_err(|error| error.to_string())
        }
        _ => Err(
            "only form elicitation is supported (this client declares no URL elicitation)"
                .to_owned(),
        ),
    }
}

/// The other way: our user's answer as the server's `ElicitResult`.
pub(in crate::runtime::mcp) fn elicit_result(answer: &Answer) -> ElicitResult {
    match answer {
        Answer::Accept(content) => ElicitResult::new(ElicitationAction::Accept)
            .with_content(Value::Object(content.clone())),
        Answer::Decline => ElicitResult::new(ElicitationAction::Decline),
        _ => ElicitResult::new(ElicitationAction::Cancel),
    }
}

/// A tool's question as an elicitation form.
pub(in crate::runtime::mcp) fn form(
    question: &Question,
) -> Result<ElicitRequestParams, Unanswered> {
    let requested_schema: ElicitationSchema = serde_json::from_value(question.schema().clone())
        .map_err(|error| {
            Unanswered::new(format!(
                "the question's form cannot be sent as an MCP elicitation ({error})"
            ))
        })?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question.message().to_owned(),
        requested_schema,
    })
}

/// The client's elicitation result as the tool's answer; `None` for an action nobody knows.
pub(in crate::runtime::mcp) fn to_answer(result: &ElicitResult) -> Option<Answer> {
    match result.action {
        ElicitationAction::Accept => Some(Answer::Accept(
            result
                .content
                .as_ref()
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        )),
        ElicitationAction::Decline => Some(Answer::Decline),
        ElicitationAction::Cancel => Some(Answer::Cancel),
        _ => None,
    }
}

/// The SHA-256 of what a question shows and asks for: an answer given to one question is
/// never taken for another asked under the same key.
pub(in crate::runtime::mcp) fn question_digest(question: &Question) -> String {
    sha256_hex(&format!("{}\n{}", question.message(), question.schema()))
}

/// The SHA-256 of `text`, in lowercase hex.
pub(super) fn sha256_hex(text: &str) -> String {
    use std::fmt::Write as _;
    Sha256::digest(text.as_bytes())
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

/// The request `method` with `params` as an `input_required` input request.
pub(in crate::runtime::mcp) fn input_request(
    method: &str,
    params: &impl Serialize,
) -> InputRequest {
    let request = json!({ "method": method, "params": params });
    serde_json::from_value(request)
        .expect("elicitation, sampling and roots requests are input requests (tested)")
}
