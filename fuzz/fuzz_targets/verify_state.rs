//! Any string handed to `verify` is refused or accepted, never a panic;
//! and nothing but a state this signer minted for this binding is accepted.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mcp_runtime::state::{Binding, RequestStateSigner};

struct Signers {
    signed: RequestStateSigner,
    sealed: RequestStateSigner,
    minted: Vec<String>,
}

fn signers() -> &'static Signers {
    static SIGNERS: OnceLock<Signers> = OnceLock::new();
    SIGNERS.get_or_init(|| {
        let binding = Binding::empty()
            .with("alice")
            .with("tools/call")
            .with("deploy");
        let signed = RequestStateSigner::new([42u8; 32])
            .unwrap_or_else(|e| unreachable!("{e}"))
            .bind_to(binding.clone());
        let sealed = RequestStateSigner::new([43u8; 32])
            .unwrap_or_else(|e| unreachable!("{e}"))
            .sealed()
            .bind_to(binding);
        let minted = [b"awaiting".as_slice(), b"", b"{\"step\":2}"]
            .iter()
            .flat_map(|p| [signed.sign(p), sealed.sign(p)])
            .filter_map(Result::ok)
            .collect();
        Signers {
            signed,
            sealed,
            minted,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let s = signers();
    let text = String::from_utf8_lossy(data);
    for signer in [&s.signed, &s.sealed] {
        if signer.verify(&text).is_ok() {
            // Only an exact state this process minted may verify.
            assert!(
                s.minted.iter().any(|m| m == text.as_ref()),
                "forged state accepted: {text:?}"
            );
        }
        let _ = signer.verify_with_binding(&text, &Binding::empty());
    }
    // Mutations of minted states: splice the input into a real token.
    for minted in &s.minted {
        let cut = data.first().map_or(0, |b| *b as usize % (minted.len() + 1));
        let spliced = format!("{}{}", &minted[..cut], &text);
        if spliced != *minted {
            assert!(s.signed.verify(&spliced).is_err() || s.minted.contains(&spliced));
            assert!(s.sealed.verify(&spliced).is_err() || s.minted.contains(&spliced));
        }
    }
});
