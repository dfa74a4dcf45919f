//! Text as found: a file's bytes decoded with the encoding, byte order mark and line endings it
//! has, and encoded back exactly so.
//!
//! A file is only ever decoded when its bytes come back unchanged from encoding the decoded
//! text ([`TextFile::decode`] checks it), so an edit that changes one span of the text changes
//! only that span's bytes: every encoding admitted here is stateless (UTF-8, UTF-16, the
//! single-byte encodings, Shift_JIS, EUC-JP, GBK, Big5, EUC-KR). A byte the encoding cannot
//! read is an error that says so; nothing is ever replaced with U+FFFD.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};

/// How a text file is written: its encoding, byte order mark and line endings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    /// The encoding.
    pub encoding: &'static Encoding,
    /// The file starts with a byte order mark (kept on every write).
    pub bom: bool,
    /// Its line endings.
    pub line_ending: LineEnding,
}

impl Format {
    /// A new file's format: UTF-8, no BOM, LF.
    pub const NEW: Format = Format {
        encoding: UTF_8,
        bom: false,
        line_ending: LineEnding::Lf,
    };

    /// The format in words, for the model: `UTF-8`, `UTF-16LE with BOM, CRLF`.
    #[must_use]
    pub fn describe(&self) -> String {
        let mut text = self.encoding.name().to_owned();
        if self.bom {
            text.push_str(" with BOM");
        }
        match self.line_ending {
            LineEnding::Lf | LineEnding::None => {}
            LineEnding::Crlf => text.push_str(", CRLF"),
            LineEnding::Mixed { crlf, lf } => {
                text.push_str(&format!(", mixed line endings ({crlf} CRLF, {lf} LF)"));
            }
        }
        text
    }
}

/// The line endings of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    /// No line break at all.
    None,
    /// `\n` only.
    Lf,
    /// `\r\n` only.
    Crlf,
    /// Both, counted.
    Mixed {
        /// Lines ending `\r\n`.
        crlf: usize,
        /// Lines ending `\n` alone.
        lf: usize,
    },
}

impl LineEnding {
    /// The line endings of `text`.
    #[must_use]
    pub fn of(text: &str) -> Self {
        let lf_total = text.bytes().filter(|&b| b == b'\n').count();
        let crlf = text.matches("\r\n").count();
        let lf = lf_total - crlf;
        match (crlf, lf) {
            (0, 0) => LineEnding::None,
            (0, _) => LineEnding::Lf,
            (_, 0) => LineEnding::Crlf,
            (crlf, lf) => LineEnding::Mixed { crlf, lf },
        }
    }

    /// The break new lines get: CRLF where CRLF is the file's (or most of its lines'), else LF.
    #[must_use]
    pub fn for_new_lines(self) -> &'static str {
        match self {
            LineEnding::Crlf => "\r\n",
            LineEnding::Mixed { crlf, lf } if crlf > lf => "\r\n",
            _ => "\n",
        }
    }

    /// `text` (with `\n` line breaks, as a model writes) with this file's line breaks.
    #[must_use]
    pub fn apply(self, text: &str) -> String {
        let text = text.replace("\r\n", "\n");
        match self.for_new_lines() {
            "\r\n" => text.replace('\n', "\r\n"),
            _ => text,
        }
    }
}

/// A text file's content and how it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextFile {
    /// The text, with the file's own line breaks.
    pub text: String,
    /// How it is written.
    pub format: Format,
}

/// Why bytes are not text this engine can read and write back exactly.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A NUL byte in the first 8 KiB, and no UTF-16 byte order mark.
    #[error("it is a binary file ({size} bytes{kind}), not text")]
    Binary {
        /// The file's size in bytes.
        size: u64,
        /// What kind, when known (`, a PDF document`).
        kind: String,
    },
    /// A byte sequence the detected encoding cannot read.
    #[error(
        "it is not valid {encoding} text (a byte sequence at offset {offset} is not {encoding}), so it cannot be read or changed without damaging it"
    )]
    Malformed {
        /// The encoding tried.
        encoding: &'static str,
        /// Where the first bad sequence starts.
        offset: usize,
    },
    /// Decoding and encoding again would not give the same bytes.
    #[error(
        "its {encoding} text does not encode back to the same bytes, so an edit could change bytes outside it; it is left as it is"
    )]
    NotRoundTrip {
        /// The encoding.
        encoding: &'static str,
    },
}

