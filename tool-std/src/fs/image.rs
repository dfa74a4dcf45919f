//! Images a model can be sent, told by their header and not by their signature alone
//! (issue 28): a file that starts like a PNG but goes on as garbage is a binary file, since a
//! provider refuses an image it cannot decode and the conversation fails with it. Each format
//! is checked as far as its dimensions: PNG's first chunk (length, type, fields, CRC), GIF's
//! screen descriptor and first block, WebP's first chunk (VP8, VP8L or VP8X), JPEG's segments
//! up to the frame header.

use std::fmt;

/// An image whose header holds together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageHeader {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub mime_type: &'static str,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// A file with an image's signature whose header does not hold together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrokenImage {
    /// The format its signature names, as `PNG`.
    pub format: &'static str,
    /// What is wrong, in a few words.
    pub reason: &'static str,
    /// The bytes ended before the header did: more of the file might have made it whole.
    pub truncated: bool,
}

impl fmt::Display for BrokenImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a {} signature, but not a valid {}: {}",
            self.format, self.format, self.reason
        )
    }
}

/// The image `bytes` (a file's start, or all of it) hold: `None` without an image signature.
///
/// ```
/// use tool_std::fs::check_image;
///
/// let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";
/// let header = check_image(png).unwrap().unwrap();
/// assert_eq!((header.mime_type, header.width, header.height), ("image/png", 1, 1));
///
/// let garbage = b"\x89PNG\r\n\x1a\nthis is not a chunk at all, just bytes";
/// assert!(check_image(garbage).unwrap().is_err());
/// assert!(check_image(b"plain text").is_none());
/// ```
#[must_use]
pub fn check_image(bytes: &[u8]) -> Option<Result<ImageHeader, BrokenImage>> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(png(bytes))
    } else if bytes.starts_with(b"\xff\xd8\xff") {
        Some(jpeg(bytes))
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(gif(bytes))
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some(webp(bytes))
    } else {
        None
    }
}

fn broken(format: &'static str, reason: &'static str) -> BrokenImage {
    BrokenImage {
        format,
        reason,
        truncated: false,
    }
}

fn truncated(format: &'static str, reason: &'static str) -> BrokenImage {
    BrokenImage {
        format,
        reason,
        truncated: true,
    }
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

fn le16(b: &[u8]) -> u32 {
    u32::from(u16::from_le_bytes([b[0], b[1]]))
}

fn le24(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], 0])
}

fn sized(mime_type: &'static str, width: u32, height: u32) -> Option<ImageHeader> {
    (width > 0 && height > 0).then_some(ImageHeader {
        mime_type,
        width,
        height,
    })
}

/// The signature, then an `IHDR` chunk of 13 bytes with legal fields and a matching CRC.
fn png(b: &[u8]) -> Result<ImageHeader, BrokenImage> {
    const F: &str = "PNG";
    if b.len() < 33 {
        return Err(truncated(F, "the file ends inside its header chunk"));
    }
    if be32(&b[8..]) != 13 || &b[12..16] != b"IHDR" {
        return Err(broken(F, "its first chunk is not a 13-byte IHDR"));
    }
    let (depth, color) = (b[24], b[25]);
    let legal = match color {
        0 => matches!(depth, 1 | 2 | 4 | 8 | 16),
        3 => matches!(depth, 1 | 2 | 4 | 8),
        2 | 4 | 6 => matches!(depth, 8 | 16),
        _ => false,
    };
    if !legal || b[26] != 0 || b[27] != 0 || b[28] > 1 {
        return Err(broken(F, "its header names an impossible pixel format"));
    }
    if crc32(&b[12..29]) != be32(&b[29..]) {
        return Err(broken(F, "its header chunk fails its checksum"));
    }
    let (width, height) = (be32(&b[16..]), be32(&b[20..]));
    if width > i32::MAX as u32 || height > i32::MAX as u32 {
        return Err(broken(F, "its dimensions are out of range"));
    }
    sized("image/png", width, height).ok_or(broken(F, "it is zero pixels wide or high"))
}

