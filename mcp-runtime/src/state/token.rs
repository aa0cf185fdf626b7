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
//! Base64url is unpadded and strictly canonical.
//!
//! Both forms carry a random 96-bit nonce, so two states minted for the same
//! binding, payload and second still differ: a replay guard that has seen
//! one round's state never mistakes the next round's for it.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::ChaCha20Poly1305;
use chacha20poly1305::aead::{Aead, Payload};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use super::keys::{SigningKey, valid_key_id};
use super::{Binding, StateError};

const DOMAIN: &[u8] = b"mcp-runtime/request-state";
pub(crate) const SIGNED: &str = "v1";
pub(crate) const SEALED: &str = "v1e";
const TAG_LEN: usize = 32;
const NONCE_LEN: usize = 12;

/// A token split into its parts, not yet verified. A sealed token has no
/// separate tag (the AEAD carries it).
pub(crate) struct Parsed<'a> {
    pub(crate) key_id: &'a str,
    body: &'a str,
    tag: Option<&'a str>,
}

pub(crate) fn parse(token: &str) -> Result<Parsed<'_>, StateError> {
    let mut parts = token.split('.');
    let version = parts.next().unwrap_or_default();
    let sealed = match version {
        SIGNED => false,
        SEALED => true,
        _ => return Err(StateError::UnsupportedVersion),
    };
    let key_id = parts.next().ok_or(StateError::Malformed("no key id"))?;
    if !valid_key_id(key_id) {
        return Err(StateError::Malformed("invalid key id"));
    }
    let body = parts.next().ok_or(StateError::Malformed("no body"))?;
    let tag = if sealed {
        None
    } else {
        Some(parts.next().ok_or(StateError::Malformed("no signature"))?)
    };
    if parts.next().is_some() {
        return Err(StateError::Malformed("too many parts"));
    }
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
    let mut body = Vec::with_capacity(8 + NONCE_LEN + payload.len());
    body.extend_from_slice(&exp);
    body.extend_from_slice(&nonce()?);
    body.extend_from_slice(payload);
    // The MAC covers the nonce with the payload (fixed length: unambiguous).
    let tag = mac(key, SIGNED, &exp, binding, &body[8..])
        .finalize()
        .into_bytes();
    let mut token = String::with_capacity(8 + key.id().len() + (body.len() + TAG_LEN) * 4 / 3 + 4);
    token.push_str(SIGNED);
    token.push('.');
    token.push_str(key.id());
    token.push('.');
    URL_SAFE_NO_PAD.encode_string(&body, &mut token);
    token.push('.');
    URL_SAFE_NO_PAD.encode_string(tag, &mut token);
    Ok(token)
}

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
    URL_SAFE_NO_PAD.encode_string(&body, &mut token);
    Ok(token)
}

/// Checks the signature or opens the seal; returns the expiry and payload.
/// Expiry is not checked here.
pub(crate) fn open(
    parsed: &Parsed<'_>,
    key: &SigningKey,
    binding: &Binding,
) -> Result<(u64, Vec<u8>), StateError> {
    let body = decode(parsed.body)?;
    if body.len() < 8 {
        return Err(StateError::Malformed("body too short"));
    }
    let (exp, rest) = body.split_at(8);
    let mut exp_bytes = [0u8; 8];
    exp_bytes.copy_from_slice(exp);
    let expiry = u64::from_be_bytes(exp_bytes);
    match parsed.tag {
        Some(tag) => {
            let tag = decode(tag)?;
            if tag.len() != TAG_LEN {
                return Err(StateError::Malformed("signature has the wrong length"));
            }
            if rest.len() < NONCE_LEN {
                return Err(StateError::Malformed("body too short"));
            }
            mac(key, SIGNED, &exp_bytes, binding, rest)
                .verify_slice(&tag)
                .map_err(|_| StateError::BadSignature)?;
            Ok((expiry, rest[NONCE_LEN..].to_vec()))
        }
        None => {
            if rest.len() < NONCE_LEN + 16 {
                return Err(StateError::Malformed("sealed body too short"));
            }
            let (nonce, ciphertext) = rest.split_at(NONCE_LEN);
            let mut nonce_bytes = [0u8; NONCE_LEN];
            nonce_bytes.copy_from_slice(nonce);
            let aad = associated_data(SEALED, parsed.key_id, &exp_bytes, binding);
            let payload = cipher(key)
                .decrypt(
                    &nonce_bytes.into(),
                    Payload {
                        msg: ciphertext,
                        aad: &aad,
                    },
                )
                .map_err(|_| StateError::BadSignature)?;
            Ok((expiry, payload))
        }
    }
}

fn decode(part: &str) -> Result<Vec<u8>, StateError> {
    URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| StateError::Malformed("not canonical base64url"))
}

fn cipher(key: &SigningKey) -> ChaCha20Poly1305 {
    ChaCha20Poly1305::new(&key.seal_key.into())
}

fn framed(mac: &mut Hmac<Sha256>, part: &[u8]) {
    mac.update(&(part.len() as u64).to_be_bytes());
    mac.update(part);
}

fn mac(
    key: &SigningKey,
    version: &str,
    exp: &[u8; 8],
    binding: &Binding,
    payload: &[u8],
) -> Hmac<Sha256> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&key.mac_key)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    framed(&mut mac, DOMAIN);
    framed(&mut mac, version.as_bytes());
    framed(&mut mac, key.id().as_bytes());
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
