//! [`Searxng`]: the search provider for a SearXNG instance (a self-hostable metasearch engine),
//! through its JSON API: `GET /search?q=...&format=json&pageno=N`, results
//! `[{url, title, content}]`.
//!
//! The instance is the operator's own choice, so its address is not put through the checks
//! `fetch_url` applies to the model's URLs: a SearXNG on the loopback interface is the common
//! setup. Nor does the provider follow the instance's redirects (they could lead anywhere,
//! unchecked): a redirect is an error naming its target, the base URL to configure instead.
//! An answer over 8 MiB is refused.

use std::collections::HashSet;
use std::time::Duration;

use reqwest::Client;
use serde::Deserialize;
use tool_core::BoxFuture;
use url::Url;

use super::client::tls_config;
use super::search::{SearchError, SearchHit, SearchProvider, SearchRequest};

/// Result pages asked for at most, when the domain filters leave fewer results than wanted.
const MAX_PAGES: u32 = 3;

/// The largest answer read: a page of results is tens of kilobytes.
const MAX_ANSWER_BYTES: usize = 8 << 20;

/// A SearXNG instance. Its `settings.yml` must list `json` under `search.formats` (instances
/// serve only HTML by default and answer `403 Forbidden` to JSON requests).
///
/// ```
/// use tool_std::web::Searxng;
///
/// let searxng = Searxng::new("https://searx.example.org/").unwrap();
/// assert!(Searxng::new("searx.example.org").is_err()); // not a URL
/// ```
#[derive(Debug, Clone)]
pub struct Searxng {
    endpoint: Url,
    client: Client,
}

/// Why a [`Searxng`] could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SearxngError {
    /// The base URL is not an `http` or `https` URL.
    #[error(
        "`{given}` is not the URL of a SearXNG instance; give its base URL, such as `http://127.0.0.1:8888` or `https://searx.example.org/`"
    )]
    NotAUrl {
        /// The text given.
        given: String,
    },
    /// The HTTP client could not be built.
    #[error("the HTTP client for SearXNG could not be built: {0}")]
    Client(String),
}

/// One result in SearXNG's JSON.
#[derive(Deserialize)]
struct Result_ {
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    results: Vec<Result_>,
}

impl Searxng {
    /// The instance at `base_url` (its `/search` is asked), with a 20-second timeout.
    ///
    /// # Errors
    /// When `base_url` is not an `http` or `https` URL, or the client cannot be built.
    pub fn new(base_url: &str) -> Result<Self, SearxngError> {
        Self::with_timeout(base_url, Duration::from_secs(20))
    }

    /// The instance at `base_url`, each request allowed `timeout`.
    ///
    /// # Errors
    /// As [`Searxng::new`].
    pub fn with_timeout(base_url: &str, timeout: Duration) -> Result<Self, SearxngError> {
        let not_a_url = || SearxngError::NotAUrl {
            given: base_url.to_owned(),
        };
        let mut base = Url::parse(base_url.trim()).map_err(|_| not_a_url())?;
        if !matches!(base.scheme(), "http" | "https") || base.host_str().is_none() {
            return Err(not_a_url());
        }
        // `join` replaces the last segment unless the path ends with `/`.
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        let endpoint = base.join("search").map_err(|_| not_a_url())?;
        let tls = tls_config().map_err(|error| SearxngError::Client(error.to_string()))?;
        let client = Client::builder()
            .tls_backend_preconfigured(tls)
            .no_proxy()
            // A redirect is reported rather than followed: it could lead anywhere, the
            // loopback interface and cloud metadata included, with no check on the way.
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .build()
            .map_err(|error| SearxngError::Client(error.to_string()))?;
        Ok(Searxng { endpoint, client })
    }

    /// One page of results.
    async fn page(&self, query: &str, page: u32) -> Result<Vec<Result_>, SearchError> {
        let mut url = self.endpoint.clone();
        url.query_pairs_mut()
            .append_pair("q", query)
            .append_pair("format", "json")
            .append_pair("pageno", &page.to_string());
        let endpoint = || self.endpoint.to_string();
        let response =
            self.client
                .get(url)
                .send()
                .await
                .map_err(|error| SearchError::Unreachable {
                    endpoint: endpoint(),
                    message: error.to_string(),
                })?;
        let status = response.status();
        if !status.is_success() {
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
            let hint = match location {
                Some(location) if status.is_redirection() => format!(
                    "; it redirected to `{location}`, which is not followed: give that URL \
                     (without `/search`) as the instance's base URL"
                ),
                _ if status == reqwest::StatusCode::FORBIDDEN => {
                    "; SearXNG refuses JSON unless its settings.yml lists `json` under \
                     `search.formats`"
                        .to_owned()
                }
                _ => String::new(),
            };
            return Err(SearchError::Status {
                endpoint: endpoint(),
                status: status.as_u16(),
                hint,
            });
        }
        let mut body = Vec::new();
        let mut response = response;
        while let Some(chunk) =
            response
                .chunk()
                .await
                .map_err(|error| SearchError::Unreachable {
                    endpoint: endpoint(),
                    message: error.to_string(),
                })?
        {
            if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(SearchError::BadResponse {
                    endpoint: endpoint(),
                    message: format!(
                        "the answer is more than {MAX_ANSWER_BYTES} bytes, far more than a \
                         page of results; it was not read further"
                    ),
                });
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice::<Answer>(&body)
            .map(|answer| answer.results)
            .map_err(|error| SearchError::BadResponse {
                endpoint: endpoint(),
                message: error.to_string(),
            })
    }
}

impl SearchProvider for Searxng {
    fn name(&self) -> &str {
        "SearXNG"
    }

    fn search<'a>(
        &'a self,
        request: &'a SearchRequest,
    ) -> BoxFuture<'a, Result<Vec<SearchHit>, SearchError>> {
        Box::pin(async move {
            let mut hits = Vec::new();
            let mut seen = HashSet::new();
            // SearXNG has no domain filter of its own that every engine honours, so results
            // are filtered here, and further pages asked for while too few pass.
            for page in 1..=MAX_PAGES {
                let results = match self.page(&request.query, page).await {
                    Ok(results) => results,
                    // A further page refused (rate limited, say): what was found stands.
                    Err(_) if !hits.is_empty() => break,
                    Err(error) => return Err(error),
                };
                if results.is_empty() {
                    break;
                }
                for result in results {
                    if request.admits(&result.url) && seen.insert(result.url.clone()) {
                        hits.push(SearchHit {
                            url: result.url,
                            title: result.title,
                            snippet: result.content.unwrap_or_default(),
                        });
                    }
                }
                if hits.len() >= request.limit {
                    break;
                }
            }
            hits.truncate(request.limit);
            Ok(hits)
        })
    }
}
