//! Small wording helpers shared by the workspace tools' results.

/// `n` with thousands separators and the noun in singular or plural: `1 line`,
/// `1,234 characters`.
pub(super) fn count(n: usize, singular: &str, plural: &str) -> String {
    let noun = if n == 1 { singular } else { plural };
    format!("{} {noun}", grouped(n))
}

/// `1234567` → `1,234,567`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn groups_thousands_and_picks_the_noun() {
        assert_eq!(count(0, "file", "files"), "0 files");
        assert_eq!(count(1, "file", "files"), "1 file");
        assert_eq!(count(999, "file", "files"), "999 files");
        assert_eq!(count(1_234, "character", "characters"), "1,234 characters");
        assert_eq!(count(1_234_567, "x", "xs"), "1,234,567 xs");
    }
}
