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
}
