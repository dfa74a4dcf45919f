//! [`WebConfig`]: what the web tools may reach and how much they take, given to the coordinator
//! as state; the defaults when it is absent.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use ipnet::IpNet;

use super::address::{AddressRules, HostResolver, SystemResolver, host_name, normalize_host};

/// What `fetch_url` may reach and how much it takes. Optional: give it to the coordinator with
/// `.state(config)`; without it every default below holds.
///
/// | setting | default |
/// |---|---|
/// | private, loopback, link-local, metadata ... addresses | refused |
/// | hosts and ranges allowed anyway | none |
/// | [`max_bytes`](WebConfig::max_bytes) of a response | 10 MiB |
/// | [`timeout`](WebConfig::timeout) of a fetch | 30 s |
/// | [`user_agent`](WebConfig::user_agent) | `toolkit-fetch/<version>` |
/// | [`cache_ttl`](WebConfig::cache_ttl) | 15 minutes |
///
/// A host the configuration lets through to a private address keeps plain `http`; every other
/// `http://` URL is fetched as `https://`.
///
/// ```
/// use std::time::Duration;
/// use tool_core::Coordinator;
/// use tool_std::web::WebConfig;
///
/// let config = WebConfig::default()
///     .allow_host("wiki.intranet.example")
///     .allow_range("10.8.0.0/16")
///     .unwrap()
///     .max_bytes(2 << 20)
///     .timeout(Duration::from_secs(10));
/// assert!(WebConfig::default().allow_range("10.8.0.0").is_err()); // no prefix length
///
/// let coordinator = Coordinator::builder().state(config).build().unwrap();
/// ```
#[derive(Clone)]
pub struct WebConfig {
    pub(crate) rules: AddressRules,
    pub(crate) max_bytes: u64,
    pub(crate) timeout: Duration,
    pub(crate) user_agent: String,
    pub(crate) cache_ttl: Duration,
    pub(crate) resolver: Arc<dyn HostResolver>,
}

/// A [`WebConfig`] setting that could not be taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// `allow_range` was given something other than CIDR notation.
    #[error(
        "`{given}` is not an address range; write it in CIDR notation, such as `10.8.0.0/16` or `fd12:3456::/48`"
    )]
    NotARange {
        /// The text given.
        given: String,
    },
}

impl Default for WebConfig {
    fn default() -> Self {
        WebConfig {
            rules: AddressRules::default(),
            max_bytes: 10 << 20,
            timeout: Duration::from_secs(30),
            user_agent: concat!("toolkit-fetch/", env!("CARGO_PKG_VERSION")).to_owned(),
            cache_ttl: Duration::from_secs(15 * 60),
            resolver: Arc::new(SystemResolver),
        }
    }
}

impl WebConfig {
    /// Lets fetches reach every address, private ones included: for an agent working on a
    /// trusted network. Off by default.
    #[must_use]
    pub fn allow_private_addresses(mut self, allow: bool) -> Self {
        self.rules.allow_private = allow;
        self
    }

    /// Lets fetches reach `host` whatever it resolves to (`localhost`, an intranet name, or an
    /// address such as `127.0.0.1`), on any port, over plain `http` too. Given as a URL
    /// (`http://wiki.intranet:8080/`), its host is taken; a Unicode name matches its IDNA form.
    #[must_use]
    pub fn allow_host(mut self, host: impl AsRef<str>) -> Self {
        self.rules
            .hosts
            .push(normalize_host(&host_name(host.as_ref())));
        self
    }

    /// Lets fetches reach the addresses of `range`, in CIDR notation (`10.8.0.0/16`).
    ///
    /// # Errors
    /// When `range` is not CIDR notation.
    pub fn allow_range(mut self, range: &str) -> Result<Self, ConfigError> {
        let net: IpNet = range.trim().parse().map_err(|_| ConfigError::NotARange {
            given: range.to_owned(),
        })?;
        self.rules.ranges.push(net.trunc());
        Ok(self)
    }

    /// The most bytes of a response body read (at least 1); the rest is not read, and the
    /// reply says it was cut. A call's `max_bytes` can only lower it.
    #[must_use]
    pub fn max_bytes(mut self, bytes: u64) -> Self {
        self.max_bytes = bytes.max(1);
        self
    }

    /// How long a fetch (every redirect and the whole body) may take.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The `User-Agent` header sent.
    #[must_use]
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// How long a fetched page is served from the session's cache; zero turns the cache off.
    #[must_use]
    pub fn cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// Looks names up with `resolver` instead of the system's; its answers are checked like
    /// the system's.
    #[must_use]
    pub fn resolver(mut self, resolver: impl HostResolver) -> Self {
        self.resolver = Arc::new(resolver);
        self
    }
}

impl fmt::Debug for WebConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebConfig")
            .field("allow_private", &self.rules.allow_private)
            .field("allowed_hosts", &self.rules.hosts)
            .field("allowed_ranges", &self.rules.ranges)
            .field("max_bytes", &self.max_bytes)
            .field("timeout", &self.timeout)
            .field("user_agent", &self.user_agent)
            .field("cache_ttl", &self.cache_ttl)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::WebConfig;

    #[test]
    fn an_allowed_ipv6_address_matches_however_it_is_written() {
        let config = WebConfig::default()
            .allow_host("FD00:0:0::1")
            .allow_host("[fd00:0::2]:8080");
        assert!(config.rules.names_host("fd00::1"));
        assert!(config.rules.names_host("[fd00::2]"));
    }

    #[test]
    fn an_allowed_host_written_as_a_url_or_in_unicode_is_that_host() {
        let config = WebConfig::default()
            .allow_host("http://Wiki.Intranet.test:8080/start")
            .allow_host("bücher.intranet.test")
            .allow_host("[::1]");
        assert!(config.rules.names_host("wiki.intranet.test"));
        assert!(config.rules.names_host("xn--bcher-kva.intranet.test"));
        assert!(config.rules.names_host("::1"));
        assert!(!config.rules.names_host("evil-wiki.intranet.test"));
    }
}
