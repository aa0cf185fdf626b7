//! A lean HTTP/1.1 client connection: one request at a time on a
//! keep-alive TCP connection, the request written with one `write`, the
//! answer read into a buffer the connection keeps and handed back borrowed.
//!
//! A load generator must cost less per request than the servers it
//! measures: once it is the slower side of the loop, a faster server runs
//! out of requests, parks, and pays a wake-up for every one that arrives,
//! and the figure measures those wake-ups. hyper's client serves each
//! connection on a task of its own and passes every request and answer
//! through channels; here the worker's task writes and reads itself.
//!
//! Answers are read with `Content-Length`, chunked, or (closing the
//! connection) to the end of the stream; heads and bodies are bounded.

use std::ops::Range;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::wire::Failure;

/// The largest answer head read.
const MAX_HEAD: usize = 64 * 1024;
/// The largest answer body read.
const MAX_BODY: usize = 16 * 1024 * 1024;
/// The most header fields in an answer.
const MAX_HEADERS: usize = 64;
/// What is free in the read buffer before each read.
const READ_CHUNK: usize = 8 * 1024;
/// The longest opening a connection may take (a server whose listen queue
/// is full would otherwise keep it waiting for the kernel's SYN retries).
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// One keep-alive connection to the server.
pub(crate) struct Connection {
    stream: TcpStream,
    /// Bytes read; `read[..consumed]` belongs to the answer handed out
    /// last and is dropped when the next exchange starts.
    read: Vec<u8>,
    consumed: usize,
    /// A chunked body, decoded.
    decoded: Vec<u8>,
    /// The request being written.
    out: Vec<u8>,
    /// The server closed the connection, or said it would.
    closed: bool,
    /// An exchange started and did not finish (its future was dropped at a
    /// timeout): what is left of its answer would be read as the next one.
    in_flight: bool,
}

/// An answer, borrowed from the connection until its next exchange.
#[derive(Debug)]
pub(crate) struct Answer<'a> {
    /// The HTTP status.
    pub(crate) status: u16,
    /// The `Content-Type` header, or empty.
    pub(crate) content_type: &'a str,
    /// The `MCP-Session-Id` header, if any.
    pub(crate) session: Option<&'a str>,
    /// The body, decoded if it was chunked.
    pub(crate) body: &'a [u8],
}

/// Where the body of an answer is.
enum Framing {
    /// `Content-Length` bytes, or none.
    Length(usize),
    /// `Transfer-Encoding: chunked`.
    Chunked,
    /// Up to the end of the stream.
    ToClose,
}

/// What the head of an answer says, as offsets into the read buffer.
struct Head {
    status: u16,
    /// Its length, the blank line included.
    len: usize,
    content_type: Option<Range<usize>>,
    session: Option<Range<usize>>,
    framing: Framing,
    close: bool,
}

fn transport(what: &str, error: impl std::fmt::Display) -> Failure {
    Failure::Transport(format!("{what}: {error}"))
}

/// The offsets of `part` within `buffer` (`part` is a slice of it).
fn offsets(buffer: &[u8], part: &[u8]) -> Range<usize> {
    let start = part.as_ptr() as usize - buffer.as_ptr() as usize;
    start..start + part.len()
}

