//! The token format.
//!
//! Signed (the default):
//! `v1.<key id>.<b64url(expiry_be64 || nonce || payload)>.<b64url(hmac_sha256)>`
//!
//! Sealed (opt-in, the payload is encrypted with ChaCha20-Poly1305):
//! `v1e.<key id>.<b64url(expiry_be64 || nonce || ciphertext_and_tag)>`
//!
//! The MAC (or the AEAD's associated data) covers a length-prefixed framing
//! of a domain label, the version, the key id, the expiry, the binding and
//! (for the MAC) the payload, so no field can be moved into another.
//! Base64url is unpadded and strictly canonical (non-zero trailing bits and
//! padding are refused), encoded and decoded with SIMD where the CPU has it.
//!
//! Both forms carry a random 96-bit nonce, so two states minted for the same
//! binding, payload and second still differ: a replay guard that has seen
//! one round's state never mistakes the next round's for it.

use base64_simd::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, Payload};
use chacha20poly1305::{ChaCha20Poly1305, KeyInit};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use super::keys::{SigningKey, valid_key_id};
use super::{Binding, StateError};

const DOMAIN: &[u8] = b"mcp-runtime/request-state";
pub(crate) const SIGNED: &str = "v1";
pub(crate) const SEALED: &str = "v1e";
const TAG_LEN: usize = 32;
const NONCE_LEN: usize = 12;
const SEAL_TAG_LEN: usize = 16;
/// Base64url characters of a 32-byte tag, unpadded.
const TAG_CHARS: usize = 43;

/// A token split into its parts, not yet verified. A sealed token has no
/// separate tag (the AEAD carries it).
pub(crate) struct Parsed<'a> {
    pub(crate) key_id: &'a str,
    body: &'a str,
    tag: Option<&'a str>,
}

/// `s` up to its first dot, and what follows that dot, if there is one.
/// A plain scan: the parts are short, too short for `memchr` to pay.
fn split(s: &str) -> (&str, Option<&str>) {
    match s.bytes().position(|b| b == b'.') {
        Some(dot) => (&s[..dot], s.get(dot + 1..)),
        None => (s, None),
    }
}

pub(crate) fn parse(token: &str) -> Result<Parsed<'_>, StateError> {
    let (version, rest) = split(token);
    let sealed = match version {
        SIGNED => false,
        SEALED => true,
        _ => return Err(StateError::UnsupportedVersion),
    };
    let (key_id, rest) = split(rest.ok_or(StateError::Malformed("no key id"))?);
    if !valid_key_id(key_id) {
        return Err(StateError::Malformed("invalid key id"));
    }
    let rest = rest.ok_or(StateError::Malformed("no body"))?;
    let (body, tag) = if sealed {
        (rest, None)
    } else {
        // The tag is the last part: a fixed number of characters.
        let tag_at = rest
            .len()
            .checked_sub(TAG_CHARS)
            .filter(|&at| at > 0 && rest.as_bytes()[at - 1] == b'.')
            .ok_or(StateError::Malformed("no signature"))?;
        (&rest[..tag_at - 1], Some(&rest[tag_at..]))
    };
    // A dot left in the body or the tag (a token of too many parts) is not
    // base64url: decoding them refuses it.
    Ok(Parsed { key_id, body, tag })
}