/// Why a text cannot be written in a file's format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the text has `{character}` (U+{code:04X}), which {encoding} cannot hold; the file is {encoding}, so write the text without it, or convert the file to UTF-8 first"
)]
pub struct EncodeError {
    /// The first character that does not fit.
    pub character: char,
    /// Its code point.
    pub code: u32,
    /// The file's encoding.
    pub encoding: &'static str,
}

/// How many leading bytes decide whether a file is binary, and feed the encoding detector.
pub const SNIFF: usize = 8 * 1024;

impl TextFile {
    /// Decodes a file's bytes as found.
    ///
    /// # Errors
    /// Binary content, bytes the detected encoding cannot read, or text that would not encode
    /// back to the same bytes.
    pub fn decode(bytes: &[u8]) -> Result<TextFile, DecodeError> {
        let (encoding, bom_len) = detect(bytes)?;
        let body = &bytes[bom_len..];
        let text = decode_exact(encoding, body)?;
        let format = Format {
            encoding,
            bom: bom_len > 0,
            line_ending: LineEnding::of(&text),
        };
        let file = TextFile { text, format };
        // Valid UTF-8 encodes back to itself: only other encodings need the check.
        if encoding == UTF_8 {
            return Ok(file);
        }
        match file.encode_text(&file.text) {
            Ok(again) if again == bytes => Ok(file),
            _ => Err(DecodeError::NotRoundTrip {
                encoding: encoding.name(),
            }),
        }
    }

    /// Decodes a file's bytes as found, taking them: valid UTF-8 without a BOM (the common
    /// file) becomes the text without a copy.
    ///
    /// # Errors
    /// As [`TextFile::decode`].
    pub fn decode_owned(bytes: Vec<u8>) -> Result<TextFile, DecodeError> {
        if Encoding::for_bom(&bytes).is_none() && !bytes[..bytes.len().min(SNIFF)].contains(&0) {
            match String::from_utf8(bytes) {
                Ok(text) => {
                    let line_ending = LineEnding::of(&text);
                    return Ok(TextFile {
                        text,
                        format: Format {
                            encoding: UTF_8,
                            bom: false,
                            line_ending,
                        },
                    });
                }
                Err(error) => return TextFile::decode(error.as_bytes()),
            }
        }
        TextFile::decode(&bytes)
    }

    /// The bytes of `text` in this file's format, taking the text: UTF-8 without a BOM needs
    /// no copy.
    ///
    /// # Errors
    /// A character the file's encoding cannot hold.
    pub fn encode_owned(&self, text: String) -> Result<Vec<u8>, EncodeError> {
        if self.format.encoding == UTF_8 && !self.format.bom {
            return Ok(text.into_bytes());
        }
        self.encode_text(&text)
    }

    /// The bytes of `text` in this file's format (its BOM, its encoding; line breaks as they
    /// are in `text`).
    ///
    /// # Errors
    /// A character the file's encoding cannot hold.
    pub fn encode_text(&self, text: &str) -> Result<Vec<u8>, EncodeError> {
        encode(self.format, text)
    }
}

