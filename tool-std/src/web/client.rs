//! The fetching client: one `reqwest` client per session over rustls, resolving through the
//! address checks; a fetch that upgrades `http` to `https`, follows redirects on the same host
//! itself (re-checking each), reports a redirect to another host instead of following it, and
//! reads the body as a stream up to a byte cap, all within one timeout.

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{CONTENT_ENCODING, CONTENT_TYPE, LOCATION};
use reqwest::{Client, StatusCode};
use url::Url;

use super::address::{AddressRefused, CheckingResolver, ResolveError, refused_range};
use super::config::WebConfig;

/// Same-host redirects followed before giving up.
pub(crate) const MAX_REDIRECTS: usize = 5;

/// Why a fetch produced no page.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FetchError {
    #[error(transparent)]
    Refused(#[from] AddressRefused),
    #[error("`{0}` is not a web address: fetch_url fetches `http://` and `https://` URLs only")]
    Scheme(String),
    #[error("`{0}` names no host; send a URL such as `https://example.com/page`")]
    NoHost(String),
    #[error(
        "`{url}` redirected more than {MAX_REDIRECTS} times on the same host (last to `{last}`); \
         it may loop, so fetch_url stopped"
    )]
    TooManyRedirects { url: String, last: String },
    #[error(
        "`{url}` answered {status} with a redirect whose `Location` (`{location}`) is not a URL"
    )]
    BadRedirect {
        url: String,
        status: StatusCode,
        location: String,
    },
    #[error(
        "`{url}` redirected ({status}) to `{to}`, which is not a web address: fetch_url \
         follows `http://` and `https://` only"
    )]
    RedirectScheme {
        url: String,
        status: StatusCode,
        to: String,
    },
    #[error(
        "`{url}` gave no complete answer within {} s (the web configuration's timeout); try \
         again, or a smaller page",
        timeout.as_secs_f64()
    )]
    TimedOut { url: String, timeout: Duration },
    #[error("could not fetch `{url}`: {message}")]
    Transport { url: String, message: String },
    #[error("the HTTP client could not be built: {0}")]
    Client(String),
    #[error(
        "`{url}` is {content_type} ({bytes} bytes read), not text: fetch_url returns web pages \
         and other text only"
    )]
    Binary {
        url: String,
        content_type: String,
        bytes: usize,
    },
    #[error(
        "`{url}` answered with a `{encoding}`-compressed body though fetch_url asked for none; \
         it cannot be read as text"
    )]
    Encoded { url: String, encoding: String },
    #[error("`{url}` could not be rendered: {message}")]
    Render { url: String, message: String },
}

/// A response body, as far as it was read.
#[derive(Debug)]
pub(crate) struct Response {
    /// The URL that answered, after same-host redirects.
    pub(crate) url: Url,
    pub(crate) status: StatusCode,
    pub(crate) content_type: Option<String>,
    pub(crate) body: Vec<u8>,
    /// Whether the body was cut at the byte cap.
    pub(crate) cut: bool,
}

/// What a fetch found.
#[derive(Debug)]
pub(crate) enum Fetched {
    Page(Response),
    /// A redirect to another host, not followed.
    OtherHost {
        from: Url,
        status: StatusCode,
        to: Url,
    },
}

/// Builds the client a session fetches with: rustls over ring with the platform's certificate
/// verifier, the checking resolver, no proxy (a proxy would resolve names itself, past the
/// checks), no automatic redirects (each is checked here), and no automatic decompression
/// (the byte cap is on what arrives).
pub(crate) fn build_client(config: &WebConfig) -> Result<Client, FetchError> {
    let tls = tls_config().map_err(|error| FetchError::Client(error.to_string()))?;
    let resolver = CheckingResolver {
        rules: Arc::new(config.rules.clone()),
        resolver: Arc::clone(&config.resolver),
    };
    // Markdown first: a server that can answer in markdown saves the conversion.
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::ACCEPT,
        reqwest::header::HeaderValue::from_static(
            "text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.5",
        ),
    );
    Client::builder()
        .tls_backend_preconfigured(tls)
        .default_headers(headers)
        .dns_resolver(Arc::new(resolver))
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(config.user_agent.clone())
        .connect_timeout(config.timeout)
        .build()
        .map_err(|error| FetchError::Client(error.to_string()))
}

/// TLS as the web tools speak it: rustls over ring, certificates checked by the platform's
/// verifier (the system's roots). Built here rather than by reqwest so that the crypto
/// provider is ring, whichever provider the application may have installed as the default.
/// Public so that an application's own requests (to its model, say) are made the same way.
///
/// ```
/// let tls = tool_std::web::tls_config().unwrap();
/// let client = reqwest::Client::builder()
///     .tls_backend_preconfigured(tls)
///     .build()
///     .unwrap();
/// # drop(client);
/// ```
///
/// # Errors
/// When the platform's verifier cannot be set up with ring's protocol versions.
pub fn tls_config() -> Result<rustls::ClientConfig, rustls::Error> {
    use rustls_platform_verifier::BuilderVerifierExt;

    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_platform_verifier()?
        .with_no_client_auth())
}

