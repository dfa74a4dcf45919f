//! Asking the MCP client's user: the policy's approval of a call, and a running tool's own
//! questions ([`Session::elicit`](crate::context::Session::elicit), a form).
//!
//! An approval is a form ([`question`]) saying what the call will do (the request's preview,
//! why the policy asks, the arguments) and offering "approve once", "approve this tool for
//! the session" (when the server allows session grants) and "reject", with optional guidance
//! for the model. A tool's question is its own form ([`form`]). How they travel differs:
//!
//! - **2025-11-25** (a connection with a session): the server sends `elicitation/create` and
//!   waits for the answer while the call waits, held at its approval stage or inside the
//!   tool ([`ElicitingApprover`]). A plan a tool presents
//!   ([`Session::ask`](crate::context::Session::ask)) goes the same way.
//! - **2026-07-28** (stateless): a server may not send requests of its own, so the call ends
//!   with an `input_required` result carrying what is asked, and a request state sealed with
//!   HMAC-SHA256 ([`ApprovalStates`]); the client asks its user and calls again with the
//!   answers and the state; the server checks the seal (a forged or changed state is the
//!   JSON-RPC error -32602), checks that the state is for this very tool and these exact
//!   arguments, and **runs the call again from the start** with the answers
//!   ([`RoundTripApprover`]):
//!   - the policy's approval ends the call before its tool runs (key `approval`);
//!   - a tool's question ends the tool's run at the first question no answer was brought
//!     for (the tool gets an error and is expected to return it); its key is the one the
//!     tool gave ([`Question::with_key`](crate::approval::Question::with_key)) or its order
//!     among the call's questions (`question-1`, ...). On the next run, every question
//!     answered so far is answered again from the answers, and the next one goes out: each
//!     round adds answers, carried in the sealed state ([`RoundState`]) so that an earlier
//!     round's answer (and the approval) cannot be changed. An answer that does not fit its
//!     question, or was given to another question under the same key, is asked again.
//!
//!   A tool therefore should ask before it acts: until its questions are answered, nothing
//!   after them has run. A question asked once the tool runs about another call's approval
//!   (a nested call needing approval, a plan) cannot be carried this way, and is refused
//!   with a reason saying so.
//!
//! A client that declared no elicitation capability cannot be asked: such a call is refused,
//! and a tool's question gets that reason as its error.
//!
//! The first round of a round trip is a real call up to where it asked: hooks before it ran,
//! and events and budgets saw a call that did not complete (yet).
//!
//! The seal keeps a client from making up an approval the server never asked, or from moving
//! one to another tool or other arguments: an approval is taken only through a sealed state
//! that asked it. A tool's own question may be answered without a state (the client holds the
//! answer either way, as it does a form's): a client that knows what a tool asks may answer
//! ahead. Each state carries a random nonce, and a server takes a state once: brought back
//! again, it is refused, so "approve once" runs the call once. (Instances sharing a key each
//! remember what they took, so a client that sends one state to several instances can have it
//! taken once by each; a shared store would close that, at the cost of the statelessness the
//! protocol is for.) The seal cannot stop a client from answering for its user: the client
//! holds the answer either way.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, InputRequest,
    RequestStateCodec, RequestStateError, SealOptions,
};
use rmcp::service::{Peer, RoleServer};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::BoxFuture;
use crate::definition::context::CancellationToken;
use crate::runtime::approval::{
    Answer, ApprovalRequest, ApprovalResponse, ApprovalScope, Approver, Question, QuestionRequest,
    RequestKind, Unanswered,
};

/// The key of the approval question in an `input_required` result's `inputRequests`, and of
/// its answer in the retry's `inputResponses`.
pub(super) const INPUT_KEY: &str = "approval";

/// How long a 2026-07-28 client has to come back with its user's answer: long enough for a
/// person to read the question, short enough that an old state is not lying around.
const STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// The longest argument text shown in a question; longer is cut (the preview still names the
/// resources).
const MAX_ARGUMENTS_SHOWN: usize = 2_000;

