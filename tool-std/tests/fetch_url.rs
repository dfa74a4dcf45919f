//! `fetch_url` through a coordinator: every spelling of a private address refused, a loopback
//! server reached only when configured, redirects, the size and time caps, the cache, content
//! types and charsets, and real pages converted to markdown (golden files).

use std::net::IpAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::json;
use tool_core::context::CancellationToken;
use tool_core::policy::PolicyBuilder;
use tool_core::{BoxFuture, Coordinator, ToolError, ToolResult, Toolset};
use tool_std::web::{HostResolver, WebConfig};

mod common;
use common::{call, err, ok};
#[path = "common/http.rs"]
mod http;
use http::{Reply, Server};

/// A coordinator offering `fetch_url` with `config`.
fn fetcher(config: WebConfig) -> Coordinator {
    Coordinator::builder()
        .toolset(Toolset::named(["fetch_url"]).unwrap())
        .state(config)
        .build()
        .unwrap()
}

/// The configuration that lets the tests reach their loopback server.
fn loopback() -> WebConfig {
    WebConfig::default().allow_range("127.0.0.0/8").unwrap()
}

fn fetch(coordinator: &Coordinator, arguments: serde_json::Value) -> ToolResult {
    call(coordinator, "fetch_url", arguments)
}

/// The content of a successful fetch: what follows the header's blank line.
fn content(result: &ToolResult) -> String {
    let text = ok(result);
    text.split_once("\n\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default()
}

/// Every name resolves to these addresses.
struct FixedResolver(Vec<IpAddr>);

impl HostResolver for FixedResolver {
    fn lookup<'a>(&'a self, _host: &'a str) -> BoxFuture<'a, std::io::Result<Vec<IpAddr>>> {
        Box::pin(async move { Ok(self.0.clone()) })
    }
}

#[test]
fn every_spelling_of_a_private_address_is_refused() {
    let coordinator = fetcher(WebConfig::default());
    for (url, range) in [
        ("http://127.0.0.1/", "127.0.0.1 (loopback)"),
        ("http://2130706433/", "127.0.0.1 (loopback)"),
        ("http://0x7f.1/", "127.0.0.1 (loopback)"),
        ("http://0177.0.0.1/", "127.0.0.1 (loopback)"),
        ("http://127.1/", "127.0.0.1 (loopback)"),
        ("http://[::1]/", "::1 (loopback)"),
        (
            "http://[::ffff:127.0.0.1]/",
            "::ffff:127.0.0.1 (loopback (IPv4 127.0.0.1 inside IPv6))",
        ),
        (
            "http://169.254.169.254/latest/meta-data",
            "169.254.169.254 (cloud metadata service)",
        ),
        ("http://10.0.0.1/", "10.0.0.1 (private network)"),
        ("http://192.168.1.1/", "192.168.1.1 (private network)"),
        ("http://[fd00::1]/", "fd00::1 (unique-local)"),
        ("http://[fe80::1]/", "fe80::1 (link-local)"),
        ("http://0.0.0.0/", "0.0.0.0 (unspecified"),
    ] {
        let message = err(&fetch(&coordinator, json!({"url": url})));
        assert!(
            message.contains("refused to fetch") && message.contains(range),
            "{url}: {message}"
        );
        assert!(
            message.contains("allow_private_addresses"),
            "says how to allow: {message}"
        );
    }
}

#[test]
fn a_name_that_resolves_to_loopback_is_refused() {
    let coordinator = fetcher(WebConfig::default());
    let message = err(&fetch(&coordinator, json!({"url": "http://localhost/"})));
    assert!(
        message.contains("`localhost`: it resolves to") && message.contains("(loopback)"),
        "{message}"
    );
}

#[test]
fn a_name_with_one_private_address_among_public_ones_is_refused() {
    let resolver = FixedResolver(vec![
        "93.184.216.34".parse().unwrap(),
        "10.1.2.3".parse().unwrap(),
    ]);
    let coordinator = fetcher(WebConfig::default().resolver(resolver));
    let message = err(&fetch(
        &coordinator,
        json!({"url": "https://rebind.example/"}),
    ));
    assert!(
        message.contains("`rebind.example`: it resolves to 10.1.2.3 (private network)"),
        "{message}"
    );
}

/// Resolves every name to 127.0.0.1 until told to rebind, then to 10.0.0.1: DNS an attacker
/// controls, changing its answer between one connection and the next.
#[derive(Clone, Default)]
struct RebindingResolver(Arc<AtomicBool>);

impl HostResolver for RebindingResolver {
    fn lookup<'a>(&'a self, _host: &'a str) -> BoxFuture<'a, std::io::Result<Vec<IpAddr>>> {
        let address = if self.0.load(Ordering::SeqCst) {
            "10.0.0.1"
        } else {
            "127.0.0.1"
        };
        Box::pin(async move { Ok(vec![address.parse().unwrap()]) })
    }
}

#[test]
fn a_name_that_rebinds_to_a_refused_address_is_refused_on_the_redirect() {
    let resolver = RebindingResolver::default();
    let rebind = Arc::clone(&resolver.0);
    let server = Server::start(move |request| {
        if request.path() == "/first" {
            // The page is served from 127.0.0.1; from now on the name means 10.0.0.1.
            rebind.store(true, Ordering::SeqCst);
            Reply::redirect(302, "/second")
        } else {
            Reply::html("<p>reached through a rebound name</p>")
        }
    });
    let coordinator = fetcher(loopback().resolver(resolver));
    let url = format!("http://rebind.test:{}/first", server.address.port());
    let message = err(&fetch(&coordinator, json!({"url": url})));
    assert!(
        message.contains("`rebind.test`: it resolves to 10.0.0.1 (private network)"),
        "{message}"
    );
    assert_eq!(server.served(), 1, "the second request was never sent");
}

#[test]
fn a_name_resolving_to_an_allowed_private_range_keeps_plain_http() {
    let server = Server::start(|_| Reply::ok("text/plain", "on the intranet"));
    let coordinator = fetcher(loopback().resolver(RebindingResolver::default()));
    let url = format!("http://wiki.intranet.test:{}/", server.address.port());
    assert_eq!(
        content(&fetch(&coordinator, json!({"url": url}))),
        "on the intranet"
    );
}

/// Knows no name.
struct NoSuchHost;

impl HostResolver for NoSuchHost {
    fn lookup<'a>(&'a self, host: &'a str) -> BoxFuture<'a, std::io::Result<Vec<IpAddr>>> {
        Box::pin(async move {
            Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{host}: name does not resolve"),
            ))
        })
    }
}

