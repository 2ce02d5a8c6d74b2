//! Words given by a user (arguments of `decode`/`check`, lines of a word list): strict hex
//! parsing and a line reader with a bounded line length, so that bad input gets a short,
//! exact error and never costs unbounded memory.
//!
//! A word is `0x` (or `0X`), optionally, then 1 to 32 hex digits of either case, and nothing
//! else (no sign, no separators, no spaces inside).

use std::io::BufRead;

/// Longest line [`WordLines`] accepts, in bytes (without the line break).
pub const MAX_LINE: usize = 4096;

/// Most characters of bad input quoted in an error.
pub const QUOTE_CHARS: usize = 80;

/// Errors of reading words.
#[derive(Debug, thiserror::Error)]
pub enum WordError {
    /// Nothing after the optional `0x`.
    #[error("`{text}`: no hex digits")]
    NoDigits {
        /// The input, quoted (at most [`QUOTE_CHARS`] characters).
        text: String,
    },
    /// A character that is not a hex digit.
    #[error("`{text}` is not a hex word: `{ch}` (column {column}) is not a hex digit")]
    NotHex {
        /// The input, quoted (at most [`QUOTE_CHARS`] characters).
        text: String,
        /// The first offending character (printed escaped if it is a control character).
        ch: String,
        /// Its 1-based column (in characters).
        column: usize,
    },
    /// More than 32 digits.
    #[error("`{text}`: too long: {digits} digits, at most 32")]
    TooLong {
        /// The input, quoted (at most [`QUOTE_CHARS`] characters).
        text: String,
        /// How many digits it has.
        digits: usize,
    },
    /// A line longer than [`MAX_LINE`] bytes.
    #[error("{name}:{line}: line longer than {MAX_LINE} bytes, starting `{head}`")]
    LineTooLong {
        /// The input's name (`stdin`, a path).
        name: String,
        /// 1-based line.
        line: usize,
        /// Its first characters, quoted (at most [`QUOTE_CHARS`]).
        head: String,
    },
    /// A line that is not UTF-8.
    #[error("{name}:{line}: not UTF-8 (byte 0x{byte:02x} at byte {column} of the line)")]
    NotUtf8 {
        /// The input's name.
        name: String,
        /// 1-based line.
        line: usize,
        /// The first byte that is not valid UTF-8.
        byte: u8,
        /// Its 1-based position in the line.
        column: usize,
    },
    /// A bad word on a line of an input.
    #[error("{name}:{line}: {source}")]
    At {
        /// The input's name.
        name: String,
        /// 1-based line.
        line: usize,
        /// What is wrong with the word.
        source: Box<WordError>,
    },
    /// The input could not be read.
    #[error("{name}: {source}")]
    Io {
        /// The input's name.
        name: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// `s` cut to [`QUOTE_CHARS`] characters (`…` marks a cut), control characters escaped.
pub fn quote(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == QUOTE_CHARS {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Parses a word (see the module docs). Surrounding whitespace is ignored.
///
/// ```
/// use sass_conform::words::parse_word;
/// assert_eq!(parse_word("0x0f66").unwrap(), 0xf66);
/// assert_eq!(
///     parse_word("+f66").unwrap_err().to_string(),
///     "`+f66` is not a hex word: `+` (column 1) is not a hex digit"
/// );
/// ```
pub fn parse_word(s: &str) -> Result<u128, WordError> {
    let s = s.trim();
    let (digits, offset) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(d) => (d, 2),
        None => (s, 0),
    };
    if let Some((i, c)) = digits
        .chars()
        .enumerate()
        .find(|(_, c)| !c.is_ascii_hexdigit())
    {
        return Err(WordError::NotHex {
            text: quote(s),
            ch: c.escape_default().to_string(),
            column: offset + i + 1,
        });
    }
    match digits.len() {
        0 => Err(WordError::NoDigits { text: quote(s) }),
        n if n > 32 => Err(WordError::TooLong {
            text: quote(s),
            digits: n,
        }),
        _ => Ok(u128::from_str_radix(digits, 16).expect("1 to 32 hex digits")),
    }
}

/// Lines of a reader, each at most [`MAX_LINE`] bytes and UTF-8, with their 1-based numbers;
/// `\n` or `\r\n` ends a line. Memory is bounded by [`MAX_LINE`] whatever the input: a longer
/// line is an error as soon as its first [`MAX_LINE`] + 1 bytes are seen. After an error the
/// iterator ends.
pub struct WordLines<R> {
    input: R,
    name: String,
    line: usize,
    done: bool,
}

impl<R: BufRead> WordLines<R> {
    /// Reads `input`, naming it `name` in errors.
    pub fn new(input: R, name: impl Into<String>) -> Self {
        WordLines {
            input,
            name: name.into(),
            line: 0,
            done: false,
        }
    }

    fn next_line(&mut self) -> Result<Option<String>, WordError> {
        let mut buf: Vec<u8> = Vec::new();
        let mut ended = false;
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(WordError::Io {
                        name: self.name.clone(),
                        source,
                    });
                }
            };
            if chunk.is_empty() {
                break;
            }
            let (take, newline) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (chunk.len(), false),
            };
            let room = MAX_LINE + 1 - buf.len();
            buf.extend_from_slice(&chunk[..take.min(room)]);
            let consumed = if newline { take + 1 } else { take };
            self.input.consume(consumed);
            ended = true;
            if buf.len() > MAX_LINE {
                self.line += 1;
                let head = String::from_utf8_lossy(&buf[..QUOTE_CHARS * 4]).into_owned();
                return Err(WordError::LineTooLong {
                    name: self.name.clone(),
                    line: self.line,
                    head: quote(&head),
                });
            }
            if newline {
                break;
            }
        }
        if !ended {
            return Ok(None);
        }
        self.line += 1;
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        String::from_utf8(buf).map(Some).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            WordError::NotUtf8 {
                name: self.name.clone(),
                line: self.line,
                byte: e.as_bytes()[at],
                column: at + 1,
            }
        })
    }
}

