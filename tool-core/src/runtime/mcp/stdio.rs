//! The stdio transport: JSON-RPC messages one per line, read from one byte stream and written
//! to another, with the edges answered as JSON-RPC and MCP say. rmcp's own line transport
//! drops a line that is not JSON without a word and a line over its limit without an answer,
//! so a client that sent either waits for a reply that never comes. Here:
//! - a line that is not JSON is answered with a parse error (-32700), and the session goes on;
//! - JSON that is no JSON-RPC message is an invalid request (-32600), answered to its `id` when
//!   it has one; a notification (no `id`) is never answered, so one this server does not know
//!   (an editor's, a vendor's) is dropped, as rmcp drops it;
//! - a line over the size limit is skipped to its end, never held whole, and answered with an
//!   error naming the limit, to the request's `id` when the line shows it ([`line_id`]);
//! - what the client sent before any message this server could read is kept
//!   ([`Handshake`]), so that a connection that never became MCP can say what arrived.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ErrorData, RequestId, ServerJsonRpcMessage};
use rmcp::transport::Transport;

use super::malformed::{request_id, too_large, unreadable};
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};

/// The largest message a server reads by default, over stdio and HTTP: 16 MiB, as rmcp's
/// line transport. A file written whole through `write_file` travels inside one message.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// How many bytes at each end of an oversized line are kept to find its `id`.
const KEPT_FOR_ID: usize = 4096;

/// What arrived before the first message this server could read: the start of the first line
/// that was not one, if any. Shared with [`McpServer::serve_stdio`](super::McpServer::serve_stdio),
/// which tells a client that closed before its handshake from one that never spoke MCP.
#[derive(Debug, Default)]
pub(super) struct Handshake {
    started: AtomicBool,
    unreadable: OnceLock<String>,
}

impl Handshake {
    /// The start of the first unreadable line, when nothing readable came before it.
    pub(super) fn unreadable(&self) -> Option<String> {
        if self.started.load(Ordering::Relaxed) {
            return None;
        }
        self.unreadable.get().cloned()
    }

    fn saw_unreadable(&self, line: &[u8]) {
        if !self.started.load(Ordering::Relaxed) {
            self.unreadable.get_or_init(|| shown(line));
        }
    }

    fn saw_message(&self) {
        self.started.store(true, Ordering::Relaxed);
    }
}

/// The start of a line as a person would read it in one sentence.
fn shown(line: &[u8]) -> String {
    const SHOWN: usize = 60;
    let text = String::from_utf8_lossy(&line[..line.len().min(SHOWN * 4)]);
    let text = text.trim();
    match text.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// The transport `serve_stdio` gives rmcp.
pub(super) struct LineTransport<R, W> {
    read: BufReader<R>,
    /// The line being read; kept across a cancelled `receive`, so a line read in parts (the
    /// service loop drops `receive` whenever something else is ready) is not lost.
    line: Vec<u8>,
    /// Set while the rest of an oversized line is skipped.
    skipping: Option<Oversized>,
    max: usize,
    write: Arc<tokio::sync::Mutex<Writer<W>>>,
    handshake: Arc<Handshake>,
}

/// An oversized line being skipped: its first and (so far) last bytes, for its `id`.
struct Oversized {
    head: Vec<u8>,
    tail: Vec<u8>,
}

/// The output side: whole lines appended to `pending` under the lock, then written out. A
/// write cancelled halfway leaves the rest in `pending` for the next one, so lines are never
/// interleaved or cut.
struct Writer<W> {
    out: Option<W>,
    pending: Vec<u8>,
}

impl<W: AsyncWrite + Unpin> Writer<W> {
    async fn send(&mut self, message: &ServerJsonRpcMessage) -> std::io::Result<()> {
        // Written in place; a message that fails to serialize leaves nothing behind.
        let start = self.pending.len();
        if let Err(error) = serde_json::to_writer(&mut self.pending, message) {
            self.pending.truncate(start);
            return Err(std::io::Error::other(error));
        }
        self.pending.push(b'\n');
        self.flush().await
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        let Some(out) = self.out.as_mut() else {
            return Err(std::io::ErrorKind::NotConnected.into());
        };
        while !self.pending.is_empty() {
            let written = out.write(&self.pending).await?;
            if written == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            self.pending.drain(..written);
        }
        out.flush().await
    }
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> LineTransport<R, W> {
    pub(super) fn new(read: R, write: W, max: usize, handshake: Arc<Handshake>) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            skipping: None,
            max,
            write: Arc::new(tokio::sync::Mutex::new(Writer {
                out: Some(write),
                pending: Vec::new(),
            })),
            handshake,
        }
    }

    /// Reads to the end of the next line. `Ok(Line::Whole)` leaves it in `self.line`.
    async fn read_line(&mut self) -> std::io::Result<Line> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(Line::End);
            }
            let newline = available.iter().position(|&byte| byte == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let chunk = &available[..take];
            let ended = newline.is_some();
            let mut finished = None;
            if let Some(skipping) = &mut self.skipping {
                keep_tail(&mut skipping.tail, chunk);
                if ended {
                    finished = self.skipping.take().map(Line::Oversized);
                }
            } else if self.line.len() + chunk.len() > self.max.saturating_add(1) {
                // Over the limit (a line's own newline aside): keep its ends, drop the rest.
                let mut head = std::mem::take(&mut self.line);
                head.extend_from_slice(&chunk[..chunk.len().min(KEPT_FOR_ID)]);
                head.truncate(KEPT_FOR_ID);
                let mut tail = Vec::new();
                keep_tail(&mut tail, chunk);
                let oversized = Oversized { head, tail };
                if ended {
                    finished = Some(Line::Oversized(oversized));
                } else {
                    self.skipping = Some(oversized);
                }
            } else {
                self.line.extend_from_slice(chunk);
                if ended {
                    finished = Some(Line::Whole);
                }
            }
            self.read.consume(take);
            if let Some(line) = finished {
                return Ok(line);
            }
        }
    }
}

