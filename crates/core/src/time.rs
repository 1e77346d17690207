//! RFC 3339 timestamps compared as instants, without a date library.
//!
//! Kept by hand on purpose: listing order must be exactly the reference's
//! (SPEC §3), so which strings parse and how they compare must follow its
//! rule: this grammar (`T`, `t` or a space; `Z`, `z` or `±HH:MM`; any
//! number of fraction digits, compared to the nanosecond; second 60
//! accepted) and nothing else. A date crate parses a different set of
//! strings (each has its own leniencies and limits), which would change
//! which records count as dated and so the record order; the parser is a
//! few dozen lines, tested on those edges.

/// A point in time: nanoseconds since the Unix epoch (may be negative).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(pub i128);

impl Instant {
    /// Parse `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`; `T` may be `t` or a space,
    /// `Z` may be `z`. Anything else, or an impossible date, is `None`.
    pub fn parse_rfc3339(text: &str) -> Option<Instant> {
        let b = text.as_bytes();
        if b.len() < 20 {
            return None;
        }
        let num = |range: std::ops::Range<usize>| -> Option<i64> {
            let digits = b.get(range)?;
            digits.iter().try_fold(0i64, |acc, &d| {
                d.is_ascii_digit().then(|| acc * 10 + i64::from(d - b'0'))
            })
        };
        let year = num(0..4)?;
        let month = num(5..7)?;
        let day = num(8..10)?;
        let hour = num(11..13)?;
        let minute = num(14..16)?;
        let second = num(17..19)?;
        if b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
            return None;
        }
        if b[13] != b':' || b[16] != b':' {
            return None;
        }
        if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
            return None;
        }
        if hour > 23 || minute > 59 || second > 60 {
            return None;
        }
        let mut pos = 19;
        let mut nanos: i128 = 0;
        if b[pos] == b'.' {
            pos += 1;
            let start = pos;
            while pos < b.len() && b[pos].is_ascii_digit() {
                if pos - start < 9 {
                    nanos = nanos * 10 + i128::from(b[pos] - b'0');
                }
                pos += 1;
            }
            let digits = pos - start;
            if digits == 0 {
                return None;
            }
            for _ in digits..9 {
                nanos *= 10;
            }
        }
        let offset_minutes = match b.get(pos..)? {
            [b'Z' | b'z'] => 0,
            [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
                let digits = [*h1, *h2, *m1, *m2];
                if !digits.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                let h = i64::from(h1 - b'0') * 10 + i64::from(h2 - b'0');
                let m = i64::from(m1 - b'0') * 10 + i64::from(m2 - b'0');
                if h > 23 || m > 59 {
                    return None;
                }
                let total = h * 60 + m;
                if *sign == b'+' {
                    total
                } else {
                    -total
                }
            }
            _ => return None,
        };
        let days = days_from_civil(year, month, day);
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
        Some(Instant(i128::from(seconds) * 1_000_000_000 + nanos))
    }

    /// Seconds since the Unix epoch, rounded down.
    pub fn unix_seconds(self) -> i64 {
        i64::try_from(self.0.div_euclid(1_000_000_000)).unwrap_or(i64::MAX)
    }
}

/// `unix_seconds` as `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds): the
/// form [`Instant::parse_rfc3339`] reads back to the same second.
pub fn format_rfc3339_utc(unix_seconds: i64) -> String {
    let days = unix_seconds.div_euclid(86_400);
    let second_of_day = unix_seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (the
/// inverse of [`days_from_civil`], Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Option<i128> {
        Instant::parse_rfc3339(s).map(|i| i.0)
    }

    #[test]
    fn formats_whole_seconds_in_utc() {
        assert_eq!(format_rfc3339_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_rfc3339_utc(951_825_599), "2000-02-29T11:59:59Z");
        assert_eq!(format_rfc3339_utc(-1), "1969-12-31T23:59:59Z");
        assert_eq!(format_rfc3339_utc(1_764_547_200), "2025-12-01T00:00:00Z");
    }

    proptest::proptest! {
        /// What is formatted parses back to the same second.
        #[test]
        fn formatted_times_parse_back(seconds in -62_135_596_800i64..253_402_300_799) {
            let text = format_rfc3339_utc(seconds);
            proptest::prop_assert_eq!(
                Instant::parse_rfc3339(&text).map(Instant::unix_seconds),
                Some(seconds),
                "{}", text
            );
        }
    }

    #[test]
    fn parses_common_forms() {
        assert_eq!(at("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(at("1970-01-01T00:00:01.5Z"), Some(1_500_000_000));
        assert_eq!(at("1970-01-01T01:00:00+01:00"), Some(0));
        assert!(at("2024-02-29t12:00:00z").is_some());
        assert_eq!(
            Instant::parse_rfc3339("2025-09-03T00:47:19.293Z")
                .unwrap()
                .unix_seconds(),
            1_756_860_439
        );
    }

    #[test]
    fn orders_across_offsets() {
        let a = at("2025-01-01T10:00:00+02:00").unwrap();
        let b = at("2025-01-01T09:00:00Z").unwrap();
        assert!(a < b);
    }

    #[test]
    fn rejects_malformed() {
        for s in [
            "",
            "2025-01-01",
            "2025-13-01T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2025-01-01T00:00:00",
            "2025-01-01T00:00:00.Z",
            "2025-01-01T24:00:00Z",
            "yesterday",
            "2025-01-01T00:00:00+0100",
        ] {
            assert_eq!(at(s), None, "{s}");
        }
    }
}
