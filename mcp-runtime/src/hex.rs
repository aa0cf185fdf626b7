//! Lowercase hex, one way for the whole crate: Redis keys, ids, digests.

/// Appends `bytes` to `out` as lowercase hex digits, two per byte (a
/// table, not `fmt`: Redis keys are written on every claim).
pub(crate) fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.reserve(2 * bytes.len());
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0xf)]));
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
    }
}
