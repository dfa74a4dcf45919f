//! Web search behind a trait: [`SearchProvider`] (what an engine answers a query with), the
//! [`SearchEngine`] state the coordinator is given, and the domain filters `web_search` applies
//! to whatever a provider returns.

use std::fmt;
use std::sync::Arc;

use tool_core::BoxFuture;
use url::Url;

use super::address::host_name;

/// One search, as `web_search` asks a provider for it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchRequest {
    /// What to search for.
    pub query: String,
    /// The most results wanted (after the domain filters).
    pub limit: usize,
    /// Only results on these domains (or their subdomains), when not empty.
    pub allowed_domains: Vec<String>,
    /// No results on these domains (or their subdomains).
    pub blocked_domains: Vec<String>,
}

impl SearchRequest {
    /// A search for `query`, at most `limit` results, on any domain.
    #[must_use]
    pub fn new(query: impl Into<String>, limit: usize) -> Self {
        SearchRequest {
            query: query.into(),
            limit,
            allowed_domains: Vec::new(),
            blocked_domains: Vec::new(),
        }
    }

    /// Only results on these domains.
    #[must_use]
    pub fn allowed_domains(mut self, domains: Vec<String>) -> Self {
        self.allowed_domains = domains;
        self
    }

    /// No results on these domains.
    #[must_use]
    pub fn blocked_domains(mut self, domains: Vec<String>) -> Self {
        self.blocked_domains = domains;
        self
    }

    /// Whether a result at `url` passes the domain filters: its host is, or is a subdomain of,
    /// an allowed domain (when any is given) and of no blocked one.
    ///
    /// ```
    /// use tool_std::web::SearchRequest;
    ///
    /// let request = SearchRequest::new("tokio", 10)
    ///     .allowed_domains(vec!["rust-lang.org".into()])
    ///     .blocked_domains(vec!["blog.rust-lang.org".into()]);
    /// assert!(request.admits("https://doc.rust-lang.org/std/"));
    /// assert!(!request.admits("https://blog.rust-lang.org/2024/"));
    /// assert!(!request.admits("https://notrust-lang.org/"));
    /// ```
    #[must_use]
    pub fn admits(&self, url: &str) -> bool {
        let Some(host) = Url::parse(url).ok().and_then(|url| {
            url.host_str()
                .map(|host| host.trim_end_matches('.').to_ascii_lowercase())
        }) else {
            return false;
        };
        let on = |domain: &String| on_domain(&host, domain);
        (self.allowed_domains.is_empty() || self.allowed_domains.iter().any(on))
            && !self.blocked_domains.iter().any(on)
    }
}

/// Whether `host` is `domain` or one of its subdomains (`docs.rs` is on `docs.rs`, not on
/// `rs`; a domain written `*.docs.rs` or `.docs.rs` means the same as `docs.rs`, and so does
/// one written as a URL, `https://docs.rs/`, or with a path or port).
fn on_domain(host: &str, domain: &str) -> bool {
    let domain = domain_name(domain);
    !domain.is_empty()
        && (host == domain
            || host
                .strip_suffix(domain.as_str())
                .is_some_and(|rest| rest.ends_with('.')))
}

/// Whether a domain filter as given names a domain at all (not empty, not just `*.`).
pub(crate) fn names_a_domain(domain: &str) -> bool {
    !domain_name(domain).is_empty()
}

/// A domain as given, as the host of a URL spells it (see [`host_name`]), without a leading
/// `*.` or `.`. A filter that did not match the URL's spelling would drop nothing from
/// `blocked_domains`.
fn domain_name(domain: &str) -> String {
    host_name(
        domain
            .trim()
            .trim_start_matches("*.")
            .trim_start_matches('.'),
    )
}

/// One result of a search.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SearchHit {
    /// The page's address.
    pub url: String,
    /// Its title.
    pub title: String,
    /// The engine's excerpt of it (may be empty).
    pub snippet: String,
}

/// Why a provider gave no results.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// The engine could not be reached.
    #[error("the search engine at `{endpoint}` could not be reached: {message}")]
    Unreachable {
        /// Where it was asked.
        endpoint: String,
        /// What the transport said.
        message: String,
    },
    /// The engine answered with an error status.
    #[error("the search engine at `{endpoint}` answered {status}{hint}")]
    Status {
        /// Where it was asked.
        endpoint: String,
        /// The HTTP status.
        status: u16,
        /// What to do about it, when known (starts with "; ").
        hint: String,
    },
    /// The engine's answer was not what its API documents.
    #[error(
        "the search engine at `{endpoint}` answered with something other than its JSON results: {message}"
    )]
    BadResponse {
        /// Where it was asked.
        endpoint: String,
        /// What did not parse.
        message: String,
    },
}

