//! How long a provider asked us to wait, read from its response headers.
//!
//! Precedence follows the official SDKs: `retry-after-ms`, then `retry-after` (delta
//! seconds or an HTTP date), then OpenAI's `x-ratelimit-reset-{requests,tokens}` durations
//! (`1s`, `6m0s`, `250ms`). The runtime's retry policy decides what to do with the hint.

use std::time::{SystemTime, UNIX_EPOCH};

use reqwest::header::HeaderMap;

/// The wait the provider asked for, in milliseconds, relative to `now`.
pub fn retry_after_ms(headers: &HeaderMap, now: SystemTime) -> Option<u64> {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return millis(ms);
    }
    if let Some(value) = get("retry-after") {
        if let Ok(seconds) = value.parse::<f64>() {
            return millis(seconds * 1000.0);
        }
        if let Some(at) = parse_http_date(value) {
            let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs();
            return Some(at.saturating_sub(now).saturating_mul(1000));
        }
    }
    ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"]
        .into_iter()
        .filter_map(|name| get(name).and_then(parse_go_duration_ms))
        .max()
}

fn millis(ms: f64) -> Option<u64> {
    (ms.is_finite() && ms >= 0.0).then(|| ms.ceil() as u64)
}

/// Reads a Go-style duration (`1.8s`, `6m0s`, `1h2m`, `250ms`) as milliseconds.
pub(super) fn parse_go_duration_ms(text: &str) -> Option<u64> {
    let mut total = 0.0_f64;
    let mut rest = text;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let value: f64 = rest[..number_len].parse().ok()?;
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let factor = match &rest[..unit_len] {
            "ms" => 1.0,
            "s" | "" => 1000.0,
            "m" => 60_000.0,
            "h" => 3_600_000.0,
            _ => return None,
        };
        total += value * factor;
        rest = &rest[unit_len..];
    }
    millis(total)
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) to Unix seconds. The obsolete
/// RFC 850 and asctime forms are not produced by any provider we talk to.
fn parse_http_date(text: &str) -> Option<u64> {
    let (_, rest) = text.split_once(", ")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let [day, month, year, time, "GMT"] = fields.as_slice() else {
        return None;
    };
    let day: u64 = day.parse().ok()?;
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| m == month)? as u64
        + 1;
    let year: u64 = year.parse().ok()?;
    let mut hms = time.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, s) = (hms.next()??, hms.next()??, hms.next()??);
    if !(1..=31).contains(&day) || year < 1970 || h > 23 || m > 59 || s > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + s)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (years ≥ 1970).
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;
    use std::time::Duration;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, HeaderValue::from_static(v));
        }
        map
    }

    #[test]
    fn reads_each_header_form_in_order() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "2")]), now),
            Some(2000)
        );
        assert_eq!(
            retry_after_ms(
                &headers(&[("retry-after", "1.5"), ("retry-after-ms", "120")]),
                now
            ),
            Some(120)
        );
        assert_eq!(
            retry_after_ms(
                &headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:47 GMT")]),
                now
            ),
            Some(10_000)
        );
        assert_eq!(
            retry_after_ms(
                &headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:00 GMT")]),
                now
            ),
            Some(0)
        );
        assert_eq!(
            retry_after_ms(
                &headers(&[
                    ("x-ratelimit-reset-requests", "1.8s"),
                    ("x-ratelimit-reset-tokens", "6m0s")
                ]),
                now
            ),
            Some(360_000)
        );
        assert_eq!(parse_go_duration_ms("250ms"), Some(250));
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "soon")]), now),
            None
        );
        assert_eq!(retry_after_ms(&HeaderMap::new(), now), None);
    }
}
