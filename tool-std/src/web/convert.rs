//! A response body as the model reads it: what kind of content it is (HTML, other text, or
//! binary, refused), decoded from its charset, and HTML rendered as markdown (htmd) or plain
//! text, links made absolute against the page's URL.

use std::borrow::Cow;
use std::rc::Rc;

use encoding_rs::{Encoding, UTF_8};
use markup5ever_rcdom::{Handle, NodeData};
use schemars::JsonSchema;
use serde::Deserialize;
use url::Url;

/// How `fetch_url` renders a page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FetchFormat {
    /// HTML as markdown: headings, links, lists, code blocks and tables kept (the default).
    #[default]
    Markdown,
    /// HTML as plain text: the words of the page, one block to a line.
    Text,
    /// The body as it came (decoded to text), HTML tags and all.
    Raw,
}

/// What a response body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Html,
    Text,
    Binary,
}

/// Elements nested deeper than this are not given to htmd, whose walk recurses once per level
/// (a hostile page could otherwise exhaust the stack): such a page is given as plain text,
/// which is walked without recursion.
const MAX_MARKDOWN_DEPTH: usize = 512;

/// The most work htmd is given, as the page's length times its depth: htmd copies each
/// element's rendered children into the element, so a large page nested deep costs its size
/// once per level (a 10 MB page 500 deep, tens of seconds on a thread the fetch's timeout
/// does not stop). Past it the page is given as plain text, whose walk is linear. A 10 MB page
/// keeps its markdown to 50 levels deep, a 1 MB page to the depth cap.
const MAX_MARKDOWN_WORK: usize = MAX_MARKDOWN_DEPTH << 20;

/// Elements whose text is never the page's content.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "head", "svg", "iframe", "object", "canvas",
];

/// Elements that start a new line in plain text.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tr",
    "ul",
];

/// The kind of a body, from its `Content-Type` and, when that is missing or generic, from its
/// first bytes.
pub(crate) fn kind(content_type: Option<&str>, body: &[u8]) -> Kind {
    let mime = content_type
        .and_then(|value| value.split(';').next())
        .map(|mime| mime.trim().to_ascii_lowercase())
        .unwrap_or_default();
    match mime.as_str() {
        "text/html" | "application/xhtml+xml" => Kind::Html,
        "" | "application/octet-stream" => sniff(body),
        mime if mime.starts_with("text/")
            || mime.ends_with("+json")
            || mime.ends_with("+xml")
            || matches!(
                mime,
                "application/json"
                    | "application/xml"
                    | "application/javascript"
                    | "application/ecmascript"
                    | "application/x-javascript"
                    | "application/x-sh"
                    | "application/toml"
                    | "application/yaml"
                    | "application/x-yaml"
                    | "application/sql"
                    | "application/graphql"
                    | "application/x-ndjson"
            ) =>
        {
            Kind::Text
        }
        _ => Kind::Binary,
    }
}

/// A body without a useful type: HTML if it starts like HTML, text if it has no NUL byte and
/// decodes, else binary.
fn sniff(body: &[u8]) -> Kind {
    let head = &body[..body.len().min(1024)];
    let start = String::from_utf8_lossy(head)
        .trim_start()
        .to_ascii_lowercase();
    if start.starts_with("<!doctype html") || start.starts_with("<html") {
        Kind::Html
    } else if head.contains(&0) {
        Kind::Binary
    } else {
        Kind::Text
    }
}

/// The body as text: the charset of its byte order mark, else of its `Content-Type`, else (for
/// HTML) of its `<meta charset>`, else UTF-8 if it is UTF-8, else the encoding `chardetng`
/// guesses. A body cut inside a character ends in U+FFFD.
pub(crate) fn decode(body: &[u8], content_type: Option<&str>, kind: Kind) -> String {
    let declared = content_type
        .and_then(charset_parameter)
        .or_else(|| (kind == Kind::Html).then(|| meta_charset(body)).flatten());
    let encoding = match declared {
        Some(encoding) => encoding,
        None if crate::fs::utf8_prefix(body) => UTF_8,
        None => {
            let mut detector =
                chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
            detector.feed(body, true);
            detector.guess(None, chardetng::Utf8Detection::Allow)
        }
    };
    // `decode` lets a byte order mark override the declared encoding, as browsers do.
    encoding.decode(body).0.into_owned()
}

fn charset_parameter(content_type: &str) -> Option<&'static Encoding> {
    content_type.split(';').skip(1).find_map(|parameter| {
        let (name, value) = parameter.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| Encoding::for_label(value.trim().trim_matches('"').as_bytes()))
            .flatten()
    })
}