/// Answers a line this server cannot take.
async fn answer<W: AsyncWrite + Unpin>(
    write: Arc<tokio::sync::Mutex<Writer<W>>>,
    error: ErrorData,
    id: Option<RequestId>,
) {
    let message = ServerJsonRpcMessage::error(error, id);
    if let Err(error) = write.lock().await.send(&message).await {
        tracing::debug!("could not answer an unreadable message: {error}");
    }
}

/// What `read_line` found.
enum Line {
    Whole,
    Oversized(Oversized),
    End,
}

/// Keeps the last `KEPT_FOR_ID` bytes of everything passed through `tail`.
fn keep_tail(tail: &mut Vec<u8>, chunk: &[u8]) {
    tail.extend_from_slice(&chunk[chunk.len().saturating_sub(KEPT_FOR_ID)..]);
    let over = tail.len().saturating_sub(KEPT_FOR_ID);
    tail.drain(..over);
}

/// The `id` of a message of which only the first and last bytes are known: a member `"id"` of
/// the outermost object found in `head` by following the JSON's nesting (clients that write
/// `id` first), or `"id": VALUE}` closing the line (clients that write it last).
pub(super) fn line_id(head: &[u8], tail: &[u8]) -> Option<RequestId> {
    leading_id(head).or_else(|| trailing_id(tail))
}

