//! The session's page cache: rendered pages by URL, format and byte cap, served while younger
//! than the configured TTL, the oldest dropped past a size cap. One per coordinator, made on
//! first use (`ToolContext::session_state`), with the client the session fetches with.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use reqwest::Client;
use url::Url;

use super::client::FetchError;
use super::convert::FetchFormat;

/// Rendered pages kept at most, in bytes of text: past it the oldest go.
const MAX_CACHED_BYTES: usize = 64 << 20;

/// A page as `fetch_url` answers with it.
#[derive(Debug)]
pub(crate) struct RenderedPage {
    pub(crate) url: Url,
    pub(crate) status: reqwest::StatusCode,
    pub(crate) content_type: Option<String>,
    /// Bytes of the body read.
    pub(crate) bytes: usize,
    pub(crate) cut: bool,
    pub(crate) content: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct CacheKey {
    pub(crate) url: String,
    pub(crate) format: FetchFormat,
    pub(crate) max_bytes: u64,
}

struct Entry {
    page: Arc<RenderedPage>,
    stored: Instant,
}

/// What one coordinator's web tools keep: the client (built on first use, from the
/// configuration the coordinator has) and the page cache.
#[derive(Default)]
pub(crate) struct WebSession {
    client: OnceLock<Client>,
    pages: Mutex<HashMap<CacheKey, Entry>>,
}

impl WebSession {
    /// The session's client, built by `build` the first time.
    pub(crate) fn client(
        &self,
        build: impl FnOnce() -> Result<Client, FetchError>,
    ) -> Result<Client, FetchError> {
        if let Some(client) = self.client.get() {
            return Ok(client.clone());
        }
        let client = build()?;
        Ok(self.client.get_or_init(|| client).clone())
    }

    /// The page cached under `key` if it is younger than `ttl`, and its age.
    pub(crate) fn cached(
        &self,
        key: &CacheKey,
        ttl: Duration,
    ) -> Option<(Arc<RenderedPage>, Duration)> {
        let pages = self.pages.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = pages.get(key)?;
        let age = entry.stored.elapsed();
        (age < ttl).then(|| (Arc::clone(&entry.page), age))
    }

    /// Keeps `page` under `key`, dropping expired pages, then the oldest past the size cap.
    pub(crate) fn store(&self, key: CacheKey, page: Arc<RenderedPage>, ttl: Duration) {
        if ttl.is_zero() {
            return;
        }
        let mut pages = self.pages.lock().unwrap_or_else(PoisonError::into_inner);
        pages.retain(|_, entry| entry.stored.elapsed() < ttl);
        pages.insert(
            key,
            Entry {
                page,
                stored: Instant::now(),
            },
        );
        let mut total: usize = pages.values().map(|entry| entry.page.content.len()).sum();
        while total > MAX_CACHED_BYTES && pages.len() > 1 {
            let Some(oldest) = pages
                .iter()
                .min_by_key(|(_, entry)| entry.stored)
                .map(|(key, _)| key.clone())
            else {
                break;
            };
            if let Some(entry) = pages.remove(&oldest) {
                total -= entry.page.content.len();
            }
        }
    }
}