impl<R: BufRead> Iterator for WordLines<R> {
    type Item = Result<(usize, String), WordError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_line() {
            Ok(Some(l)) => Some(Ok((self.line, l))),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// The words of a word list: one per line; blank lines and lines starting with `#` are
/// skipped. A bad line is an error naming `name` and the line ([`WordError::At`],
/// [`WordError::LineTooLong`], [`WordError::NotUtf8`]), and ends the words.
pub fn read_words<R: BufRead>(
    input: R,
    name: &str,
) -> impl Iterator<Item = Result<u128, WordError>> {
    let name = name.to_string();
    let mut failed = false;
    WordLines::new(input, name.clone()).filter_map(move |r| {
        if failed {
            return None;
        }
        let r = r.and_then(|(line, text)| {
            let t = text.trim();
            if t.is_empty() || t.starts_with('#') {
                return Ok(None);
            }
            parse_word(t).map(Some).map_err(|e| WordError::At {
                name: name.clone(),
                line,
                source: Box::new(e),
            })
        });
        failed = r.is_err();
        r.transpose()
    })
}

/// Bytes [`LineBlocks`] reads at a time (a block is cut after its last full line). 256 KiB:
/// a block's text (about 4.5 times its words' lines) and the buffers it is formatted into stay
/// small, and fewer fresh pages are touched than with 1 MiB blocks (400,000 words decoded:
/// 4,500 page faults -> 2,150; issue 23, thirteenth pass).
pub const BLOCK_BYTES: usize = 1 << 18;

/// A word list read in large blocks of whole lines, for callers that parse and decode the
/// lines of a block in parallel ([`parse_lines`]); the same lines, numbers and errors as
/// [`read_words`]. Memory is bounded by the block size plus [`MAX_LINE`].
pub struct LineBlocks<R> {
    input: R,
    name: String,
    buf: Vec<u8>,
    /// Bytes of `buf` read so far.
    filled: usize,
    /// Start of the unread part of `buf` (the lines of the last block end here).
    start: usize,
    /// Lines handed out so far.
    line: usize,
    block_bytes: usize,
    eof: bool,
    /// An error met after the last block's lines: returned by the next call.
    pending: Option<WordError>,
    done: bool,
}

/// One block of whole lines from [`LineBlocks`].
#[derive(Debug, Clone, Copy)]
pub struct Block<'a> {
    /// The lines, each ended by `\n` (the input's last line may lack it).
    pub bytes: &'a [u8],
    /// 1-based number of the block's first line.
    pub first_line: usize,
}

impl<R: std::io::Read> LineBlocks<R> {
    /// Reads `input` in blocks of about `block_bytes` (at least [`MAX_LINE`] + 1), naming it
    /// `name` in errors.
    pub fn new(input: R, name: impl Into<String>, block_bytes: usize) -> Self {
        let block_bytes = block_bytes.max(MAX_LINE + 1);
        LineBlocks {
            input,
            name: name.into(),
            buf: vec![0; block_bytes + MAX_LINE + 1],
            filled: 0,
            start: 0,
            line: 0,
            block_bytes,
            eof: false,
            pending: None,
            done: false,
        }
    }