/// Parses the head at the start of `buffer`; `None` while it is partial.
fn parse_head(buffer: &[u8]) -> Result<Option<Head>, Failure> {
    let mut fields = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut response = httparse::Response::new(&mut fields);
    let len = match response.parse(buffer) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(error) => return Err(transport("answer head", error)),
    };
    let status = response.code.unwrap_or(0);
    let mut head = Head {
        status,
        len,
        content_type: None,
        session: None,
        framing: Framing::ToClose,
        close: false,
    };
    let mut length = None;
    let mut chunked = false;
    for field in response.headers.iter() {
        let name = field.name;
        if name.eq_ignore_ascii_case("content-type") {
            head.content_type = Some(offsets(buffer, field.value));
        } else if name.eq_ignore_ascii_case("mcp-session-id") {
            head.session = Some(offsets(buffer, field.value));
        } else if name.eq_ignore_ascii_case("content-length") {
            let value = std::str::from_utf8(field.value).ok();
            let parsed = value.and_then(|v| v.trim().parse::<usize>().ok());
            match (parsed, length) {
                (Some(n), None) => length = Some(n),
                (Some(n), Some(earlier)) if n == earlier => {}
                _ => return Err(Failure::Transport("a bad Content-Length".to_owned())),
            }
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = field
                .value
                .rsplit(|&b| b == b',')
                .next()
                .is_some_and(|last| last.trim_ascii().eq_ignore_ascii_case(b"chunked"));
        } else if name.eq_ignore_ascii_case("connection") {
            head.close = field
                .value
                .split(|&b| b == b',')
                .any(|token| token.trim_ascii().eq_ignore_ascii_case(b"close"));
        }
    }
    head.framing = if status < 200 || status == 204 || status == 304 {
        Framing::Length(0)
    } else if chunked {
        Framing::Chunked
    } else if let Some(n) = length {
        if n > MAX_BODY {
            return Err(Failure::Transport(format!(
                "a body of {n} bytes, over {MAX_BODY}"
            )));
        }
        Framing::Length(n)
    } else {
        Framing::ToClose
    };
    Ok(Some(head))
}

/// The header value at `range` of `buffer` as text, or empty if it is not
/// UTF-8.
fn text(buffer: &[u8], range: Option<Range<usize>>) -> Option<&str> {
    range.map(|range| std::str::from_utf8(&buffer[range]).unwrap_or(""))
}

