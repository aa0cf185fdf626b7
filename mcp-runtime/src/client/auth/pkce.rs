//! PKCE with S256 (RFC 7636) and the random `state`.

use base64::Engine as _;
use sha2::{Digest, Sha256};

use super::AuthError;

/// A PKCE verifier and its S256 challenge.
pub(crate) struct Pkce {
    /// `code_verifier`: 43 characters of base64url (32 random bytes).
    pub(crate) verifier: String,
    /// `code_challenge`: base64url(SHA-256(verifier)).
    pub(crate) challenge: String,
}

impl Pkce {
    /// A fresh verifier and its challenge.
    pub(crate) fn new() -> Result<Self, AuthError> {
        let verifier = random_token()?;
        let challenge = challenge_of(&verifier);
        Ok(Self {
            verifier,
            challenge,
        })
    }
}

/// The S256 challenge of `verifier`.
pub(crate) fn challenge_of(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// 32 random bytes, base64url: a `state`, a verifier, a `jti`.
pub(crate) fn random_token() -> Result<String, AuthError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| AuthError::Internal(format!("no randomness: {e}")))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_is_base64url_sha256() {
        // Computed independently (Python hashlib + urlsafe_b64encode).
        assert_eq!(
            challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r7wW1gFWFOEjXk"),
            "bwWFMyPfdG9qreDhH2lmftFx_dFeLDalzcT1gb_j68g"
        );
    }

    #[test]
    fn verifiers_are_fresh_and_long_enough() -> Result<(), AuthError> {
        let a = Pkce::new()?;
        let b = Pkce::new()?;
        assert_ne!(a.verifier, b.verifier);
        assert_eq!(a.verifier.len(), 43);
        assert_eq!(a.challenge, challenge_of(&a.verifier));
        Ok(())
    }
}
