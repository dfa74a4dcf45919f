//! Asking by round trip (2026-07-28): [`RoundTripApprover`] ends a call `input_required`
//! with what it asks, and reads the answers when the call comes again; [`QuestionsRound`]
//! gathers a tool's questions of one round.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ElicitRequestParams, ElicitResult, InputRequest};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::session::ClientAbilities;
use super::wire::{
    form, input_request, question_digest, sampling_params, sha256_hex, to_answer, to_roots,
    to_sampled,
};
use crate::BoxFuture;
use crate::runtime::approval::{
    Answer, ApprovalRequest, ApprovalResponse, Approver, QuestionRequest, RequestKind, Root,
    Sampled, SamplingRequest, Unanswered, UnansweredKind,
};

/// The largest answer a request state carries, as JSON: a state travels with every later
/// round, so one answer may not make it unwieldy. A larger answer is asked again, saying so.
pub(super) const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// An answer to a tool's question, as a round's state carries it on to the next round.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(in crate::runtime::mcp) struct Answered {
    /// The digest of the question answered, when the server asked it (a client may also
    /// answer a question before it is asked: then this is `None`).
    pub(in crate::runtime::mcp) question: Option<String>,
    /// The client's `ElicitResult`, as it sent it.
    pub(in crate::runtime::mcp) response: Value,
}