/// The bytes of `text` written in `format` (line breaks as they are in `text`).
///
/// # Errors
/// A character the encoding cannot hold.
pub fn encode(format: Format, text: &str) -> Result<Vec<u8>, EncodeError> {
    let encoding = format.encoding;
    let mut out = Vec::with_capacity(text.len() + 3);
    if format.bom {
        out.extend_from_slice(bom_of(encoding));
    }
    if encoding == UTF_8 {
        out.extend_from_slice(text.as_bytes());
        return Ok(out);
    }
    if encoding == UTF_16LE || encoding == UTF_16BE {
        for unit in text.encode_utf16() {
            let bytes = if encoding == UTF_16LE {
                unit.to_le_bytes()
            } else {
                unit.to_be_bytes()
            };
            out.extend_from_slice(&bytes);
        }
        return Ok(out);
    }
    let mut encoder = encoding.new_encoder();
    let mut buffer = vec![0u8; text.len() * 4 + 16];
    let (result, _, written) =
        encoder.encode_from_utf8_without_replacement(text, &mut buffer, true);
    match result {
        encoding_rs::EncoderResult::InputEmpty => {
            out.extend_from_slice(&buffer[..written]);
            Ok(out)
        }
        encoding_rs::EncoderResult::Unmappable(character) => Err(EncodeError {
            character,
            code: u32::from(character),
            encoding: encoding.name(),
        }),
        encoding_rs::EncoderResult::OutputFull => Err(EncodeError {
            character: '\u{FFFD}',
            code: 0xFFFD,
            encoding: encoding.name(),
        }),
    }
}

fn bom_of(encoding: &'static Encoding) -> &'static [u8] {
    if encoding == UTF_16LE {
        b"\xFF\xFE"
    } else if encoding == UTF_16BE {
        b"\xFE\xFF"
    } else {
        b"\xEF\xBB\xBF"
    }
}

/// The encoding of `bytes` and the length of its byte order mark: a BOM says; else valid UTF-8
/// is UTF-8; else the detector guesses from the first bytes. A NUL byte (without a UTF-16 BOM)
/// means binary.
///
/// # Errors
/// [`DecodeError::Binary`].
pub fn detect(bytes: &[u8]) -> Result<(&'static Encoding, usize), DecodeError> {
    if let Some((encoding, len)) = Encoding::for_bom(bytes) {
        return Ok((encoding, len));
    }
    let head = &bytes[..bytes.len().min(SNIFF)];
    if head.contains(&0) {
        return Err(DecodeError::Binary {
            size: bytes.len() as u64,
            kind: binary_kind(head)
                .map(|kind| format!(", {kind}"))
                .unwrap_or_default(),
        });
    }
    if std::str::from_utf8(bytes).is_ok() || utf8_prefix(head) {
        return Ok((UTF_8, 0));
    }
    // ISO-2022-JP is stateful: an edit could change how later bytes read. Never guessed.
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(head, head.len() == bytes.len());
    Ok((detector.guess(None, chardetng::Utf8Detection::Allow), 0))
}

/// `true` when `head` is valid UTF-8 but for a sequence cut at its end.
pub fn utf8_prefix(head: &[u8]) -> bool {
    match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(error) => error.error_len().is_none() && head.len() - error.valid_up_to() < 4,
    }
}

/// `bytes` decoded with `encoding`, refusing any sequence it cannot read.
fn decode_exact(encoding: &'static Encoding, bytes: &[u8]) -> Result<String, DecodeError> {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut text = String::with_capacity(
        decoder
            .max_utf8_buffer_length_without_replacement(bytes.len())
            .unwrap_or(bytes.len() * 3),
    );
    let (result, read) = decoder.decode_to_string_without_replacement(bytes, &mut text, true);
    match result {
        encoding_rs::DecoderResult::InputEmpty => Ok(text),
        encoding_rs::DecoderResult::Malformed(length, consumed_after) => {
            Err(DecodeError::Malformed {
                encoding: encoding.name(),
                offset: read - usize::from(length) - usize::from(consumed_after),
            })
        }
        encoding_rs::DecoderResult::OutputFull => Err(DecodeError::Malformed {
            encoding: encoding.name(),
            offset: read,
        }),
    }
}