/// The charset a page declares in its first 1024 bytes (`<meta charset="...">` or the
/// `http-equiv` form), as the HTML standard's prescan looks for it.
fn meta_charset(body: &[u8]) -> Option<&'static Encoding> {
    let head = String::from_utf8_lossy(&body[..body.len().min(1024)]).to_ascii_lowercase();
    let mut rest = head.as_str();
    while let Some(at) = rest.find("<meta") {
        rest = &rest[at + 5..];
        let tag = &rest[..rest.find('>').unwrap_or(rest.len())];
        if let Some(value) = tag.split("charset=").nth(1) {
            let label: String = value
                .trim_start_matches(['"', '\''])
                .chars()
                .take_while(|c| !matches!(c, '"' | '\'' | ' ' | ';' | '/' | '>'))
                .collect();
            if let Some(encoding) = Encoding::for_label(label.as_bytes()) {
                // A page that says UTF-16 in ASCII is not UTF-16: the standard reads UTF-8.
                return Some(
                    if encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE {
                        UTF_8
                    } else {
                        encoding
                    },
                );
            }
        }
    }
    None
}

/// Renders an HTML page in `format`, its links and images made absolute against `base` (the
/// page's URL) or the page's own `<base href>`.
pub(crate) fn render_html(html: &str, base: &Url, format: FetchFormat) -> String {
    match format {
        FetchFormat::Raw => html.to_owned(),
        FetchFormat::Text => {
            let converter = markdown_converter();
            match converter.html_to_tree(html) {
                Ok(tree) => text_of(&tree),
                Err(_) => html.to_owned(),
            }
        }
        FetchFormat::Markdown => html_to_markdown(html, base),
    }
}

fn markdown_converter() -> htmd::HtmlToMarkdown {
    let options = htmd::options::Options {
        bullet_list_marker: htmd::options::BulletListMarker::Dash,
        ul_bullet_spacing: 1,
        ol_number_spacing: 1,
        ..htmd::options::Options::default()
    };
    htmd::HtmlToMarkdown::builder()
        .options(options)
        .skip_tags(SKIPPED.to_vec())
        .build()
}

/// HTML as markdown.
fn html_to_markdown(html: &str, base: &Url) -> String {
    let converter = markdown_converter();
    // htmd parses from a `&str` without failing; the `io::Result` is its API's.
    let Ok(tree) = converter.html_to_tree(html) else {
        return html.to_owned();
    };
    let depth = depth(&tree);
    if depth > MAX_MARKDOWN_DEPTH || depth.saturating_mul(html.len()) > MAX_MARKDOWN_WORK {
        return text_of(&tree);
    }
    let base = document_base(&tree, base);
    absolutize(&tree, &base);
    converter.tree_to_markdown(&tree)
}

/// The deepest nesting of the tree, walked without recursion.
fn depth(root: &Handle) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(Rc::clone(root), 0usize)];
    while let Some((node, level)) = stack.pop() {
        deepest = deepest.max(level);
        for child in node.children.borrow().iter() {
            stack.push((Rc::clone(child), level + 1));
        }
    }
    deepest
}

/// The URL a page's relative links are resolved against: its first `<base href>` (itself
/// resolved against the page's URL), as a browser has it, when that is an `http` or `https`
/// URL; else the page's URL.
fn document_base(root: &Handle, page: &Url) -> Url {
    // Depth first, in document order: children pushed last to first.
    let mut stack = vec![Rc::clone(root)];
    while let Some(node) = stack.pop() {
        if let NodeData::Element { name, attrs, .. } = &node.data
            && &*name.local == "base"
            && let Some(href) = attrs
                .borrow()
                .iter()
                .find(|attribute| &*attribute.name.local == "href")
        {
            return page
                .join(href.value.trim())
                .ok()
                .filter(|base| matches!(base.scheme(), "http" | "https"))
                .unwrap_or_else(|| page.clone());
        }
        stack.extend(node.children.borrow().iter().rev().map(Rc::clone));
    }
    page.clone()
}

/// Rewrites `href` and `src` attributes as absolute URLs, so that the model can fetch what a
/// page links to.
fn absolutize(root: &Handle, base: &Url) {
    let mut stack = vec![Rc::clone(root)];
    while let Some(node) = stack.pop() {
        if let NodeData::Element { attrs, .. } = &node.data {
            for attribute in attrs.borrow_mut().iter_mut() {
                let name: &str = &attribute.name.local;
                if (name == "href" || name == "src")
                    && let Some(shortened) = shortened_data_url(&attribute.value)
                {
                    attribute.value = shortened.into();
                    continue;
                }
                if (name == "href" || name == "src")
                    && !attribute.value.starts_with('#')
                    && let Ok(absolute) = base.join(attribute.value.trim())
                {
                    attribute.value = absolute.as_str().into();
                }
            }
        }
        stack.extend(node.children.borrow().iter().map(Rc::clone));
    }
}

