//! `RequestStateSigner`: mints and verifies states under a binding policy.

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde::Serialize;

use super::keys::SigningKey;
use super::{
    Binding, BindingRequest, BoundArguments, Clock, KeyError, StateError, SystemClock, token,
};
use crate::receive_context::ReceiveContext;
use crate::schema::JsonObject;

/// The largest incoming state accepted: 16 KiB. Longer ones are refused
/// before any decoding, and minting refuses to produce one.
pub const MAX_STATE_BYTES: usize = 16 * 1024;

/// The lifetime of a state by default, in seconds: ten minutes.
const TTL_SECONDS: u64 = 600;

/// The default lifetime of a state, in seconds: ten minutes.
#[doc(hidden)]
#[deprecated(
    note = "the default (10 min) is stated on `RequestStateSigner::expires_after`, and `ttl()` returns a signer's lifetime as a `Duration`"
)]
pub const DEFAULT_TTL_SECONDS: u64 = TTL_SECONDS;

type Policy = dyn Fn(&BindingRequest<'_>, &ReceiveContext) -> Binding + Send + Sync;

/// Signs the `requestState` a handler hands out and verifies the one a
/// client echoes back.
///
/// A token carries a key id, an expiry and the payload, and is signed with
/// HMAC-SHA256 over all of them plus a *binding* that is not stored in it:
/// by default the authenticated subject, the method, the target (tool name,
/// prompt name or resource URI) and a digest of the arguments. A state
/// minted for one call therefore verifies for no other.
///
/// One key signs; any number of older keys still verify (selected by the
/// key id in the token), so a fleet can roll keys without failing retries.
/// [`Self::sealed`] encrypts payloads as well. Cloning is cheap.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::state::{Binding, RequestStateSigner};
///
/// let signer = RequestStateSigner::new([7u8; 32])?.expires_after(Duration::from_secs(300));
/// let bound = signer.bind_to(Binding::empty().with("alice").with("tools/call"));
/// let token = bound.sign(b"awaiting-confirmation")?;
/// assert_eq!(bound.verify(&token)?.payload(), b"awaiting-confirmation");
/// // Another binding: refused.
/// assert!(signer.bind_to(Binding::empty().with("mallory")).verify(&token).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct RequestStateSigner {
    config: Arc<Config>,
    bound: Bound,
    /// The time a signer bound to one request reads instead of the clock,
    /// so a request reads it once (see [`Self::bind_request`]).
    at: Option<u64>,
}

/// The binding a signer is bound to: computed, or computed when first
/// needed.
#[derive(Clone)]
enum Bound {
    Ready(Binding),
    /// A request's binding under the default policy, computed the first
    /// time the signer signs or verifies: most requests carry no state in
    /// and hand none out, and never pay for the arguments' digest.
    Later(Arc<Later>),
}

/// What [`RequestStateSigner::derive_binding`] reads of a request, kept
/// until the binding is first needed.
struct Later {
    binding: OnceLock<Binding>,
    /// The caller, the method and the target, one after the other: one
    /// allocation for the three (this is kept for every request).
    text: Box<str>,
    /// Where the method and the target start in `text`.
    method_at: usize,
    target_at: usize,
    arguments: LaterArguments,
}

enum LaterArguments {
    Object(JsonObject),
    Text(Box<str>),
}

impl Later {
    fn binding(&self) -> &Binding {
        self.binding.get_or_init(|| {
            let arguments = match &self.arguments {
                LaterArguments::Object(object) => BoundArguments::Object(object),
                LaterArguments::Text(text) => BoundArguments::Text(text),
            };
            let (subject, rest) = self.text.split_at(self.method_at);
            let (method, target) = rest.split_at(self.target_at - self.method_at);
            binding_of(subject, method, target, arguments)
        })
    }
}

impl Bound {
    fn get(&self) -> &Binding {
        match self {
            Self::Ready(binding) => binding,
            Self::Later(later) => later.binding(),
        }
    }
}

/// The default policy's binding (see [`RequestStateSigner::derive_binding`]).
fn binding_of(subject: &str, method: &str, target: &str, arguments: BoundArguments<'_>) -> Binding {
    Binding::empty()
        .with(subject)
        .with(method)
        .with(target)
        .with(arguments.digest())
}

#[derive(Clone)]
struct Config {
    signing: SigningKey,
    verifying: Vec<SigningKey>,
    ttl_seconds: u64,
    sealed: bool,
    clock: Arc<dyn Clock>,
    policy: Option<Arc<Policy>>,
}

/// A state that passed verification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedState {
    payload: Vec<u8>,
    expires_at: u64,
    key_id: Arc<str>,
    identity: token::Identity,
    fingerprint: OnceLock<[u8; 32]>,
}

