//! Lowercase hex, one way for the whole crate: Redis keys, ids, digests.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// A SHA-256 digest as its 64 lowercase hex digits, on the stack: what a
/// Redis claim writes twice per retry (its key and its answers' digest).
#[cfg(feature = "redis")]
pub(crate) fn digest_hex(digest: &[u8; 32]) -> [u8; 64] {
    let mut digits = [0; 64];
    write_hex(&mut digits, digest);
    digits
}

/// Writes two digits per byte of `bytes` into `digits`, which is twice as
/// long.
fn write_hex(digits: &mut [u8], bytes: &[u8]) {
    for (pair, byte) in digits.chunks_exact_mut(2).zip(bytes) {
        pair[0] = DIGITS[usize::from(byte >> 4)];
        pair[1] = DIGITS[usize::from(byte & 0xf)];
    }
}

/// Appends `bytes` to `out` as lowercase hex digits, two per byte: written
/// 32 bytes at a time on the stack, then appended whole.
pub(crate) fn push_hex(out: &mut String, bytes: &[u8]) {
    out.reserve(2 * bytes.len());
    let mut digits = [0; 64];
    for chunk in bytes.chunks(32) {
        let digits = &mut digits[..2 * chunk.len()];
        write_hex(digits, chunk);
        // Hex digits are ASCII, so always UTF-8.
        out.push_str(std::str::from_utf8(digits).unwrap_or_default());
    }
}

/// `bytes` as lowercase hex digits, two per byte.
pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut out = String::new();
    push_hex(&mut out, bytes);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_digits_are_lowercase_two_per_byte() {
        let bytes: Vec<u8> = (0..=255).collect();
        let mut out = String::from("p:");
        push_hex(&mut out, &bytes);
        let expected: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(out, format!("p:{expected}"));
        assert_eq!(hex(&[0x0a, 0xff]), "0aff");
        assert_eq!(hex(&[]), "");
        // A length that is not a whole number of 32-byte chunks.
        assert_eq!(hex(&bytes[..33]), expected[..66]);
    }

    #[cfg(feature = "redis")]
    #[test]
    fn a_digest_is_its_64_digits() {
        let digest: [u8; 32] = std::array::from_fn(|i| (i * 8 + 3) as u8);
        assert_eq!(digest_hex(&digest).as_slice(), hex(&digest).as_bytes());
    }
}
