//! The web tools, `fetch_url` and `web_search`, and the engine under them, one module per job:
//!
//! - `address`: which addresses a fetch may connect to ([`refused_range`]), checked after every
//!   DNS resolution and on every redirect, the client connecting to exactly the addresses
//!   checked (no DNS rebinding); [`HostResolver`] to look names up another way.
//! - `client`: rustls (ring), `http` upgraded to `https`, same-host redirects followed and
//!   re-checked, another host's reported, the body streamed up to a byte cap, one timeout.
//! - `convert`: HTML to markdown (htmd) or plain text ([`FetchFormat`]), charsets decoded,
//!   binary refused.
//! - `cache`: rendered pages per coordinator session, by URL, format and cap, for a TTL.
//! - `config`: [`WebConfig`], given as state, the defaults when absent.
//! - `search` and `searxng`: the [`SearchProvider`] trait, the [`SearchEngine`] state, and
//!   the [`Searxng`] provider.
//!
//! How far the address checks go: every IPv4 and IPv6 special-purpose range of IANA's
//! registries (loopback, private, CGNAT, link-local with the cloud metadata addresses,
//! unique-local, site-local, documentation, benchmarking, multicast, broadcast, reserved),
//! IPv6 addresses that embed an IPv4 one judged by it (IPv4-mapped, IPv4-compatible, NAT64's
//! well-known prefix `64:ff9b::/96`, 6to4 `2002::/16`), and the prefixes whose embedding is
//! not checked refused whole (Teredo `2001::/32`, local-use NAT64 `64:ff9b:1::/48`), and every
//! other IPv6 address outside global unicast (`2000::/3`) refused as reserved. Not
//! caught: a NAT64 gateway's network-specific prefix (nothing in the address says it is one),
//! through which an IPv6 address can still reach a private IPv4 host on such a network.

mod address;
mod cache;
mod client;
mod config;
mod convert;
pub(crate) mod fetch_url;
mod search;
mod searxng;
pub(crate) mod web_search;

use std::sync::Arc;
use std::time::Duration;

use tool_core::context::ToolContext;
use url::Url;

pub use address::{HostResolver, Refusal, SystemResolver, refused_range};
pub use client::tls_config;
pub use config::{ConfigError, WebConfig};
pub use convert::FetchFormat;
pub use search::{SearchEngine, SearchError, SearchHit, SearchProvider, SearchRequest};
pub use searxng::{Searxng, SearxngError};

pub(crate) use cache::RenderedPage;
pub(crate) use client::FetchError;
pub(crate) use search::names_a_domain;

use cache::{CacheKey, WebSession};
use convert::Kind;

/// What a fetch came back with.
pub(crate) enum Outcome {
    /// A page, and its age when it came from the cache.
    Page {
        page: Arc<RenderedPage>,
        cached: Option<Duration>,
    },
    /// A redirect to another host, not followed.
    OtherHost {
        from: Url,
        status: reqwest::StatusCode,
        to: Url,
    },
}

/// The configuration the coordinator was given, or the defaults.
pub(crate) fn config(ctx: &ToolContext) -> WebConfig {
    ctx.state::<WebConfig>()
        .map_or_else(WebConfig::default, |state| WebConfig::clone(state))
}

/// Fetches `url` and renders it in `format`, from the session's cache when it holds the page.
pub(crate) async fn fetch_page(
    ctx: &ToolContext,
    config: &WebConfig,
    url: &Url,
    format: FetchFormat,
    max_bytes: u64,
) -> Result<Outcome, FetchError> {
    // One deadline for the whole fetch: the lookup that decides whether `http` stays `http`
    // (made when private addresses are allowed) counts against it too.
    let deadline = tokio::time::Instant::now() + config.timeout;
    let url = tokio::time::timeout_at(deadline, client::upgraded(url, config))
        .await
        .unwrap_or_else(|_| {
            Err(FetchError::TimedOut {
                url: url.to_string(),
                timeout: config.timeout,
            })
        })?;
    let session = ctx.session_state::<WebSession>();
    let key = CacheKey {
        url: url.to_string(),
        format,
        max_bytes,
    };
    if let Some((page, age)) = session.cached(&key, config.cache_ttl) {
        return Ok(Outcome::Page {
            page,
            cached: Some(age),
        });
    }
    let client = session.client(|| client::build_client(config))?;
    let response = match client::fetch(&client, config, url, max_bytes, deadline).await? {
        client::Fetched::Page(response) => response,
        client::Fetched::OtherHost { from, status, to } => {
            return Ok(Outcome::OtherHost { from, status, to });
        }
    };
    let content_type = response.content_type.as_deref();
    let kind = convert::kind(content_type, &response.body);
    if kind == Kind::Binary {
        return Err(FetchError::Binary {
            url: response.url.to_string(),
            content_type: convert::type_name(content_type).into_owned(),
            bytes: response.body.len(),
        });
    }
    let text = convert::decode(&response.body, content_type, kind);
    let content = match kind {
        // Parsing a large page takes long enough to hold up other calls on this thread.
        Kind::Html => {
            let base = response.url.clone();
            tokio::task::spawn_blocking(move || convert::render_html(&text, &base, format))
                .await
                .map_err(|error| FetchError::Render {
                    url: response.url.to_string(),
                    message: error.to_string(),
                })?
        }
        _ => text,
    };
    let page = Arc::new(RenderedPage {
        status: response.status,
        content_type: response.content_type,
        bytes: response.body.len(),
        cut: response.cut,
        url: response.url,
        content,
    });
    // Only answers worth repeating are kept: an error page may be gone on the next try.
    if page.status.is_success() {
        session.store(key, Arc::clone(&page), config.cache_ttl);
    }
    Ok(Outcome::Page { page, cached: None })
}
