//! Properties of `requestState` tokens: tampering, binding, key order of
//! arguments, expiry, keys and rotation, single use, the size cap, and
//! robustness against arbitrary input. Time comes from a `ManualClock`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_runtime::schema::JsonObject;
use mcp_runtime::server::Caller;
use mcp_runtime::state::{
    Binding, BindingRequest, BoundArguments, InMemoryReplayGuard, MAX_STATE_BYTES, ManualClock,
    ReplayError, ReplayGuard, RequestStateSigner, SigningKey, StateError, arguments_digest,
};
use mcp_runtime::transport::{ReceiveContext, TransportKind};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::Value;

/// A fixed "now" for every signer built here.
const NOW: u64 = 1_750_000_000;

fn signer(seed: u8, sealed: bool) -> RequestStateSigner {
    let signer = RequestStateSigner::new([seed; 32])
        .unwrap()
        .with_clock(ManualClock::at(NOW));
    if sealed { signer.sealed() } else { signer }
}

/// The default binding policy, for a caller authenticated as `subject`.
fn binding(subject: &str, method: &str, target: &str, arguments: &JsonObject) -> Binding {
    let mut receive = ReceiveContext::new(TransportKind::Http);
    receive.caller = Some(Arc::new(Caller::new(subject)));
    RequestStateSigner::derive_binding(
        &BindingRequest {
            method,
            target,
            arguments: arguments.into(),
        },
        &receive,
    )
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
    ]
}

/// Any JSON value: scalars (floats included) and nested arrays and
/// objects.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        json_leaf(),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::from),
            proptest::collection::btree_map("\\PC{0,4}", inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn arguments() -> impl Strategy<Value = JsonObject> {
    proptest::collection::btree_map("[a-z]{1,6}", json_leaf(), 0..4)
        .prop_map(|map| map.into_iter().collect())
}

/// A JSON object as a list of entries, so one tree can be inserted in
/// several orders. Keys are unique at every level.
#[derive(Debug, Clone)]
enum Tree {
    Leaf(Value),
    Node(Vec<(String, Tree)>),
}

fn unique(mut entries: Vec<(String, Tree)>) -> Vec<(String, Tree)> {
    let mut seen = std::collections::HashSet::new();
    entries.retain(|(key, _)| seen.insert(key.clone()));
    entries
}

fn entries() -> impl Strategy<Value = Vec<(String, Tree)>> {
    let tree = json_leaf()
        .prop_map(Tree::Leaf)
        .prop_recursive(3, 32, 4, |inner| {
            vec(("[a-e]{1,3}", inner), 0..5).prop_map(|e| Tree::Node(unique(e)))
        });
    vec(("[a-e]{1,3}", tree), 0..6).prop_map(unique)
}

fn build(entries: &[(String, Tree)], reversed: bool) -> JsonObject {
    let mut object = JsonObject::new();
    let mut insert = |(key, tree): &(String, Tree)| {
        let value = match tree {
            Tree::Leaf(value) => value.clone(),
            Tree::Node(children) => Value::Object(build(children, reversed)),
        };
        object.insert(key.clone(), value);
    };
    if reversed {
        entries.iter().rev().for_each(&mut insert);
    } else {
        entries.iter().for_each(&mut insert);
    }
    object
}

/// `value` as JSON with every object's members in reverse order, each
/// key written twice: first with `null`, then with its value (the last of
/// a repeated key counts).
fn written_backwards(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let members: Vec<String> = map
                .iter()
                .rev()
                .map(|(key, value)| {
                    let key = Value::from(key.as_str());
                    format!("{key}:null, {key}:{}", written_backwards(value))
                })
                .collect();
            format!("{{{}}}", members.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(written_backwards).collect();
            format!("[{}]", items.join(","))
        }
        scalar => scalar.to_string(),
    }
}

/// A replacement for one byte of an ASCII token: any ASCII byte, or any
/// character (a lone byte of 0x80 and above is not a string).
fn replacement() -> impl Strategy<Value = char> {
    prop_oneof![(0u8..0x80).prop_map(char::from), any::<char>()]
}