impl Connection {
    /// Opens a connection to `addr`, with `TCP_NODELAY`, within
    /// [`CONNECT_TIMEOUT`].
    pub(crate) async fn open(addr: std::net::SocketAddr) -> Result<Self, Failure> {
        let stream = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(addr))
            .await
            .map_err(|_| Failure::Transport(format!("connect: no answer in {CONNECT_TIMEOUT:?}")))?
            .map_err(|e| transport("connect", e))?;
        stream
            .set_nodelay(true)
            .map_err(|e| transport("nodelay", e))?;
        Ok(Self {
            stream,
            read: Vec::with_capacity(READ_CHUNK),
            consumed: 0,
            decoded: Vec::new(),
            out: Vec::with_capacity(1024),
            closed: false,
            in_flight: false,
        })
    }

    /// Whether another request can be sent on this connection.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed || self.in_flight
    }

    /// Reads more into the buffer; fails at the end of the stream unless
    /// `eof_ok`, and returns whether anything was read.
    async fn fill(&mut self, eof_ok: bool) -> Result<bool, Failure> {
        if self.read.capacity() - self.read.len() < READ_CHUNK / 2 {
            self.read.reserve(READ_CHUNK);
        }
        let n = self
            .stream
            .read_buf(&mut self.read)
            .await
            .map_err(|e| transport("read", e))?;
        if n == 0 {
            self.closed = true;
            if !eof_ok {
                return Err(Failure::Transport(
                    "the server closed the connection".to_owned(),
                ));
            }
        }
        Ok(n > 0)
    }

    /// Sends `head` (the request line and header fields, each ending in
    /// CRLF, without `Content-Length`) and `body`, and reads the whole
    /// answer.
    pub(crate) async fn exchange(
        &mut self,
        head: &[u8],
        body: Option<&[u8]>,
    ) -> Result<Answer<'_>, Failure> {
        if self.in_flight {
            self.closed = true;
            return Err(Failure::Transport(
                "an earlier answer was left half read".to_owned(),
            ));
        }
        if self.closed {
            return Err(Failure::Transport(
                "the server closed the connection".to_owned(),
            ));
        }
        self.read.drain(..self.consumed);
        self.consumed = 0;
        self.out.clear();
        self.out.extend_from_slice(head);
        if let Some(body) = body {
            use std::io::Write as _;
            // Writing into a vector cannot fail.
            let _ = write!(self.out, "content-length: {}\r\n\r\n", body.len());
            self.out.extend_from_slice(body);
        } else {
            self.out.extend_from_slice(b"\r\n");
        }
        self.in_flight = true;
        self.stream
            .write_all(&self.out)
            .await
            .map_err(|e| transport("write", e))?;
        let head = loop {
            if let Some(head) = parse_head(&self.read)? {
                break head;
            }
            if self.read.len() > MAX_HEAD {
                return Err(Failure::Transport(format!(
                    "an answer head over {MAX_HEAD} bytes"
                )));
            }
            self.fill(false).await?;
        };
        let body = match head.framing {
            Framing::Length(n) => {
                while self.read.len() < head.len + n {
                    self.fill(false).await?;
                }
                self.consumed = head.len + n;
                head.len..head.len + n
            }
            Framing::ToClose => {
                while self.fill(true).await? {
                    if self.read.len() > head.len + MAX_BODY {
                        return Err(Failure::Transport(format!("a body over {MAX_BODY} bytes")));
                    }
                }
                self.consumed = self.read.len();
                head.len..self.read.len()
            }
            Framing::Chunked => {
                self.consumed = self.read_chunks(head.len).await?;
                0..0
            }
        };
        self.in_flight = false;
        if head.close {
            self.closed = true;
        }
        let body = match head.framing {
            Framing::Chunked => &self.decoded[..],
            _ => &self.read[body],
        };
        Ok(Answer {
            status: head.status,
            content_type: text(&self.read, head.content_type).unwrap_or(""),
            session: text(&self.read, head.session),
            body,
        })
    }

    /// Decodes a chunked body that starts at `from` into `decoded`;
    /// returns where the answer ends (trailers included).
    async fn read_chunks(&mut self, from: usize) -> Result<usize, Failure> {
        self.decoded.clear();
        let mut at = from;
        loop {
            let (size_len, size) = loop {
                match httparse::parse_chunk_size(&self.read[at..]) {
                    Ok(httparse::Status::Complete((len, size))) => break (len, size),
                    Ok(httparse::Status::Partial) => {
                        if self.read.len() - at > 1024 {
                            return Err(Failure::Transport("a bad chunk size line".to_owned()));
                        }
                        self.fill(false).await?;
                    }
                    Err(_) => return Err(Failure::Transport("a bad chunk size".to_owned())),
                }
            };
            at += size_len;
            let size = usize::try_from(size).unwrap_or(usize::MAX);
            if size > MAX_BODY - self.decoded.len() {
                return Err(Failure::Transport(format!(
                    "a chunked body over {MAX_BODY} bytes"
                )));
            }
            if size == 0 {
                // Trailer fields, if any, then the blank line.
                loop {
                    match self.read[at..].windows(2).position(|w| w == b"\r\n") {
                        Some(0) => return Ok(at + 2),
                        Some(line) => at += line + 2,
                        None => {
                            if self.read.len() - at > MAX_HEAD {
                                return Err(Failure::Transport("trailers too long".to_owned()));
                            }
                            self.fill(false).await?;
                        }
                    }
                }
            }
            while self.read.len() < at + size + 2 {
                self.fill(false).await?;
            }
            self.decoded.extend_from_slice(&self.read[at..at + size]);
            if &self.read[at + size..at + size + 2] != b"\r\n" {
                return Err(Failure::Transport("a chunk without its CRLF".to_owned()));
            }
            at += size + 2;
        }
    }
}

