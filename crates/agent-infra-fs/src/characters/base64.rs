//! A small standard-alphabet base64 decoder (RFC 4648 §4), for the card text in PNG chunks.
//! Padding is optional and line breaks are ignored, as card writers differ on both.

/// Why a text is not base64.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum Base64Error {
    #[error("byte {0} of the card data is not a base64 character")]
    InvalidByte(usize),
    #[error("the card data ends in the middle of a base64 group")]
    Truncated,
}

fn sextet(byte: u8) -> Option<u32> {
    let value = match byte {
        b'A'..=b'Z' => byte - b'A',
        b'a'..=b'z' => byte - b'a' + 26,
        b'0'..=b'9' => byte - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(value))
}

/// Decodes `text`. `=` may only end the data.
pub(super) fn decode(text: &[u8]) -> Result<Vec<u8>, Base64Error> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut buffer = 0u32;
    let mut bits = 0u32;
    let mut padding_from = None;
    for (i, &byte) in text.iter().enumerate() {
        match byte {
            b'\r' | b'\n' | b' ' | b'\t' => continue,
            b'=' => {
                padding_from.get_or_insert(i);
                continue;
            }
            _ if padding_from.is_some() => return Err(Base64Error::InvalidByte(i)),
            _ => {}
        }
        let value = sextet(byte).ok_or(Base64Error::InvalidByte(i))?;
        buffer = (buffer << 6) | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            // Truncation keeps the low byte, which is exactly the completed octet.
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    // Leftover bits must be fewer than a sextet's worth: 2 or 4 (or 0).
    if bits >= 6 {
        return Err(Base64Error::Truncated);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_with_and_without_padding() {
        assert_eq!(decode(b"").unwrap(), b"");
        assert_eq!(decode(b"Zg==").unwrap(), b"f");
        assert_eq!(decode(b"Zm8").unwrap(), b"fo");
        assert_eq!(decode(b"Zm9v").unwrap(), b"foo");
        assert_eq!(decode(b"Zm9vYmFy\r\nYmF6").unwrap(), b"foobarbaz");
        assert_eq!(decode(b"5qOu").unwrap(), "森".as_bytes());
        assert_eq!(decode(b"+/8=").unwrap(), [0xFB, 0xFF]);
    }

    #[test]
    fn refuses_what_is_not_base64() {
        assert_eq!(decode(b"Zm9v!"), Err(Base64Error::InvalidByte(4)));
        assert_eq!(decode(b"Zg==Zg"), Err(Base64Error::InvalidByte(4)));
        assert_eq!(decode(b"Z"), Err(Base64Error::Truncated));
        assert_eq!(decode(b"Zm9vY"), Err(Base64Error::Truncated));
    }
}
