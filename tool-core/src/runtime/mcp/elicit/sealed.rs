//! The sealed state a round trip carries ([`RoundState`], sealed by [`ApprovalStates`]): which
//! call was asked about and what was answered, refused when tampered with, old or replayed.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::round_trip::Answered;
use super::wire::sha256_hex;
use rmcp::model::{RequestStateCodec, RequestStateError, SealOptions};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How long a 2026-07-28 client has to come back with its user's answer: long enough for a
/// person to read the question, short enough that an old state is not lying around.
const STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// What a sealed 2026-07-28 request state says: which call was asked about, and what.
#[derive(Debug, Serialize, Deserialize)]
pub(in crate::runtime::mcp) struct RoundState {
    /// The tool called.
    pub(in crate::runtime::mcp) tool: String,
    /// SHA-256 of the arguments' JSON text, in hex.
    pub(in crate::runtime::mcp) arguments_sha256: String,
    /// What the user was shown of the policy's approval question, when this round asked it:
    /// the request's preview.
    pub(in crate::runtime::mcp) preview: Option<String>,
    /// Whether "approve for the session" was offered.
    pub(in crate::runtime::mcp) offer_session: bool,
    /// The client's answer to the approval question of an earlier round (its
    /// `ElicitResult`): the call, run again from the start, is asked again and takes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(in crate::runtime::mcp) approval: Option<Value>,
    /// The tool's own questions this round asked: key and question digest.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(in crate::runtime::mcp) asked: BTreeMap<String, String>,
    /// The answers to the tool's questions of earlier rounds.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(in crate::runtime::mcp) answers: BTreeMap<String, Answered>,
    /// Random, so that a server can tell a state it has taken already.
    pub(in crate::runtime::mcp) nonce: String,
    /// When the round trip's first state expires, in seconds since the Unix epoch: every
    /// later round's state expires then too, so answering round after round cannot keep a
    /// call (and the answers it carries) open for ever.
    pub(in crate::runtime::mcp) deadline: u64,
}

/// Now, in seconds since the Unix epoch.
pub(super) fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

impl RoundState {
    /// The state of a round of `tool` with `arguments` (asking for approval when `preview`
    /// is given), with a fresh nonce and nothing answered yet.
    pub(in crate::runtime::mcp) fn new(
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
            deadline: unix_now() + STATE_TTL.as_secs(),
        }
    }
}

/// Seals and opens the request states of approvals asked over the 2026-07-28 round trip.
pub(in crate::runtime::mcp) struct ApprovalStates {
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
pub(in crate::runtime::mcp) enum StateRefused {
    #[error(
        "the requestState failed its integrity check: it was not made by this server (or by a server with the same key), or it was changed; call the tool again without requestState and inputResponses to be asked anew"
    )]
    Forged,
    #[error(
        "the requestState has expired (a call's questions are open for 15 minutes from its first round); call the tool again without requestState and inputResponses to be asked anew"
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
    pub(in crate::runtime::mcp) fn random() -> Self {
        let mut key = [0_u8; 32];
        getrandom::fill(&mut key).expect("the OS provides randomness");
        ApprovalStates {
            codec: RequestStateCodec::new_unchecked(key.to_vec()),
            taken: Mutex::default(),
        }
    }

    /// States sealed with `key`, which every instance serving one address must share.
    pub(in crate::runtime::mcp) fn with_key(key: &[u8]) -> Result<Self, StateKeyTooShort> {
        RequestStateCodec::try_new(key.to_vec())
            .map(|codec| ApprovalStates {
                codec,
                taken: Mutex::default(),
            })
            .map_err(|_| StateKeyTooShort { length: key.len() })
    }

    /// The sealed state of an approval asked about `tool` with `arguments`.
    pub(in crate::runtime::mcp) fn seal(&self, asked: &RoundState) -> String {
        // What is left until the first round's deadline (at least a second: a state sealed
        // as the deadline passes is refused as expired when it comes back).
        let left = asked.deadline.saturating_sub(unix_now()).max(1);
        self.codec
            .seal_json_with(
                asked,
                &SealOptions::new().ttl(Duration::from_secs(left).min(STATE_TTL)),
            )
            .expect("an approval state serializes")
    }

    /// The approval a client's state says was asked, checked: sealed here, not expired, and
    /// for this tool with these very arguments.
    pub(in crate::runtime::mcp) fn open(
        &self,
        state: &str,
        tool: &str,
        arguments: &str,
    ) -> Result<RoundState, StateRefused> {
        let asked: RoundState = self.codec.open_json(state).map_err(|error| match error {
            RequestStateError::Expired => StateRefused::Expired,
            _ => StateRefused::Forged,
        })?;
        if asked.deadline <= unix_now() {
            return Err(StateRefused::Expired);
        }
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