/// An inline `data:` URL longer than a link is worth, as its type and an ellipsis in place of
/// the data: an inlined image's base64 copied whole into the markdown can be most of the page.
fn shortened_data_url(value: &str) -> Option<String> {
    const KEPT: usize = 64;
    let value = value.trim();
    let is_data = value
        .get(..5)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("data:"));
    if !is_data || value.len() <= KEPT {
        return None;
    }
    let head: String = match value.find(',') {
        Some(comma) if comma < KEPT => value[..=comma].to_owned(),
        _ => value.chars().take(KEPT).collect(),
    };
    Some(format!("{head}…"))
}

/// The text of a tree: blocks on lines of their own, runs of white space made one space outside
/// `<pre>`, nothing of scripts, styles and the head.
fn text_of(root: &Handle) -> String {
    enum Step {
        Enter(Handle),
        Leave { block: bool, pre: bool },
    }
    let mut out = String::new();
    let mut pre_depth = 0usize;
    let mut stack = vec![Step::Enter(Rc::clone(root))];
    while let Some(step) = stack.pop() {
        match step {
            Step::Leave { block, pre } => {
                if pre {
                    pre_depth -= 1;
                }
                if block {
                    end_line(&mut out);
                }
            }
            Step::Enter(node) => match &node.data {
                NodeData::Text { contents } => {
                    let text = contents.borrow();
                    if pre_depth > 0 {
                        out.push_str(&text);
                    } else {
                        push_collapsed(&mut out, &text);
                    }
                }
                NodeData::Element { name, .. } => {
                    let tag: &str = &name.local;
                    if SKIPPED.contains(&tag) {
                        continue;
                    }
                    let block = BLOCKS.contains(&tag);
                    let pre = tag == "pre";
                    if block {
                        end_line(&mut out);
                    }
                    if pre {
                        pre_depth += 1;
                    }
                    if matches!(tag, "td" | "th") && !out.ends_with(['\n', '\t']) && !out.is_empty()
                    {
                        out.push('\t');
                    }
                    stack.push(Step::Leave { block, pre });
                    stack.extend(
                        node.children
                            .borrow()
                            .iter()
                            .rev()
                            .map(|child| Step::Enter(Rc::clone(child))),
                    );
                }
                NodeData::Document => stack.extend(
                    node.children
                        .borrow()
                        .iter()
                        .rev()
                        .map(|child| Step::Enter(Rc::clone(child))),
                ),
                _ => {}
            },
        }
    }
    tidy_lines(&out)
}

/// Appends text with its white space runs made single spaces.
fn push_collapsed(out: &mut String, text: &str) {
    let mut words = text.split_whitespace().peekable();
    if words.peek().is_none() {
        if !text.is_empty() && !out.ends_with([' ', '\n', '\t']) && !out.is_empty() {
            out.push(' ');
        }
        return;
    }
    if text.starts_with(char::is_whitespace) && !out.ends_with([' ', '\n', '\t']) && !out.is_empty()
    {
        out.push(' ');
    }
    let mut first = true;
    for word in words {
        if !first {
            out.push(' ');
        }
        out.push_str(word);
        first = false;
    }
    if text.ends_with(char::is_whitespace) {
        out.push(' ');
    }
}

fn end_line(out: &mut String) {
    let trimmed = out.trim_end_matches([' ', '\t']).len();
    out.truncate(trimmed);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
}

/// Trailing blanks dropped from every line, and at most one empty line in a row.
fn tidy_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.trim().lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out
}