/// The URL to fetch for `url`: `http` upgraded to `https` unless its host is one the
/// configuration lets through to a private address; other schemes and host-less URLs refused.
pub(crate) async fn upgraded(url: &Url, config: &WebConfig) -> Result<Url, FetchError> {
    let keep_http = url.scheme() == "http" && keeps_http(url, config).await;
    upgraded_unless(url, keep_http)
}

/// Whether an `http` URL stays `http`: its host is named by the configuration, or is an
/// address in a private range the configuration allows, or is a name whose every address is
/// (a server on the loopback interface or the intranet rarely speaks TLS). The name is only
/// looked up when the configuration allows some private addresses; the connection looks it
/// up again, and checks what it gets.
async fn keeps_http(url: &Url, config: &WebConfig) -> bool {
    let rules = &config.rules;
    if rules.allows_private_host(url) {
        return true;
    }
    let Some(url::Host::Domain(name)) = url.host() else {
        return false;
    };
    if !rules.allow_private && rules.ranges.is_empty() {
        return false;
    }
    match config.resolver.lookup(name).await {
        Ok(addresses) => {
            !addresses.is_empty()
                && addresses.iter().all(|&address| {
                    refused_range(address).is_some() && rules.check(name, address).is_ok()
                })
        }
        // The fetch reports the failure when it looks the name up to connect.
        Err(_) => false,
    }
}

fn upgraded_unless(url: &Url, keep_http: bool) -> Result<Url, FetchError> {
    match url.scheme() {
        "https" => {}
        "http" if keep_http => {}
        "http" => {
            let mut upgraded = url.clone();
            upgraded
                .set_scheme("https")
                .map_err(|()| FetchError::Scheme(url.to_string()))?;
            // An explicit :80 meant plain http's port; https's default takes its place.
            if upgraded.port() == Some(80) {
                let _ = upgraded.set_port(None);
            }
            return with_host(upgraded);
        }
        _ => return Err(FetchError::Scheme(url.to_string())),
    }
    with_host(url.clone())
}

fn with_host(mut url: Url) -> Result<Url, FetchError> {
    if url.host_str().is_none_or(str::is_empty) {
        return Err(FetchError::NoHost(url.to_string()));
    }
    // A fragment is never sent; without it, `page#a` and `page#b` share a cache entry.
    url.set_fragment(None);
    Ok(url)
}

/// Fetches `url` (already [`upgraded`]) by `deadline` (the configured timeout from when the
/// fetch began), reading at most `max_bytes` of the body.
pub(crate) async fn fetch(
    client: &Client,
    config: &WebConfig,
    url: Url,
    max_bytes: u64,
    deadline: tokio::time::Instant,
) -> Result<Fetched, FetchError> {
    let timeout = config.timeout;
    let started = url.to_string();
    tokio::time::timeout_at(deadline, follow(client, config, url, max_bytes))
        .await
        .unwrap_or(Err(FetchError::TimedOut {
            url: started,
            timeout,
        }))
}

async fn follow(
    client: &Client,
    config: &WebConfig,
    mut url: Url,
    max_bytes: u64,
) -> Result<Fetched, FetchError> {
    let first = url.clone();
    for _ in 0..=MAX_REDIRECTS {
        config.rules.check_url(&url)?;
        let response = client
            .get(url.clone())
            .send()
            .await
            .map_err(|error| transport(&url, &error))?;
        let status = response.status();
        if status.is_redirection()
            && let Some(location) = response.headers().get(LOCATION)
        {
            let location = String::from_utf8_lossy(location.as_bytes()).into_owned();
            let target = url.join(&location).map_err(|_| FetchError::BadRedirect {
                url: url.to_string(),
                status,
                location: location.clone(),
            })?;
            // Not reported as another host to fetch: fetch_url would refuse it.
            if !matches!(target.scheme(), "http" | "https") {
                return Err(FetchError::RedirectScheme {
                    url: url.to_string(),
                    status,
                    to: target.to_string(),
                });
            }
            if !same_host(&url, &target) {
                return Ok(Fetched::OtherHost {
                    from: url,
                    status,
                    to: target,
                });
            }
            // A same-host redirect down to http stays https unless the host is allowed.
            url = upgraded(&target, config).await?;
            continue;
        }
        // No Accept-Encoding is sent, so a body arrives as it is; one that comes compressed
        // anyway would be read as garbage text.
        if let Some(encoding) = response.headers().get(CONTENT_ENCODING)
            && !encoding.as_bytes().eq_ignore_ascii_case(b"identity")
        {
            return Err(FetchError::Encoded {
                url: url.to_string(),
                encoding: String::from_utf8_lossy(encoding.as_bytes()).into_owned(),
            });
        }
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
        let (body, cut) = read_capped(response, max_bytes, &url).await?;
        return Ok(Fetched::Page(Response {
            url,
            status,
            content_type,
            body,
            cut,
        }));
    }
    Err(FetchError::TooManyRedirects {
        url: first.to_string(),
        last: url.to_string(),
    })
}