fn suffix() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Za-z0-9_-]{1,16}",
        "[.=A-Za-z0-9_-]{1,16}",
        "\\PC{1,8}",
        vec(any::<char>(), 1..8).prop_map(|c| c.into_iter().collect()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The digest a tool call's arguments get from their text (what the
    /// server binds, without a tree) is the digest of the tree read from
    /// that text (what it bound before), however the text is written.
    #[test]
    fn the_digest_of_any_text_is_the_digest_of_its_tree(
        value in json_value(),
        extra in proptest::collection::btree_map("[a-z]{1,3}", json_value(), 0..4),
        pretty in any::<bool>(),
    ) {
        let mut object: JsonObject = extra.into_iter().collect();
        object.insert("v".to_owned(), value);
        let text = match pretty {
            true => serde_json::to_string_pretty(&object).unwrap(),
            false => serde_json::to_string(&object).unwrap(),
        };
        let read: JsonObject = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(BoundArguments::Text(&text).digest(), arguments_digest(&read));
        // Every object's keys backwards, each first with a value that the
        // repeated key then replaces: the same tree, the same digest.
        let backwards = written_backwards(&Value::Object(object));
        let read: JsonObject = serde_json::from_str(&backwards).unwrap();
        prop_assert_eq!(BoundArguments::Text(&backwards).digest(), arguments_digest(&read));
    }

    #[test]
    fn any_changed_byte_is_refused(
        sealed in any::<bool>(),
        payload in vec(any::<u8>(), 0..48),
        index in any::<Index>(),
        with in replacement(),
    ) {
        let signer = signer(1, sealed);
        let token = signer.sign(&payload).unwrap();
        prop_assert!(token.is_ascii());
        prop_assert_eq!(signer.verify(&token).unwrap().into_payload(), payload.clone());
        let i = index.index(token.len());
        prop_assume!(char::from(token.as_bytes()[i]) != with);
        let mut mutated = token.clone();
        mutated.replace_range(i..=i, with.encode_utf8(&mut [0; 4]));
        prop_assert!(signer.verify(&mutated).is_err(), "{} verified", mutated);
    }

    #[test]
    fn any_dropped_byte_is_refused(
        sealed in any::<bool>(),
        payload in vec(any::<u8>(), 0..48),
        index in any::<Index>(),
    ) {
        let signer = signer(2, sealed);
        let token = signer.sign(&payload).unwrap();
        let mut mutated = token.clone();
        mutated.remove(index.index(token.len()));
        prop_assert!(signer.verify(&mutated).is_err(), "{} verified", mutated);
    }

    #[test]
    fn any_appended_bytes_are_refused(
        sealed in any::<bool>(),
        payload in vec(any::<u8>(), 0..48),
        tail in suffix(),
    ) {
        let signer = signer(3, sealed);
        let token = signer.sign(&payload).unwrap();
        let mutated = format!("{token}{tail}");
        prop_assert!(signer.verify(&mutated).is_err(), "{} verified", mutated);
    }

    #[test]
    fn a_state_verifies_only_under_its_own_binding(
        sealed in any::<bool>(),
        subject in "\\PC{0,10}",
        method in prop::sample::select(vec!["tools/call", "prompts/get", "resources/read"]),
        target in "[a-z_/:.]{1,12}",
        args in arguments(),
        which in 0..4usize,
        other_subject in "\\PC{0,10}",
        other_method in prop::sample::select(vec!["tools/call", "prompts/get", "resources/read", "x"]),
        other_target in "[a-z_/:.]{1,12}",
        other_args in arguments(),
    ) {
        let signer = signer(4, sealed);
        let minted_for = binding(&subject, method, &target, &args);
        let token = signer.bind_to(minted_for).sign(b"awaiting").unwrap();

        // The identical binding, recomputed from the same request: verifies.
        let same = binding(&subject, method, &target, &args);
        prop_assert_eq!(signer.bind_to(same.clone()).verify(&token).unwrap().into_payload(), b"awaiting".to_vec());
        prop_assert!(signer.verify_with_binding(&token, &same).is_ok());

        // Exactly one part differs: refused as a bad signature.
        let other = match which {
            0 => {
                prop_assume!(other_subject != subject);
                binding(&other_subject, method, &target, &args)
            }
            1 => {
                prop_assume!(other_method != method);
                binding(&subject, other_method, &target, &args)
            }
            2 => {
                prop_assume!(other_target != target);
                binding(&subject, method, &other_target, &args)
            }
            _ => {
                prop_assume!(other_args != args);
                binding(&subject, method, &target, &other_args)
            }
        };
        prop_assert_eq!(signer.bind_to(other.clone()).verify(&token), Err(StateError::BadSignature));
        prop_assert_eq!(signer.verify_with_binding(&token, &other), Err(StateError::BadSignature));
        // And the empty binding is a binding too.
        prop_assert_eq!(signer.verify(&token), Err(StateError::BadSignature));
    }

    #[test]
    fn argument_key_order_does_not_matter(sealed in any::<bool>(), tree in entries()) {
        let forward = build(&tree, false);
        let backward = build(&tree, true);
        prop_assert_eq!(&forward, &backward);
        prop_assert_eq!(arguments_digest(&forward), arguments_digest(&backward));

        let signer = signer(5, sealed);
        let token = signer
            .bind_to(binding("alice", "tools/call", "deploy", &forward))
            .sign(b"s")
            .unwrap();
        prop_assert!(signer
            .bind_to(binding("alice", "tools/call", "deploy", &backward))
            .verify(&token)
            .is_ok());
    }

    #[test]
    fn a_state_expires_after_its_ttl(
        sealed in any::<bool>(),
        start in 0u64..(1 << 40),
        ttl in 1u64..1_000_000,
        later in 0u64..1_000_000,
    ) {
        let clock = ManualClock::at(start);
        let signer = RequestStateSigner::new([6u8; 32])
            .unwrap()
            .expires_after(Duration::from_secs(ttl))
            .with_clock(clock.clone());
        let signer = if sealed { signer.sealed() } else { signer };
        let token = signer.sign(b"x").unwrap();
        let expiry = start + ttl;

        clock.set(expiry - 1);
        prop_assert_eq!(signer.verify(&token).unwrap().expires_at(), expiry);
        clock.set(expiry);
        prop_assert_eq!(
            signer.verify(&token),
            Err(StateError::Expired { expired_at: expiry, now: expiry })
        );
        clock.set(expiry + later);
        prop_assert_eq!(
            signer.verify(&token),
            Err(StateError::Expired { expired_at: expiry, now: expiry + later })
        );
    }

    #[test]
    fn a_state_of_another_key_is_refused(
        sealed in any::<bool>(),
        a in any::<[u8; 32]>(),
        b in any::<[u8; 32]>(),
        payload in vec(any::<u8>(), 0..32),
    ) {
        prop_assume!(a != b);
        let sa = RequestStateSigner::new(a).unwrap();
        let sb = RequestStateSigner::new(b).unwrap();
        let (sa, sb) = if sealed { (sa.sealed(), sb.sealed()) } else { (sa, sb) };
        let token = sa.sign(&payload).unwrap();
        prop_assert!(sa.verify(&token).is_ok());
        let refused = sb.verify(&token);
        prop_assert!(
            matches!(refused, Err(StateError::UnknownKey { .. } | StateError::BadSignature)),
            "{:?}", refused
        );

        // Same key id, other secret: the signature is what refuses it.
        let ka = RequestStateSigner::with_keys(SigningKey::with_id("shared", a).unwrap(), []);
        let kb = RequestStateSigner::with_keys(SigningKey::with_id("shared", b).unwrap(), []);
        let (ka, kb) = if sealed { (ka.sealed(), kb.sealed()) } else { (ka, kb) };
        let token = ka.sign(&payload).unwrap();
        prop_assert_eq!(kb.verify(&token), Err(StateError::BadSignature));
    }

    #[test]
    fn short_secrets_are_refused(secret in vec(any::<u8>(), 0..32)) {
        let message = RequestStateSigner::new(&secret).unwrap_err().to_string();
        prop_assert!(message.contains("32"), "{}", message);
        let message = SigningKey::new(&secret).unwrap_err().to_string();
        prop_assert!(message.contains("32"), "{}", message);
        let message = SigningKey::with_id("k1", &secret).unwrap_err().to_string();
        prop_assert!(message.contains("32"), "{}", message);
    }

    #[test]
    fn long_enough_secrets_are_accepted(secret in vec(any::<u8>(), 32..80)) {
        prop_assert!(RequestStateSigner::new(&secret).is_ok());
        prop_assert!(SigningKey::new(&secret).is_ok());
    }

    #[test]
    fn arbitrary_strings_never_verify_or_panic(sealed in any::<bool>(), input in any::<String>()) {
        prop_assert!(signer(7, sealed).verify(&input).is_err());
    }

    #[test]
    fn token_shaped_strings_never_verify_or_panic(
        sealed in any::<bool>(),
        prefix in prop::sample::select(vec!["v1.", "v1e.", "v1", "v1e", "v2.", "", "."]),
        real_key_id in any::<bool>(),
        key_id in "[A-Za-z0-9_-]{0,40}",
        parts in vec(
            prop_oneof![
                "[A-Za-z0-9_=-]{0,64}",
                vec(any::<u8>(), 0..96).prop_map(|b| URL_SAFE_NO_PAD.encode(b)),
            ],
            0..4,
        ),
    ) {
        let signer = signer(8, sealed);
        let key_id = if real_key_id { signer.key_id().to_owned() } else { key_id };
        let candidate = format!("{prefix}{key_id}.{}", parts.join("."));
        prop_assert!(signer.verify(&candidate).is_err(), "{} verified", candidate);
        let bare = format!("{prefix}{}", parts.join("."));
        prop_assert!(signer.verify(&bare).is_err(), "{} verified", bare);
    }
}

