//! The oracle: NVIDIA's `nvdisasm`, run live ([`Nvdisasm`]) or recorded in oracle files
//! ([`read_entries`], [`write_entries`], [`load_dir`], [`Manifest`]).
//!
//! Facts about nvdisasm this layer relies on (measured with nvdisasm 13.5.37 from PyPI
//! `nvidia-cuda-nvdisasm`):
//! - `nvdisasm -b SM100 raw.bin` prints two `.headerflags` lines, then one line per word,
//!   `/*0060*/ TEXT ;` padded with runs of spaces, no labels. If any word is illegal it prints
//!   nothing on stdout, exits 1, and stderr names only the first one.
//! - Some legal words print no line at all (`-json` shows `"opcode":""`): their text is `""`
//!   (about 5% of random legal SM100 words).
//! - `nvdisasm -c -ndf x.cubin` on a cubin whose kernel holds the words (see [`build_cubin`])
//!   names every illegal word in one run, on stderr, in address order:
//!   `nvdisasm error   : <reason> at address 0x%08x`; `Unrecognized operation for functional
//!   unit 'uC'` lines are followed by a line `Illegal instruction found`. Some illegal words
//!   (e.g. opcode field 0, such as the all-zero word) get only `Illegal instruction found`,
//!   with no address; their place is found from the order of the lines, or, if that is
//!   ambiguous, by a second run with a known-illegal marker word before each word
//!   ([`UNADDRESSED_REASON`]). Without `-ndf`, a cubin whose last word is not a terminator
//!   fails as a whole with `Function falls through`. When no word is illegal, the cubin run
//!   prints the same text as raw mode at the same addresses, except that branch targets inside
//!   the section become labels (`` BRA `(.L_x_0) ``).
//! - The text of a few words depends on their address: relative branch targets (`BRA`, `BSSY`,
//!   `CALL.REL`, `RET.REL`, ...) are printed as absolute signed addresses (`@!P0 BRA -0xc0 ;`
//!   at address 0), and `ULEPC` adds the address. The text recorded here is always the text
//!   **at address 0**, i.e. what `nvdisasm -b ARCH raw.bin` prints when `raw.bin` holds that
//!   one word. Such words are found by disassembling the legal words at a large base address
//!   ([`RAW_BASE`]; nvdisasm then prints 64-bit absolute targets, e.g. `BRA 0x5a5a5a5a5a5a5a40`)
//!   and picking those that print a number of 2^32 or more ([`reveals_address`]; no target
//!   was seen printed truncated), and every word of a mnemonic that did so in the same batch, then
//!   disassembled in a cubin with one section per word (every section starts at address 0;
//!   targets outside the section print as numbers, as in raw mode); where the target falls
//!   inside the one-word section (nvdisasm prints a label such as `` `(k25) ``) the word gets
//!   a raw run of its own.
//! - A cubin run whose kernel ends with a known-illegal word ([`MARKER_WORD`]) never prints
//!   the listing, which makes it about 0.6 of a raw batch's time instead of 1.2; the marker's
//!   own error lines are dropped.
//! - Start-up costs about 0.6 s per nvdisasm process, and the process holds about 0.7 KB per
//!   input word: hence chunks of up to [`DEFAULT_CHUNK_WORDS`] words, streamed
//!   ([`Nvdisasm::disassemble_stream`]).
//! - Instruction texts never span several lines in either mode (no continuation line seen in
//!   ~100k random words on SM80/SM90/SM100); the parser would append one to the instruction
//!   before it and count it in [`DisassembleStats::continuation_lines`].

pub mod ask;
mod cubin;
mod files;
pub mod interrupt;
pub(crate) mod nvdisasm;
mod run;
mod staging;
pub mod text;

pub use cubin::{MAX_KERNELS, build_cubin, cubin_e_flags};
pub use files::{
    ARCH_INFER_DIR, EntryReader, FileRecord, ListedFiles, Manifest, file_sha256,
    for_each_entry_in_files, for_each_entry_where, is_evidence_file, is_sweep_file, list_files,
    load_dir, load_entries_where, open_entries, read_entries, sort_dedup, today_utc, write_entries,
};
pub use nvdisasm::{
    DEFAULT_CHUNK_WORDS, DisassembleStats, MARKER_WORD, MAX_CHUNK_WORDS, Nvdisasm, RAW_BASE,
    UNADDRESSED_REASON, hex_literals, reveals_address, text_mnemonic,
};
pub use run::{RunSummary, read_words, run_words, write_row};
pub use staging::{OracleWriter, try_lock_file};

