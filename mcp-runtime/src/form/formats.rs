//! The string formats a form field may declare (`email`, `uri`, `date`,
//! `date-time`), checked without a regex.

use crate::schema::StringFormat;

/// Whether `s` is in `format`.
pub(crate) fn matches(format: StringFormat, s: &str) -> bool {
    match format {
        StringFormat::Email => is_email(s),
        StringFormat::Uri => is_uri(s),
        StringFormat::Date => is_date(s.as_bytes()),
        StringFormat::DateTime => is_date_time(s.as_bytes()),
    }
}

/// The number the ASCII digits `digits` spell, if they are all digits.
fn number(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u32, |n, &d| {
        d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
    })
}

/// The number of days in `month` (1–12) of `year`, Gregorian; 0 for any
/// other month.
fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        _ => 0,
    }
}

/// `YYYY-MM-DD`, a real calendar date.
fn is_date(s: &[u8]) -> bool {
    let [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] = *s else {
        return false;
    };
    let (Some(year), Some(month), Some(day)) = (
        number(&[y0, y1, y2, y3]),
        number(&[m0, m1]),
        number(&[d0, d1]),
    ) else {
        return false;
    };
    (1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month)
}

/// `HH:MM`, hours 00–23 and minutes 00–59.
fn is_hours_minutes(s: &[u8]) -> bool {
    let [h0, h1, b':', m0, m1] = *s else {
        return false;
    };
    number(&[h0, h1]).is_some_and(|h| h <= 23) && number(&[m0, m1]).is_some_and(|m| m <= 59)
}

/// RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`; `T` and `Z`
/// in either case, a leap second (`:60`) allowed.
fn is_date_time(s: &[u8]) -> bool {
    let Some((date, rest)) = s.split_at_checked(10) else {
        return false;
    };
    let Some((&separator, time)) = rest.split_first() else {
        return false;
    };
    if !is_date(date) || !matches!(separator, b'T' | b't') {
        return false;
    }
    let Some((hms, mut rest)) = time.split_at_checked(8) else {
        return false;
    };
    let [h0, h1, b':', m0, m1, b':', s0, s1] = *hms else {
        return false;
    };
    let seconds_ok = number(&[s0, s1]).is_some_and(|s| s <= 60);
    if !is_hours_minutes(&[h0, h1, b':', m0, m1]) || !seconds_ok {
        return false;
    }
    if let Some(fraction) = rest.strip_prefix(b".") {
        let digits = fraction.iter().take_while(|d| d.is_ascii_digit()).count();
        if digits == 0 {
            return false;
        }
        rest = &fraction[digits..];
    }
    match rest {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', offset @ ..] => is_hours_minutes(offset),
        _ => false,
    }
}

/// A scheme (`[a-zA-Z][a-zA-Z0-9+.-]*`), a colon, and no whitespace or
/// control characters anywhere.
fn is_uri(s: &str) -> bool {
    let Some((scheme, _)) = s.split_once(':') else {
        return false;
    };
    let mut scheme = scheme.chars();
    scheme.next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// `local@domain.tld`: a dot-atom local part (no spaces, no leading,
/// trailing or doubled dots) and a domain of at least two dot-separated
/// labels of letters, digits and inner hyphens.
fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && local.split('.').all(|atom| {
            !atom.is_empty()
                && atom
                    .chars()
                    .all(|c| !c.is_whitespace() && !c.is_control() && !"@()<>[]:;,\\\"".contains(c))
        });
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = domain.len() <= 253
        && labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty()
                && label.chars().count() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        });
    local_ok && domain_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        for good in ["2024-02-29", "2000-02-29", "1999-12-31", "0001-01-01"] {
            assert!(is_date(good.as_bytes()), "{good}");
        }
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-04-31",
            "2024-01-00",
            "2024-1-01",
            "24-01-01",
            "2024/01/01",
            "2024-01-01T",
            "",
            "２０２４-01-01",
        ] {
            assert!(!is_date(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn date_times() {
        for good in [
            "2024-05-06T07:08:09Z",
            "2024-05-06t07:08:09z",
            "2024-05-06T23:59:60.123456+05:30",
            "2024-05-06T00:00:00-00:00",
            "2024-05-06T00:00:00.5Z",
        ] {
            assert!(is_date_time(good.as_bytes()), "{good}");
        }
        for bad in [
            "2024-05-06T07:08:09",
            "2024-05-06 07:08:09Z",
            "2024-05-06T24:00:00Z",
            "2024-05-06T07:60:00Z",
            "2024-05-06T07:08:61Z",
            "2024-05-06T07:08:09.Z",
            "2024-05-06T07:08:09+0530",
            "2024-05-06T07:08:09+24:00",
            "2024-02-30T07:08:09Z",
            "2024-05-06T07:08Z",
            "2024-05-06T07:08:09Zjunk",
            "2024-05-06",
        ] {
            assert!(!is_date_time(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn uris() {
        for good in [
            "https://example.com/a?b#c",
            "mailto:a@b.c",
            "urn:isbn:0451450523",
            "a+b.c-d:x",
        ] {
            assert!(is_uri(good), "{good}");
        }
        for bad in [
            "example.com",
            "/relative/path",
            "1http://x",
            "://x",
            "http://exa mple.com",
            "ht tp://x",
            "",
            "http://x\n",
        ] {
            assert!(!is_uri(bad), "{bad}");
        }
    }

    #[test]
    fn emails() {
        for good in [
            "a@b.co",
            "first.last+tag@sub.example.org",
            "x_y@münchen.de",
            "1@2.3",
        ] {
            assert!(is_email(good), "{good}");
        }
        for bad in [
            "plain",
            "@b.co",
            "a@",
            "a@b",
            "a@b.",
            "a@.b",
            "a@b..c",
            "a b@c.de",
            "a@b c.de",
            ".a@b.co",
            "a.@b.co",
            "a..b@c.de",
            "a@b@c.de",
            "a@-b.co",
            "a@b-.co",
            "a@b_c.de",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
    }
}