/// An `"id"` member at depth 1 of a JSON text's start, followed as far as `text` goes.
fn leading_id(text: &[u8]) -> Option<RequestId> {
    let mut depth = 0usize;
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.checked_sub(1)?,
            b'"' => {
                let end = string_end(text, at)?;
                if depth == 1 && &text[at..=end] == b"\"id\"" {
                    let rest = skip_space(text, end + 1);
                    if text.get(rest) == Some(&b':') {
                        return scalar_at(text, skip_space(text, rest + 1));
                    }
                }
                at = end;
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// `"id": VALUE}` as the last member of the object the line ends with.
fn trailing_id(text: &[u8]) -> Option<RequestId> {
    let text = text.trim_ascii_end();
    let body = text.strip_suffix(b"}")?.trim_ascii_end();
    // The value: a number, or a string, at the very end.
    let value_start = if body.last() == Some(&b'"') {
        let mut start = body.len() - 1;
        loop {
            start = body[..start].iter().rposition(|&byte| byte == b'"')?;
            let backslashes = body[..start]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            if backslashes % 2 == 0 {
                break start;
            }
        }
    } else {
        body.iter()
            .rposition(|&byte| !(byte.is_ascii_digit() || byte == b'-'))
            .map_or(0, |at| at + 1)
    };
    let before = body[..value_start].trim_ascii_end().strip_suffix(b":")?;
    let key = before.trim_ascii_end().strip_suffix(b"\"id\"")?;
    // The member is one of an object: `{` or `,` before it, not an escaped quote in a string.
    matches!(key.trim_ascii_end().last(), Some(b'{' | b','))
        .then(|| scalar_at(body, value_start))
        .flatten()
}

/// The index of the quote closing the string opened at `open`.
fn string_end(text: &[u8], open: usize) -> Option<usize> {
    let mut at = open + 1;
    while at < text.len() {
        match text[at] {
            b'\\' => at += 2,
            b'"' => return Some(at),
            _ => at += 1,
        }
    }
    None
}

fn skip_space(text: &[u8], mut at: usize) -> usize {
    while text.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// A number or string value starting at `at`, as a request id.
fn scalar_at(text: &[u8], at: usize) -> Option<RequestId> {
    let end = match text.get(at)? {
        b'"' => string_end(text, at)? + 1,
        b'-' | b'0'..=b'9' => {
            at + text[at..]
                .iter()
                .take_while(|&&byte| byte == b'-' || byte.is_ascii_digit())
                .count()
        }
        _ => return None,
    };
    request_id(&serde_json::from_slice(&text[at..end]).ok()?)
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        async move { write.lock().await.send(&item).await }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            let line = match self.read_line().await {
                Ok(line) => line,
                Err(error) => {
                    tracing::debug!("stdin failed: {error}");
                    return None;
                }
            };
            match line {
                Line::End => return None,
                Line::Oversized(Oversized { head, tail }) => {
                    self.handshake.saw_unreadable(&head);
                    let id = line_id(&head, &tail);
                    answer(self.write.clone(), too_large(self.max), id).await;
                }
                Line::Whole => {
                    let text = trim_line(&self.line);
                    let read = (!text.is_empty())
                        .then(|| serde_json::from_slice::<ClientJsonRpcMessage>(text));
                    let unanswered = match &read {
                        Some(Err(_)) => unreadable(text),
                        _ => None,
                    };
                    if unanswered.is_some() {
                        self.handshake.saw_unreadable(text);
                    }
                    // The line is done with, whatever it held, before anything is awaited.
                    self.line.clear();
                    if let Some(Ok(message)) = read {
                        self.handshake.saw_message();
                        return Some(message);
                    }
                    if let Some((error, id)) = unanswered {
                        answer(self.write.clone(), error, id).await;
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let mut write = self.write.lock().await;
        let flushed = write.flush().await;
        write.out = None;
        flushed
    }
}

/// A line without its newline, carriage return and byte order mark.
fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_found_at_the_start_of_a_line_at_the_outermost_level_only() {
        let head = br#"{"jsonrpc":"2.0","params":{"id":9,"arguments":{"content":"xxxx"#;
        assert_eq!(leading_id(head), None);
        let head = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"id":9,"#;
        assert_eq!(leading_id(head), Some(RequestId::Number(7)));
        let head = br#"{ "id" : "call-\"1\"", "method": "tools/call", "params": {"#;
        assert_eq!(
            leading_id(head),
            Some(RequestId::String("call-\"1\"".into()))
        );
        // A key "id" inside a string value is no member.
        let head = br#"{"method":"a \"id\": 3","params":{"#;
        assert_eq!(leading_id(head), None);
    }

    #[test]
    fn the_id_is_found_at_the_end_of_a_line_when_it_is_the_last_member() {
        assert_eq!(
            trailing_id(br#"xx"}},"jsonrpc":"2.0","id":12}"#),
            Some(RequestId::Number(12))
        );
        assert_eq!(
            trailing_id(b"xx\"}}, \"id\" : \"abc\" }\r\n"),
            Some(RequestId::String("abc".into()))
        );
        // The member of an inner object, closed by more than one brace, is not the request's.
        assert_eq!(trailing_id(br#"xx","arguments":{"id":5}}}"#), None);
        // An escaped quote is part of a string, not a key.
        assert_eq!(trailing_id(br#"xx \"id\": 5}"#), None);
    }
}