    /// The next block: `Ok(None)` at the end of the input, an error (a line longer than
    /// [`MAX_LINE`], a read error) once the lines before it have been handed out.
    pub fn next_block(&mut self) -> Result<Option<Block<'_>>, WordError> {
        if self.done {
            return Ok(None);
        }
        if let Some(e) = self.pending.take() {
            self.done = true;
            return Err(e);
        }
        // Keep the unfinished last line of the previous block.
        self.buf.copy_within(self.start..self.filled, 0);
        self.filled -= self.start;
        self.start = 0;
        while !self.eof && self.filled < self.block_bytes {
            match self.input.read(&mut self.buf[self.filled..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(source) => {
                    self.eof = true;
                    self.pending = Some(WordError::Io {
                        name: self.name.clone(),
                        source,
                    });
                }
            }
        }
        let data = &self.buf[..self.filled];
        // Whole lines: up to the last `\n`, or everything at the end of the input.
        let end = match memchr::memrchr(b'\n', data) {
            Some(i) => i + 1,
            None => 0,
        };
        let end = if self.eof && self.pending.is_none() {
            data.len()
        } else {
            end
        };
        // Whole lines longer than MAX_LINE are reported by `parse_lines`, in order; an
        // unfinished tail that long ends the input here (memory stays bounded).
        let lines = count_newlines(&data[..end]);
        if data.len() - end > MAX_LINE {
            let head = String::from_utf8_lossy(&data[end..end + QUOTE_CHARS * 4]).into_owned();
            self.pending = Some(WordError::LineTooLong {
                name: self.name.clone(),
                line: self.line + lines + 1,
                head: quote(&head),
            });
        }
        if end == 0 {
            return match self.pending.take() {
                Some(e) => {
                    self.done = true;
                    Err(e)
                }
                None if self.eof => {
                    self.done = true;
                    Ok(None)
                }
                // Cannot happen: without EOF the buffer holds more than MAX_LINE bytes.
                None => Ok(None),
            };
        }
        let first_line = self.line + 1;
        self.line += lines;
        self.start = end;
        if self.pending.is_some() {
            self.eof = true;
        }
        Ok(Some(Block {
            bytes: &self.buf[..end],
            first_line,
        }))
    }
}

/// Splits a block's lines into about `parts` pieces of whole lines, each with the number of
/// its first line (for parsing in parallel).
pub fn split_lines(block: Block<'_>, parts: usize) -> Vec<Block<'_>> {
    let parts = parts.max(1);
    let target = block.bytes.len().div_ceil(parts).max(1);
    let mut out = Vec::with_capacity(parts);
    let (mut rest, mut line) = (block.bytes, block.first_line);
    while !rest.is_empty() {
        let end = match memchr::memchr(b'\n', &rest[target.min(rest.len() - 1)..]) {
            Some(i) => target.min(rest.len() - 1) + i + 1,
            None => rest.len(),
        };
        let (piece, tail) = rest.split_at(end);
        out.push(Block {
            bytes: piece,
            first_line: line,
        });
        line += count_newlines(piece);
        rest = tail;
    }
    out
}

/// The number of `\n` bytes in `bytes` (memchr's vectorised count).
pub fn count_newlines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

/// Hex digit values (0xff: not a hex digit).
const HEX: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// The value of up to 16 hex digits, `None` when a byte is not one.
#[inline]
fn hex_u64(digits: &[u8]) -> Option<u64> {
    let mut w = 0u64;
    let mut bad = 0u8;
    for &b in digits {
        let d = HEX[b as usize];
        bad |= d;
        w = w << 4 | (d & 0xf) as u64;
    }
    (bad & 0xf0 == 0).then_some(w)
}

/// The value of 8 hex digits (first digit most significant), eight bytes at a time; `None`
/// when a byte is not one. The same answer as [`hex_u64`].
#[inline]
fn hex8(digits: &[u8; 8]) -> Option<u64> {
    const fn splat(b: u8) -> u64 {
        u64::from_ne_bytes([b; 8])
    }
    let x = u64::from_le_bytes(*digits);
    // Each byte below 0x80 (so that the sums below carry into no other byte), then in
    // `lo..=hi`: the high bit of `b + 0x80 - lo` is set when `b >= lo`, that of
    // `b + 0x7f - hi` when `b > hi`.
    let within = |y: u64, lo: u8, hi: u8| {
        y.wrapping_add(splat(0x80 - lo)) & !y.wrapping_add(splat(0x7f - hi))
    };
    let digit = within(x, b'0', b'9');
    // Bit 5 cleared: `a`..`f` read as `A`..`F`.
    let letter = within(x & splat(0xdf), b'A', b'F');
    if x & splat(0x80) != 0 || (digit | letter) & splat(0x80) != splat(0x80) {
        return None;
    }
    // Each byte's digit value: its low nibble, plus 9 for a letter (bit 6 set).
    let n = (x & splat(0x0f)) + 9 * ((x >> 6) & splat(0x01));
    // Byte i (digit i) to nibble 7 - i.
    let a = ((n << 4) | (n >> 8)) & 0x00ff_00ff_00ff_00ff;
    let b = ((a << 8) | (a >> 16)) & 0x0000_ffff_0000_ffff;
    Some(((b << 16) | (b >> 32)) & 0xffff_ffff)
}

/// The value of 32 hex digits, eight at a time.
#[inline]
fn hex32(digits: &[u8; 32]) -> Option<u128> {
    let mut w = 0u128;
    for chunk in digits.chunks_exact(8) {
        w = w << 32 | u128::from(hex8(chunk.try_into().ok()?)?);
    }
    Some(w)
}

/// The word of a line of 1 to 32 hex digits and nothing else (the common case), else `None`.
#[inline]
fn plain_hex(line: &[u8]) -> Option<u128> {
    if let Ok(all) = <&[u8; 32]>::try_from(line) {
        return hex32(all);
    }
    match line.len() {
        0 | 33.. => None,
        1..=16 => hex_u64(line).map(u128::from),
        n => {
            let hi = hex_u64(&line[..n - 16])?;
            let lo = hex_u64(&line[n - 16..])?;
            Some(u128::from(hi) << 64 | u128::from(lo))
        }
    }
}

/// Parses the lines of a block (or of a piece of one, [`split_lines`]) as [`read_words`]
/// does, calling `word` for each word in order; stops at the first bad line with its error
/// (the words before it were passed on), a line longer than [`MAX_LINE`] included.
pub fn parse_lines(
    block: Block<'_>,
    name: &str,
    mut word: impl FnMut(u128),
) -> Result<(), WordError> {
    let mut rest = block.bytes;
    let mut line = block.first_line;
    while !rest.is_empty() {
        // The common line first: 32 hex digits and `\n`, no search for the line's end.
        if let Some((fast, tail)) = rest.split_first_chunk::<33>()
            && fast[32] == b'\n'
            && let Some(w) = plain_hex(&fast[..32])
        {
            word(w);
            rest = tail;
            line += 1;
            continue;
        }
        let (piece, tail) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => rest.split_at(i + 1),
            None => (rest, &rest[rest.len()..]),
        };
        rest = tail;
        let at = line;
        line += 1;
        let body = piece.strip_suffix(b"\n").unwrap_or(piece);
        let full = body;
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        if let Some(w) = plain_hex(body) {
            word(w);
            continue;
        }
        if full.len() > MAX_LINE {
            let head = String::from_utf8_lossy(&full[..QUOTE_CHARS * 4]).into_owned();
            return Err(WordError::LineTooLong {
                name: name.to_string(),
                line: at,
                head: quote(&head),
            });
        }
        let text = std::str::from_utf8(body).map_err(|e| {
            let col = e.valid_up_to();
            WordError::NotUtf8 {
                name: name.to_string(),
                line: at,
                byte: body[col],
                column: col + 1,
            }
        })?;
        let t = text.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let w = parse_word(t).map_err(|e| WordError::At {
            name: name.to_string(),
            line: at,
            source: Box::new(e),
        })?;
        word(w);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> String {
        parse_word(s).unwrap_err().to_string()
    }

    #[test]
    fn strict_hex() {
        assert_eq!(parse_word("f66").unwrap(), 0xf66);
        assert_eq!(parse_word(" 0Xf66\t").unwrap(), 0xf66);
        assert_eq!(parse_word(&"f".repeat(32)).unwrap(), u128::MAX);
        assert_eq!(
            err("+f66"),
            "`+f66` is not a hex word: `+` (column 1) is not a hex digit"
        );
        assert_eq!(
            err("0x-1"),
            "`0x-1` is not a hex word: `-` (column 3) is not a hex digit"
        );
        assert_eq!(
            err("0f_66"),
            "`0f_66` is not a hex word: `_` (column 3) is not a hex digit"
        );
        assert_eq!(
            err("0f 66"),
            "`0f 66` is not a hex word: ` ` (column 3) is not a hex digit"
        );
        assert_eq!(
            err("0x0x1"),
            "`0x0x1` is not a hex word: `x` (column 4) is not a hex digit"
        );
        assert_eq!(err("0x"), "`0x`: no hex digits");
        assert_eq!(err(""), "``: no hex digits");
        assert_eq!(
            err(&"1".repeat(33)),
            format!("`{}`: too long: 33 digits, at most 32", "1".repeat(33))
        );
        assert_eq!(
            err("1\u{0}"),
            "`1\\u{0}` is not a hex word: `\\u{0}` (column 2) is not a hex digit"
        );
    }

    #[test]
    fn quotes_are_cut_at_80_characters() {
        let long = "g".repeat(10_000);
        assert_eq!(
            err(&long),
            format!(
                "`{}…` is not a hex word: `g` (column 1) is not a hex digit",
                "g".repeat(80)
            )
        );
        assert_eq!(
            err(&"a".repeat(100)),
            format!("`{}…`: too long: 100 digits, at most 32", "a".repeat(80))
        );
    }

    #[test]
    fn lines_are_bounded() {
        let mut text = b"f66\r\n\n# note\n0x1\n".to_vec();
        text.extend(std::iter::repeat_n(b'a', MAX_LINE));
        text.push(b'\n');
        text.extend(std::iter::repeat_n(b'b', MAX_LINE + 1));
        text.extend(b"\n1\n");
        let lines: Vec<_> = WordLines::new(&text[..], "w.txt").collect();
        assert_eq!(lines.len(), 6);
        assert_eq!(lines[0].as_ref().unwrap(), &(1, "f66".to_string()));
        assert_eq!(lines[3].as_ref().unwrap(), &(4, "0x1".to_string()));
        assert_eq!(lines[4].as_ref().unwrap().1.len(), MAX_LINE);
        assert_eq!(
            lines[5].as_ref().unwrap_err().to_string(),
            format!(
                "w.txt:6: line longer than 4096 bytes, starting `{}…`",
                "b".repeat(80)
            )
        );
    }

    #[test]
    fn hex_eight_at_a_time_reads_as_one_by_one() {
        let mut x = 11u64;
        let alphabet = b"0123456789abcdefABCDEF/:@G`gxX \x80\xff\x00\x7f";
        for k in 0..20_000 {
            let mut d = [0u8; 8];
            for b in &mut d {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Mostly hex digits, so that valid runs are common.
                let pick = (x >> 40) as usize;
                *b = if k % 3 == 0 {
                    alphabet[pick % alphabet.len()]
                } else {
                    alphabet[pick % 22]
                };
            }
            assert_eq!(hex8(&d), hex_u64(&d), "{d:?}");
        }
        for b in 0..=255u8 {
            let d = [b, b'0', b'0', b'0', b'0', b'0', b'0', b'0'];
            assert_eq!(hex8(&d), hex_u64(&d), "{b}");
        }
        let line = b"0123456789abcdefABCDEF0123456789";
        assert_eq!(hex32(line), Some(0x0123456789abcdefabcdef0123456789));
    }

    #[test]
    fn newlines_are_counted_as_one_by_one() {
        let mut x = 7u64;
        for len in 0..200 {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    [b'\n', b'a', 0x8a, 0x0b, 0x09, 0xff][(x >> 60) as usize % 6]
                })
                .collect();
            let want = bytes.iter().filter(|&&b| b == b'\n').count();
            assert_eq!(count_newlines(&bytes), want, "{bytes:?}");
        }
    }