/// A web search engine: answers a [`SearchRequest`] with hits. `web_search` applies the domain
/// filters and the limit to whatever comes back, so a provider that cannot filter by domain
/// may ignore them; one that can should, to fill the limit with admitted results.
///
/// ```
/// use tool_core::BoxFuture;
/// use tool_std::web::{SearchError, SearchHit, SearchProvider, SearchRequest};
///
/// /// Answers every query with the same page.
/// struct OnePage;
///
/// impl SearchProvider for OnePage {
///     fn name(&self) -> &str {
///         "one page"
///     }
///
///     fn search<'a>(&'a self, request: &'a SearchRequest)
///         -> BoxFuture<'a, Result<Vec<SearchHit>, SearchError>>
///     {
///         Box::pin(async move {
///             Ok(vec![SearchHit {
///                 url: "https://example.com/".into(),
///                 title: format!("About {}", request.query),
///                 snippet: String::new(),
///             }])
///         })
///     }
/// }
/// ```
pub trait SearchProvider: Send + Sync + 'static {
    /// The engine's name, for the reply (`SearXNG`).
    fn name(&self) -> &str;

    /// The hits for `request`, best first.
    fn search<'a>(
        &'a self,
        request: &'a SearchRequest,
    ) -> BoxFuture<'a, Result<Vec<SearchHit>, SearchError>>;
}

/// The search provider `web_search` uses, given to the coordinator as state. Without it,
/// `web_search` answers that no provider is configured.
///
/// ```
/// use tool_core::Coordinator;
/// use tool_std::web::{SearchEngine, Searxng};
///
/// let searxng = Searxng::new("http://127.0.0.1:8888").unwrap();
/// let coordinator = Coordinator::builder().state(SearchEngine::new(searxng)).build().unwrap();
/// ```
#[derive(Clone)]
pub struct SearchEngine(Arc<dyn SearchProvider>);

impl SearchEngine {
    /// Searches with `provider`.
    #[must_use]
    pub fn new(provider: impl SearchProvider) -> Self {
        SearchEngine(Arc::new(provider))
    }

    /// Searches with a provider already shared.
    #[must_use]
    pub fn shared(provider: Arc<dyn SearchProvider>) -> Self {
        SearchEngine(provider)
    }

    /// The provider.
    #[must_use]
    pub fn provider(&self) -> &dyn SearchProvider {
        &*self.0
    }
}

impl fmt::Debug for SearchEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SearchEngine").field(&self.0.name()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::on_domain;

    #[test]
    fn a_domain_covers_itself_and_its_subdomains_only() {
        assert!(on_domain("docs.rs", "docs.rs"));
        assert!(on_domain("www.docs.rs", "docs.rs"));
        assert!(on_domain("www.docs.rs", "*.docs.rs"));
        assert!(on_domain("www.docs.rs", "DOCS.RS."));
        assert!(!on_domain("mydocs.rs", "docs.rs"));
        assert!(!on_domain("docs.rs", "www.docs.rs"));
        assert!(!on_domain("docs.rs", ""));
    }

    #[test]
    fn a_domain_written_as_a_url_or_in_unicode_is_the_same_domain() {
        assert!(on_domain("example.com", "https://example.com/"));
        assert!(on_domain("www.example.com", "http://example.com/some/page"));
        assert!(on_domain("example.com", "example.com/docs"));
        assert!(on_domain("example.com", "example.com:443"));
        assert!(on_domain("xn--bcher-kva.example", "bücher.example"));
        assert!(on_domain("xn--bcher-kva.example", "BÜCHER.example"));
        assert!(!on_domain("notexample.com", "https://example.com"));
    }

    #[test]
    fn a_blocked_domain_written_as_a_url_blocks_it() {
        let request = super::SearchRequest::new("q", 10)
            .blocked_domains(vec!["https://example.com/".into(), "bücher.example".into()]);
        assert!(!request.admits("https://example.com/page"));
        assert!(!request.admits("https://www.bücher.example/"));
        assert!(request.admits("https://notexample.com/"));
    }
}
