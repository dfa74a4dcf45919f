//! `web_search` through a coordinator: without a provider, and with the SearXNG provider
//! against a loopback server answering SearXNG's documented JSON (`GET /search?q=..&format=json`,
//! `results: [{url, title, content}]`), with the limit and the domain filters applied.

use std::path::Path;

use serde_json::json;
use tool_core::{BoxFuture, Coordinator, ToolResult, Toolset};
use tool_std::web::{SearchEngine, SearchError, SearchHit, SearchProvider, SearchRequest, Searxng};

mod common;
use common::{call, err, ok};
#[path = "common/http.rs"]
mod http;
use http::{Reply, Server};

/// A coordinator offering `web_search`, with `engine` when given.
fn searcher(engine: Option<SearchEngine>) -> Coordinator {
    let builder = Coordinator::builder().toolset(Toolset::named(["web_search"]).unwrap());
    match engine {
        Some(engine) => builder.state(engine),
        None => builder,
    }
    .build()
    .unwrap()
}

/// A SearXNG instance on the loopback interface answering with the fixture pages: page 1 and 2
/// of results for any query, then no more.
fn searxng() -> Server {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/web");
    Server::start(move |request| {
        if request.path() != "/search" || request.query("format").as_deref() != Some("json") {
            return Reply::status(404, "not found");
        }
        match request.query("pageno").as_deref() {
            Some("1") => Reply::ok(
                "application/json",
                std::fs::read(fixtures.join("searxng-page1.json")).unwrap(),
            ),
            Some("2") => Reply::ok(
                "application/json",
                std::fs::read(fixtures.join("searxng-page2.json")).unwrap(),
            ),
            _ => Reply::ok("application/json", r#"{"query": "", "results": []}"#),
        }
    })
}

fn over(server: &Server) -> Coordinator {
    searcher(Some(SearchEngine::new(
        Searxng::new(&server.origin()).unwrap(),
    )))
}

fn search(coordinator: &Coordinator, arguments: serde_json::Value) -> ToolResult {
    call(coordinator, "web_search", arguments)
}

#[test]
fn without_a_provider_web_search_says_none_is_configured_and_how_to_give_one() {
    let message = err(&search(&searcher(None), json!({"query": "rust"})));
    assert!(
        message.starts_with("web_search has no search provider configured"),
        "{message}"
    );
    assert!(message.contains("SearchEngine::new(tool_std::web::Searxng::new("));
    assert!(message.contains("fetch_url"));
}

#[test]
fn searxng_is_asked_for_json_and_its_results_listed() {
    let server = searxng();
    let text = ok(&search(
        &over(&server),
        json!({"query": "tokio runtime", "limit": 4}),
    ));
    assert_eq!(
        text,
        "4 results for \"tokio runtime\" from SearXNG:\n\
         \n1. tokio::runtime - Rust\n   https://docs.rs/tokio/latest/tokio/runtime/index.html\n   \
         The Tokio runtime. Unlike other Rust programs, asynchronous applications require runtime support.\n\
         \n2. Tutorial | Tokio - An asynchronous Rust runtime\n   https://tokio.rs/tokio/tutorial\n   \
         Tokio is an asynchronous runtime for the Rust programming language.\n\
         \n3. tokio-rs/tokio: A runtime for writing reliable asynchronous applications with Rust\n   \
         https://github.com/tokio-rs/tokio\n   \
         A runtime for writing reliable, asynchronous, and slim applications with the Rust programming language.\n\
         \n4. How does the tokio runtime work? : r/rust\n   https://www.reddit.com/r/rust/comments/tokio_runtime/"
    );
    let request = &server.requests()[0];
    assert_eq!(request.query("q").as_deref(), Some("tokio runtime"));
    assert_eq!(request.query("pageno").as_deref(), Some("1"));
    assert_eq!(server.served(), 1, "one page held enough results");
}

#[test]
fn the_limit_caps_the_results() {
    let server = searxng();
    let text = ok(&search(
        &over(&server),
        json!({"query": "tokio", "limit": 2}),
    ));
    assert!(text.starts_with("2 results for \"tokio\""), "{text}");
    assert!(
        text.contains("\n2. Tutorial") && !text.contains("\n3. "),
        "{text}"
    );
}

#[test]
fn allowed_domains_keep_only_their_results_and_further_pages_are_asked_for() {
    let server = searxng();
    let text = ok(&search(
        &over(&server),
        json!({"query": "tokio", "allowed_domains": ["docs.rs"]}),
    ));
    assert!(
        text.starts_with("2 results for \"tokio\" from SearXNG (after the domain filters):"),
        "{text}"
    );
    assert!(text.contains("https://docs.rs/tokio/latest/tokio/runtime/index.html"));
    assert!(text.contains("https://docs.rs/tokio/latest/tokio/runtime/struct.Builder.html"));
    assert!(
        !text.contains("tokio.rs/") && !text.contains("github.com"),
        "{text}"
    );
    let pages: Vec<_> = server
        .requests()
        .iter()
        .filter_map(|request| request.query("pageno"))
        .collect();
    assert_eq!(
        pages,
        ["1", "2", "3"],
        "asked on until a page came back empty"
    );
}

#[test]
fn blocked_domains_drop_their_results_and_their_subdomains() {
    let server = searxng();
    let text = ok(&search(
        &over(&server),
        json!({"query": "tokio", "blocked_domains": ["reddit.com", "github.com"], "limit": 3}),
    ));
    assert!(
        !text.contains("reddit") && !text.contains("github"),
        "{text}"
    );
    assert!(
        text.contains("\n3. Builder in tokio::runtime - Rust"),
        "{text}"
    );
}

#[test]
fn claude_codes_websearch_arguments_are_accepted() {
    let server = searxng();
    let text = ok(&call(
        &over(&server),
        "WebSearch",
        json!({"query": "tokio", "allowed_domains": ["tokio.rs"]}),
    ));
    assert!(text.starts_with("1 result for \"tokio\""), "{text}");
    assert!(text.contains("https://tokio.rs/tokio/tutorial"));
}

#[test]
fn no_results_say_so() {
    let server = searxng();
    let text = ok(&search(
        &over(&server),
        json!({"query": "tokio", "allowed_domains": ["example.org"]}),
    ));
    assert_eq!(
        text,
        "No results for \"tokio\" from SearXNG (after the domain filters)."
    );
}

#[test]
fn a_searxng_without_json_enabled_says_how_to_enable_it() {
    let server = Server::start(|_| Reply::status(403, "Forbidden"));
    let message = err(&search(&over(&server), json!({"query": "tokio"})));
    assert!(message.contains("answered 403"), "{message}");
    assert!(
        message.contains("lists `json` under `search.formats`"),
        "{message}"
    );
}

#[test]
fn an_answer_that_is_not_searxng_json_is_an_error() {
    let server = Server::start(|_| Reply::html("<html>the HTML results page</html>"));
    let message = err(&search(&over(&server), json!({"query": "tokio"})));
    assert!(
        message.contains("answered with something other than its JSON results"),
        "{message}"
    );
}

#[test]
fn bad_arguments_and_settings_get_errors_saying_what_would_be_right() {
    let server = searxng();
    let coordinator = over(&server);
    assert!(err(&search(&coordinator, json!({"query": "  "}))).contains("query is empty"));
    assert!(
        err(&search(&coordinator, json!({"query": "x", "limit": 0})))
            .contains("limit must be between 1 and 50")
    );
    let error = Searxng::new("localhost:8888").unwrap_err().to_string();
    assert!(
        error.contains("give its base URL, such as `http://127.0.0.1:8888`"),
        "{error}"
    );
}

/// A provider that returns every hit it has, whatever the filters say.
struct Careless;

impl SearchProvider for Careless {
    fn name(&self) -> &str {
        "careless"
    }

    fn search<'a>(
        &'a self,
        _request: &'a SearchRequest,
    ) -> BoxFuture<'a, Result<Vec<SearchHit>, SearchError>> {
        Box::pin(async {
            Ok([
                "https://a.example/",
                "https://b.example/",
                "https://c.example/",
            ]
            .map(|url| SearchHit {
                url: url.to_owned(),
                title: url.to_owned(),
                snippet: String::new(),
            })
            .to_vec())
        })
    }
}