    #[test]
    fn a_huge_line_without_newline_reads_little() {
        // An endless reader: the error comes after MAX_LINE + 1 bytes, without the rest.
        let endless = std::io::BufReader::new(std::io::repeat(b'0'));
        let mut it = read_words(endless, "stdin");
        assert_eq!(
            it.next().unwrap().unwrap_err().to_string(),
            format!(
                "stdin:1: line longer than 4096 bytes, starting `{}…`",
                "0".repeat(80)
            )
        );
        assert!(it.next().is_none());
    }

    #[test]
    fn words_with_line_numbers() {
        let text = b"# words\n0xf66\n\n+f66\n1\n";
        let got: Vec<String> = read_words(&text[..], "stdin")
            .map(|r| match r {
                Ok(w) => format!("{w:x}"),
                Err(e) => e.to_string(),
            })
            .collect();
        assert_eq!(
            got,
            [
                "f66",
                "stdin:4: `+f66` is not a hex word: `+` (column 1) is not a hex digit"
            ]
        );
        let bad = b"1\n\xff\xfe\n";
        let got: Vec<String> = read_words(&bad[..], "w.txt")
            .map(|r| r.map_or_else(|e| e.to_string(), |w| w.to_string()))
            .collect();
        assert_eq!(
            got,
            ["1", "w.txt:2: not UTF-8 (byte 0xff at byte 1 of the line)"]
        );
    }