#[test]
fn a_name_that_does_not_resolve_is_an_error_saying_so() {
    let coordinator = fetcher(WebConfig::default().resolver(NoSuchHost));
    let message = err(&fetch(
        &coordinator,
        json!({"url": "https://no-such-host.test/"}),
    ));
    assert!(
        message.contains("could not resolve `no-such-host.test`")
            && message.contains("check the host name"),
        "{message}"
    );
}

#[test]
fn a_server_that_is_not_there_is_an_error_naming_the_url() {
    // A port that was free a moment ago: nothing listens on it now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/");
    let message = err(&fetch(&fetcher(loopback()), json!({"url": url})));
    assert!(
        message.starts_with(&format!("could not fetch `{url}`")),
        "{message}"
    );
}

#[test]
fn a_loopback_server_is_reached_only_when_configured() {
    let server = Server::start(|_| Reply::html("<h1>Hello</h1><p>from loopback</p>"));
    let refused = fetcher(WebConfig::default());
    assert!(err(&fetch(&refused, json!({"url": server.url("/")}))).contains("refused"));
    assert_eq!(server.served(), 0, "nothing was sent to a refused address");

    for config in [
        loopback(),
        WebConfig::default().allow_private_addresses(true),
        WebConfig::default().allow_host("127.0.0.1"),
    ] {
        let allowed = fetcher(config);
        let result = fetch(&allowed, json!({"url": server.url("/")}));
        assert_eq!(content(&result), "# Hello\n\nfrom loopback");
    }
}