use crate::arch::Arch;
use std::path::PathBuf;

/// The one error type of the oracle layer.
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    /// nvdisasm was not found anywhere; the message says how to install it.
    #[error(
        "nvdisasm not found ({searched}); install it with `scripts/install-nvdisasm` \
         (puts it under .tools/nvdisasm/ from PyPI nvidia-cuda-nvdisasm), or pass \
         --nvdisasm PATH, or set NVDISASM=PATH"
    )]
    NotFound {
        /// Where we looked, for the message.
        searched: String,
    },
    /// A path given explicitly (`--nvdisasm` or `NVDISASM`) is not a runnable nvdisasm.
    #[error("{path}: not a runnable nvdisasm: {reason}")]
    BadBinary {
        /// The path that was given.
        path: PathBuf,
        /// What went wrong running `--version`.
        reason: String,
    },
    /// nvdisasm failed in a way that is not "this word is illegal".
    #[error("nvdisasm failed on {arch} word {word}: {message}")]
    Nvdisasm {
        /// The arch of the batch.
        arch: Arch,
        /// The first word of the batch (or the word concerned), 32 hex digits.
        word: String,
        /// nvdisasm's stderr (first lines) or the I/O error.
        message: String,
    },
    /// An oracle file (TSV or MANIFEST) is malformed.
    #[error("{path}:{line}: {message}")]
    BadFile {
        /// The file.
        path: PathBuf,
        /// 1-based line number (0 when the file as a whole is bad).
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A caller passed something this layer cannot handle (e.g. too many kernels for one cubin).
    #[error("oracle: {message}")]
    Input {
        /// What is wrong.
        message: String,
    },
    /// SIGINT or SIGTERM arrived: the command stopped cleanly (nvdisasm killed, temp files
    /// removed, the oracle as it was). The CLI exits 128 + `signal`.
    #[error(
        "interrupted by {}: stopped; the step under way wrote nothing (what earlier steps \
         recorded stays recorded: run again to resume)",
        signal_name(*signal)
    )]
    Interrupted {
        /// The signal number (2 for SIGINT, 15 for SIGTERM).
        signal: i32,
    },
    /// Another process holds the oracle folder's write lock.
    #[error(
        "{}: another `sass-conform` is writing to this oracle folder (lock {} held); \
         wait for it to finish, or stop it",
        dir.display(),
        lock.display()
    )]
    Locked {
        /// The oracle folder.
        dir: PathBuf,
        /// The lock file.
        lock: PathBuf,
    },
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// `SIGINT`, `SIGTERM` or `signal N`.
fn signal_name(signal: i32) -> String {
    match signal {
        libc::SIGINT => "SIGINT".into(),
        libc::SIGTERM => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
}

impl OracleError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        OracleError::Io {
            path: path.into(),
            source,
        }
    }
}

/// What nvdisasm says about one 128-bit word.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Answer {
    /// The word is legal; this is nvdisasm's text for it at address 0, whitespace-normalised by
    /// [`normalize_text`]: e.g. `@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;` (no address,
    /// no hex comment, the trailing ` ;` or `;` kept exactly as nvdisasm prints it).
    ///
    /// May be empty: nvdisasm accepts some words but prints no line for them (its `-json`
    /// output shows `"opcode":""`); about 5% of random legal SM100 words are like that.
    Text(String),
    /// The word is illegal; this is nvdisasm's reason, from the cubin pass, without the
    /// `nvdisasm error   : ` prefix and the ` at address 0x...` suffix (see
    /// [`normalize_reason`]): e.g. `Opclass 'tld_scr_urc_', undefined value 0xf5 for table
    /// 'TABLES_opex_0'` or `Unrecognized operation for functional unit 'uC'`.
    Illegal(String),
}