/// Signs `payload` into a token.
pub(crate) fn sign(
    key: &SigningKey,
    expiry: u64,
    binding: &Binding,
    payload: &[u8],
) -> Result<String, StateError> {
    let exp = expiry.to_be_bytes();
    // expiry || nonce || payload, on the stack unless the payload is large.
    let len = 8 + NONCE_LEN + payload.len();
    let mut on_stack = [0u8; 128];
    let mut on_heap = Vec::new();
    let body: &mut [u8] = match on_stack.get_mut(..len) {
        Some(body) => body,
        None => {
            on_heap.resize(len, 0);
            &mut on_heap
        }
    };
    body[..8].copy_from_slice(&exp);
    body[8..8 + NONCE_LEN].copy_from_slice(&unique_nonce()?);
    body[8 + NONCE_LEN..].copy_from_slice(payload);
    let body = &*body;
    // The MAC covers the nonce with the payload (fixed length: unambiguous).
    let tag = mac(key, &exp, binding, &body[8..]).finalize().into_bytes();
    let mut token = String::with_capacity(8 + key.id().len() + (body.len() + TAG_LEN) * 4 / 3 + 4);
    token.push_str(SIGNED);
    token.push('.');
    token.push_str(key.id());
    token.push('.');
    URL_SAFE_NO_PAD.encode_append(body, &mut token);
    token.push('.');
    URL_SAFE_NO_PAD.encode_append(tag, &mut token);
    Ok(token)
}

/// A nonce for a signed token, unique within this process and, with
/// overwhelming probability, across processes: a random 96-bit starting
/// point drawn once, then a counter. Signed tokens need uniqueness (so two
/// identical states remain two single-use claims), not secrecy: the MAC
/// covers the nonce. It saves a system call per token; sealed tokens, whose
/// cipher must never see a nonce twice, still draw each one from the OS.
fn unique_nonce() -> Result<[u8; NONCE_LEN], StateError> {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};

    struct Sequence {
        prefix: [u8; 4],
        next: AtomicU64,
    }
    static SEQUENCE: OnceLock<Sequence> = OnceLock::new();
    let sequence = match SEQUENCE.get() {
        Some(sequence) => sequence,
        None => {
            let seed = nonce()?;
            let mut prefix = [0u8; 4];
            let mut start = [0u8; 8];
            prefix.copy_from_slice(&seed[..4]);
            start.copy_from_slice(&seed[4..]);
            SEQUENCE.get_or_init(|| Sequence {
                prefix,
                next: AtomicU64::new(u64::from_be_bytes(start)),
            })
        }
    };
    let count = sequence.next.fetch_add(1, Ordering::Relaxed);
    let mut nonce = [0u8; NONCE_LEN];
    nonce[..4].copy_from_slice(&sequence.prefix);
    nonce[4..].copy_from_slice(&count.to_be_bytes());
    Ok(nonce)
}

/// A nonce drawn from the operating system's random source.
fn nonce() -> Result<[u8; NONCE_LEN], StateError> {
    let mut nonce = [0u8; NONCE_LEN];
    getrandom::fill(&mut nonce).map_err(|e| StateError::Encoding(e.to_string()))?;
    Ok(nonce)
}

/// Seals `payload` into a token.
pub(crate) fn seal(
    key: &SigningKey,
    expiry: u64,
    binding: &Binding,
    payload: &[u8],
) -> Result<String, StateError> {
    let exp = expiry.to_be_bytes();
    let nonce = nonce()?;
    let aad = associated_data(SEALED, key.id(), &exp, binding);
    let ciphertext = cipher(key)
        .encrypt(
            &nonce.into(),
            Payload {
                msg: payload,
                aad: &aad,
            },
        )
        .map_err(|_| StateError::Encoding("encryption failed".to_owned()))?;
    let mut body = Vec::with_capacity(8 + NONCE_LEN + ciphertext.len());
    body.extend_from_slice(&exp);
    body.extend_from_slice(&nonce);
    body.extend_from_slice(&ciphertext);
    let mut token = format!("{SEALED}.{}.", key.id());
    URL_SAFE_NO_PAD.encode_append(&body, &mut token);
    Ok(token)
}

/// A token whose signature or seal checked out (expiry not yet checked).
pub(crate) struct Opened {
    pub(crate) expiry: u64,
    pub(crate) payload: Vec<u8>,
    /// What identifies the token: its nonce and tag (two tokens sharing a
    /// tag would be a forgery).
    pub(crate) identity: Identity,
}

/// The nonce and authentication tag of a verified token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Identity {
    sealed: bool,
    nonce: [u8; NONCE_LEN],
    tag: [u8; TAG_LEN],
}