#[test]
fn an_allowed_name_keeps_plain_http_and_is_fetched() {
    let server = Server::start(|_| Reply::ok("text/plain", "plain"));
    let coordinator = fetcher(WebConfig::default().allow_host("localhost"));
    let url = format!("http://localhost:{}/note.txt", server.address.port());
    let text = ok(&fetch(&coordinator, json!({"url": url})));
    assert!(text.starts_with(&format!("URL: {url}\n")), "{text}");
    assert!(text.ends_with("\n\nplain"), "{text}");
}

#[test]
fn the_request_asks_for_markdown_first_and_names_its_agent() {
    let server = Server::start(|_| Reply::ok("text/markdown", "# Already markdown"));
    let coordinator = fetcher(loopback().user_agent("my-agent/2"));
    assert_eq!(
        content(&fetch(&coordinator, json!({"url": server.url("/")}))),
        "# Already markdown"
    );
    let request = &server.requests()[0];
    assert!(
        request
            .header("accept")
            .unwrap()
            .starts_with("text/markdown,")
    );
    assert_eq!(request.header("user-agent"), Some("my-agent/2"));
}

#[test]
fn the_result_says_url_status_type_bytes_and_cache() {
    let server = Server::start(|_| Reply::ok("text/plain; charset=utf-8", "twelve bytes"));
    let coordinator = fetcher(loopback());
    assert_eq!(
        ok(&fetch(&coordinator, json!({"url": server.url("/a.txt")}))),
        format!(
            "URL: {}\nStatus: 200 OK\nContent-Type: text/plain; charset=utf-8\nBytes: 12\n\
             From cache: no\n\ntwelve bytes",
            server.url("/a.txt")
        )
    );
}

#[test]
fn a_redirect_to_another_host_is_reported_not_followed() {
    let elsewhere = Server::start(|_| Reply::html("<p>elsewhere</p>"));
    let target = format!("http://localhost:{}/landing", elsewhere.address.port());
    let location = target.clone();
    let server = Server::start(move |_| Reply::redirect(302, &location));
    let coordinator = fetcher(loopback().allow_host("localhost"));
    let text = ok(&fetch(&coordinator, json!({"url": server.url("/go")})));
    assert!(
        text.contains(&format!("redirected (302 Found) to another host: {target}")),
        "{text}"
    );
    assert!(text.contains(&format!("call fetch_url again with url \"{target}\"")));
    assert_eq!(elsewhere.served(), 0, "the other host was not contacted");
}

#[test]
fn a_redirect_to_another_scheme_is_an_error_not_an_invitation() {
    for location in [
        "file:///etc/passwd",
        "data:text/plain,hello",
        "ftp://ftp.example.com/file",
    ] {
        let target = location.to_owned();
        let server = Server::start(move |_| Reply::redirect(302, &target));
        let coordinator = fetcher(loopback());
        let message = err(&fetch(&coordinator, json!({"url": server.url("/go")})));
        assert!(
            message.contains(&format!("redirected (302 Found) to `{location}`"))
                && message.contains("fetch_url follows `http://` and `https://` only"),
            "{location}: {message}"
        );
    }
}

#[test]
fn a_redirect_on_the_same_host_is_followed() {
    let server = Server::start(|request| match request.path() {
        "/old" => Reply::redirect(301, "/middle"),
        "/middle" => Reply::redirect(307, "new?page=2"),
        _ => Reply::html(format!("<p>at {}</p>", request.target)),
    });
    let coordinator = fetcher(loopback());
    let text = ok(&fetch(&coordinator, json!({"url": server.url("/old")})));
    assert!(
        text.starts_with(&format!("URL: {}\n", server.url("/new?page=2"))),
        "{text}"
    );
    assert!(text.ends_with("at /new?page=2"), "{text}");
    assert_eq!(server.served(), 3);
}

