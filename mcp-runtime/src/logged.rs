//! Values from the wire as a log line shows them: a client chooses their
//! length and content, the log should not.

use std::fmt;

/// The most of a wire value a log line carries.
pub(crate) const LOGGED_BYTES: usize = 256;

/// A value from the wire, formatted for a log line: quoted and escaped as
/// `{:?}` does (a newline cannot forge a second log line), cut to
/// [`LOGGED_BYTES`] at a character boundary, and, when cut, followed by
/// its full length.
#[derive(Clone, Copy)]
pub(crate) struct Wire<'a>(pub(crate) &'a str);

impl<'a> Wire<'a> {
    /// The part of the value that is logged.
    fn shown(self) -> &'a str {
        let value = self.0;
        if value.len() <= LOGGED_BYTES {
            return value;
        }
        let mut end = LOGGED_BYTES;
        while !value.is_char_boundary(end) {
            end -= 1;
        }
        &value[..end]
    }
}

impl fmt::Display for Wire<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = self.shown();
        write!(f, "{shown:?}")?;
        if shown.len() < self.0.len() {
            write!(f, "… ({} bytes)", self.0.len())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Wire<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_value_is_shown_whole_and_quoted() {
        assert_eq!(Wire("tool").to_string(), "\"tool\"");
        assert_eq!(Wire("a\nb").to_string(), "\"a\\nb\"");
    }

    #[test]
    fn a_long_value_is_cut_at_a_character_boundary_with_its_length() {
        let long = "é".repeat(LOGGED_BYTES);
        let shown = Wire(&long).to_string();
        assert!(
            shown.ends_with(&format!("… ({} bytes)", long.len())),
            "{shown}"
        );
        assert!(shown.len() < LOGGED_BYTES + 32, "{}", shown.len());
        let cut = Wire(&long).shown();
        assert!(long.starts_with(cut) && cut.len() >= LOGGED_BYTES - 1);
    }
}
