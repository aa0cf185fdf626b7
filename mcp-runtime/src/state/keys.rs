//! Signing keys: a key id and the sub-keys derived from one secret.

use std::fmt;

use base64_simd::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use zeroize::Zeroize;

use super::KeyError;

/// The shortest secret accepted: 32 bytes (256 bits).
pub const MIN_SECRET_BYTES: usize = 32;

/// One key of a key ring: an id that travels in every token it signs, and
/// the HMAC and AEAD sub-keys derived from the secret. The secret itself is
/// not kept; the derived keys are wiped on drop.
#[derive(Clone)]
pub struct SigningKey {
    /// Shared, so a verified state can name its key without a copy.
    id: std::sync::Arc<str>,
    /// HMAC-SHA256 keyed with the MAC sub-key, with the constant head of
    /// every signed token's framing (domain, format version, this key's
    /// id) already absorbed: cloning it skips the key schedule and those
    /// updates on every sign and verify.
    pub(crate) signed_mac: Hmac<Sha256>,
    pub(crate) seal_key: [u8; 32],
}

impl SigningKey {
    /// A key from a configured secret of at least 32 bytes. Its id is
    /// derived from the secret, so every instance given the same secret
    /// names it the same way.
    pub fn new(secret: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        let secret = secret.as_ref();
        check_secret(secret)?;
        let fingerprint = Sha256::new()
            .chain_update(b"mcp-runtime/request-state/key-id")
            .chain_update(secret)
            .finalize();
        let id = URL_SAFE_NO_PAD.encode_to_string(&fingerprint[..6]);
        Ok(Self::derive(id, secret))
    }

    /// A key with an explicit id (1 to 32 characters of `A-Z a-z 0-9 _ -`).
    pub fn with_id(id: impl Into<String>, secret: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        let id = id.into();
        if !valid_key_id(&id) {
            return Err(KeyError(format!(
                "key id {id:?} must be 1 to 32 characters of A-Z, a-z, 0-9, `_`, `-`"
            )));
        }
        let secret = secret.as_ref();
        check_secret(secret)?;
        Ok(Self::derive(id, secret))
    }

    /// A key from 32 random bytes, for states that never outlive this process.
    pub fn generate() -> Result<Self, KeyError> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret)
            .map_err(|e| KeyError(format!("the operating system's random source failed: {e}")))?;
        let key = Self::new(secret);
        secret.zeroize();
        key
    }

    /// The key id that tokens signed with this key carry.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The key id, shared.
    pub(crate) fn shared_id(&self) -> std::sync::Arc<str> {
        std::sync::Arc::clone(&self.id)
    }

    fn derive(id: String, secret: &[u8]) -> Self {
        let mut mac_key = subkey(secret, b"mac");
        let mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&mac_key)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac_key.zeroize();
        Self {
            signed_mac: super::token::signed_head(mac, &id),
            seal_key: subkey(secret, b"seal"),
            id: id.into(),
        }
    }
}

impl Drop for SigningKey {
    fn drop(&mut self) {
        // The keyed HMAC state wipes itself (hmac's `zeroize` feature).
        self.seal_key.zeroize();
    }
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

fn check_secret(secret: &[u8]) -> Result<(), KeyError> {
    if secret.len() < MIN_SECRET_BYTES {
        return Err(KeyError(format!(
            "a request-state secret needs at least {MIN_SECRET_BYTES} bytes, got {}",
            secret.len()
        )));
    }
    Ok(())
}

pub(crate) fn valid_key_id(id: &str) -> bool {
    (1..=32).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// HMAC-SHA256(secret, "mcp-runtime/request-state/" || purpose).
fn subkey(secret: &[u8], purpose: &[u8]) -> [u8; 32] {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(b"mcp-runtime/request-state/");
    mac.update(purpose);
    mac.finalize().into_bytes().into()
}