/// Segments from the start-of-image marker up to a start-of-frame, which holds the size.
fn jpeg(b: &[u8]) -> Result<ImageHeader, BrokenImage> {
    const F: &str = "JPEG";
    let mut at = 2;
    loop {
        if at >= b.len() {
            return Err(truncated(F, "the file ends before its frame header"));
        }
        if b[at] != 0xff {
            return Err(broken(F, "its segments do not follow one another"));
        }
        // Any number of 0xFF fill bytes may precede a marker.
        while at < b.len() && b[at] == 0xff {
            at += 1;
        }
        let Some(&marker) = b.get(at) else {
            return Err(truncated(F, "the file ends before its frame header"));
        };
        at += 1;
        match marker {
            // Restart markers and TEM stand alone.
            0x01 | 0xd0..=0xd7 => continue,
            0xd9 | 0xda => {
                return Err(broken(F, "its image data starts before any frame header"));
            }
            0x00 | 0xd8 => return Err(broken(F, "its segments do not follow one another")),
            _ => {}
        }
        if at + 2 > b.len() {
            return Err(truncated(F, "the file ends before its frame header"));
        }
        let length = usize::from(u16::from_be_bytes([b[at], b[at + 1]]));
        if length < 2 {
            return Err(broken(F, "a segment has an impossible length"));
        }
        let start_of_frame = matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc);
        if start_of_frame {
            if length < 8 {
                return Err(broken(F, "its frame header is too short"));
            }
            if at + 8 > b.len() {
                return Err(truncated(F, "the file ends inside its frame header"));
            }
            let precision = b[at + 2];
            let height = u32::from(u16::from_be_bytes([b[at + 3], b[at + 4]]));
            let width = u32::from(u16::from_be_bytes([b[at + 5], b[at + 6]]));
            let components = b[at + 7];
            if !matches!(precision, 2..=16) || !matches!(components, 1..=4) {
                return Err(broken(
                    F,
                    "its frame header names an impossible pixel format",
                ));
            }
            return sized("image/jpeg", width, height)
                .ok_or(broken(F, "it is zero pixels wide or high"));
        }
        at += length;
    }
}

/// The logical screen descriptor, its colour table, and a legal first block after them.
fn gif(b: &[u8]) -> Result<ImageHeader, BrokenImage> {
    const F: &str = "GIF";
    if b.len() < 13 {
        return Err(truncated(F, "the file ends inside its screen descriptor"));
    }
    let (width, height) = (le16(&b[6..]), le16(&b[8..]));
    let packed = b[10];
    let table = if packed & 0x80 != 0 {
        3 << ((packed & 0x07) + 1)
    } else {
        0
    };
    match b.get(13 + table) {
        // An image descriptor, an extension, or the trailer.
        Some(0x2c | 0x21 | 0x3b) => {}
        Some(_) => return Err(broken(F, "no image block follows its screen descriptor")),
        None => return Err(truncated(F, "the file ends inside its colour table")),
    }
    sized("image/gif", width, height).ok_or(broken(F, "it is zero pixels wide or high"))
}