/// What kind of binary file this is, by its first bytes, when it is a common one.
pub fn binary_kind(head: &[u8]) -> Option<&'static str> {
    const KINDS: [(&[u8], &str); 10] = [
        (b"%PDF", "a PDF document"),
        (
            b"PK\x03\x04",
            "a ZIP archive (or a format built on one: jar, docx, xlsx)",
        ),
        (b"\x7fELF", "an ELF executable or library"),
        (b"\x1f\x8b", "a gzip archive"),
        (b"\x89PNG", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"SQLite format 3\0", "an SQLite database"),
        (b"\0asm", "a WebAssembly module"),
        (
            b"\xca\xfe\xba\xbe",
            "a Java class or Mach-O universal binary",
        ),
    ];
    KINDS
        .iter()
        .find(|(magic, _)| head.starts_with(magic))
        .map(|(_, kind)| *kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(bytes: &[u8]) -> TextFile {
        let file = TextFile::decode(bytes).expect("decodes");
        assert_eq!(file.encode_text(&file.text).unwrap(), bytes, "encodes back");
        file
    }

    #[test]
    fn every_admitted_format_decodes_and_encodes_back_byte_for_byte() {
        let utf16le: Vec<u8> = b"\xFF\xFE"
            .iter()
            .copied()
            .chain(
                "héllo\r\nwörld\r\n"
                    .encode_utf16()
                    .flat_map(u16::to_le_bytes),
            )
            .collect();
        let utf16be: Vec<u8> = b"\xFE\xFF"
            .iter()
            .copied()
            .chain("héllo\nwörld\n".encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        let (shift_jis, _, _) = encoding_rs::SHIFT_JIS.encode(
            "日本語のテキストです。\r\n二行目もあります。\r\nこれは三行目のテキストです。\r\n",
        );
        for (bytes, encoding, bom, line_ending) in [
            (b"plain\ntext\n".to_vec(), "UTF-8", false, LineEnding::Lf),
            (
                b"crlf\r\ntext\r\n".to_vec(),
                "UTF-8",
                false,
                LineEnding::Crlf,
            ),
            (
                b"a\r\nb\nc\r\n".to_vec(),
                "UTF-8",
                false,
                LineEnding::Mixed { crlf: 2, lf: 1 },
            ),
            (b"\xEF\xBB\xBFbom\n".to_vec(), "UTF-8", true, LineEnding::Lf),
            (
                b"caf\xe9 cr\xe8me br\xfbl\xe9e\n".to_vec(),
                "windows-1252",
                false,
                LineEnding::Lf,
            ),
            (utf16le, "UTF-16LE", true, LineEnding::Crlf),
            (utf16be, "UTF-16BE", true, LineEnding::Lf),
            (shift_jis.into_owned(), "Shift_JIS", false, LineEnding::Crlf),
        ] {
            let file = round_trip(&bytes);
            assert_eq!(
                (
                    file.format.encoding.name(),
                    file.format.bom,
                    file.format.line_ending
                ),
                (encoding, bom, line_ending),
                "{bytes:?}"
            );
        }
    }

    #[test]
    fn an_edit_changes_only_the_bytes_of_its_span() {
        let bytes = b"caf\xe9\r\nna\xefve\r\nend\r\n";
        let file = TextFile::decode(bytes).unwrap();
        let edited = file.text.replace("naïve", "naïf");
        let written = file.encode_text(&edited).unwrap();
        assert_eq!(written, b"caf\xe9\r\nna\xeff\r\nend\r\n");
    }

    #[test]
    fn binary_content_is_named_and_refused() {
        let error = TextFile::decode(b"%PDF-1.7\n\0\0\x01binary").unwrap_err();
        assert!(error.to_string().contains("a PDF document"), "{error}");
    }

    #[test]
    fn a_character_the_encoding_cannot_hold_is_an_error_not_a_question_mark() {
        let file = TextFile::decode(b"caf\xe9\n").unwrap();
        let error = file.encode_text("café ☃\n").unwrap_err();
        assert_eq!(error.character, '☃');
        assert!(error.to_string().contains("windows-1252"), "{error}");
    }

    #[test]
    fn new_lines_take_the_files_line_breaks() {
        assert_eq!(LineEnding::Crlf.apply("a\nb\n"), "a\r\nb\r\n");
        assert_eq!(LineEnding::Lf.apply("a\r\nb\n"), "a\nb\n");
        assert_eq!(LineEnding::Mixed { crlf: 3, lf: 1 }.apply("x\n"), "x\r\n");
    }
}