/// What the questions of a tool asked over one 2026-07-28 round came to.
#[derive(Debug, Default)]
pub(in crate::runtime::mcp) struct QuestionsRound {
    /// The requests made and not answered, in the order made: key, digest of what was
    /// asked, and the request for the `input_required` result.
    pub(in crate::runtime::mcp) pending: Vec<(String, String, InputRequest)>,
    /// The answers the tool took, by key: carried in the next round's state, so the tool,
    /// run again from the start, finds them again.
    pub(in crate::runtime::mcp) used: BTreeMap<String, Answered>,
    /// The capabilities the tool needed and the client had not declared (`sampling`,
    /// `roots`), each with the [`generation`](Self::generation) it was asked in.
    pub(in crate::runtime::mcp) missing: Vec<(&'static str, usize)>,
    /// Whether the tool was handed a pending error: every later request of the run is
    /// pending at once.
    pub(in crate::runtime::mcp) pending_delivered: bool,
    /// How many pending or missing-capability errors the tool was handed so far: requests
    /// made in one generation were made at once, none knowing how the others ended.
    pub(in crate::runtime::mcp) generation: usize,
    /// The generation the pending requests were made in (all in one: once one is handed
    /// over, no more are made).
    pub(in crate::runtime::mcp) pending_generation: Option<usize>,
}

impl QuestionsRound {
    /// The capabilities missing for requests made at once with the pending ones: the tool
    /// asked for them together, so it will fail for want of them whatever the user answers,
    /// and the call is better refused now than after a round of questions.
    pub(in crate::runtime::mcp) fn missing_beside_pending(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        for (capability, generation) in &self.missing {
            if Some(*generation) == self.pending_generation && !missing.contains(capability) {
                missing.push(*capability);
            }
        }
        missing
    }
}

/// A future that is pending once (waking itself at once), then ready.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        context.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

/// The approver of one 2026-07-28 round: it answers the call's own approval with the answer
/// the client brought back (second round), or keeps the request to ask about and rejects for
/// now (first round; the server then answers `input_required` instead of the result).
/// Only the first question of the round can be the call's own, and only when it is about this
/// very call; anything after it is asked while the tool runs, and is refused: the round trip
/// cannot wait for it.
///
/// # How a question travels
///
/// - **2025-11-25** (a connection with a session): the server sends `elicitation/create` and
///   waits for the answer while the call waits, held at its approval stage or inside the
///   tool ([`ElicitingApprover`](super::ElicitingApprover)). A plan a tool presents
///   ([`Session::ask`](crate::coordinator::Session::ask)) goes the same way.
/// - **2026-07-28** (stateless): a server may not send requests of its own, so the call ends
///   with an `input_required` result carrying what is asked, and a request state sealed with
///   HMAC-SHA256 ([`ApprovalStates`](super::ApprovalStates)); the client asks its user and calls again with the
///   answers and the state; the server checks the seal (a forged or changed state is the
///   JSON-RPC error -32602), checks that the state is for this very tool and these exact
///   arguments, and **runs the call again from the start** with the answers
///   ([`RoundTripApprover`]):
///   - the policy's approval ends the call before its tool runs (key `approval`);
///   - a tool's question ends the tool's run at the first question no answer was brought
///     for (the tool gets a pending error, [`Unanswered::is_pending`], and must return it;
///     every later request of that run is pending at once, so a tool that carries on gets
///     no further answers); its key is the one the tool gave
///     ([`Question::with_key`](crate::approval::Question::with_key)) or its order among the
///     call's requests to the client (`question-1`, `sampling-2`, `roots-3`, ...), and each
///     request of a run needs its own (a second request under a used key is the tool's
///     error); requests made at once (`tokio::join!`) go out in one round. On the next run,
///     every question answered so far is answered again from the answers, and the next one
///     goes out: each round adds answers, carried in the sealed state ([`RoundState`](super::RoundState)) so
///     that an earlier round's answer (and the approval) cannot be changed. The state
///     carries each answer as the server read it (action and checked content, at most
///     64 KiB), never the client's raw response, and every round's state expires when the
///     first round's does. An answer that does not fit its question is asked again, the
///     reason added to its message; one given to another question under the same key is
///     asked again too.
///
///   A tool therefore should ask before it acts: until its questions are answered, nothing
///   after them has run. A question asked once the tool runs about another call's approval
///   (a nested call needing approval, a plan) cannot be carried this way, and is refused
///   with a reason saying so.
///
/// A client that declared no elicitation capability cannot be asked: such a call is refused,
/// and a tool's question gets that reason as its error.
///
/// The first round of a round trip is a real call up to where it asked: hooks before it ran,
/// and events and budgets saw a call that did not complete (yet).
///
/// The seal keeps a client from making up an approval the server never asked, or from moving
/// one to another tool or other arguments: an approval is taken only through a sealed state
/// that asked it. A tool's own question may be answered without a state (the client holds the
/// answer either way, as it does a form's): a client that knows what a tool asks may answer
/// ahead. Each state carries a random nonce, and a server takes a state once: brought back
/// again, it is refused, so "approve once" runs the call once. (Instances sharing a key each
/// remember what they took, so a client that sends one state to several instances can have it
/// taken once by each; a shared store would close that, at the cost of the statelessness the
/// protocol is for.) The seal cannot stop a client from answering for its user: the client
/// holds the answer either way.
pub(in crate::runtime::mcp) struct RoundTripApprover {
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
    pub(super) asked: Arc<Mutex<Option<ApprovalRequest>>>,
    /// The answers to the tool's own questions the client brought (this round's and, from
    /// the state, earlier rounds'), by key.
    answers: HashMap<String, Answered>,
    /// How many questions the tool asked so far: names the ones it gave no key.
    questions_asked: AtomicUsize,
    /// The keys of the requests made in this run: a second request under one of them would
    /// take (or overwrite) the first one's answer, and the rounds would never end.
    keys_used: Mutex<HashSet<String>>,
    /// What the tool's questions came to.
    questions: Arc<Mutex<QuestionsRound>>,
    /// What the client declared it can do besides asking its user.
    client: ClientAbilities,
}

impl RoundTripApprover {
    /// The approver of the round of call `call_id` (`tool` with `arguments`, its JSON text),
    /// with the answer the client brought back, if it did.
    pub(in crate::runtime::mcp) fn new(
        call_id: String,
        tool: &str,
        arguments: &str,
        answer: Option<ApprovalResponse>,
        asked: Arc<Mutex<Option<ApprovalRequest>>>,
    ) -> Self {
        RoundTripApprover {
            answers: HashMap::new(),
            questions_asked: AtomicUsize::new(0),
            keys_used: Mutex::default(),
            questions: Arc::default(),
            client: ClientAbilities::default(),
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
    pub(in crate::runtime::mcp) fn with_answers(
        mut self,
        answers: HashMap<String, Answered>,
        questions: Arc<Mutex<QuestionsRound>>,
    ) -> Self {
        self.answers = answers;
        self.questions = questions;
        self
    }

    /// With what the client declared it can do besides asking its user.
    pub(in crate::runtime::mcp) fn with_client(mut self, client: ClientAbilities) -> Self {
        self.client = client;
        self
    }

    /// [`ClientAbilities::check`], recording a capability the client lacks.
    fn able(
        &self,
        able: bool,
        tool: &str,
        what: &str,
        capability: &'static str,
    ) -> Result<(), Unanswered> {
        let checked = ClientAbilities::check(able, tool, what, capability);
        if checked.is_err() {
            let mut questions = self
                .questions
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let generation = questions.generation;
            questions.missing.push((capability, generation));
        }
        checked
    }

    /// The key of the call's next request to the client: the one given, else `prefix-N`
    /// with N its order among the call's requests. A key used before in this run is the
    /// tool's error: each request needs its own (a generated key never repeats, and a given
    /// one cannot look like one: [`Question::with_key`](crate::runtime::approval::Question::with_key) refuses that shape).
    fn next_key(
        &self,
        tool: &str,
        given: Option<&str>,
        prefix: &str,
    ) -> Result<String, Unanswered> {
        let ordinal = self.questions_asked.fetch_add(1, Ordering::SeqCst) + 1;
        let key = given.map_or_else(|| format!("{prefix}-{ordinal}"), str::to_owned);
        let mut used = self
            .keys_used
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !used.insert(key.clone()) {
            return Err(Unanswered::new(format!(
                "`{tool}` made a second request to the client under the key `{key}` in one call; give each request its own key (Question::with_key, SamplingRequest::with_key), or none"
            )));
        }
        Ok(key)
    }

    /// The answer the client brought under `key` to this very request (`digest`), read by
    /// `read` (`Err`: unusable, and why; asked again); recorded as used, so the next round's
    /// state carries it. Else `request` is recorded as pending (given why the answer brought
    /// was not used, if one was), and the tool told to wait.
    fn answer_or_ask<T>(
        &self,
        key: String,
        digest: String,
        request: impl FnOnce(Option<&str>) -> InputRequest,
        read: impl FnOnce(&Value) -> Result<(T, Value), String>,
    ) -> Result<T, Unanswered> {
        let brought = self.answers.get(&key).filter(|answered| {
            answered
                .question
                .as_ref()
                .is_none_or(|asked| *asked == digest)
        });
        let mut questions = self
            .questions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let read = brought.map(|answered| {
            let (answer, normalized) = read(&answered.response)?;
            let size = normalized.to_string().len();
            if size > MAX_ANSWER_BYTES {
                return Err(format!(
                    "it is {size} bytes long, more than the {MAX_ANSWER_BYTES} bytes an answer may have"
                ));
            }
            Ok((answer, normalized))
        });
        let problem = match read {
            // Only what was read travels on in the state: not the client's raw response.
            Some(Ok((answer, normalized))) => {
                questions.used.insert(
                    key,
                    Answered {
                        question: Some(digest),
                        response: normalized,
                    },
                );
                return Ok(answer);
            }
            Some(Err(problem)) => Some(problem),
            None => None,
        };
        questions
            .pending
            .push((key, digest, request(problem.as_deref())));
        questions.pending_generation = Some(questions.generation);
        // Never read by the model: the server answers `input_required` instead.
        Err(Unanswered::pending(
            "waiting for the MCP client's answer (input_required); return this error (`?`): the call will run again from the start with the answer",
        ))
    }

    /// Pending at once, when a request of this run is already known by the tool to be
    /// pending: a tool that carried on past that error (`unwrap_or`) gets no more answers,
    /// so it does nothing it would do again when the call runs again with the answers.
    fn after_pending(&self) -> Result<(), Unanswered> {
        let questions = self
            .questions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if questions.pending_delivered {
            return Err(Unanswered::pending(
                "an earlier request of this call is waiting for the MCP client's answer (input_required), so no other request is made in this run; return that error (`?`): the call will run again from the start with the answers",
            ));
        }
        Ok(())
    }

    /// `outcome` as the tool gets it. A pending or missing-capability one is handed over
    /// after one yield, so the requests a tool makes at once (`tokio::join!`) are all made
    /// before any of them is known to have ended so: they go out in one round, and a
    /// capability missing for one of them is known beside the others
    /// ([`QuestionsRound::missing_beside_pending`]). Once a pending one is handed over, every
    /// later request of the run is pending at once ([`after_pending`](Self::after_pending)).
    fn deliver<'a, T: Send + 'a>(
        &self,
        outcome: Result<T, Unanswered>,
    ) -> BoxFuture<'a, Result<T, Unanswered>> {
        let kind = match &outcome {
            Err(error) if error.kind != UnansweredKind::Failed => error.kind,
            _ => return Box::pin(std::future::ready(outcome)),
        };
        let questions = Arc::clone(&self.questions);
        Box::pin(async move {
            YieldOnce(false).await;
            let mut questions = questions.lock().unwrap_or_else(PoisonError::into_inner);
            questions.generation += 1;
            if kind == UnansweredKind::Pending {
                questions.pending_delivered = true;
            }
            drop(questions);
            outcome
        })
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
            ApprovalResponse::not_asked(format!(
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
        if let Err(pending) = self.after_pending() {
            return self.deliver(Err(pending));
        }
        let question = &request.question;
        let key = self.next_key(&request.tool, question.key(), "question");
        // A form the client could not be shown is the tool's error now, not a round trip.
        let outcome = key
            .and_then(|key| Ok((key, form(question)?)))
            .and_then(|(key, params)| {
                self.answer_or_ask(
                    key,
                    // The question as the tool asked it, even when asked again with a reason:
                    // the answer to either is the answer to it.
                    question_digest(question),
                    |problem| match (problem, params.clone()) {
                        (
                            Some(problem),
                            ElicitRequestParams::FormElicitationParams {
                                meta,
                                message,
                                requested_schema,
                            },
                        ) => input_request(
                            "elicitation/create",
                            &ElicitRequestParams::FormElicitationParams {
                                meta,
                                message: format!(
                                    "{message}\n\n(Asked again: the previous answer could not be used, because {problem}.)"
                                ),
                                requested_schema,
                            },
                        ),
                        _ => input_request("elicitation/create", &params),
                    },
                    |response| {
                        let result = serde_json::from_value::<ElicitResult>(response.clone())
                            .map_err(|error| format!("it was not an elicitation result ({error})"))?;
                        let answer = to_answer(&result)
                            .ok_or("its action was none of accept, decline and cancel")?;
                        // An answer that does not fit is asked again rather than read.
                        if let Answer::Accept(content) = &answer {
                            question.check(content)?;
                        }
                        let normalized = match &answer {
                            Answer::Accept(content) => {
                                json!({"action": "accept", "content": content})
                            }
                            Answer::Decline => json!({"action": "decline"}),
                            _ => json!({"action": "cancel"}),
                        };
                        Ok((answer, normalized))
                    },
                )
            });
        self.deliver(outcome)
    }

    fn sample<'a>(
        &'a self,
        tool: &'a str,
        request: &'a SamplingRequest,
    ) -> BoxFuture<'a, Result<Sampled, Unanswered>> {
        if let Err(pending) = self.after_pending() {
            return self.deliver(Err(pending));
        }
        let key = self.next_key(tool, request.key(), "sampling");
        let params = sampling_params(request);
        let outcome = self
            .able(
                self.client.sampling,
                tool,
                "a message from the client's model",
                "sampling",
            )
            .and(key)
            .and_then(|key| {
                self.answer_or_ask(
                    key,
                    sha256_hex(&params.to_string()),
                    |_| input_request("sampling/createMessage", &params),
                    |response| {
                        let sampled = to_sampled(response).map_err(|error| error.reason)?;
                        let mut normalized = json!({
                            "role": "assistant",
                            "model": sampled.model,
                            "content": {"type": "text", "text": sampled.text},
                        });
                        if let Some(reason) = &sampled.stop_reason {
                            normalized["stopReason"] = json!(reason);
                        }
                        Ok((sampled, normalized))
                    },
                )
            });
        self.deliver(outcome)
    }

    fn list_roots<'a>(&'a self, tool: &'a str) -> BoxFuture<'a, Result<Vec<Root>, Unanswered>> {
        if let Err(pending) = self.after_pending() {
            return self.deliver(Err(pending));
        }
        let key = self.next_key(tool, None, "roots");
        let outcome = self
            .able(self.client.roots, tool, "the client's roots", "roots")
            .and(key)
            .and_then(|key| {
                self.answer_or_ask(
                    key,
                    sha256_hex("roots/list"),
                    |_| input_request("roots/list", &json!({})),
                    |response| {
                        let roots = to_roots(response).map_err(|error| error.reason)?;
                        let listed: Vec<Value> = roots
                            .iter()
                            .map(|root| match &root.name {
                                Some(name) => json!({"uri": root.uri, "name": name}),
                                None => json!({"uri": root.uri}),
                            })
                            .collect();
                        Ok((roots, json!({"roots": listed})))
                    },
                )
            });
        self.deliver(outcome)
    }
}