impl VerifiedState {
    /// The payload the handler minted.
    pub fn payload(&self) -> &[u8] {
        &self.payload
    }

    /// Takes the payload.
    pub fn into_payload(self) -> Vec<u8> {
        self.payload
    }

    /// When the state expires (Unix seconds).
    pub fn expires_at(&self) -> u64 {
        self.expires_at
    }

    /// The id of the key that signed it.
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// A digest identifying this token (over its key id, nonce and tag):
    /// what a replay guard remembers.
    pub fn fingerprint(&self) -> &[u8; 32] {
        self.fingerprint
            .get_or_init(|| self.identity.fingerprint(&self.key_id))
    }
}

impl RequestStateSigner {
    /// A signer whose key comes from configuration. Refuses secrets under
    /// 32 bytes.
    pub fn new(secret: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        Ok(Self::with_keys(SigningKey::new(secret)?, []))
    }

    /// A signer with a random key: for a server whose states never outlive
    /// its process (a restart or another instance refuses them).
    pub fn generate() -> Result<Self, KeyError> {
        Ok(Self::with_keys(SigningKey::generate()?, []))
    }

    /// A signer that signs with `signing` and also verifies states signed
    /// by any of `verifying` (older keys during a rotation).
    pub fn with_keys(signing: SigningKey, verifying: impl IntoIterator<Item = SigningKey>) -> Self {
        let mut keys = vec![signing.clone()];
        for key in verifying {
            if keys.iter().all(|k| k.id() != key.id()) {
                keys.push(key);
            }
        }
        Self {
            config: Arc::new(Config {
                signing,
                verifying: keys,
                ttl_seconds: TTL_SECONDS,
                sealed: false,
                clock: Arc::new(SystemClock),
                policy: None,
            }),
            bound: Bound::Ready(Binding::empty()),
            at: None,
        }
    }

    fn configure(mut self, change: impl FnOnce(&mut Config)) -> Self {
        change(Arc::make_mut(&mut self.config));
        self
    }

    /// How long a minted state stays valid, counted from the arrival of
    /// the request that hands it out (default 10 min).
    ///
    /// A state's expiry is a whole second (Unix time), so `lifetime` is
    /// rounded up to whole seconds, and is at least one second:
    /// `Duration::from_millis(1500)` gives 2 s, `Duration::ZERO` 1 s.
    /// [`Self::ttl`] returns the lifetime as applied.
    pub fn expires_after(self, lifetime: Duration) -> Self {
        let seconds = lifetime
            .as_secs()
            .saturating_add(u64::from(lifetime.subsec_nanos() > 0))
            .max(1);
        self.configure(|c| c.ttl_seconds = seconds)
    }

    /// How long a minted state stays valid, in seconds (default 600); 0
    /// mints states that have already expired.
    #[deprecated(note = "use `expires_after(Duration::from_secs(seconds))`")]
    pub fn ttl_seconds(self, seconds: u64) -> Self {
        self.configure(|c| c.ttl_seconds = seconds)
    }

    /// Also accepts states signed by `key` (an older key being retired).
    pub fn verify_also(self, key: SigningKey) -> Self {
        self.configure(|c| {
            if c.verifying.iter().all(|k| k.id() != key.id()) {
                c.verifying.push(key);
            }
        })
    }

    /// Encrypts payloads (ChaCha20-Poly1305) instead of only signing them,
    /// for servers that must carry data the client may not read. Sealed and
    /// signed states both verify either way.
    pub fn sealed(self) -> Self {
        self.configure(|c| c.sealed = true)
    }

    /// The clock expiry is measured against (default: the system clock).
    pub fn with_clock(self, clock: Arc<dyn Clock>) -> Self {
        self.configure(|c| c.clock = clock)
    }