/// The head of a `method` request for `path` on `authority`: the request
/// line, `Host` and `fields` (name, value), each line ending in CRLF.
/// Fails on a value with a CR or LF in it.
pub(crate) fn request_head(
    method: &str,
    path: &str,
    authority: &str,
    fields: &[(&str, &str)],
) -> Result<Vec<u8>, Failure> {
    let mut head = Vec::with_capacity(256);
    let bad = |value: &str| value.bytes().any(|b| b == b'\r' || b == b'\n');
    if bad(path) || bad(authority) || fields.iter().any(|(_, value)| bad(value)) {
        return Err(Failure::Transport(
            "a header value with a line break".to_owned(),
        ));
    }
    for part in [method, " ", path, " HTTP/1.1\r\nhost: ", authority, "\r\n"] {
        head.extend_from_slice(part.as_bytes());
    }
    for (name, value) in fields {
        for part in [*name, ": ", *value, "\r\n"] {
            head.extend_from_slice(part.as_bytes());
        }
    }
    Ok(head)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;
    use tokio::net::TcpListener;

    /// A server on loopback that reads each request head and body and
    /// writes the next of `answers` after it.
    async fn server(answers: Vec<&'static [u8]>) -> std::net::SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut seen = Vec::new();
            for answer in answers {
                // Up to the end of the head, then the declared body.
                loop {
                    if let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&seen[..end]).to_ascii_lowercase();
                        let length = head
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length: "))
                            .map_or(0, |n| n.trim().parse::<usize>().unwrap());
                        if seen.len() >= end + 4 + length {
                            seen.drain(..end + 4 + length);
                            break;
                        }
                    }
                    let mut chunk = [0u8; 1024];
                    let n = socket.read(&mut chunk).await.unwrap();
                    assert!(n > 0, "the client closed early");
                    seen.extend_from_slice(&chunk[..n]);
                }
                // In two pieces, so the client reads more than once.
                let (a, b) = answer.split_at(answer.len() / 2);
                socket.write_all(a).await.unwrap();
                tokio::task::yield_now().await;
                socket.write_all(b).await.unwrap();
            }
        });
        addr
    }

    #[tokio::test]
    async fn length_chunked_and_closing_answers_are_read_whole() {
        let addr = server(vec![
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 4\r\nmcp-session-id: s1\r\n\r\n{\"a\"",
            b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\nt: 1\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nuntil the end",
        ])
        .await;
        let mut connection = Connection::open(addr).await.unwrap();
        let head = request_head("POST", "/mcp", "127.0.0.1", &[("mcp-method", "x")]).unwrap();
        let answer = connection.exchange(&head, Some(b"{}")).await.unwrap();
        assert_eq!(answer.status, 200);
        assert_eq!(answer.content_type, "application/json");
        assert_eq!(answer.session, Some("s1"));
        assert_eq!(answer.body, b"{\"a\"");
        let answer = connection.exchange(&head, Some(b"{}")).await.unwrap();
        assert_eq!((answer.status, answer.body), (202, &b""[..]));
        let answer = connection.exchange(&head, None).await.unwrap();
        assert_eq!(answer.content_type, "text/event-stream");
        assert_eq!(answer.body, b"abcde");
        assert!(!connection.is_closed());
        let answer = connection.exchange(&head, Some(b"{}")).await.unwrap();
        assert_eq!(answer.body, b"until the end");
        assert!(connection.is_closed());
        assert!(connection.exchange(&head, None).await.is_err());
    }

    #[tokio::test]
    async fn a_bad_or_oversized_answer_is_a_failure() {
        let addr = server(vec![
            b"HTTP/1.1 200 OK\r\ncontent-length: 99999999999\r\n\r\n",
        ])
        .await;
        let mut connection = Connection::open(addr).await.unwrap();
        let head = request_head("POST", "/mcp", "127.0.0.1", &[]).unwrap();
        let failure = connection.exchange(&head, Some(b"{}")).await.unwrap_err();
        assert!(failure.to_string().contains("over"), "{failure}");

        let addr = server(vec![b"NOT HTTP\r\n\r\n"]).await;
        let mut connection = Connection::open(addr).await.unwrap();
        assert!(connection.exchange(&head, Some(b"{}")).await.is_err());
    }

    #[tokio::test]
    async fn an_exchange_dropped_at_its_timeout_leaves_the_connection_unusable() {
        // A server that reads and never answers.
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut sink = [0u8; 1024];
            while socket.read(&mut sink).await.is_ok_and(|n| n > 0) {}
        });
        let mut connection = Connection::open(addr).await.unwrap();
        let head = request_head("POST", "/mcp", "127.0.0.1", &[]).unwrap();
        let waited = std::time::Duration::from_millis(50);
        let timed_out = tokio::time::timeout(waited, connection.exchange(&head, Some(b"{}"))).await;
        assert!(timed_out.is_err());
        assert!(connection.is_closed());
        let failure = connection.exchange(&head, Some(b"{}")).await.unwrap_err();
        assert!(failure.to_string().contains("half read"), "{failure}");
    }

    #[test]
    fn a_header_value_with_a_line_break_is_refused() {
        assert!(request_head("POST", "/", "h", &[("mcp-name", "a\r\nx: y")]).is_err());
        let head = request_head("DELETE", "/mcp", "h:1", &[("a", "b")]).unwrap();
        assert_eq!(head, b"DELETE /mcp HTTP/1.1\r\nhost: h:1\r\na: b\r\n");
    }
}