#[test]
fn generated_signers_never_verify_each_other() {
    for _ in 0..16 {
        let a = RequestStateSigner::generate().unwrap();
        let b = RequestStateSigner::generate().unwrap();
        for (a, b) in [(a.clone(), b.clone()), (a.sealed(), b.sealed())] {
            let token = a.sign(b"p").unwrap();
            assert!(a.verify(&token).is_ok());
            assert!(b.verify(&token).is_err());
            let token = b.sign(b"p").unwrap();
            assert!(a.verify(&token).is_err());
        }
    }
}

#[test]
fn rotation_verifies_old_states_and_mints_with_the_new_key() {
    let old = SigningKey::with_id("key-2025", [1u8; 32]).unwrap();
    let new = SigningKey::with_id("key-2026", [2u8; 32]).unwrap();
    let before = RequestStateSigner::with_keys(old.clone(), []);
    let rotated = RequestStateSigner::with_keys(new.clone(), [old.clone()]);
    assert_eq!(rotated.key_id(), "key-2026");

    for sealed in [false, true] {
        let (before, rotated) = if sealed {
            (before.clone().sealed(), rotated.clone().sealed())
        } else {
            (before.clone(), rotated.clone())
        };
        let version = if sealed { "v1e" } else { "v1" };

        let from_old = before.sign(b"in flight").unwrap();
        assert!(
            from_old.starts_with(&format!("{version}.key-2025.")),
            "{from_old}"
        );
        let verified = rotated.verify(&from_old).unwrap();
        assert_eq!(verified.key_id(), "key-2025");
        assert_eq!(verified.payload(), b"in flight");

        let from_new = rotated.sign(b"fresh").unwrap();
        assert!(
            from_new.starts_with(&format!("{version}.key-2026.")),
            "{from_new}"
        );
        assert_eq!(rotated.verify(&from_new).unwrap().key_id(), "key-2026");
        assert_eq!(
            before.verify(&from_new),
            Err(StateError::UnknownKey {
                key_id: "key-2026".to_owned()
            })
        );
    }

    // `verify_also` is the same rotation, added afterwards.
    let also = RequestStateSigner::with_keys(new, []).verify_also(old);
    assert!(also.verify(&before.sign(b"x").unwrap()).is_ok());
}