/// The name of a body's type for a message: its `Content-Type` without parameters.
pub(crate) fn type_name(content_type: Option<&str>) -> Cow<'_, str> {
    match content_type.and_then(|value| value.split(';').next()) {
        Some(mime) if !mime.trim().is_empty() => Cow::Borrowed(mime.trim()),
        _ => Cow::Borrowed("no content type"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse("https://example.com/docs/page.html").unwrap()
    }

    #[test]
    fn kinds_come_from_the_content_type_then_the_bytes() {
        assert_eq!(kind(Some("text/html; charset=utf-8"), b""), Kind::Html);
        assert_eq!(kind(Some("application/json"), b"{}"), Kind::Text);
        assert_eq!(kind(Some("application/vnd.api+json"), b"{}"), Kind::Text);
        assert_eq!(kind(Some("image/png"), b"\x89PNG"), Kind::Binary);
        assert_eq!(kind(None, b"  <!DOCTYPE html><p>hi"), Kind::Html);
        assert_eq!(
            kind(Some("application/octet-stream"), b"a\0b"),
            Kind::Binary
        );
        assert_eq!(kind(None, b"plain words"), Kind::Text);
    }

    #[test]
    fn charsets_come_from_the_header_then_the_meta_tag_then_detection() {
        let latin1 = b"caf\xe9";
        assert_eq!(
            decode(latin1, Some("text/plain; charset=ISO-8859-1"), Kind::Text),
            "café"
        );
        let page = b"<html><head><meta charset=\"windows-1252\"></head><body>caf\xe9</body>";
        assert!(decode(page, Some("text/html"), Kind::Html).contains("café"));
        let page =
            b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=koi8-r\">\xf0\xd2\xc9";
        assert!(decode(page, None, Kind::Html).ends_with("При"));
        assert_eq!(decode("naïve".as_bytes(), None, Kind::Text), "naïve");
    }

    #[test]
    fn markdown_keeps_structure_and_makes_links_absolute() {
        let html = r##"<html><head><title>T</title><script>var x;</script></head><body>
            <h1>Title</h1><p>See <a href="../other.html">the other page</a> and <a href="#top">top</a>.</p>
            <ul><li>one</li><li>two</li></ul>
            <pre><code>fn main() {}</code></pre></body></html>"##;
        let markdown = render_html(html, &base(), FetchFormat::Markdown);
        assert!(markdown.starts_with("# Title"), "{markdown}");
        assert!(markdown.contains("[the other page](https://example.com/other.html)"));
        assert!(markdown.contains("[top](#top)"));
        assert!(markdown.contains("- one\n- two"), "{markdown}");
        assert!(markdown.contains("```\nfn main() {}\n```"), "{markdown}");
        assert!(!markdown.contains("var x"));
    }

    #[test]
    fn text_is_the_words_one_block_to_a_line() {
        let html = "<body><h1>Title</h1><p>Some   <b>bold</b>\n text.</p><script>no()</script>\
                    <table><tr><td>a</td><td>b</td></tr></table><pre>  keep\n    this</pre></body>";
        assert_eq!(
            render_html(html, &base(), FetchFormat::Text),
            "Title\nSome bold text.\na\tb\n  keep\n    this"
        );
    }

    #[test]
    fn a_base_href_is_what_relative_links_are_resolved_against() {
        let html = r#"<html><head><base href="/manual/v2/"></head><body>
            <a href="intro.html">intro</a> <img src="fig.png" alt="fig"></body></html>"#;
        let markdown = render_html(html, &base(), FetchFormat::Markdown);
        assert!(
            markdown.contains("[intro](https://example.com/manual/v2/intro.html)"),
            "{markdown}"
        );
        assert!(
            markdown.contains("![fig](https://example.com/manual/v2/fig.png)"),
            "{markdown}"
        );
        // A base that is not a web address is ignored, as is every base after the first.
        let html = r#"<head><base href="javascript:void(0)"><base href="https://other.example/">
            </head><a href="a.html">a</a>"#;
        let markdown = render_html(html, &base(), FetchFormat::Markdown);
        assert!(
            markdown.contains("[a](https://example.com/docs/a.html)"),
            "{markdown}"
        );
    }

    #[test]
    fn a_large_page_nested_deep_is_given_as_text() {
        // htmd copies each element's rendered children into it, level by level: a large page
        // nested hundreds deep costs its size times its depth (tens of seconds at 10 MB).
        let html = format!(
            "{}{}",
            "<div>".repeat(300),
            "<p><a href=\"/x\">link</a> words</p>".repeat(70_000)
        );
        assert!(html.len() > 2 << 20);
        let rendered = render_html(&html, &base(), FetchFormat::Markdown);
        assert!(
            rendered.starts_with("link words\nlink words"),
            "{}",
            &rendered[..80]
        );
    }

    #[test]
    fn an_inline_data_image_is_not_copied_into_the_markdown() {
        let payload = "iVBORw0KGgo".repeat(10_000);
        let html = format!(
            r#"<p>Logo: <img src="data:image/png;base64,{payload}" alt="logo"> and
            <a href="data:text/plain;base64,{payload}">a file</a></p>"#
        );
        let markdown = render_html(&html, &base(), FetchFormat::Markdown);
        assert!(markdown.len() < 200, "{}", &markdown[..200]);
        assert!(
            markdown.contains("![logo](data:image/png;base64,"),
            "{markdown}"
        );
        assert!(
            markdown.contains("[a file](data:text/plain;base64,"),
            "{markdown}"
        );
    }

    #[test]
    fn a_page_nested_too_deeply_for_htmd_is_given_as_text() {
        let html = format!("{}deep{}", "<div>".repeat(5_000), "</div>".repeat(5_000));
        assert_eq!(render_html(&html, &base(), FetchFormat::Markdown), "deep");
    }
}