    /// Replaces the binding policy. [`Self::derive_binding`] is the default,
    /// so a policy can extend it:
    ///
    /// ```
    /// use mcp_runtime::state::RequestStateSigner;
    ///
    /// let signer = RequestStateSigner::new([1u8; 32])?.bind_by(|request, receive| {
    ///     let client = receive.caller.as_ref().and_then(|c| c.client_id.clone());
    ///     RequestStateSigner::derive_binding(request, receive).with(client.unwrap_or_default())
    /// });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bind_by<F>(self, policy: F) -> Self
    where
        F: Fn(&BindingRequest<'_>, &ReceiveContext) -> Binding + Send + Sync + 'static,
    {
        self.configure(|c| c.policy = Some(Arc::new(policy)))
    }

    /// The default policy: the authenticated subject (empty over stdio and
    /// on unauthenticated endpoints), the method, the target, and the
    /// SHA-256 of the arguments in canonical JSON.
    pub fn derive_binding(request: &BindingRequest<'_>, receive: &ReceiveContext) -> Binding {
        binding_of(
            receive.subject(),
            request.method,
            request.target,
            request.arguments,
        )
    }

    /// Applies the policy to a request.
    pub fn bind_for(&self, request: &BindingRequest<'_>, receive: &ReceiveContext) -> Binding {
        match &self.config.policy {
            Some(policy) => policy(request, receive),
            None => Self::derive_binding(request, receive),
        }
    }

    /// A signer bound to `binding`: [`Self::sign`] and [`Self::verify`] use it.
    pub fn bind_to(&self, binding: Binding) -> Self {
        Self {
            config: Arc::clone(&self.config),
            bound: Bound::Ready(binding),
            at: None,
        }
    }

    /// A signer bound to `request` (under the policy) whose clock stands at
    /// `now` (Unix seconds): what the server hands one request, so that the
    /// state it verifies and the one it signs are timed from the request's
    /// arrival, and the clock is read once.
    ///
    /// Under the default policy the binding waits until the signer first
    /// signs or verifies (`needed_at_once` computes it here): a request
    /// that neither echoes a state nor hands one out does not digest its
    /// arguments. A custom policy runs here.
    pub(crate) fn bind_request(
        &self,
        request: &BindingRequest<'_>,
        receive: &ReceiveContext,
        now: u64,
        needed_at_once: bool,
    ) -> Self {
        let bound = match &self.config.policy {
            Some(policy) => Bound::Ready(policy(request, receive)),
            None if needed_at_once => Bound::Ready(Self::derive_binding(request, receive)),
            None => Bound::Later(Arc::new(Later {
                binding: OnceLock::new(),
                text: [receive.subject(), request.method, request.target]
                    .concat()
                    .into_boxed_str(),
                method_at: receive.subject().len(),
                target_at: receive.subject().len() + request.method.len(),
                arguments: match request.arguments {
                    BoundArguments::Object(object) => LaterArguments::Object(object.clone()),
                    BoundArguments::Text(text) => LaterArguments::Text(text.into()),
                },
            })),
        };
        Self {
            config: Arc::clone(&self.config),
            bound,
            at: Some(now),
        }
    }

    /// The binding this signer is bound to (empty unless [`Self::bind_to`]).
    pub fn binding(&self) -> &Binding {
        self.bound.get()
    }

    /// The id of the key that signs.
    pub fn key_id(&self) -> &str {
        self.config.signing.id()
    }

    /// The lifetime of minted states (whole seconds; see
    /// [`Self::expires_after`]).
    pub fn ttl(&self) -> Duration {
        Duration::from_secs(self.config.ttl_seconds)
    }

    /// Mints a state carrying `payload` under the bound binding.
    pub fn sign(&self, payload: &[u8]) -> Result<String, StateError> {
        self.sign_with_binding(payload, self.bound.get())
    }

    /// Mints a state carrying `value` as JSON under the bound binding.
    pub fn sign_json<T: Serialize + ?Sized>(&self, value: &T) -> Result<String, StateError> {
        let payload = serde_json::to_vec(value).map_err(|e| StateError::Encoding(e.to_string()))?;
        self.sign(&payload)
    }

    /// Mints a state under an explicit binding (overrides the bound one).
    pub fn sign_with_binding(
        &self,
        payload: &[u8],
        binding: &Binding,
    ) -> Result<String, StateError> {
        let config = &self.config;
        let expiry = self.now().saturating_add(config.ttl_seconds);
        let token = if config.sealed {
            token::seal(&config.signing, expiry, binding, payload)?
        } else {
            token::sign(&config.signing, expiry, binding, payload)?
        };
        if token.len() > MAX_STATE_BYTES {
            return Err(StateError::TooLarge {
                len: token.len(),
                max: MAX_STATE_BYTES,
            });
        }
        Ok(token)
    }

    /// Verifies a state under the bound binding.
    pub fn verify(&self, state: &str) -> Result<VerifiedState, StateError> {
        self.verify_with_binding(state, self.bound.get())
    }

    /// Verifies a state under an explicit binding (overrides the bound one).
    ///
    /// Checks, in order: the size cap, the shape, the key id, the signature
    /// (constant time), then the expiry.
    pub fn verify_with_binding(
        &self,
        state: &str,
        binding: &Binding,
    ) -> Result<VerifiedState, StateError> {
        if state.len() > MAX_STATE_BYTES {
            return Err(StateError::TooLarge {
                len: state.len(),
                max: MAX_STATE_BYTES,
            });
        }
        let parsed = token::parse(state)?;
        let key = self
            .config
            .verifying
            .iter()
            .find(|k| k.id() == parsed.key_id)
            .ok_or_else(|| StateError::UnknownKey {
                key_id: parsed.key_id.to_owned(),
            })?;
        let opened = token::open(&parsed, key, binding)?;
        let now = self.now();
        if now >= opened.expiry {
            return Err(StateError::Expired {
                expired_at: opened.expiry,
                now,
            });
        }
        Ok(VerifiedState {
            payload: opened.payload,
            expires_at: opened.expiry,
            key_id: key.shared_id(),
            identity: opened.identity,
            fingerprint: OnceLock::new(),
        })
    }

    /// The current time on this signer's clock (Unix seconds); for the
    /// signer a handler's context holds, the time its request arrived.
    pub fn now(&self) -> u64 {
        self.at.unwrap_or_else(|| self.config.clock.now())
    }
}

impl fmt::Debug for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Ready(binding) => binding.fmt(f),
            Self::Later(later) => match later.binding.get() {
                Some(binding) => binding.fmt(f),
                None => f.write_str("(computed when first needed)"),
            },
        }
    }
}

