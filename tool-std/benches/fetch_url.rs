//! `fetch_url` of a 1 MB HTML page from a loopback server, through a coordinator configured to
//! allow loopback: uncached as markdown (fetch and conversion), uncached as raw (the fetch
//! alone, to tell the two costs apart), and served from the session cache; against a direct
//! `reqwest` GET of the same page, the baseline.
//!
//! Run with `cargo bench -p tool-std --bench fetch_url`. Criterion reports each side; the
//! closing lines time the sides interleaved in the same run and print their medians and
//! ratios to the baseline. The page is the Rust book's chapter 3.2 (a test fixture) repeated
//! to 1 MB inside one `<body>`: headings, paragraphs with links, code blocks and tables.

#[path = "../tests/common/http.rs"]
mod http;

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::Criterion;
use tool_core::{Coordinator, ToolCall, Toolset};
use tool_std::web::WebConfig;

const PAGE_BYTES: usize = 1 << 20;
const ROUNDS: usize = 15;

/// The fixture chapter's body, repeated to about [`PAGE_BYTES`].
fn page() -> String {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/web/rust-book-data-types.html");
    let html = std::fs::read_to_string(fixture).expect("the fixture page");
    let start = html.find("<body").expect("a body");
    let start = start + html[start..].find('>').expect("a body tag") + 1;
    let end = html.rfind("</body>").expect("a body end");
    let body = &html[start..end];
    let mut page = String::from("<!DOCTYPE html><html><head><title>1 MB</title></head><body>");
    while page.len() < PAGE_BYTES {
        page.push_str(body);
    }
    page.push_str("</body></html>");
    page
}

fn coordinator(cache_ttl: Duration) -> Coordinator {
    let config = WebConfig::default()
        .allow_range("127.0.0.0/8")
        .expect("a range")
        .cache_ttl(cache_ttl);
    Coordinator::builder()
        .toolset(Toolset::named(["fetch_url"]).expect("linked"))
        .state(config)
        .build()
        .expect("a coordinator")
}

/// The sides compared, each one fetch of the page.
struct Sides {
    runtime: tokio::runtime::Runtime,
    client: reqwest::Client,
    url: String,
    uncached: Coordinator,
    cached: Coordinator,
}

impl Sides {
    fn direct(&self) -> usize {
        self.runtime.block_on(async {
            let response = self.client.get(&self.url).send().await.expect("an answer");
            response.bytes().await.expect("a body").len()
        })
    }

    fn fetch(&self, coordinator: &Coordinator, format: &str) -> usize {
        let call = ToolCall::new(
            "fetch_url",
            serde_json::json!({"url": self.url, "format": format}).to_string(),
        );
        let result = self.runtime.block_on(coordinator.call(call));
        assert!(!result.is_error(), "{}", result.text());
        result.text().len()
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let page = page();
    let page_len = page.len();
    let server = http::Server::start(move |_| http::Reply::html(page.clone()));
    // reqwest is built without a crypto provider of its own (see the workspace Cargo.toml);
    // the baseline client takes ring's, as fetch_url's does.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let sides = Sides {
        runtime: tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("a runtime"),
        client: reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("a client"),
        url: server.url("/book.html"),
        uncached: coordinator(Duration::ZERO),
        cached: coordinator(Duration::from_secs(3600)),
    };
    assert_eq!(sides.direct(), page_len);
    let markdown_len = sides.fetch(&sides.cached, "markdown");
    println!("page: {page_len} bytes of HTML, {markdown_len} bytes of markdown");

    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("fetch_1mb_html");
    group.sample_size(10);
    group.bench_function("reqwest_get", |b| b.iter(|| black_box(sides.direct())));
    group.bench_function("fetch_url_raw_uncached", |b| {
        b.iter(|| black_box(sides.fetch(&sides.uncached, "raw")));
    });
    group.bench_function("fetch_url_markdown_uncached", |b| {
        b.iter(|| black_box(sides.fetch(&sides.uncached, "markdown")));
    });
    group.bench_function("fetch_url_markdown_cached", |b| {
        b.iter(|| black_box(sides.fetch(&sides.cached, "markdown")));
    });
    group.finish();
    criterion.final_summary();

    let mut times: [Vec<Duration>; 4] = Default::default();
    for _ in 0..ROUNDS {
        for (side, run) in times.iter_mut().zip([
            &(|| sides.direct()) as &dyn Fn() -> usize,
            &|| sides.fetch(&sides.uncached, "raw"),
            &|| sides.fetch(&sides.uncached, "markdown"),
            &|| sides.fetch(&sides.cached, "markdown"),
        ]) {
            let started = Instant::now();
            black_box(run());
            side.push(started.elapsed());
        }
    }
    let [direct, raw, markdown, cached] = times.map(median);
    let ratio = |side: Duration| side.as_secs_f64() / direct.as_secs_f64();
    println!("medians of {ROUNDS} interleaved rounds, 1 MB HTML page over loopback:");
    println!("  reqwest GET (baseline):       {direct:.2?}");
    println!(
        "  fetch_url raw, uncached:      {raw:.2?} ({:.2}x)",
        ratio(raw)
    );
    println!(
        "  fetch_url markdown, uncached: {markdown:.2?} ({:.2}x)",
        ratio(markdown)
    );
    println!(
        "  fetch_url markdown, cached:   {cached:.2?} ({:.2}x)",
        ratio(cached)
    );
}