    /// Words and the error of [`LineBlocks`] + [`split_lines`] + [`parse_lines`], as
    /// [`read_words`] gives them.
    fn blocks(text: &[u8], block: usize, parts: usize) -> Vec<String> {
        let mut got = Vec::new();
        let mut b = LineBlocks::new(text, "w.txt", block);
        loop {
            match b.next_block() {
                Ok(Some(blk)) => {
                    for piece in split_lines(blk, parts) {
                        let r = parse_lines(piece, "w.txt", |w| got.push(format!("{w:x}")));
                        if let Err(e) = r {
                            got.push(e.to_string());
                            return got;
                        }
                    }
                }
                Ok(None) => return got,
                Err(e) => {
                    got.push(e.to_string());
                    return got;
                }
            }
        }
    }

    fn lines(text: &[u8]) -> Vec<String> {
        read_words(text, "w.txt")
            .map(|r| r.map_or_else(|e| e.to_string(), |w| format!("{w:x}")))
            .collect()
    }

    #[test]
    fn blocks_read_as_lines_do() {
        let mut cases: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"f66".to_vec(),
            b"f66\r\n\n# note\n 0x1 \n0XaB\n\t\n".to_vec(),
            b"1\n2\n+3\n4\n".to_vec(),
            b"1\n\xff\xfe\n2\n".to_vec(),
            format!("1\n{}\n2\n", "1".repeat(33)).into_bytes(),
        ];
        for n in [
            MAX_LINE - 1,
            MAX_LINE,
            MAX_LINE + 1,
            MAX_LINE + 2,
            3 * MAX_LINE,
        ] {
            for tail in [&b"\n5\n"[..], b"\r\n5\n", b""] {
                let mut t = b"1\n2\n".to_vec();
                t.extend(std::iter::repeat_n(b'a', n));
                t.extend_from_slice(tail);
                cases.push(t);
            }
        }
        let mut many = Vec::new();
        for i in 0..5000u32 {
            many.extend(format!("{:032x}\n", u128::from(i) * 0x9e37_79b9_7f4a_7c15).bytes());
        }
        cases.push(many.clone());
        many.extend_from_slice(b"zz\n1\n");
        cases.push(many);
        for text in &cases {
            for (block, parts) in [(1, 1), (MAX_LINE + 1, 3), (10_000, 7), (BLOCK_BYTES, 8)] {
                assert_eq!(blocks(text, block, parts), lines(text), "block {block}");
            }
        }
    }
}