#[test]
fn derived_and_explicit_key_ids_travel_in_the_token() {
    let derived = SigningKey::new([9u8; 32]).unwrap();
    let again = SigningKey::new([9u8; 32]).unwrap();
    assert_eq!(
        derived.id(),
        again.id(),
        "the id is a function of the secret"
    );
    let token = RequestStateSigner::with_keys(derived.clone(), [])
        .sign(b"")
        .unwrap();
    assert_eq!(token.split('.').nth(1), Some(derived.id()));

    for bad in ["", "has.dot", "has space", &"x".repeat(33)] {
        assert!(SigningKey::with_id(bad, [9u8; 32]).is_err(), "{bad:?}");
    }
    let longest = "a".repeat(32);
    let key = SigningKey::with_id(longest.clone(), [9u8; 32]).unwrap();
    let token = RequestStateSigner::with_keys(key, []).sign(b"").unwrap();
    assert_eq!(token.split('.').nth(1), Some(longest.as_str()));
}

#[tokio::test]
async fn a_verified_state_is_claimed_once() {
    let clock = ManualClock::at(NOW);
    let signer = RequestStateSigner::new([10u8; 32])
        .unwrap()
        .expires_after(Duration::from_secs(60))
        .with_clock(clock.clone());
    let guard = InMemoryReplayGuard::with_clock(clock.clone());
    let token = signer.sign(b"once").unwrap();

    let verified = signer.verify(&token).unwrap();
    assert!(
        guard
            .claim(verified.fingerprint(), verified.expires_at())
            .await
            .unwrap()
    );
    let again = signer.verify(&token).unwrap();
    assert_eq!(again.fingerprint(), verified.fingerprint());
    assert!(
        !guard
            .claim(again.fingerprint(), again.expires_at())
            .await
            .unwrap()
    );
    assert!(
        !guard
            .claim(again.fingerprint(), again.expires_at())
            .await
            .unwrap()
    );

    // Another state of the same payload is another fingerprint.
    clock.advance(1);
    let other = signer.verify(&signer.sign(b"once").unwrap()).unwrap();
    assert_ne!(other.fingerprint(), verified.fingerprint());
    assert!(
        guard
            .claim(other.fingerprint(), other.expires_at())
            .await
            .unwrap()
    );

    // Once the state has expired the guard forgets it (the signer refuses
    // it by then anyway).
    clock.set(verified.expires_at());
    assert!(signer.verify(&token).is_err());
    assert!(
        guard
            .claim(verified.fingerprint(), verified.expires_at())
            .await
            .unwrap()
    );
}