impl Answer {
    /// `true` for [`Answer::Text`].
    pub fn is_legal(&self) -> bool {
        matches!(self, Answer::Text(_))
    }

    /// The text or the reason.
    pub fn text(&self) -> &str {
        match self {
            Answer::Text(s) | Answer::Illegal(s) => s,
        }
    }

    /// The status word used in oracle files: `ok` or `illegal`.
    pub fn status(&self) -> &'static str {
        match self {
            Answer::Text(_) => "ok",
            Answer::Illegal(_) => "illegal",
        }
    }
}

/// One recorded oracle fact: nvdisasm's answer for `word` on `arch`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Entry {
    /// The architecture the word was disassembled for.
    pub arch: Arch,
    /// The word (bit 0 = least significant; low 64 bits first in memory).
    pub word: u128,
    /// What nvdisasm said.
    pub answer: Answer,
}

/// Normalise one line of nvdisasm instruction text.
///
/// Removes a leading address comment (`/*0060*/`), a trailing encoding comment (`/* 0x... */`,
/// printed with `-hex`), collapses every run of whitespace (spaces, tabs) to one space and trims
/// both ends. Nothing else changes: `NOP;` and `NOP ;` stay distinct, as nvdisasm prints both.
pub fn normalize_text(line: &str) -> String {
    let mut s = line.trim();
    // Leading `/*hex*/` address.
    if let Some(rest) = s.strip_prefix("/*")
        && let Some(end) = rest.find("*/")
    {
        let inner = &rest[..end];
        if !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_hexdigit()) {
            s = rest[end + 2..].trim_start();
        }
    }
    // Trailing `/* 0x... */` encoding comment(s).
    loop {
        let t = s.trim_end();
        if let Some(body) = t.strip_suffix("*/")
            && let Some(start) = body.rfind("/*")
        {
            let inner = body[start + 2..].trim();
            if let Some(hex) = inner.strip_prefix("0x")
                && !hex.is_empty()
                && hex.bytes().all(|b| b.is_ascii_hexdigit())
            {
                s = &body[..start];
                continue;
            }
        }
        s = t;
        break;
    }
    // nvdisasm's lines are ASCII with single spaces (`s` is trimmed): nothing to collapse.
    let collapsed = s.bytes().all(|c| c == b' ' || c.is_ascii_graphic()) && !s.contains("  ");
    if collapsed {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for (i, part) in s.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

/// Normalise one nvdisasm error line about an illegal word into its reason.
///
/// `nvdisasm error   : Opclass 'x', undefined value 0xf5 for table 'T' at address 0x40`
/// becomes `Opclass 'x', undefined value 0xf5 for table 'T'`: the `nvdisasm error : ` prefix
/// and the ` at address 0x...` suffix are removed and whitespace is collapsed as in
/// [`normalize_text`].
pub fn normalize_reason(line: &str) -> String {
    let mut s = line.trim();
    if let Some(rest) = s.strip_prefix("nvdisasm") {
        let rest = rest.trim_start();
        for kind in ["error", "warning", "fatal"] {
            if let Some(r) = rest.strip_prefix(kind) {
                if let Some(r) = r.trim_start().strip_prefix(':') {
                    s = r;
                }
                break;
            }
        }
    }
    if let Some(pos) = s.rfind(" at address ") {
        let tail = &s[pos + " at address ".len()..];
        if split_hex_address(tail).is_some() {
            s = &s[..pos];
        }
    }
    normalize_text_plain(s)
}

/// Parse `0x0000abcd` (the whole string) as an address.
pub(crate) fn split_hex_address(s: &str) -> Option<u64> {
    let h = s.trim().strip_prefix("0x")?;
    if h.is_empty() || h.len() > 16 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(h, 16).ok()
}

fn normalize_text_plain(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Write a word as 32 lowercase hex digits, most significant first (bit 0 is the last digit's
/// low bit): `word_to_hex(0x794d) == "0000000000000000000000000000794d"`.
pub fn word_to_hex(word: u128) -> String {
    format!("{word:032x}")
}

/// Parse a word written in hex: 1 to 32 hex digits (either case), optionally prefixed by `0x`
/// or `0X`, and optionally containing `_` separators. Shorter strings are zero-extended on the
/// left. Returns `None` for anything else (empty, non-hex, more than 32 digits).
pub fn parse_word_hex(s: &str) -> Option<u128> {
    let s = s.trim();
    let s = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    let digits: String = s.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || digits.len() > 32 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u128::from_str_radix(&digits, 16).ok()
}

/// The 16 bytes of a word as they lie in instruction memory: little-endian, low 64 bits first.
pub fn word_to_bytes(word: u128) -> [u8; 16] {
    word.to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_strips_address_hex_and_spaces() {
        assert_eq!(
            normalize_text(
                "        /*0060*/              @P0 TLD.LZ.EF   P0,  R0, R0, R0, R0, UR0, 1D, 0x0 ;  /* 0x000000ff00007b82 */"
            ),
            "@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;"
        );
        assert_eq!(
            normalize_text("\t/*fffffffffffffff0*/   @!P0 BRA -0xd0 ;"),
            "@!P0 BRA -0xd0 ;"
        );
        assert_eq!(normalize_text("  /*0080*/   NOP;   "), "NOP;");
        assert_eq!(normalize_text("NOP ;"), "NOP ;");
        // A continuation line of -hex output is only a comment: empty.
        assert_eq!(
            normalize_text("                      /* 0x000fc00000000000 */"),
            ""
        );
        // Not an address: kept.
        assert_eq!(normalize_text("/*xyz*/ A"), "/*xyz*/ A");
        assert_eq!(normalize_text(""), "");
        // Single-spaced ASCII is taken as is; anything else is collapsed as before.
        for (line, want) in [
            ("LDG.E R2, [R6.64] ;", "LDG.E R2, [R6.64] ;"),
            ("LDG.E  R2,\t[R6.64] ;", "LDG.E R2, [R6.64] ;"),
            ("A\u{a0}B\u{2003} C", "A B C"),
            ("A\u{e9} B", "A\u{e9} B"),
            ("A\r\nB", "A B"),
        ] {
            assert_eq!(normalize_text(line), want, "{line:?}");
            assert_eq!(normalize_text_plain(line), want, "{line:?}");
        }
    }

    #[test]
    fn normalize_reason_strips_prefix_and_address() {
        assert_eq!(
            normalize_reason(
                "nvdisasm error   : Opclass 'tld_scr_urc_', undefined value 0xf5 for table 'TABLES_opex_0' at address 0x00000040"
            ),
            "Opclass 'tld_scr_urc_', undefined value 0xf5 for table 'TABLES_opex_0'"
        );
        assert_eq!(
            normalize_reason(
                "nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x000c34f0"
            ),
            "Unrecognized operation for functional unit 'uC'"
        );
        assert_eq!(normalize_reason("weird  text"), "weird text");
    }

    #[test]
    fn hex_words() {
        assert_eq!(word_to_hex(0x794d), "0000000000000000000000000000794d");
        assert_eq!(word_to_hex(u128::MAX), "f".repeat(32));
        assert_eq!(parse_word_hex("0x794d"), Some(0x794d));
        assert_eq!(parse_word_hex("794D"), Some(0x794d));
        assert_eq!(
            parse_word_hex("000fc00000000000_0000000000007918"),
            Some(0x000fc00000000000_0000000000007918)
        );
        let w = 0x000fea0003800000_000000000000794du128;
        assert_eq!(parse_word_hex(&word_to_hex(w)), Some(w));
        assert_eq!(parse_word_hex(""), None);
        assert_eq!(parse_word_hex("0x"), None);
        assert_eq!(parse_word_hex("g0"), None);
        assert_eq!(parse_word_hex(&"1".repeat(33)), None);
        assert_eq!(word_to_bytes(0x0102)[..2], [0x02, 0x01]);
    }

    #[test]
    fn answer_accessors() {
        let a = Answer::Text("NOP ;".into());
        assert!(a.is_legal());
        assert_eq!(a.status(), "ok");
        let b = Answer::Illegal("x".into());
        assert_eq!(b.status(), "illegal");
        assert_eq!(b.text(), "x");
    }
}