/// The form that asks about `request`: its message and the schema of the answer.
pub(super) fn question(request: &ApprovalRequest, offer_session: bool) -> ElicitRequestParams {
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
pub(super) fn answer(result: &ElicitResult, offer_session: bool) -> ApprovalResponse {
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
            _ => ApprovalResponse::reject(
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

/// Asks a 2025-11-25 client's user with `elicitation/create`, while the call waits.
pub(super) struct ElicitingApprover {
    pub(super) peer: Peer<RoleServer>,
    pub(super) offer_session: bool,
    /// The `tools/call` request's token: a client that cancels the call stops waiting for
    /// the answer too.
    pub(super) cancel: CancellationToken,
}

impl Approver for ElicitingApprover {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        Box::pin(async move {
            let ask = self
                .peer
                .create_elicitation(question(request, self.offer_session));
            tokio::select! {
                // A cancellation that came first wins over an answer that came after it.
                biased;
                () = self.cancel.cancelled() => ApprovalResponse::Abort,
                answered = ask => match answered {
                    Ok(result) => answer(&result, self.offer_session),
                    Err(error) => ApprovalResponse::reject(format!(
                        "the MCP client could not ask the user ({error}), so this call was not approved"
                    )),
                },
            }
        })
    }

    fn elicit<'a>(
        &'a self,
        request: &'a QuestionRequest,
    ) -> BoxFuture<'a, Result<Answer, Unanswered>> {
        Box::pin(async move {
            let ask = self.peer.create_elicitation(form(&request.question)?);
            tokio::select! {
                biased;
                () = self.cancel.cancelled() => Err(Unanswered::new(
                    "the call was cancelled while the user was being asked",
                )),
                answered = ask => match answered {
                    Ok(result) => to_answer(&result).ok_or_else(|| Unanswered::new(
                        "the MCP client answered the question with an action the server does not know",
                    )),
                    Err(error) => Err(Unanswered::new(format!(
                        "the MCP client could not ask the user ({error})"
                    ))),
                },
            }
        })
    }
}

/// A tool's question as an elicitation form.
pub(super) fn form(question: &Question) -> Result<ElicitRequestParams, Unanswered> {
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
pub(super) fn to_answer(result: &ElicitResult) -> Option<Answer> {
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
pub(super) fn question_digest(question: &Question) -> String {
    sha256_hex(&format!("{}\n{}", question.message(), question.schema()))
}

/// An answer to a tool's question, as a round's state carries it on to the next round.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Answered {
    /// The digest of the question answered, when the server asked it (a client may also
    /// answer a question before it is asked: then this is `None`).
    pub(super) question: Option<String>,
    /// The client's `ElicitResult`, as it sent it.
    pub(super) response: Value,
}

/// What the questions of a tool asked over one 2026-07-28 round came to.
#[derive(Debug, Default)]
pub(super) struct QuestionsRound {
    /// The questions asked and not answered, by key, in the order asked.
    pub(super) pending: Vec<(String, Question)>,
    /// The answers the tool took, by key: carried in the next round's state, so the tool,
    /// run again from the start, finds them again.
    pub(super) used: BTreeMap<String, Answered>,
}

/// The approver of one 2026-07-28 round: it answers the call's own approval with the answer
/// the client brought back (second round), or keeps the request to ask about and rejects for
/// now (first round; the server then answers `input_required` instead of the result).
/// Only the first question of the round can be the call's own, and only when it is about this
/// very call; anything after it is asked while the tool runs, and is refused: the round trip
/// cannot wait for it.
pub(super) struct RoundTripApprover {
    /// The id the server gave the `tools/call`'s call.
    call_id: String,
    /// The call's tool and arguments: its own approval is about them.
    tool: String,
    arguments: Value,
    /// The answer the client brought back, taken by the call's own approval.
    answer: Mutex<Option<ApprovalResponse>>,
    /// Set by the first question of the round: every later one is asked mid-run.
    asked_before: Mutex<bool>,
    /// The request to ask the client about, once the policy asked.
    asked: Arc<Mutex<Option<ApprovalRequest>>>,
    /// The answers to the tool's own questions the client brought (this round's and, from
    /// the state, earlier rounds'), by key.
    answers: HashMap<String, Answered>,
    /// How many questions the tool asked so far: names the ones it gave no key.
    questions_asked: AtomicUsize,
    /// What the tool's questions came to.
    questions: Arc<Mutex<QuestionsRound>>,
}

impl RoundTripApprover {
    /// The approver of the round of call `call_id` (`tool` with `arguments`, its JSON text),
    /// with the answer the client brought back, if it did.
    pub(super) fn new(
        call_id: String,
        tool: &str,
        arguments: &str,
        answer: Option<ApprovalResponse>,
        asked: Arc<Mutex<Option<ApprovalRequest>>>,
    ) -> Self {
        RoundTripApprover {
            answers: HashMap::new(),
            questions_asked: AtomicUsize::new(0),
            questions: Arc::default(),
            call_id,
            tool: tool.to_owned(),
            arguments: serde_json::from_str(arguments)
                .unwrap_or_else(|_| Value::String(arguments.to_owned())),
            answer: Mutex::new(answer),
            asked_before: Mutex::new(false),
            asked,
        }
    }

    /// With the answers the client brought to the tool's own questions, and where to record
    /// what those questions came to.
    pub(super) fn with_answers(
        mut self,
        answers: HashMap<String, Answered>,
        questions: Arc<Mutex<QuestionsRound>>,
    ) -> Self {
        self.answers = answers;
        self.questions = questions;
        self
    }

    /// Whether `request` is this call's own approval: the round's first question, about
    /// this call, its tool and its arguments.
    fn is_own(&self, request: &ApprovalRequest) -> bool {
        let first = !std::mem::replace(
            &mut *self
                .asked_before
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
            true,
        );
        first
            && request.call_id == self.call_id
            && matches!(request.kind, RequestKind::Call)
            && request.tool == self.tool
            && request.arguments == self.arguments
    }
}

impl Approver for RoundTripApprover {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        let response = if !self.is_own(request) {
            ApprovalResponse::reject(format!(
                "`{}` asked the user while a tool was already running; this MCP client speaks protocol 2026-07-28, \
                 where a server can ask only before a call runs (the input_required round trip starts the call again), \
                 so the question could not be put to the user",
                request.tool
            ))
        } else if let Some(answer) = self
            .answer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            answer
        } else {
            *self.asked.lock().unwrap_or_else(PoisonError::into_inner) = Some(request.clone());
            // Never read by the model: the server answers `input_required` instead.
            ApprovalResponse::reject("waiting for the client to ask the user")
        };
        Box::pin(async move { response })
    }

    /// Answers from what the client brought, when it answered this very question under its
    /// key with an answer that fits; else records the question for the `input_required`
    /// result and leaves it unanswered (the tool's run ends, and runs again with the answer).
    fn elicit<'a>(
        &'a self,
        request: &'a QuestionRequest,
    ) -> BoxFuture<'a, Result<Answer, Unanswered>> {
        let ordinal = self.questions_asked.fetch_add(1, Ordering::SeqCst) + 1;
        let question = &request.question;
        let key = question
            .key()
            .map_or_else(|| format!("question-{ordinal}"), str::to_owned);
        let digest = question_digest(question);
        let outcome = (|| {
            // A form the client could not be shown is the tool's error now, not a round trip.
            form(question)?;
            let brought = self.answers.get(&key).filter(|answered| {
                answered
                    .question
                    .as_ref()
                    .is_none_or(|asked| *asked == digest)
            });
            let answer = brought.and_then(|answered| {
                let result =
                    serde_json::from_value::<ElicitResult>(answered.response.clone()).ok()?;
                let answer = to_answer(&result)?;
                match &answer {
                    // An answer that does not fit is asked again rather than read.
                    Answer::Accept(content) if question.check(content).is_err() => None,
                    _ => Some(answer),
                }
            });
            let mut questions = self
                .questions
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let (Some(answer), Some(answered)) = (answer, brought) {
                questions.used.insert(
                    key,
                    Answered {
                        question: Some(digest),
                        response: answered.response.clone(),
                    },
                );
                return Ok(answer);
            }
            questions.pending.push((key, question.clone()));
            // Never read by the model: the server answers `input_required` instead.
            Err(Unanswered::new(
                "waiting for the MCP client to ask the user (input_required); the call will run again with the answer",
            ))
        })();
        Box::pin(std::future::ready(outcome))
    }
}