#[test]
fn a_redirect_loop_stops_after_five_hops() {
    let server = Server::start(|_| Reply::redirect(302, "/again"));
    let coordinator = fetcher(loopback());
    let message = err(&fetch(&coordinator, json!({"url": server.url("/again")})));
    assert!(
        message.contains("redirected more than 5 times"),
        "{message}"
    );
    assert_eq!(server.served(), 6);
}

#[test]
fn a_body_past_max_bytes_is_cut_and_the_reply_says_so() {
    let server = Server::start(|_| Reply::ok("text/plain", "x".repeat(100_000)));
    let coordinator = fetcher(loopback());
    let text = ok(&fetch(
        &coordinator,
        json!({"url": server.url("/big"), "max_bytes": 1000}),
    ));
    assert!(
        text.contains("Bytes: 1000 (cut at max_bytes = 1000: the rest of the page was not read)"),
        "{text}"
    );
    assert_eq!(
        content(&fetch(
            &coordinator,
            json!({"url": server.url("/big"), "max_bytes": 1000})
        ))
        .len(),
        1000
    );

    // The configuration's cap bounds what a call may ask for.
    let capped = fetcher(loopback().max_bytes(500));
    let text = ok(&fetch(
        &capped,
        json!({"url": server.url("/big"), "max_bytes": 1_000_000}),
    ));
    assert!(
        text.contains("Bytes: 500 (cut at the configured cap of 500 bytes"),
        "{text}"
    );
}

#[test]
fn a_server_slower_than_the_timeout_gives_a_timeout_error() {
    let server = Server::start(|_| Reply::html("<p>late</p>").after(Duration::from_secs(5)));
    let coordinator = fetcher(loopback().timeout(Duration::from_millis(200)));
    let message = err(&fetch(&coordinator, json!({"url": server.url("/slow")})));
    assert!(
        message.contains("gave no complete answer within 0.2 s"),
        "{message}"
    );
}

/// Never answers.
struct HangingResolver;

impl HostResolver for HangingResolver {
    fn lookup<'a>(&'a self, _host: &'a str) -> BoxFuture<'a, std::io::Result<Vec<IpAddr>>> {
        Box::pin(std::future::pending())
    }
}

#[test]
fn a_lookup_that_never_answers_is_bounded_by_the_timeout() {
    // With a private range allowed, deciding whether `http` stays `http` looks the name up.
    let coordinator = fetcher(
        loopback()
            .resolver(HangingResolver)
            .timeout(Duration::from_millis(200)),
    );
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let result = fetch(&coordinator, json!({"url": "http://wiki.intranet.test/"}));
        let _ = done.send(err(&result));
    });
    let message = finished
        .recv_timeout(Duration::from_secs(5))
        .expect("the fetch ends within its timeout, however long the lookup takes");
    assert!(
        message.contains("gave no complete answer within 0.2 s"),
        "{message}"
    );
}

#[test]
fn a_cancelled_fetch_stops_at_once() {
    let server = Server::start(|_| Reply::html("<p>late</p>").after(Duration::from_secs(5)));
    let stop = CancellationToken::new();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["fetch_url"]).unwrap())
        .state(loopback())
        .cancellation(stop.clone())
        .build()
        .unwrap();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        stop.cancel();
    });
    let result = fetch(&coordinator, json!({"url": server.url("/slow")}));
    canceller.join().unwrap();
    assert!(
        matches!(result.error(), Some(ToolError::Cancelled)),
        "{}",
        result.text()
    );
}