/// Two rounds of the same call in the same second get distinct states, so
/// single use of one round never refuses the next.
#[tokio::test]
async fn states_of_the_same_second_are_distinct() {
    let clock = ManualClock::at(NOW);
    let guard = InMemoryReplayGuard::with_clock(clock.clone());
    for sealed in [false, true] {
        let signer = RequestStateSigner::new([13u8; 32])
            .unwrap()
            .with_clock(clock.clone());
        let signer = if sealed { signer.sealed() } else { signer };
        let bound = signer.bind_to(binding("alice", "tools/call", "deploy", &JsonObject::new()));
        let first = bound.sign(b"awaiting").unwrap();
        let second = bound.sign(b"awaiting").unwrap();
        assert_ne!(first, second, "sealed={sealed}");
        let first = bound.verify(&first).unwrap();
        let second = bound.verify(&second).unwrap();
        assert_eq!(first.payload(), second.payload());
        assert!(
            guard
                .claim(first.fingerprint(), first.expires_at())
                .await
                .unwrap()
        );
        assert!(
            guard
                .claim(second.fingerprint(), second.expires_at())
                .await
                .unwrap()
        );
    }
}

#[tokio::test]
async fn expired_entries_are_swept() {
    let clock = ManualClock::at(NOW);
    let guard = InMemoryReplayGuard::with_clock(clock.clone());
    let fingerprint = |i: u32| -> [u8; 32] {
        let mut f = [0u8; 32];
        f[..4].copy_from_slice(&i.to_be_bytes());
        f
    };
    for i in 0..1500 {
        assert!(guard.claim(&fingerprint(i), NOW + 10).await.unwrap());
    }
    assert_eq!(guard.len(), 1500);
    // Still remembered inside the window.
    assert!(!guard.claim(&fingerprint(7), NOW + 10).await.unwrap());

    clock.advance(10);
    // The sweep runs on a claim once the map has grown past its threshold;
    // a few more claims are enough to trigger it.
    let mut claimed = 0;
    for i in 10_000..13_000 {
        assert!(guard.claim(&fingerprint(i), NOW + 20).await.unwrap());
        claimed += 1;
        if guard.len() < claimed {
            break;
        }
    }
    assert!(
        guard.len() <= claimed,
        "expired entries are dropped: {} remembered after {claimed} new claims",
        guard.len()
    );
    // An expired fingerprint can be claimed again.
    assert!(guard.claim(&fingerprint(7), NOW + 20).await.unwrap());
}

