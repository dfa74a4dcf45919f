//! `fetch_url`: a web page as markdown, plain text or as it came, fetched through the address
//! checks, redirect rules, size and time caps and session cache of the [`web`](crate::web)
//! engine.

use std::fmt::Write as _;

use tool_core::context::ToolContext;
use tool_core::{ToolError, WebUrl, tool};

use crate::web::{self, FetchFormat, Outcome, RenderedPage};

/// Of an error page (status 400 and up), this many characters are shown.
const ERROR_PAGE_CHARS: usize = 2_000;

/// Fetch a web page and return its content: HTML as markdown (default), as plain text, or raw.
/// `http://` is upgraded to `https://`. Private, loopback and cloud-metadata addresses are
/// refused. A redirect to another host is not followed: the reply gives its target, to fetch
/// if wanted. Pages are cached for 15 minutes; binary content is refused.
///
/// # Arguments
/// * `url` - The absolute URL to fetch (`https://...`).
/// * `format` - `markdown` (default), `text` or `raw`.
/// * `max_bytes` - Read at most this many bytes of the body (default and upper bound: the configured cap, 10 MiB unless set).
/// * `prompt` - Accepted for compatibility with other agents' WebFetch; not applied: the page itself is returned, for you to read.
#[tool(read_only, name = "fetch_url", aliases("WebFetch"), tags("web"))]
async fn fetch_url(
    ctx: &ToolContext,
    url: WebUrl,
    #[arg(default)] format: FetchFormat,
    max_bytes: Option<u64>,
    prompt: Option<String>,
) -> Result<String, ToolError> {
    let config = web::config(ctx);
    let cap = match max_bytes {
        Some(0) => {
            return Err(ToolError::failed(
                "max_bytes must be at least 1; leave it out to read up to the configured cap",
            ));
        }
        Some(bytes) if bytes < config.max_bytes => Cap::Asked(bytes),
        _ => Cap::Configured(config.max_bytes),
    };
    let max_bytes = cap.bytes();
    let fetching = web::fetch_page(ctx, &config, url.as_url(), format, max_bytes);
    let outcome = tokio::select! {
        outcome = fetching => outcome.map_err(ToolError::from_error)?,
        () = ctx.cancellation().cancelled() => return Err(ToolError::Cancelled),
    };
    let (page, cached) = match outcome {
        Outcome::Page { page, cached } => (page, cached),
        Outcome::OtherHost { from, status, to } => {
            return Ok(format!(
                "`{from}` redirected ({status}) to another host: {to}\n\
                 fetch_url does not follow a redirect to another host; to read it, call \
                 fetch_url again with url \"{to}\"."
            ));
        }
    };
    if page.status.is_client_error() || page.status.is_server_error() {
        let shown: String = page.content.chars().take(ERROR_PAGE_CHARS).collect();
        return Err(ToolError::failed(format!(
            "`{}` answered {}\n\n{shown}",
            page.url, page.status
        )));
    }
    Ok(reply(&page, cached, cap, prompt.as_deref()))
}

/// Where the byte cap of a call came from, for the reply that says a page was cut.
#[derive(Clone, Copy)]
enum Cap {
    /// The call's `max_bytes`.
    Asked(u64),
    /// The web configuration's cap (the call asked for no less).
    Configured(u64),
}

impl Cap {
    fn bytes(self) -> u64 {
        match self {
            Cap::Asked(bytes) | Cap::Configured(bytes) => bytes,
        }
    }
}

/// The header the model reads (where the page came from, what it is, whether it is whole)
/// and the content.
fn reply(
    page: &RenderedPage,
    cached: Option<std::time::Duration>,
    cap: Cap,
    prompt: Option<&str>,
) -> String {
    let mut out = String::with_capacity(page.content.len() + 256);
    let _ = writeln!(out, "URL: {}", page.url);
    let _ = writeln!(out, "Status: {}", page.status);
    let _ = writeln!(
        out,
        "Content-Type: {}",
        page.content_type.as_deref().unwrap_or("(none)")
    );
    match (page.cut, cap) {
        (true, Cap::Asked(bytes)) => {
            let _ = writeln!(
                out,
                "Bytes: {} (cut at max_bytes = {bytes}: the rest of the page was not read)",
                page.bytes
            );
        }
        (true, Cap::Configured(bytes)) => {
            let _ = writeln!(
                out,
                "Bytes: {} (cut at the configured cap of {bytes} bytes: the rest of the page \
                 was not read)",
                page.bytes
            );
        }
        (false, _) => {
            let _ = writeln!(out, "Bytes: {}", page.bytes);
        }
    }
    match cached {
        Some(age) => {
            let _ = writeln!(out, "From cache: yes (fetched {} s ago)", age.as_secs());
        }
        None => out.push_str("From cache: no\n"),
    }
    if let Some(prompt) = prompt.filter(|prompt| !prompt.trim().is_empty()) {
        // Claude Code's WebFetch runs `prompt` over the page with a small model; this tool has
        // none, so the page itself goes back and the model answers its own question.
        let _ = writeln!(
            out,
            "Note: `prompt` is not applied by fetch_url; the whole page follows. Read it for: {prompt}"
        );
    }
    out.push('\n');
    out.push_str(&page.content);
    out
}