#[test]
fn a_second_fetch_within_the_ttl_comes_from_the_cache() {
    let server = Server::start(|_| Reply::html("<p>cached</p>"));
    let coordinator = fetcher(loopback());
    let url = server.url("/page");
    assert!(ok(&fetch(&coordinator, json!({"url": url}))).contains("From cache: no"));
    let again = ok(&fetch(&coordinator, json!({"url": url})));
    assert!(
        again.contains("From cache: yes (fetched 0 s ago)"),
        "{again}"
    );
    assert!(again.ends_with("\n\ncached"));
    assert_eq!(server.served(), 1);

    // Another format is another entry.
    assert!(
        ok(&fetch(&coordinator, json!({"url": url, "format": "raw"}))).contains("From cache: no")
    );
    assert_eq!(server.served(), 2);
}

#[test]
fn a_zero_ttl_turns_the_cache_off_and_each_session_has_its_own() {
    let server = Server::start(|_| Reply::html("<p>fresh</p>"));
    let url = server.url("/page");
    let uncached = fetcher(loopback().cache_ttl(Duration::ZERO));
    ok(&fetch(&uncached, json!({"url": url})));
    assert!(ok(&fetch(&uncached, json!({"url": url}))).contains("From cache: no"));
    assert_eq!(server.served(), 2);

    ok(&fetch(&fetcher(loopback()), json!({"url": url})));
    assert!(ok(&fetch(&fetcher(loopback()), json!({"url": url}))).contains("From cache: no"));
    assert_eq!(server.served(), 4);
}

#[test]
fn the_three_formats() {
    let page = "<html><head><title>T</title><style>p{}</style></head>\
                <body><h2>Part</h2><p>One <em>two</em> <a href=\"/x\">three</a></p></body></html>";
    let server = Server::start(move |_| Reply::html(page));
    let coordinator = fetcher(loopback());
    let url = server.url("/doc/");
    assert_eq!(
        content(&fetch(&coordinator, json!({"url": url}))),
        format!("## Part\n\nOne *two* [three]({})", server.url("/x"))
    );
    assert_eq!(
        content(&fetch(&coordinator, json!({"url": url, "format": "text"}))),
        "Part\nOne two three"
    );
    assert_eq!(
        content(&fetch(&coordinator, json!({"url": url, "format": "raw"}))),
        page
    );
}

#[test]
fn binary_content_is_refused_with_its_type_named() {
    let server = Server::start(|_| Reply::ok("image/png", b"\x89PNG\r\n\x1a\n\0\0".to_vec()));
    let coordinator = fetcher(loopback());
    let message = err(&fetch(
        &coordinator,
        json!({"url": server.url("/logo.png")}),
    ));
    assert!(
        message.contains("is image/png (10 bytes read), not text"),
        "{message}"
    );
}

#[test]
fn a_body_compressed_unasked_is_refused_not_shown_as_garbage() {
    let server = Server::start(|request| {
        assert_eq!(request.header("accept-encoding"), None, "none is asked for");
        let mut reply = Reply::html(b"\x1f\x8b\x08\0\0\0\0\0".to_vec());
        reply
            .headers
            .push(("Content-Encoding".to_owned(), "gzip".to_owned()));
        reply
    });
    let coordinator = fetcher(loopback());
    let message = err(&fetch(&coordinator, json!({"url": server.url("/")})));
    assert!(message.contains("a `gzip`-compressed body"), "{message}");
}

