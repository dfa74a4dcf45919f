//! The one HTTP client set-up of the runtime's outgoing requests (MCP servers over HTTP, HTTP
//! hooks): rustls over ring with the platform's certificate verifier, as tool-std's web tools
//! use, and no redirects followed, since a redirect could carry a request and its headers
//! somewhere the configuration never named.

use std::sync::Arc;

/// A client for the runtime's requests, or why TLS or the client could not be set up.
pub(crate) fn client() -> Result<reqwest::Client, String> {
    use rustls_platform_verifier::BuilderVerifierExt;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|builder| builder.with_platform_verifier())
        .map_err(|error| format!("cannot set up TLS: {error}"))?
        .with_no_client_auth();
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|error| format!("cannot build the HTTP client: {error}"))
}