impl fmt::Debug for RequestStateSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestStateSigner")
            .field("key_id", &self.config.signing.id())
            .field(
                "verifying",
                &self
                    .config
                    .verifying
                    .iter()
                    .map(SigningKey::id)
                    .collect::<Vec<_>>(),
            )
            .field("ttl", &self.ttl())
            .field("sealed", &self.config.sealed)
            .field("custom_policy", &self.config.policy.is_some())
            .field("bound", &self.bound)
            .field("at", &self.at)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::ManualClock;

    fn signer() -> RequestStateSigner {
        RequestStateSigner::new([3u8; 32]).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_lifetime_is_whole_seconds_rounded_up_and_at_least_one() {
        assert_eq!(signer().ttl(), Duration::from_secs(600));
        let cases = [
            (Duration::from_secs(300), 300),
            (Duration::from_millis(1500), 2),
            (Duration::from_nanos(1), 1),
            (Duration::ZERO, 1),
            (Duration::MAX, u64::MAX),
        ];
        for (lifetime, seconds) in cases {
            assert_eq!(
                signer().expires_after(lifetime).ttl(),
                Duration::from_secs(seconds),
                "{lifetime:?}"
            );
        }
    }

    #[test]
    fn a_state_expires_after_its_lifetime() {
        let clock = Arc::new(ManualClock::at(1_000));
        let signer = signer()
            .expires_after(Duration::from_millis(2500))
            .with_clock(clock.clone());
        let token = signer.sign(b"x").unwrap_or_else(|e| panic!("{e}"));
        let verified = signer.verify(&token).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(verified.expires_at(), 1_003);
        clock.set(1_003);
        assert!(matches!(
            signer.verify(&token),
            Err(StateError::Expired { .. })
        ));
    }

    #[test]
    fn a_binding_taken_when_first_needed_is_the_binding_taken_at_once() {
        use crate::receive_context::TransportKind;
        let mut receive = ReceiveContext::new(TransportKind::Http);
        // A caller too: the binding kept for later holds the caller, the
        // method and the target in one text, and must split it back.
        receive.caller = Some(Arc::new(crate::auth::Caller::new("user-7")));
        let arguments = r#"{"b": [1, 2], "a": "x"}"#;
        let request = |arguments| BindingRequest {
            method: "tools/call",
            target: "deploy",
            arguments: BoundArguments::Text(arguments),
        };
        let signer = signer();
        let later = signer.bind_request(&request(arguments), &receive, 1_000, false);
        let at_once = signer.bind_request(&request(arguments), &receive, 1_000, true);
        assert!(matches!(later.bound, Bound::Later(_)));
        assert!(matches!(at_once.bound, Bound::Ready(_)));
        assert!(format!("{later:?}").contains("computed when first needed"));
        // Each verifies what the other signed, and nothing bound elsewhere.
        let token = later.sign(b"p").unwrap_or_else(|e| panic!("{e}"));
        assert!(at_once.verify(&token).is_ok());
        let token = at_once.sign(b"p").unwrap_or_else(|e| panic!("{e}"));
        assert!(later.verify(&token).is_ok());
        let other = signer.bind_request(&request(r#"{"a": "y"}"#), &receive, 1_000, false);
        assert!(other.verify(&token).is_err());
        assert_eq!(
            later.binding(),
            &RequestStateSigner::derive_binding(&request(arguments), &receive)
        );
    }
}