#[test]
fn other_text_types_are_returned_as_they_are() {
    let server = Server::start(|_| Reply::ok("application/json", r#"{"a": [1, 2]}"#));
    let coordinator = fetcher(loopback());
    assert_eq!(
        content(&fetch(
            &coordinator,
            json!({"url": server.url("/data.json")})
        )),
        r#"{"a": [1, 2]}"#
    );
}

#[test]
fn legacy_charsets_are_decoded() {
    let server = Server::start(|request| {
        match request.path() {
        "/header" => Reply::ok("text/plain; charset=iso-8859-1", b"caf\xe9".to_vec()),
        _ => Reply::ok(
            "text/html",
            b"<html><head><meta charset=\"windows-1251\"></head><body><p>\xcf\xf0\xe8\xe2\xe5\xf2</p></body></html>"
                .to_vec(),
        ),
    }
    });
    let coordinator = fetcher(loopback());
    assert_eq!(
        content(&fetch(&coordinator, json!({"url": server.url("/header")}))),
        "café"
    );
    assert_eq!(
        content(&fetch(&coordinator, json!({"url": server.url("/meta")}))),
        "Привет"
    );
}

#[test]
fn an_error_status_is_an_error_showing_the_page() {
    let server = Server::start(|_| Reply::status(404, "no such page"));
    let coordinator = fetcher(loopback());
    let message = err(&fetch(&coordinator, json!({"url": server.url("/missing")})));
    assert_eq!(
        message,
        format!(
            "`{}` answered 404 Not Found\n\nno such page",
            server.url("/missing")
        )
    );
}

#[test]
fn claude_codes_webfetch_arguments_are_accepted_and_the_prompt_noted() {
    let server = Server::start(|_| Reply::html("<p>the answer is 42</p>"));
    let coordinator = fetcher(loopback());
    let text = ok(&call(
        &coordinator,
        "WebFetch",
        json!({"url": server.url("/"), "prompt": "What is the answer?"}),
    ));
    assert!(
        text.contains("Note: `prompt` is not applied by fetch_url; the whole page follows. Read it for: What is the answer?"),
        "{text}"
    );
    assert!(text.ends_with("the answer is 42"));
}

#[test]
fn bad_urls_and_arguments_get_errors_saying_what_would_be_right() {
    let coordinator = fetcher(WebConfig::default());
    let message = err(&fetch(&coordinator, json!({"url": "example.com/page"})));
    assert!(message.contains("send an absolute URL"), "{message}");
    let message = err(&fetch(
        &coordinator,
        json!({"url": "ftp://example.com/file"}),
    ));
    assert!(
        message.contains("fetches `http://` and `https://` URLs only"),
        "{message}"
    );
    let message = err(&fetch(
        &coordinator,
        json!({"url": "https://example.com/", "max_bytes": 0}),
    ));
    assert!(
        message.contains("max_bytes must be at least 1"),
        "{message}"
    );
    let message = err(&fetch(
        &coordinator,
        json!({"url": "https://example.com/", "format": "pdf"}),
    ));
    assert!(message.contains("markdown"), "{message}");
}

#[test]
fn a_domain_rule_of_the_policy_applies_to_fetch_url() {
    let server = Server::start(|_| Reply::html("<p>secret</p>"));
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["fetch_url"]).unwrap())
        .state(loopback())
        .policy(PolicyBuilder::default().deny("WebFetch(domain:127.0.0.1)"))
        .build()
        .unwrap();
    let message = err(&fetch(&coordinator, json!({"url": server.url("/")})));
    assert!(message.contains("denied"), "{message}");
    assert_eq!(server.served(), 0);
}

