//! Just enough PNG to find the text chunks a character card hides in: the signature, then
//! chunks of `length (4, big-endian) | type (4) | data (length) | CRC-32 (4)`.

/// Every PNG file starts with these bytes.
const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];

/// Why the bytes are not a PNG we can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum PngError {
    #[error("is not a PNG image (wrong signature)")]
    NotPng,
    #[error("is a truncated PNG image: the chunk at byte {offset} runs past the end")]
    Truncated { offset: usize },
    #[error("has a damaged `{kind}` chunk at byte {offset} (CRC mismatch)")]
    BadCrc { kind: String, offset: usize },
}

/// The text of every `tEXt` chunk whose keyword is in `keywords`, as `(keyword, text)` in
/// file order. Other chunks are skipped unchecked: a damaged image chunk does not matter to
/// a card, but a damaged card chunk does, so its CRC is verified. Reading stops at `IEND`.
pub(super) fn text_chunks<'a>(
    bytes: &'a [u8],
    keywords: &[&str],
) -> Result<Vec<(&'a str, &'a [u8])>, PngError> {
    let Some(mut rest) = bytes.strip_prefix(&SIGNATURE) else {
        return Err(PngError::NotPng);
    };
    let mut found = Vec::new();
    while !rest.is_empty() {
        let offset = bytes.len() - rest.len();
        let truncated = PngError::Truncated { offset };
        let (length, after_length) = rest.split_first_chunk::<4>().ok_or(truncated.clone())?;
        let length = usize::try_from(u32::from_be_bytes(*length)).map_err(|_| truncated.clone())?;
        let (kind, after_kind) = after_length
            .split_first_chunk::<4>()
            .ok_or(truncated.clone())?;
        if after_kind.len() < length {
            return Err(truncated);
        }
        let (data, after_data) = after_kind.split_at(length);
        let (crc, after_crc) = after_data.split_first_chunk::<4>().ok_or(truncated)?;
        if kind == b"IEND" {
            break;
        }
        if kind == b"tEXt"
            && let Some((keyword, text)) = split_text(data)
            && keywords.contains(&keyword)
        {
            let covered = &bytes[offset + 4..offset + 8 + length];
            if crc32(covered) != u32::from_be_bytes(*crc) {
                return Err(PngError::BadCrc {
                    kind: "tEXt".to_owned(),
                    offset,
                });
            }
            found.push((keyword, text));
        }
        rest = after_crc;
    }
    Ok(found)
}

/// `keyword NUL text`; keywords are Latin-1 in the PNG spec, ASCII in practice.
fn split_text(data: &[u8]) -> Option<(&str, &[u8])> {
    let nul = data.iter().position(|&b| b == 0)?;
    let keyword = std::str::from_utf8(&data[..nul]).ok()?;
    Some((keyword, &data[nul + 1..]))
}

/// The CRC-32 of PNG (and zip, and Ethernet): reflected polynomial `0xEDB88320`.
pub(super) fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
        let mut out = (data.len() as u32).to_be_bytes().to_vec();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let mut covered = kind.to_vec();
        covered.extend_from_slice(data);
        out.extend_from_slice(&crc32(&covered).to_be_bytes());
        out
    }

    fn png(chunks: &[Vec<u8>]) -> Vec<u8> {
        let mut out = SIGNATURE.to_vec();
        for chunk in chunks {
            out.extend_from_slice(chunk);
        }
        out
    }

    #[test]
    fn crc32_matches_the_reference_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
    }

    #[test]
    fn wanted_text_chunks_are_found_until_iend() {
        let bytes = png(&[
            chunk(b"IHDR", &[0; 13]),
            chunk(b"tEXt", b"Comment\0hello"),
            chunk(b"tEXt", b"chara\0abc"),
            chunk(b"IDAT", &[1, 2, 3]),
            chunk(b"IEND", &[]),
            chunk(b"tEXt", b"chara\0after-end"),
        ]);
        let found = text_chunks(&bytes, &["chara", "ccv3"]).unwrap();
        assert_eq!(found, [("chara", &b"abc"[..])]);
    }

    #[test]
    fn damage_is_reported_with_its_place() {
        assert_eq!(text_chunks(b"GIF89a", &["chara"]), Err(PngError::NotPng));
        let mut bytes = png(&[chunk(b"IHDR", &[0; 13]), chunk(b"tEXt", b"chara\0abc")]);
        let last = bytes.len() - 1;
        bytes[last] ^= 0xFF;
        assert_eq!(
            text_chunks(&bytes, &["chara"]),
            Err(PngError::BadCrc {
                kind: "tEXt".into(),
                offset: 33
            })
        );
        // A damaged chunk nobody asked for is not checked.
        assert_eq!(text_chunks(&bytes, &["ccv3"]), Ok(Vec::new()));
        bytes.truncate(last - 2);
        assert_eq!(
            text_chunks(&bytes, &["chara"]),
            Err(PngError::Truncated { offset: 33 })
        );
    }
}
