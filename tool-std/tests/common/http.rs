//! A small HTTP/1.1 server on the loopback interface for the web tools' tests and bench: each
//! connection on a thread of its own, one request per connection, answered by a handler the
//! test gives. It counts the requests it serves, so a test can tell a cached fetch from a
//! fetched one.
//!
//! Include it with `#[path = "common/http.rs"] mod http;` (from a bench:
//! `#[path = "../tests/common/http.rs"]`): it is not part of `common/mod.rs` because only the
//! web tests need it.

// Each test binary uses a subset of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A request as the handler sees it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The path and query, as sent (`/search?q=rust&format=json`).
    pub target: String,
    /// Header names in lower case, with their values.
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// The path without the query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    /// The decoded value of a query parameter.
    pub fn query(&self, name: &str) -> Option<String> {
        let url = url::Url::parse(&format!("http://server{}", self.target)).ok()?;
        url.query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// What the server answers.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Waited before answering.
    pub delay: Duration,
}

impl Reply {
    /// `200 OK` with `body` of `content_type`.
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Reply {
            status: 200,
            headers: vec![("Content-Type".to_owned(), content_type.to_owned())],
            body: body.into(),
            delay: Duration::ZERO,
        }
    }

    /// An HTML page.
    pub fn html(body: impl Into<Vec<u8>>) -> Self {
        Reply::ok("text/html; charset=utf-8", body)
    }

    /// A redirect with `status` to `location`.
    pub fn redirect(status: u16, location: &str) -> Self {
        Reply {
            status,
            headers: vec![("Location".to_owned(), location.to_owned())],
            body: Vec::new(),
            delay: Duration::ZERO,
        }
    }

    /// `status` with a plain-text body.
    pub fn status(status: u16, body: &str) -> Self {
        Reply {
            status,
            ..Reply::ok("text/plain", body)
        }
    }

    /// The same reply, sent after `delay`.
    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// A running server. It stops with the test process.
pub struct Server {
    pub address: SocketAddr,
    served: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    /// A server on `127.0.0.1` and a free port, answering with `handler`.
    pub fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let served = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let (count, log) = (Arc::clone(&served), Arc::clone(&requests));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (handler, count, log) =
                    (Arc::clone(&handler), Arc::clone(&count), Arc::clone(&log));
                std::thread::spawn(move || {
                    // A client that hangs up early (a cut body, a timeout) is not an error here.
                    let _ = serve(stream, &*handler, &count, &log);
                });
            }
        });
        Server {
            address,
            served,
            requests,
        }
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin())
    }

    /// `http://127.0.0.1:PORT`.
    pub fn origin(&self) -> String {
        format!("http://{}", self.address)
    }

    /// How many requests it has answered.
    pub fn served(&self) -> usize {
        self.served.load(Ordering::SeqCst)
    }

    /// The requests it has received, oldest first.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

fn serve(
    stream: TcpStream,
    handler: &Handler,
    served: &AtomicUsize,
    log: &Mutex<Vec<Request>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let target = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let request = Request { target, headers };
    log.lock().unwrap().push(request.clone());
    let reply = handler(&request);
    std::thread::sleep(reply.delay);
    let mut head = format!("HTTP/1.1 {} Status\r\n", reply.status);
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        reply.body.len()
    ));
    served.fetch_add(1, Ordering::SeqCst);
    let mut stream = stream;
    stream.write_all(head.as_bytes())?;
    stream.write_all(&reply.body)?;
    stream.flush()
}