/// Real pages converted to markdown (and one to text), compared with golden files reviewed by
/// eye (headings, links, code blocks, tables). Set `UPDATE_GOLDEN=1` to rewrite them after a
/// deliberate change. The pages, as found on the machine these tests were written on:
/// - `rust-book-data-types.html`: the Rust book, chapter 3.2, from the 1.95.0 toolchain's docs
///   (`~/.rustup/toolchains/1.95.0-*/share/doc/rust/html/book/ch03-02-data-types.html`).
/// - `std-collections.html`: rustdoc's page for `std::collections` from the same docs
///   (`.../html/std/collections/index.html`), with its performance tables.
/// - `cargo-pkgid-spec.html`: the Cargo book's "Package ID Specifications", from the same
///   docs (`.../html/cargo/reference/pkgid-spec.html`), with its tables of examples.
/// - `hacker-news.html`: a saved Hacker News front page (table layout), the example page of the
///   htmd crate (`~/.cargo/registry/src/*/htmd-0.5.6/examples/page-to-markdown/html/`).
#[test]
fn real_pages_convert_to_their_golden_markdown_and_text() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/web");
    let pages = fixtures.clone();
    let server = Server::start(move |request| {
        let name = request.path().trim_start_matches('/');
        Reply::html(std::fs::read(pages.join(name)).unwrap())
    });
    let coordinator = fetcher(loopback());
    let mut changed = Vec::new();
    for (page, format, extension) in [
        ("rust-book-data-types", "markdown", "md"),
        ("std-collections", "markdown", "md"),
        ("cargo-pkgid-spec", "markdown", "md"),
        ("hacker-news", "markdown", "md"),
        ("rust-book-data-types", "text", "txt"),
    ] {
        let url = server.url(&format!("/{page}.html"));
        let result = fetch(&coordinator, json!({"url": url, "format": format}));
        // Links are absolute, against the server's port: the golden file has a fixed origin.
        let rendered = content(&result).replace(&server.origin(), "http://fixture.test");
        let golden = fixtures.join(format!("{page}.{extension}"));
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&golden, format!("{rendered}\n")).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if expected.trim_end() != rendered {
            changed.push(golden.file_name().unwrap().to_owned());
        }
    }
    assert!(
        changed.is_empty(),
        "the rendering differs from the golden files {changed:?}; review the difference and \
         run with UPDATE_GOLDEN=1 if it is right"
    );
}

/// A server on the loopback interface that answers every connection by running `answer` on
/// its stream, after reading the request head.
fn raw_server(answer: fn(&mut std::net::TcpStream)) -> std::net::SocketAddr {
    use std::io::BufRead;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = std::io::BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|read| read > 2) {
                    line.clear();
                }
                answer(&mut stream);
            });
        }
    });
    address
}

#[test]
fn a_body_without_content_length_is_cut_at_max_bytes() {
    let address = raw_server(|stream| {
        use std::io::Write;
        let _ = stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n");
        // Far more than the cap, with no length said: the client must stop reading by itself.
        for _ in 0..1_000 {
            if stream.write_all(&[b'x'; 16 * 1024]).is_err() {
                return;
            }
        }
    });
    let coordinator = fetcher(loopback().max_bytes(1000));
    let text = ok(&fetch(
        &coordinator,
        json!({"url": format!("http://{address}/")}),
    ));
    assert!(
        text.contains("Bytes: 1000 (cut at the configured cap of 1000 bytes"),
        "{text}"
    );
}

#[test]
fn a_server_trickling_its_body_is_stopped_by_the_timeout() {
    let address = raw_server(|stream| {
        use std::io::Write;
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n",
        );
        // A byte every 50 ms: each read succeeds, the whole never arrives in time.
        for _ in 0..100_000 {
            if stream
                .write_all(b"x")
                .and_then(|()| stream.flush())
                .is_err()
            {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    let coordinator = fetcher(loopback().timeout(Duration::from_millis(500)));
    let started = std::time::Instant::now();
    let message = err(&fetch(
        &coordinator,
        json!({"url": format!("http://{address}/")}),
    ));
    assert!(
        message.contains("gave no complete answer within 0.5 s"),
        "{message}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn a_response_head_of_megabytes_is_an_error_not_read_whole() {
    let address = raw_server(|stream| {
        use std::io::Write;
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n");
        for number in 0..100_000 {
            let header = format!("X-Filler-{number}: {}\r\n", "y".repeat(64));
            if stream.write_all(header.as_bytes()).is_err() {
                return;
            }
        }
        let _ = stream.write_all(b"Content-Length: 2\r\n\r\nhi");
    });
    let coordinator = fetcher(loopback());
    let message = err(&fetch(
        &coordinator,
        json!({"url": format!("http://{address}/")}),
    ));
    assert!(message.contains("could not fetch"), "{message}");
}