/// The RIFF container, then a first chunk of a kind WebP defines, with its own signature.
fn webp(b: &[u8]) -> Result<ImageHeader, BrokenImage> {
    const F: &str = "WebP";
    if b.len() < 30 {
        return Err(truncated(F, "the file ends inside its first chunk"));
    }
    let riff_size = u64::from(u32::from_le_bytes([b[4], b[5], b[6], b[7]]));
    let chunk_size = u64::from(u32::from_le_bytes([b[16], b[17], b[18], b[19]]));
    if riff_size < 4 + 8 + chunk_size {
        return Err(broken(
            F,
            "its first chunk is larger than the file says it is",
        ));
    }
    let (width, height) = match &b[12..16] {
        // Lossy: a key frame's tag, the start code, 14-bit dimensions.
        b"VP8 " => {
            if b[20] & 1 != 0 || b[23..26] != [0x9d, 0x01, 0x2a] {
                return Err(broken(F, "its VP8 frame has no key-frame start code"));
            }
            (le16(&b[26..]) & 0x3fff, le16(&b[28..]) & 0x3fff)
        }
        // Lossless: a signature byte, then 14-bit dimensions less one.
        b"VP8L" => {
            if b[20] != 0x2f {
                return Err(broken(F, "its VP8L stream lacks its signature"));
            }
            let bits = u32::from_le_bytes([b[21], b[22], b[23], b[24]]);
            if bits >> 29 != 0 {
                return Err(broken(F, "its VP8L header has an unknown version"));
            }
            ((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1)
        }
        // Extended: flags, then 24-bit canvas dimensions less one.
        b"VP8X" => (le24(&b[24..]) + 1, le24(&b[27..]) + 1),
        _ => return Err(broken(F, "its first chunk is not VP8, VP8L or VP8X")),
    };
    sized("image/webp", width, height).ok_or(broken(F, "it is zero pixels wide or high"))
}

/// CRC-32 (ISO-HDLC, as PNG uses), bit by bit: 17 bytes per file do not need a table.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_with(ihdr_data: [u8; 13]) -> Vec<u8> {
        let mut chunk = b"IHDR".to_vec();
        chunk.extend_from_slice(&ihdr_data);
        let mut out = b"\x89PNG\r\n\x1a\n\0\0\0\x0d".to_vec();
        out.extend_from_slice(&chunk);
        out.extend_from_slice(&crc32(&chunk).to_be_bytes());
        out
    }

    fn reason(bytes: &[u8]) -> &'static str {
        check_image(bytes).unwrap().unwrap_err().reason
    }

    #[test]
    fn crc32_matches_the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn a_png_is_read_to_its_dimensions() {
        let png = png_with([0, 0, 2, 0x80, 0, 0, 1, 0xe0, 8, 2, 0, 0, 0]);
        let header = check_image(&png).unwrap().unwrap();
        assert_eq!((header.width, header.height), (640, 480));
    }

    #[test]
    fn a_png_signature_followed_by_garbage_is_broken() {
        // Issue 28: the signature alone made it an image.
        let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
        bytes.extend_from_slice(&[0x5a; 64]);
        assert_eq!(reason(&bytes), "its first chunk is not a 13-byte IHDR");
    }

    #[test]
    fn every_png_header_field_is_checked() {
        let good = [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0];
        let mut bad_crc = png_with(good);
        bad_crc[30] ^= 1;
        assert_eq!(reason(&bad_crc), "its header chunk fails its checksum");
        for (field, value) in [(8, 3), (9, 5), (10, 1), (11, 1), (12, 2)] {
            let mut data = good;
            data[field] = value;
            assert_eq!(
                reason(&png_with(data)),
                "its header names an impossible pixel format",
                "field {field}"
            );
        }
        let mut zero = good;
        zero[3] = 0;
        assert_eq!(reason(&png_with(zero)), "it is zero pixels wide or high");
        let short = &png_with(good)[..20];
        assert!(check_image(short).unwrap().unwrap_err().truncated);
    }

    #[test]
    fn a_jpeg_is_walked_to_its_frame_header() {
        // SOI, an APP0 segment of 16 bytes, a baseline SOF0 of 300x200 with 3 components.
        let mut jpeg =
            b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00".to_vec();
        jpeg.extend_from_slice(
            b"\xff\xc0\x00\x11\x08\x00\xc8\x01\x2c\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01",
        );
        let header = check_image(&jpeg).unwrap().unwrap();
        assert_eq!(
            (header.mime_type, header.width, header.height),
            ("image/jpeg", 300, 200)
        );

        let garbage =
            b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00garbage";
        assert_eq!(reason(garbage), "its segments do not follow one another");
        let scan_first = b"\xff\xd8\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00";
        assert_eq!(
            reason(scan_first),
            "its image data starts before any frame header"
        );
        assert!(check_image(&jpeg[..10]).unwrap().unwrap_err().truncated);
    }

    #[test]
    fn a_gif_needs_a_block_after_its_screen_descriptor() {
        let gif = b"GIF89a\x0a\x00\x05\x00\x00\x00\x00\x2c";
        let header = check_image(gif).unwrap().unwrap();
        assert_eq!((header.width, header.height), (10, 5));
        assert_eq!(
            reason(b"GIF89a\x0a\x00\x05\x00\x00\x00\x00garbage"),
            "no image block follows its screen descriptor"
        );
        // A global colour table of 2 entries (6 bytes) sits between them.
        let with_table = b"GIF87a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff\x3b";
        assert!(check_image(with_table).unwrap().is_ok());
    }

    #[test]
    fn a_webp_is_read_in_each_of_its_three_kinds() {
        let riff = |chunk: &[u8; 4], body: &[u8]| {
            let mut out = b"RIFF".to_vec();
            out.extend_from_slice(&(4 + 8 + body.len() as u32).to_le_bytes());
            out.extend_from_slice(b"WEBP");
            out.extend_from_slice(chunk);
            out.extend_from_slice(&(body.len() as u32).to_le_bytes());
            out.extend_from_slice(body);
            out
        };
        let lossy = riff(b"VP8 ", b"\x50\x02\x00\x9d\x01\x2a\x40\x01\xf0\x00\0\0");
        let lossless = riff(b"VP8L", b"\x2f\x3f\xc0\x03\x00\0\0\0\0\0");
        let extended = riff(b"VP8X", b"\x10\0\0\0\x3f\x01\x00\xef\x00\x00");
        for (bytes, size) in [
            (lossy, (320, 240)),
            (lossless, (64, 16)),
            (extended, (320, 240)),
        ] {
            let header = check_image(&bytes).unwrap().unwrap();
            assert_eq!((header.width, header.height), size);
        }
        assert_eq!(
            reason(&riff(b"JUNK", &[0; 12])),
            "its first chunk is not VP8, VP8L or VP8X"
        );
    }
}
