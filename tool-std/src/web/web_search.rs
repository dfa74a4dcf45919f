//! `web_search`: a query put to the coordinator's [`SearchEngine`](crate::web::SearchEngine),
//! its results filtered by domain and listed for the model.

use std::fmt::Write as _;

use tool_core::context::ToolContext;
use tool_core::{ToolError, tool};

use crate::web::{SearchEngine, SearchRequest, names_a_domain};

/// Results returned when no limit is given.
const DEFAULT_LIMIT: usize = 10;
/// Results returned at most.
const MAX_LIMIT: usize = 50;

/// Search the web and return the results: title, URL and excerpt of each, best first. Use
/// `fetch_url` to read a result. `allowed_domains` keeps only results on those domains (and
/// their subdomains); `blocked_domains` drops results on those.
///
/// # Arguments
/// * `query` - What to search for.
/// * `limit` - At most this many results (default 10, at most 50).
/// * `allowed_domains` - Only results on these domains, such as `["docs.rs", "rust-lang.org"]`.
/// * `blocked_domains` - No results on these domains.
#[tool(
    read_only,
    name = "web_search",
    aliases("WebSearch"),
    tags("web", "search")
)]
async fn web_search(
    ctx: &ToolContext,
    query: String,
    limit: Option<usize>,
    #[arg(default)] allowed_domains: Vec<String>,
    #[arg(default)] blocked_domains: Vec<String>,
) -> Result<String, ToolError> {
    let Some(engine) = ctx.state::<SearchEngine>() else {
        return Err(ToolError::failed(
            "web_search has no search provider configured. Whoever runs this agent can give \
             one as coordinator state: `.state(tool_std::web::SearchEngine::new(\
             tool_std::web::Searxng::new(\"http://127.0.0.1:8888\")?))` for a SearXNG \
             instance, or any `tool_std::web::SearchProvider`. Until then, fetch_url can read \
             pages whose URL you know.",
        ));
    };
    let query = query.trim();
    if query.is_empty() {
        return Err(ToolError::failed(
            "query is empty; send the words to search for",
        ));
    }
    let limit = match limit {
        Some(0) => {
            return Err(ToolError::failed(format!(
                "limit must be between 1 and {MAX_LIMIT}; leave it out for {DEFAULT_LIMIT}"
            )));
        }
        Some(limit) => limit.min(MAX_LIMIT),
        None => DEFAULT_LIMIT,
    };
    for (list, domains) in [
        ("allowed_domains", &allowed_domains),
        ("blocked_domains", &blocked_domains),
    ] {
        if let Some(bad) = domains.iter().find(|domain| !names_a_domain(domain)) {
            return Err(ToolError::failed(format!(
                "{list} holds `{bad}`, which names no domain; write domains such as `docs.rs` \
                 (its subdomains are included)"
            )));
        }
    }
    let request = SearchRequest::new(query, limit)
        .allowed_domains(allowed_domains)
        .blocked_domains(blocked_domains);
    let provider = engine.provider();
    let searching = provider.search(&request);
    let hits = tokio::select! {
        hits = searching => hits.map_err(ToolError::from_error)?,
        () = ctx.cancellation().cancelled() => return Err(ToolError::Cancelled),
    };
    // The filters hold whatever the provider did with them.
    let hits: Vec<_> = hits
        .into_iter()
        .filter(|hit| request.admits(&hit.url))
        .take(limit)
        .collect();
    let filtered = if request.allowed_domains.is_empty() && request.blocked_domains.is_empty() {
        ""
    } else {
        " (after the domain filters)"
    };
    if hits.is_empty() {
        return Ok(format!(
            "No results for \"{query}\" from {}{filtered}.",
            provider.name()
        ));
    }
    let mut out = format!(
        "{} result{} for \"{query}\" from {}{filtered}:\n",
        hits.len(),
        if hits.len() == 1 { "" } else { "s" },
        provider.name()
    );
    // A title or URL spanning lines could pose as further results: each is put on one line
    // (the URL as it parses, which is how `admits` judged it).
    let one_line = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    for (number, hit) in hits.iter().enumerate() {
        let url = url::Url::parse(&hit.url).map_or_else(|_| one_line(&hit.url), String::from);
        let _ = write!(
            out,
            "\n{}. {}\n   {url}\n",
            number + 1,
            one_line(&hit.title),
        );
        let snippet = one_line(&hit.snippet);
        if !snippet.is_empty() {
            let _ = writeln!(out, "   {snippet}");
        }
    }
    Ok(out.trim_end().to_owned())
}