impl Identity {
    /// SHA-256 over the format, key id, nonce and tag.
    pub(crate) fn fingerprint(&self, key_id: &str) -> [u8; 32] {
        Sha256::new()
            .chain_update(if self.sealed { SEALED } else { SIGNED })
            .chain_update([0])
            .chain_update(key_id)
            .chain_update([0])
            .chain_update(self.nonce)
            .chain_update(self.tag)
            .finalize()
            .into()
    }
}

/// Checks the signature or opens the seal. Expiry is not checked here.
pub(crate) fn open(
    parsed: &Parsed<'_>,
    key: &SigningKey,
    binding: &Binding,
) -> Result<Opened, StateError> {
    let mut body = decode(parsed.body)?;
    if body.len() < 8 + NONCE_LEN {
        return Err(StateError::Malformed("body too short"));
    }
    let mut exp_bytes = [0u8; 8];
    exp_bytes.copy_from_slice(&body[..8]);
    let expiry = u64::from_be_bytes(exp_bytes);
    let mut nonce = [0u8; NONCE_LEN];
    nonce.copy_from_slice(&body[8..8 + NONCE_LEN]);
    let mut tag_bytes = [0u8; TAG_LEN];
    let payload = match parsed.tag {
        Some(tag) => {
            if tag.len() != TAG_CHARS {
                return Err(StateError::Malformed("signature has the wrong length"));
            }
            URL_SAFE_NO_PAD
                .decode(tag.as_bytes(), base64_simd::Out::from_slice(&mut tag_bytes))
                .map_err(|_| StateError::Malformed("not canonical base64url"))?;
            mac(key, &exp_bytes, binding, &body[8..])
                .verify_slice(&tag_bytes)
                .map_err(|_| StateError::BadSignature)?;
            body.drain(..8 + NONCE_LEN);
            body
        }
        None => {
            let ciphertext = &body[8 + NONCE_LEN..];
            if ciphertext.len() < SEAL_TAG_LEN {
                return Err(StateError::Malformed("sealed body too short"));
            }
            tag_bytes[..SEAL_TAG_LEN]
                .copy_from_slice(&ciphertext[ciphertext.len() - SEAL_TAG_LEN..]);
            let aad = associated_data(SEALED, parsed.key_id, &exp_bytes, binding);
            cipher(key)
                .decrypt(
                    &nonce.into(),
                    Payload {
                        msg: ciphertext,
                        aad: &aad,
                    },
                )
                .map_err(|_| StateError::BadSignature)?
        }
    };
    Ok(Opened {
        expiry,
        payload,
        identity: Identity {
            sealed: parsed.tag.is_none(),
            nonce,
            tag: tag_bytes,
        },
    })
}

fn decode(part: &str) -> Result<Vec<u8>, StateError> {
    URL_SAFE_NO_PAD
        .decode_to_vec(part)
        .map_err(|_| StateError::Malformed("not canonical base64url"))
}

fn cipher(key: &SigningKey) -> ChaCha20Poly1305 {
    ChaCha20Poly1305::new(&key.seal_key.into())
}

fn framed(mac: &mut Hmac<Sha256>, part: &[u8]) {
    mac.update(&(part.len() as u64).to_be_bytes());
    mac.update(part);
}

/// A key's MAC with the constant head of a signed token's framing absorbed:
/// the domain label, the format version and the key id.
pub(crate) fn signed_head(mut mac: Hmac<Sha256>, key_id: &str) -> Hmac<Sha256> {
    framed(&mut mac, DOMAIN);
    framed(&mut mac, SIGNED.as_bytes());
    framed(&mut mac, key_id.as_bytes());
    mac
}

/// The MAC of a signed token: over the framed domain, version, key id
/// (absorbed once per key), expiry, binding and payload.
fn mac(key: &SigningKey, exp: &[u8; 8], binding: &Binding, payload: &[u8]) -> Hmac<Sha256> {
    let mut mac = key.signed_mac.clone();
    framed(&mut mac, exp);
    framed(&mut mac, binding.as_bytes());
    framed(&mut mac, payload);
    mac
}