/// What a sealed 2026-07-28 request state says: which call was asked about, and what.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct RoundState {
    /// The tool called.
    pub(super) tool: String,
    /// SHA-256 of the arguments' JSON text, in hex.
    pub(super) arguments_sha256: String,
    /// What the user was shown of the policy's approval question, when this round asked it:
    /// the request's preview.
    pub(super) preview: Option<String>,
    /// Whether "approve for the session" was offered.
    pub(super) offer_session: bool,
    /// The client's answer to the approval question of an earlier round (its
    /// `ElicitResult`): the call, run again from the start, is asked again and takes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) approval: Option<Value>,
    /// The tool's own questions this round asked: key and question digest.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) asked: BTreeMap<String, String>,
    /// The answers to the tool's questions of earlier rounds.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) answers: BTreeMap<String, Answered>,
    /// Random, so that a server can tell a state it has taken already.
    pub(super) nonce: String,
}

impl RoundState {
    /// The state of a round of `tool` with `arguments` (asking for approval when `preview`
    /// is given), with a fresh nonce and nothing answered yet.
    pub(super) fn new(
        tool: &str,
        arguments: &str,
        preview: Option<String>,
        offer_session: bool,
    ) -> Self {
        let mut nonce = [0_u8; 16];
        getrandom::fill(&mut nonce).expect("the OS provides randomness");
        RoundState {
            tool: tool.to_owned(),
            arguments_sha256: sha256_hex(arguments),
            preview,
            offer_session,
            approval: None,
            asked: BTreeMap::new(),
            answers: BTreeMap::new(),
            nonce: nonce.iter().map(|byte| format!("{byte:02x}")).collect(),
        }
    }
}