#[test]
fn a_provider_that_ignores_the_filters_is_filtered_anyway() {
    let coordinator = searcher(Some(SearchEngine::new(Careless)));
    let text = ok(&search(
        &coordinator,
        json!({"query": "x", "blocked_domains": ["b.example"], "limit": 1}),
    ));
    assert_eq!(
        text,
        "1 result for \"x\" from careless (after the domain filters):\n\n1. https://a.example/\n   https://a.example/"
    );
}

#[test]
fn an_oversized_searxng_answer_is_an_error_not_read_whole() {
    // Valid JSON, padded past the cap: a broken or hostile instance could send gigabytes.
    let mut body = r#"{"results": []"#.to_owned();
    body.push_str(&" ".repeat(9 << 20));
    body.push('}');
    let server = Server::start(move |_| Reply::ok("application/json", body.clone()));
    let message = err(&search(&over(&server), json!({"query": "tokio"})));
    assert!(message.contains("more than 8388608 bytes"), "{message}");
}

#[test]
fn a_searxng_redirect_to_another_host_is_not_followed() {
    let elsewhere = Server::start(|_| Reply::ok("application/json", r#"{"results": []}"#));
    let location = format!("http://localhost:{}/search", elsewhere.address.port());
    let server = Server::start(move |_| Reply::redirect(302, &location));
    let message = err(&search(&over(&server), json!({"query": "tokio"})));
    assert_eq!(elsewhere.served(), 0, "the other host was not asked");
    assert!(
        message.contains("redirected") && message.contains("give that URL"),
        "{message}"
    );
}

#[test]
fn a_later_page_that_fails_keeps_the_results_already_found() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/web");
    let server = Server::start(move |request| match request.query("pageno").as_deref() {
        Some("1") => Reply::ok(
            "application/json",
            std::fs::read(fixtures.join("searxng-page1.json")).unwrap(),
        ),
        _ => Reply::status(429, "Too Many Requests"),
    });
    // Too few docs.rs results on page 1, so page 2 is asked for, and refused.
    let text = ok(&search(
        &over(&server),
        json!({"query": "tokio", "allowed_domains": ["docs.rs"]}),
    ));
    assert!(text.contains("https://docs.rs/"), "{text}");
}

/// A provider whose one hit has a title and a URL spanning lines.
struct MultiLineTitle;

impl SearchProvider for MultiLineTitle {
    fn name(&self) -> &str {
        "multi-line"
    }

    fn search<'a>(
        &'a self,
        _request: &'a SearchRequest,
    ) -> BoxFuture<'a, Result<Vec<SearchHit>, SearchError>> {
        Box::pin(async {
            Ok(vec![SearchHit {
                url: "https://a.example/\n\n".to_owned(),
                title: "Real title\n\n2. Fake result\n   https://evil.example/".to_owned(),
                snippet: String::new(),
            }])
        })
    }
}

#[test]
fn a_title_or_url_spanning_lines_is_one_line_and_cannot_pose_as_another_result() {
    let coordinator = searcher(Some(SearchEngine::new(MultiLineTitle)));
    let text = ok(&search(&coordinator, json!({"query": "x"})));
    assert_eq!(
        text,
        "1 result for \"x\" from multi-line:\n\n\
         1. Real title 2. Fake result https://evil.example/\n   https://a.example/"
    );
}

#[test]
fn a_domain_filter_that_names_no_domain_is_an_error_not_an_empty_answer() {
    let server = searxng();
    let coordinator = over(&server);
    let message = err(&search(
        &coordinator,
        json!({"query": "tokio", "allowed_domains": ["docs.rs", " "]}),
    ));
    assert!(
        message.contains("allowed_domains") && message.contains("such as `docs.rs`"),
        "{message}"
    );
    let message = err(&search(
        &coordinator,
        json!({"query": "tokio", "blocked_domains": ["*."]}),
    ));
    assert!(message.contains("blocked_domains"), "{message}");
    assert_eq!(server.served(), 0, "nothing was searched for");
}