fn associated_data(version: &str, key_id: &str, exp: &[u8; 8], binding: &Binding) -> Vec<u8> {
    let mut out = Vec::new();
    for part in [
        DOMAIN,
        version.as_bytes(),
        key_id.as_bytes(),
        exp,
        binding.as_bytes(),
    ] {
        out.extend_from_slice(&(part.len() as u64).to_be_bytes());
        out.extend_from_slice(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// HMAC-SHA256 over `parts`, each framed by its big-endian u64 length.
    fn framed_mac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
        let mut mac = <Hmac<Sha256> as hmac::KeyInit>::new_from_slice(key).unwrap();
        for part in parts {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        mac.finalize().into_bytes().into()
    }

    /// The signed format, recomputed here from its description: instances
    /// of different builds in one fleet must mint and accept the same tokens.
    #[test]
    fn a_signed_token_is_the_documented_format() {
        let secret = [7u8; 32];
        let key = SigningKey::with_id("pinned", secret).unwrap();
        let binding = Binding::empty().with("alice").with("tools/call");
        let payload = br#"{"step":1}"#;
        let token = sign(&key, 1_900_000_000, &binding, payload).unwrap();

        let parts: Vec<&str> = token.split('.').collect();
        assert_eq!(&parts[..2], ["v1", "pinned"]);
        let body = URL_SAFE_NO_PAD.decode_to_vec(parts[2]).unwrap();
        let tag = URL_SAFE_NO_PAD.decode_to_vec(parts[3]).unwrap();
        assert_eq!(&body[..8], &1_900_000_000u64.to_be_bytes());
        assert_eq!(&body[8 + NONCE_LEN..], payload);

        // The MAC sub-key: HMAC-SHA256(secret, "mcp-runtime/request-state/mac").
        let mut sub = <Hmac<Sha256> as hmac::KeyInit>::new_from_slice(&secret).unwrap();
        sub.update(b"mcp-runtime/request-state/mac");
        let sub: [u8; 32] = sub.finalize().into_bytes().into();
        let expected = framed_mac(
            &sub,
            &[
                b"mcp-runtime/request-state",
                b"v1",
                b"pinned",
                &body[..8],
                binding.as_bytes(),
                &body[8..],
            ],
        );
        assert_eq!(tag, expected);
        let parsed = parse(&token).unwrap();
        assert_eq!(open(&parsed, &key, &binding).unwrap().payload, payload);
    }

    #[test]
    fn a_token_of_too_many_or_too_few_parts_is_refused() {
        let key = SigningKey::with_id("k", [5u8; 32]).unwrap();
        let binding = Binding::empty();
        let token = sign(&key, u64::MAX, &binding, b"p").unwrap();
        let (head, tag) = token.rsplit_once('.').unwrap();
        let broken = [
            format!("{token}.x"),
            format!("{head}.x.{tag}"),
            format!("{head}{tag}"),
            head.to_owned(),
            "v1.k".to_owned(),
            "v1".to_owned(),
            format!("{head}.{tag}x"),
        ];
        for bad in broken {
            let refused = parse(&bad).and_then(|parsed| open(&parsed, &key, &binding).map(|_| ()));
            assert!(refused.is_err(), "{bad}");
        }
        assert!(open(&parse(&token).unwrap(), &key, &binding).is_ok());
    }

    /// The server writes tokens into JSON without escaping them.
    #[test]
    fn tokens_need_no_escaping_in_json() {
        let key = SigningKey::new([3u8; 32]).unwrap();
        let binding = Binding::empty().with("x");
        for payload in [&b""[..], b"\"\\\n\x00", &[0xffu8; 300]] {
            for token in [
                sign(&key, 1, &binding, payload).unwrap(),
                seal(&key, 1, &binding, payload).unwrap(),
            ] {
                assert!(
                    token
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')),
                    "{token}"
                );
            }
        }
    }
}