#[test]
fn an_oversized_state_is_refused_before_parsing() {
    let signer = signer(11, false);
    for len in [MAX_STATE_BYTES + 1, MAX_STATE_BYTES * 4] {
        // Not even of the right shape: the size is checked first.
        let garbage = "x".repeat(len);
        assert_eq!(
            signer.verify(&garbage),
            Err(StateError::TooLarge {
                len,
                max: MAX_STATE_BYTES
            })
        );
        let shaped = format!("v1.{}.{}", signer.key_id(), "A".repeat(len));
        assert!(matches!(
            signer.verify(&shaped),
            Err(StateError::TooLarge { .. })
        ));
    }
    // At the cap, the shape is what refuses it.
    assert_eq!(
        signer.verify(&"x".repeat(MAX_STATE_BYTES)),
        Err(StateError::UnsupportedVersion)
    );
}

#[test]
fn minting_refuses_to_exceed_the_cap() {
    for sealed in [false, true] {
        let signer = signer(12, sealed);
        let (mut fit, mut refused) = (0, 0);
        // Base64 grows by 4/3: the boundary lies in this range either way.
        for len in (MAX_STATE_BYTES * 3 / 4 - 100)..(MAX_STATE_BYTES * 3 / 4 + 20) {
            match signer.sign(&vec![b'p'; len]) {
                Ok(token) => {
                    assert!(token.len() <= MAX_STATE_BYTES);
                    assert_eq!(signer.verify(&token).unwrap().payload().len(), len);
                    fit += 1;
                }
                Err(StateError::TooLarge {
                    len: token_len,
                    max,
                }) => {
                    assert_eq!(max, MAX_STATE_BYTES);
                    assert!(token_len > MAX_STATE_BYTES);
                    refused += 1;
                }
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
        assert!(
            fit > 0 && refused > 0,
            "sealed={sealed}: {fit} fit, {refused} refused"
        );
        assert!(matches!(
            signer.sign(&vec![0u8; MAX_STATE_BYTES]),
            Err(StateError::TooLarge { .. })
        ));
    }
}

#[tokio::test]
async fn a_full_guard_refuses_new_claims_until_entries_expire() {
    let clock = ManualClock::at(NOW);
    let guard = InMemoryReplayGuard::with_clock(clock.clone()).capacity(3);
    let fingerprint = |i: u8| [i; 32];
    for i in 0..3 {
        assert_eq!(
            guard.claim(&fingerprint(i), NOW + 10 + u64::from(i)).await,
            Ok(true)
        );
    }
    // Full: a new state cannot be recorded, so it is not accepted.
    assert_eq!(
        guard.claim(&fingerprint(9), NOW + 30).await,
        Err(ReplayError::Full { capacity: 3 })
    );
    assert_eq!(guard.len(), 3, "a refused claim is not recorded");
    // A replay of a remembered state is still a replay, not "full".
    assert_eq!(guard.claim(&fingerprint(1), NOW + 11).await, Ok(false));

    // Once the earliest entry expires, its room is free again.
    clock.set(NOW + 10);
    assert_eq!(guard.claim(&fingerprint(9), NOW + 30).await, Ok(true));
    assert_eq!(
        guard.claim(&fingerprint(8), NOW + 30).await,
        Err(ReplayError::Full { capacity: 3 })
    );
    clock.set(NOW + 12);
    assert_eq!(guard.claim(&fingerprint(8), NOW + 30).await, Ok(true));
    assert_eq!(guard.claim(&fingerprint(7), NOW + 30).await, Ok(true));
    assert_eq!(guard.len(), 3);
}