/// Whether a redirect stays on the host it came from (the scheme may change: `http` to
/// `https` on the same host is the commonest redirect there is).
fn same_host(from: &Url, to: &Url) -> bool {
    from.host() == to.host()
}

/// Reads the body chunk by chunk, stopping at `max_bytes`; dropping the response then closes
/// the connection, so the rest is never read.
async fn read_capped(
    mut response: reqwest::Response,
    max_bytes: u64,
    url: &Url,
) -> Result<(Vec<u8>, bool), FetchError> {
    let cap = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    let expected = response
        .content_length()
        .and_then(|length| usize::try_from(length).ok())
        .unwrap_or(0);
    let mut body = Vec::with_capacity(expected.min(cap));
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| transport(url, &error))?
    {
        let room = cap - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

/// A transport error, with the address refusal or lookup failure inside it brought out.
fn transport(url: &Url, error: &reqwest::Error) -> FetchError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = source {
        if let Some(resolve) = current.downcast_ref::<ResolveError>() {
            return match resolve {
                ResolveError::Refused(refused) => FetchError::Refused(refused.clone()),
                ResolveError::Lookup { .. } => FetchError::Transport {
                    url: url.to_string(),
                    message: resolve.to_string(),
                },
            };
        }
        source = current.source();
    }
    let mut message = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(current) = cause {
        message.push_str(": ");
        message.push_str(&current.to_string());
        cause = current.source();
    }
    FetchError::Transport {
        url: url.to_string(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    fn upgraded(url: &Url, config: &WebConfig) -> Result<Url, FetchError> {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(super::upgraded(url, config))
    }

    #[test]
    fn http_is_upgraded_to_https_and_its_port_80_dropped() {
        let config = WebConfig::default();
        assert_eq!(
            upgraded(&url("http://example.com/a?b"), &config)
                .unwrap()
                .as_str(),
            "https://example.com/a?b"
        );
        assert_eq!(
            upgraded(&url("http://example.com:80/"), &config)
                .unwrap()
                .as_str(),
            "https://example.com/"
        );
        assert_eq!(
            upgraded(&url("http://example.com:8080/"), &config)
                .unwrap()
                .as_str(),
            "https://example.com:8080/"
        );
    }

    #[test]
    fn an_allowed_private_host_keeps_plain_http() {
        let config = WebConfig::default().allow_host("localhost");
        assert_eq!(
            upgraded(&url("http://localhost:8000/"), &config)
                .unwrap()
                .scheme(),
            "http"
        );
        let config = WebConfig::default().allow_private_addresses(true);
        assert_eq!(
            upgraded(&url("http://127.0.0.1:8000/"), &config)
                .unwrap()
                .scheme(),
            "http"
        );
        assert_eq!(
            upgraded(&url("http://93.184.216.34/"), &config)
                .unwrap()
                .scheme(),
            "https",
            "a public address is upgraded whatever is allowed"
        );
    }

    /// Every name resolves to these addresses.
    struct Fixed(Vec<std::net::IpAddr>);

    impl crate::web::HostResolver for Fixed {
        fn lookup<'a>(
            &'a self,
            _host: &'a str,
        ) -> tool_core::BoxFuture<'a, std::io::Result<Vec<std::net::IpAddr>>> {
            Box::pin(async move { Ok(self.0.clone()) })
        }
    }

    #[test]
    fn a_name_keeps_plain_http_only_when_all_its_addresses_are_allowed_private_ones() {
        let resolving = |addresses: &[&str]| {
            WebConfig::default()
                .allow_range("10.8.0.0/16")
                .unwrap()
                .resolver(Fixed(
                    addresses.iter().map(|a| a.parse().unwrap()).collect(),
                ))
        };
        let scheme = |config: &WebConfig| {
            upgraded(&url("http://wiki.intranet.test/"), config)
                .unwrap()
                .scheme()
                .to_owned()
        };
        assert_eq!(scheme(&resolving(&["10.8.0.5"])), "http");
        assert_eq!(scheme(&resolving(&["10.8.0.5", "10.8.0.6"])), "http");
        assert_eq!(scheme(&resolving(&["10.8.0.5", "93.184.216.34"])), "https");
        assert_eq!(scheme(&resolving(&["10.9.0.5"])), "https");
        assert_eq!(scheme(&resolving(&[])), "https");
    }

    #[test]
    fn other_schemes_are_refused() {
        let config = WebConfig::default();
        for text in [
            "ftp://example.com/",
            "file:///etc/passwd",
            "data:text/plain,hi",
        ] {
            assert!(
                matches!(upgraded(&url(text), &config), Err(FetchError::Scheme(_))),
                "{text}"
            );
        }
    }
}