/// Seals and opens the request states of approvals asked over the 2026-07-28 round trip.
pub(super) struct ApprovalStates {
    codec: RequestStateCodec,
    /// The nonces of the states taken, until they would have expired anyway.
    taken: Mutex<HashMap<String, Instant>>,
}

/// A key for sealing request states was shorter than 32 bytes.
#[derive(Debug, thiserror::Error)]
#[error(
    "the request-state key has {length} bytes; give at least 32 bytes of secret randomness (the same on every instance behind one address)"
)]
pub struct StateKeyTooShort {
    /// How long the key was.
    pub length: usize,
}

/// Why a request state brought back by a client was refused.
#[derive(Debug, thiserror::Error)]
pub(super) enum StateRefused {
    #[error(
        "the requestState failed its integrity check: it was not made by this server (or by a server with the same key), or it was changed; call the tool again without requestState and inputResponses to be asked anew"
    )]
    Forged,
    #[error(
        "the requestState has expired (an approval question is open for 15 minutes); call the tool again without requestState and inputResponses to be asked anew"
    )]
    Expired,
    #[error(
        "the requestState was made for another call ({what}); send it back only with the call it came with"
    )]
    OtherCall { what: String },
    #[error(
        "the requestState was used already: an answer approves one call; call the tool again without requestState and inputResponses to be asked anew"
    )]
    Taken,
}

impl ApprovalStates {
    /// States sealed with a key made now from the OS's randomness: valid in this process only.
    pub(super) fn random() -> Self {
        let mut key = [0_u8; 32];
        getrandom::fill(&mut key).expect("the OS provides randomness");
        ApprovalStates {
            codec: RequestStateCodec::new_unchecked(key.to_vec()),
            taken: Mutex::default(),
        }
    }

    /// States sealed with `key`, which every instance serving one address must share.
    pub(super) fn with_key(key: &[u8]) -> Result<Self, StateKeyTooShort> {
        RequestStateCodec::try_new(key.to_vec())
            .map(|codec| ApprovalStates {
                codec,
                taken: Mutex::default(),
            })
            .map_err(|_| StateKeyTooShort { length: key.len() })
    }

    /// The sealed state of an approval asked about `tool` with `arguments`.
    pub(super) fn seal(&self, asked: &RoundState) -> String {
        self.codec
            .seal_json_with(asked, &SealOptions::new().ttl(STATE_TTL))
            .expect("an approval state serializes")
    }

    /// The approval a client's state says was asked, checked: sealed here, not expired, and
    /// for this tool with these very arguments.
    pub(super) fn open(
        &self,
        state: &str,
        tool: &str,
        arguments: &str,
    ) -> Result<RoundState, StateRefused> {
        let asked: RoundState = self.codec.open_json(state).map_err(|error| match error {
            RequestStateError::Expired => StateRefused::Expired,
            _ => StateRefused::Forged,
        })?;
        if asked.tool != tool {
            return Err(StateRefused::OtherCall {
                what: format!("a call of `{}`, not `{tool}`", asked.tool),
            });
        }
        if asked.arguments_sha256 != sha256_hex(arguments) {
            return Err(StateRefused::OtherCall {
                what: format!("`{tool}` with other arguments"),
            });
        }
        let now = Instant::now();
        let mut taken = self.taken.lock().unwrap_or_else(PoisonError::into_inner);
        taken.retain(|_, expires| *expires > now);
        if taken.insert(asked.nonce.clone(), now + STATE_TTL).is_some() {
            return Err(StateRefused::Taken);
        }
        Ok(asked)
    }
}

/// The SHA-256 of `text`, in lowercase hex.
fn sha256_hex(text: &str) -> String {
    use std::fmt::Write as _;
    Sha256::digest(text.as_bytes())
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

/// The elicitation of `params` as an `input_required` input request.
pub(super) fn input_request(params: ElicitRequestParams) -> InputRequest {
    let request = json!({ "method": "elicitation/create", "params": params });
    serde_json::from_value(request).expect("an elicitation is an input request (tested)")
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let request = serde_json::to_value(input_request(params)).unwrap();
        assert_eq!(request["method"], "elicitation/create");
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
        assert!(matches!(
            answer(&accept(json!({"decision": "always"})), true),
            ApprovalResponse::Reject { .. }
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
        let mut tampered = sealed.clone();
        let last = tampered.pop().unwrap();
        tampered.push(if last == 'A' { 'B' } else { 'A' });
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
            ApprovalResponse::Reject { guidance: Some(g) } if g.contains("already running")
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
                    ApprovalResponse::Reject { .. }
                ),
                "{other:?}"
            );
            assert!(approver.asked.lock().unwrap().is_none());
        }
    }
}
