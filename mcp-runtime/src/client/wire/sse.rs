//! A bounded, incremental decoder of a `text/event-stream` body: bytes in,
//! events out, as they arrive.

/// One server-sent event: its `data:` lines joined by newlines, the `id:`
/// it carried, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    pub(crate) data: String,
    pub(crate) id: Option<String>,
}

/// What a chunk of the stream held.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Decoded {
    /// The events completed by the chunk, in order (events with no data,
    /// such as a priming event, are left out).
    pub(crate) events: Vec<Event>,
}

/// Decodes a stream one chunk at a time, holding at most `max_event_bytes`
/// of one unfinished event.
#[derive(Debug)]
pub(crate) struct Decoder {
    max_event_bytes: usize,
    /// Bytes of the current line not yet ended by a newline.
    line: Vec<u8>,
    /// The current event's data lines, joined.
    data: String,
    has_data: bool,
    /// The bytes the current event holds so far.
    event_bytes: usize,
    /// The last `id:` seen on the stream (it carries over to later events).
    pub(crate) last_event_id: Option<String>,
    /// The last `retry:` the server asked for, in milliseconds.
    pub(crate) retry_ms: Option<u64>,
}

/// An event longer than the decoder's bound.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TooLong {
    pub(crate) limit: usize,
}

impl Decoder {
    pub(crate) fn new(max_event_bytes: usize) -> Self {
        Self {
            max_event_bytes,
            line: Vec::new(),
            data: String::new(),
            has_data: false,
            event_bytes: 0,
            last_event_id: None,
            retry_ms: None,
        }
    }

    /// Feeds one chunk; returns the events it completed.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<Decoded, TooLong> {
        let mut decoded = Decoded::default();
        let mut rest = chunk;
        while let Some(end) = rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
            let (head, tail) = rest.split_at(end);
            self.take(head)?;
            // `\r\n` is one line end: skip the `\n` after a `\r`.
            let skip = if tail.starts_with(b"\r\n") { 2 } else { 1 };
            rest = &tail[skip..];
            let line = std::mem::take(&mut self.line);
            if let Some(event) = self.line_ended(&line) {
                decoded.events.push(event);
            }
        }
        self.take(rest)?;
        Ok(decoded)
    }

    fn take(&mut self, bytes: &[u8]) -> Result<(), TooLong> {
        self.event_bytes += bytes.len();
        if self.event_bytes > self.max_event_bytes {
            return Err(TooLong {
                limit: self.max_event_bytes,
            });
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn line_ended(&mut self, line: &[u8]) -> Option<Event> {
        if line.is_empty() {
            return self.dispatch();
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.last_event_id = Some(value.to_owned()),
            "retry" => {
                if let Ok(ms) = value.parse() {
                    self.retry_ms = Some(ms);
                }
            }
            _ => {} // `event:`, comments and unknown fields
        }
        None
    }

    fn dispatch(&mut self) -> Option<Event> {
        self.event_bytes = 0;
        if !std::mem::take(&mut self.has_data) {
            return None;
        }
        let data = std::mem::take(&mut self.data);
        if data.trim().is_empty() {
            return None; // a priming event: an id and perhaps a retry
        }
        Some(Event {
            data,
            id: self.last_event_id.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(decoder: &mut Decoder, chunks: &[&str]) -> Vec<Event> {
        chunks
            .iter()
            .flat_map(|c| decoder.feed(c.as_bytes()).unwrap().events)
            .collect()
    }

    #[test]
    fn events_split_anywhere_are_joined() {
        let mut decoder = Decoder::new(1024);
        let events = all(
            &mut decoder,
            &[
                "event: message\nid: 7\nda",
                "ta: {\"a\":\ndata: 1}\n",
                "\ndata: {\"b\":2}\r\n\r\n",
            ],
        );
        assert_eq!(
            events,
            vec![
                Event {
                    data: "{\"a\":\n1}".into(),
                    id: Some("7".into())
                },
                Event {
                    data: "{\"b\":2}".into(),
                    id: Some("7".into())
                },
            ]
        );
    }

    #[test]
    fn a_priming_event_sets_id_and_retry_without_an_event() {
        let mut decoder = Decoder::new(1024);
        assert!(all(&mut decoder, &["id: event-1\nretry: 500\ndata: \n\n"]).is_empty());
        assert_eq!(decoder.last_event_id.as_deref(), Some("event-1"));
        assert_eq!(decoder.retry_ms, Some(500));
    }

    #[test]
    fn an_event_past_the_bound_is_refused() {
        let mut decoder = Decoder::new(16);
        assert!(decoder.feed(b"data: 0123456789").is_ok());
        assert_eq!(decoder.feed(b"abcdefgh"), Err(TooLong { limit: 16 }));
    }

    #[test]
    fn the_bound_is_per_event() {
        let mut decoder = Decoder::new(16);
        for _ in 0..100 {
            assert_eq!(decoder.feed(b"data: 12345\n\n").unwrap().events.len(), 1);
        }
    }
}
