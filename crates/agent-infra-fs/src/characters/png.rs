//! The text chunks a character card hides in, read with the `png` crate.
//!
//! SillyTavern writes its `tEXt` chunks (`chara`, `ccv3`) after the image data, so reading
//! the header alone (`read_info`) is not enough: [`png::Reader::finish`] walks on to `IEND`.
//! As no frame was asked for, it skips the image data without inflating it, checking only
//! the CRC of each chunk; reading a typical 500 KB card costs well under a millisecond
//! (`cargo bench -p agent-infra-fs --bench card_read`).
//!
//! Ancillary chunks with a bad CRC are an error here rather than skipped (the crate's
//! default), so a damaged card chunk is reported instead of looking like a plain avatar.

use std::io::{Cursor, ErrorKind};

use png::{DecodeOptions, Decoder, DecodingError};

/// The text of every `tEXt` chunk whose keyword is in `keywords`, as `(keyword, text)` in
/// file order. Reading stops at `IEND`; the text is Latin-1, as the PNG format says.
pub(super) fn text_chunks(
    bytes: &[u8],
    keywords: &[&str],
) -> Result<Vec<(String, String)>, String> {
    let mut options = DecodeOptions::default();
    options.set_skip_ancillary_crc_failures(false);
    options.set_ignore_iccp_chunk(true);
    let mut reader = Decoder::new_with_options(Cursor::new(bytes), options)
        .read_info()
        .map_err(describe)?;
    reader.finish().map_err(describe)?;
    Ok(reader
        .info()
        .uncompressed_latin1_text
        .iter()
        .filter(|chunk| keywords.contains(&chunk.keyword.as_str()))
        .map(|chunk| (chunk.keyword.clone(), chunk.text.clone()))
        .collect())
}

fn describe(err: DecodingError) -> String {
    match err {
        DecodingError::IoError(err) if err.kind() == ErrorKind::UnexpectedEof => {
            "is a truncated PNG image".to_owned()
        }
        other => format!("is not a readable PNG image: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1×1 PNG with `before` chunks ahead of the image data and `after` chunks behind it.
    fn png(before: &[(&str, &str)], after: &[(&str, &str)]) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, 1, 1);
        encoder.set_color(png::ColorType::Rgba);
        for (keyword, text) in before {
            encoder
                .add_text_chunk((*keyword).to_owned(), (*text).to_owned())
                .unwrap();
        }
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&[1, 2, 3, 4]).unwrap();
        for (keyword, text) in after {
            writer
                .write_text_chunk(&png::text_metadata::TEXtChunk::new(*keyword, *text))
                .unwrap();
        }
        writer.finish().unwrap();
        bytes
    }

    #[test]
    fn chunks_before_and_after_the_image_data_are_found() {
        let bytes = png(
            &[("Comment", "hello"), ("chara", "early")],
            &[("ccv3", "late"), ("Software", "x")],
        );
        let found = text_chunks(&bytes, &["chara", "ccv3"]).unwrap();
        assert_eq!(
            found,
            [
                ("chara".to_owned(), "early".to_owned()),
                ("ccv3".to_owned(), "late".to_owned())
            ]
        );
    }

    #[test]
    fn damage_is_described() {
        assert!(
            text_chunks(b"GIF89a....", &["chara"])
                .unwrap_err()
                .contains("not a readable PNG")
        );
        let bytes = png(&[], &[("chara", "abc")]);
        // The tEXt chunk's CRC sits right before IEND's 12 bytes.
        let mut damaged = bytes.clone();
        let crc_at = damaged.len() - 12 - 1;
        damaged[crc_at] ^= 0xFF;
        let err = text_chunks(&damaged, &["chara"]).unwrap_err();
        assert!(err.contains("CRC"), "{err}");
        let err = text_chunks(&bytes[..bytes.len() - 20], &["chara"]).unwrap_err();
        assert_eq!(err, "is a truncated PNG image");
    }
}
