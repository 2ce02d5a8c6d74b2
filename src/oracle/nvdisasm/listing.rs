//! nvdisasm's output, read by pure functions (no I/O): the raw-mode and cubin listings
//! ([`parse_listing`], [`parse_sections`]), the error lines on stderr ([`scan_stderr`]), the
//! version line, and what a text says about its address ([`reveals_address`]). Every parser
//! looks at each line once (linear in the output) and treats output it does not expect as an
//! error, never as part of an answer.

use crate::oracle::{normalize_reason, normalize_text};
use std::collections::HashMap;

/// Whether `text` (a word's text in pass 2, where the word sits at [`RAW_BASE`] or just
/// after it) shows the word's address, so that pass 3 must ask again at address 0: it prints
/// a `0x` literal (a leading `-` negates it, two's complement) of magnitude at least 2^32 as a
/// signed 64-bit value. At [`RAW_BASE`] every printed target is one, unless the offset cancels
/// the base to within 2^32 (a 2^-26 chance for a random offset); [`text_mnemonic`] lets a
/// batch widen the net to every word of a mnemonic that revealed its address there.
///
/// Measured (nvdisasm 13.5.37, 1M uniformly random words per arch, SM80/SM90/SM100): of the
/// 92,046 legal words, 190 print a different text at base 0 than at [`RAW_BASE`] (whitespace
/// aside), and every one of them prints a 64-bit target; no target was ever printed truncated
/// to 32 or 48 bits. An earlier, wider net (a literal whose low 32 bits lie within 2^20 of
/// the address's) matched only immediates (`UIADD3 ..., 0x5a5a9278`, `QMUL4 ..., 0x5a565585`,
/// LD offsets), one word in about 2,000 with a random 32-bit immediate, and cost most chunks
/// a pass-3 process (0.3-0.4 s of nvdisasm start-up). The check is live-tested in
/// `live_address_dependence_is_caught`.
pub fn reveals_address(text: &str) -> bool {
    hex_literals(text).any(|v| (v as i64).unsigned_abs() >= 1 << 32)
}

/// The mnemonic of an instruction text: its first word after any `@P` guard, up to the first
/// `.` or `;` (`"@!P0 BRA.U 0x10 ;"` gives `BRA`; an empty text gives `""`).
pub fn text_mnemonic(text: &str) -> &str {
    let mut toks = text.split_whitespace();
    let first = match toks.next() {
        Some(t) if t.starts_with('@') => toks.next(),
        t => t,
    };
    first.and_then(|m| m.split(['.', ';']).next()).unwrap_or("")
}

/// The `0x` hex literals of `text` as 64-bit values, in order: `-0x10` gives
/// `0xfffffffffffffff0`; a literal of more than 16 digits gives its low 64 bits.
pub fn hex_literals(text: &str) -> impl Iterator<Item = u64> + '_ {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            let Some(pos) = b[i..].windows(2).position(|w| w == b"0x") else {
                i = b.len();
                return None;
            };
            let start = i + pos;
            let digits = start + 2;
            let mut end = digits;
            while end < b.len() && b[end].is_ascii_hexdigit() {
                end += 1;
            }
            i = end.max(digits);
            // `0x` inside a longer token (e.g. `R10x`) is not a literal.
            if start > 0 && (b[start - 1].is_ascii_alphanumeric() || b[start - 1] == b'_') {
                continue;
            }
            if end == digits {
                continue;
            }
            let hex = &text[digits.max(end.saturating_sub(16))..end];
            let Ok(v) = u64::from_str_radix(hex, 16) else {
                continue;
            };
            let negative = start > 0 && b[start - 1] == b'-';
            return Some(if negative { v.wrapping_neg() } else { v });
        }
        None
    })
}

/// The reason nvdisasm gives, without an address, for some illegal words (e.g. the all-zero
/// word, whose opcode field is 0).
pub const UNADDRESSED_REASON: &str = "Illegal instruction found";

/// A word that every arch from SM75 to SM121 rejects with an addressed
/// `Unrecognized operation for functional unit 'uC' at address ...` error.
pub const MARKER_WORD: u128 = 1;

/// What a cubin pass's stderr says.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Scan {
    /// (word index, reason) from `... at address 0x...` lines, first reason per word, ascending.
    pub addressed: Vec<(usize, String)>,
    /// `Illegal instruction found` lines that do not follow a `functional unit` line: each is
    /// an illegal word nvdisasm gives no address for, lying after the word index given (None:
    /// before the first addressed word).
    pub orphans: Vec<Option<usize>>,
    /// Lines that are none of the above (warnings, fatal errors).
    pub other: Vec<String>,
}

/// Scan a cubin pass's stderr. Facts: lines come in address order; an
/// `Unrecognized operation for functional unit 'X' at address A` line is always followed by one
/// `Illegal instruction found` line; other reasons (`Opclass ...`) are not; some illegal words
/// (opcode field 0) give only an `Illegal instruction found` line, in their place in the order.
///
/// `base` is the address of word 0 (0 in a cubin, the `-base` value in raw mode).
pub(crate) fn scan_stderr(stderr: &str, base: u64, n: usize) -> Scan {
    let mut scan = Scan::default();
    let mut map: HashMap<usize, String> = HashMap::new();
    let mut last: Option<usize> = None;
    let mut pending_follow = false;
    for line in stderr.lines() {
        let reason = normalize_reason(line);
        if reason.is_empty() {
            continue;
        }
        if reason == UNADDRESSED_REASON {
            if pending_follow {
                pending_follow = false;
            } else {
                scan.orphans.push(last);
            }
            continue;
        }
        pending_follow = false;
        let addr = line
            .rfind(" at address ")
            .and_then(|pos| crate::oracle::split_hex_address(&line[pos + " at address ".len()..]));
        match addr {
            Some(a)
                if a >= base
                    && (a - base).is_multiple_of(16)
                    && (((a - base) / 16) as usize) < n =>
            {
                let i = ((a - base) / 16) as usize;
                pending_follow = reason.starts_with("Unrecognized operation for functional unit");
                map.entry(i).or_insert(reason);
                last = Some(i);
            }
            _ => {
                if !line.contains("warning") {
                    scan.other.push(line.trim().to_string());
                }
            }
        }
    }
    scan.addressed = map.into_iter().collect();
    scan.addressed.sort();
    scan
}

/// Place unaddressed illegal words when the stream alone decides it: between two addressed
/// words (or an end), if the unaddressed ones are as many as the words not yet known illegal,
/// they are all illegal. Returns false when some region is ambiguous.
pub(crate) fn place_orphans(reasons: &mut [Option<String>], orphans: &[Option<usize>]) -> bool {
    let n = reasons.len();
    let mut count: HashMap<Option<usize>, usize> = HashMap::new();
    for o in orphans {
        *count.entry(*o).or_default() += 1;
    }
    let mut todo = Vec::new();
    for (after, m) in count {
        let start = after.map_or(0, |a| a + 1);
        let mut cand = Vec::new();
        let mut i = start;
        while i < n && reasons[i].is_none() {
            cand.push(i);
            i += 1;
        }
        if cand.len() != m {
            return false;
        }
        todo.extend(cand);
    }
    for i in todo {
        reasons[i] = Some(UNADDRESSED_REASON.to_string());
    }
    true
}

/// Classify a line of nvdisasm's listing.
enum Line<'a> {
    /// `/*addr*/ text`.
    Insn(u64, &'a str),
    /// Blank, directive (`.headerflags`, `.section`, ...), label (`k2:`), `//` comment, or the
    /// `/* 0x... */` second half of a `-hex` encoding.
    Skip,
    /// Anything else.
    Other(&'a str),
}

fn classify(line: &str) -> Line<'_> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('.') || t.starts_with("//") {
        return Line::Skip;
    }
    if let Some(rest) = t.strip_prefix("/*")
        && let Some(end) = rest.find("*/")
    {
        let inner = &rest[..end];
        if !inner.is_empty()
            && inner.bytes().all(|b| b.is_ascii_hexdigit())
            && let Ok(a) = u64::from_str_radix(inner, 16)
        {
            return Line::Insn(a, t);
        }
        if inner.trim().starts_with("0x") && rest[end + 2..].trim().is_empty() {
            return Line::Skip;
        }
    }
    if t.ends_with(':') && !t.contains(char::is_whitespace) {
        return Line::Skip;
    }
    Line::Other(t)
}

/// Whether a normalised text reads as one instruction line: not empty, ends with `;` (every
/// instruction nvdisasm prints does, `NOP;` or `EXIT ;`), no control characters.
pub(crate) fn is_instruction_text(text: &str) -> bool {
    text.len() > 1 && text.ends_with(';') && !text.chars().any(char::is_control)
}

/// At most 80 characters of `s`, with `...` when cut: for quoting input in messages.
pub(crate) fn quote80(s: &str) -> String {
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// Parse a raw-mode listing of `n` words at `base` into one optional text per word (index =
/// (address - base) / 16; `None`: nvdisasm printed no line for that word).
///
/// Strict and linear (each line looked at once): an error names the 1-based line for a line
/// that is not an instruction, label, directive or comment (output nvdisasm never prints), an
/// address outside the `n` words or not a multiple of 16 past `base`, an address printed
/// twice or out of order, or a text that does not read as an instruction
/// ([`is_instruction_text`]).
pub(crate) fn parse_listing(
    stdout: &str,
    base: u64,
    n: usize,
) -> Result<Vec<Option<String>>, String> {
    let mut out: Vec<Option<String>> = vec![None; n];
    let mut last: Option<usize> = None;
    for (k, line) in stdout.lines().enumerate() {
        let no = k + 1;
        match classify(line) {
            Line::Skip => {}
            Line::Other(t) => {
                return Err(format!(
                    "listing line {no}: unexpected output `{}`",
                    quote80(t)
                ));
            }
            Line::Insn(a, t) => {
                let i = word_index(a, base, n).ok_or_else(|| {
                    format!(
                        "listing line {no}: address {a:#x} is not one of the {n} words asked about"
                    )
                })?;
                if last.is_some_and(|l| i <= l) {
                    return Err(format!(
                        "listing line {no}: address {a:#x} printed twice or out of order"
                    ));
                }
                out[i] = Some(instruction_text(t, no)?);
                last = Some(i);
            }
        }
    }
    Ok(out)
}

/// The index of the word at `addr` in a batch of `n` words at `base`.
fn word_index(addr: u64, base: u64, n: usize) -> Option<usize> {
    let off = addr.checked_sub(base)?;
    if !off.is_multiple_of(16) {
        return None;
    }
    usize::try_from(off / 16).ok().filter(|&i| i < n)
}

/// The normalised text of instruction line `no`, or why it is not one.
fn instruction_text(line: &str, no: usize) -> Result<String, String> {
    let text = normalize_text(line);
    if !is_instruction_text(&text) {
        return Err(format!(
            "listing line {no}: `{}` is not an instruction line",
            quote80(line.trim())
        ));
    }
    Ok(text)
}

/// Parse a cubin listing with one word per section `.text.k<i>` (`i < n`) into one text per
/// section. Strict and linear as [`parse_listing`]: an error for an unexpected line, an
/// instruction outside a known section, or a second instruction in one section.
pub(crate) fn parse_sections(stdout: &str, n: usize) -> Result<Vec<Option<String>>, String> {
    let mut out: Vec<Option<String>> = vec![None; n];
    let mut cur: Option<usize> = None;
    for (k, line) in stdout.lines().enumerate() {
        let no = k + 1;
        let t = line.trim();
        if let Some(rest) = t.strip_prefix(".section") {
            cur = rest
                .trim()
                .strip_prefix(".text.k")
                .and_then(|r| r.split(',').next())
                .and_then(|k| k.parse::<usize>().ok())
                .filter(|&k| k < n);
            continue;
        }
        match classify(line) {
            Line::Skip => {}
            Line::Other(t) => {
                return Err(format!(
                    "listing line {no}: unexpected output `{}`",
                    quote80(t)
                ));
            }
            Line::Insn(_, t) => {
                let Some(k) = cur else {
                    return Err(format!(
                        "listing line {no}: instruction outside the one-word sections"
                    ));
                };
                if out[k].is_some() {
                    return Err(format!(
                        "listing line {no}: a second instruction in section .text.k{k}"
                    ));
                }
                out[k] = Some(instruction_text(t, no)?);
            }
        }
    }
    Ok(out)
}

pub(crate) fn parse_version(text: &str) -> Option<String> {
    for tok in text.split(|c: char| c.is_whitespace() || c == ',') {
        if let Some(v) = tok.strip_prefix('V') {
            let parts: Vec<&str> = v.split('.').collect();
            if parts.len() >= 2
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            {
                return Some(v.to_string());
            }
        }
    }
    None
}

pub(crate) fn first_lines(s: &str, n: usize) -> String {
    let v: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).take(n).collect();
    if v.is_empty() {
        "(no message)".into()
    } else {
        v.join(" | ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::nvdisasm::RAW_BASE;

    #[test]
    fn version_parsing() {
        let v = "nvdisasm: NVIDIA (R) CUDA disassembler\nCopyright (c) 2005-2026 NVIDIA Corporation\n\
                 Built on Mon_Oct_12_19:25:53_PDT_2026\nCuda compilation tools, release 13.5, V13.5.37\n\
                 Build cuda_13.5.r13.5/compiler.39125733_0\n";
        assert_eq!(parse_version(v).as_deref(), Some("13.5.37"));
        assert_eq!(parse_version("nothing"), None);
    }

    #[test]
    fn stderr_reasons() {
        let e = "nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000000\n\
                 nvdisasm error   : Illegal instruction found\n\
                 nvdisasm error   : Opclass 'nop_', undefined value 0x3 for table 'TABLES_opex_1' at address 0x00000020\n\
                 nvdisasm error   : Opclass 'x', again at address 0x00000020\n\
                 nvdisasm error   : odd at address 0x00000028\n\
                 nvdisasm error   : past the end at address 0x00000100\n\
                 nvdisasm warning : Dataflow analysis disabled due to previous warnings\n";
        let r = scan_stderr(e, 0, 4);
        assert_eq!(
            r.addressed,
            vec![
                (
                    0,
                    "Unrecognized operation for functional unit 'uC'".to_string()
                ),
                (
                    2,
                    "Opclass 'nop_', undefined value 0x3 for table 'TABLES_opex_1'".to_string()
                ),
            ]
        );
        assert!(r.orphans.is_empty());
        assert_eq!(r.other.len(), 2);
    }

    #[test]
    fn unaddressed_illegal_words() {
        // Words: 0 orphan, 1 uC, 2 orphan, 3 legal, 4 Opclass, 5 orphan, 6 orphan.
        let e = "nvdisasm error   : Illegal instruction found\n\
                 nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000010\n\
                 nvdisasm error   : Illegal instruction found\n\
                 nvdisasm error   : Illegal instruction found\n\
                 nvdisasm error   : Opclass 'nop_', undefined value 0x3 for table 'T' at address 0x00000040\n\
                 nvdisasm error   : Illegal instruction found\n\
                 nvdisasm error   : Illegal instruction found\n";
        let scan = scan_stderr(e, 0, 7);
        assert_eq!(scan.orphans, vec![None, Some(1), Some(4), Some(4)]);
        let mut reasons = vec![None; 7];
        for (i, r) in &scan.addressed {
            reasons[*i] = Some(r.clone());
        }
        // Region after word 1 holds words 2 and 3 but only one orphan: ambiguous.
        assert!(!place_orphans(&mut reasons.clone(), &scan.orphans));
        // With 6 words (no legal word 3 between), it is decided.
        let scan6 = scan_stderr(e.replace("0x00000040", "0x00000030").as_str(), 0, 6);
        let mut r6 = vec![None; 6];
        for (i, r) in &scan6.addressed {
            r6[*i] = Some(r.clone());
        }
        assert!(place_orphans(&mut r6, &scan6.orphans));
        assert!(r6.iter().all(|r| r.is_some()), "{r6:?}");
        assert_eq!(r6[0].as_deref(), Some(UNADDRESSED_REASON));
        reasons.clear();
    }

    #[test]
    fn raw_listing_parsing() {
        let out = "\t.headerflags\t@\"EF_CUDA_64BIT_ADDRESS EF_CUDA_SM100 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM100)\"\n\
                   \t.headerflags\t@\"EF_CUDA_64BIT_ADDRESS EF_CUDA_SM100 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM100)\"\n\
                   \x20       /*10000010*/                   LDC R1, c[0x0][0x37c] ;  /* 0x0000df00ff017b82 */\n\
                   \x20                                                          /* 0x000ff00000000800 */\n\
                   .L_x_0:\n\
                   \x20       /*10000030*/              @!P0 BRA   0x10000000 ;\n";
        let t = parse_listing(out, 0x1000_0000, 4).unwrap();
        assert_eq!(
            t,
            [
                None,
                Some("LDC R1, c[0x0][0x37c] ;".to_string()),
                None,
                Some("@!P0 BRA 0x10000000 ;".to_string())
            ]
        );
    }

    #[test]
    fn a_listing_with_unexpected_lines_is_refused() {
        let ok = "\t.headerflags\t@\"X\"\n        /*0000*/  NOP ;\n";
        let cases = [
            (
                format!("{ok}        weird continuation\n"),
                "listing line 3: unexpected output `weird continuation`",
            ),
            (
                format!("{ok}        /*0000*/  EXIT ;\n"),
                "listing line 3: address 0x0 printed twice or out of order",
            ),
            (
                format!("{ok}        /*0020*/  EXIT ;\n"),
                "listing line 3: address 0x20 is not one of the 2 words asked about",
            ),
            (
                format!("{ok}        /*0018*/  EXIT ;\n"),
                "listing line 3: address 0x18 is not one of the 2 words asked about",
            ),
            (
                format!("{ok}        /*0010*/  @P0\n"),
                "listing line 3: `/*0010*/  @P0` is not an instruction line",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse_listing(&text, 0, 2).unwrap_err(), want);
        }
        // A long junk line is quoted to 80 characters.
        let junk = format!("{ok}{}\n", "x".repeat(10_000));
        let err = parse_listing(&junk, 0, 2).unwrap_err();
        assert_eq!(err.len(), "listing line 3: unexpected output ``".len() + 83);
    }

    #[test]
    fn megabytes_of_junk_are_refused_at_the_first_line() {
        // Linear: one look per line, and the first unexpected line ends the parse.
        let mut out = String::from("\t.headerflags\t@\"X\"\n        /*0000*/  NOP ;\n");
        for _ in 0..100_000 {
            out.push_str("junk junk junk junk junk junk junk\n");
        }
        let err = parse_listing(&out, 0, 1).unwrap_err();
        assert!(
            err.starts_with("listing line 3: unexpected output"),
            "{err}"
        );
    }

    #[test]
    fn instruction_texts_and_quotes() {
        assert!(is_instruction_text("NOP;"));
        assert!(is_instruction_text("@P0 LD.EF.U8 R0, [R0] ;"));
        assert!(!is_instruction_text(""));
        assert!(!is_instruction_text(";"));
        assert!(!is_instruction_text("@P0"));
        assert!(!is_instruction_text("NOP\u{7};"));
        assert_eq!(quote80("abc"), "abc");
        assert_eq!(quote80(&"é".repeat(81)), format!("{}...", "é".repeat(80)));
    }

    #[test]
    fn section_listing_parsing() {
        let out = "\t.target\tsm_100\n\n\t.elftype\t@\"ET_EXEC\"\n\n\n\
                   //--------------------- .text.k0                  --------------------------\n\
                   \t.section\t.text.k0,\"ax\",@progbits\n\t.align\t16\n.L_x_0:\n\n\n\
                   //--------------------- .text.k1                  --------------------------\n\
                   \t.section\t.text.k1,\"ax\",@progbits\n\t.align\t16\n\
                   \x20       .global         k1\n\
                   \x20       .type           k1,@function\n\
                   \x20       .other          k1,@\"STO_CUDA_ENTRY STV_DEFAULT\"\n\
                   k1:\n\
                   \x20       /*0000*/              @!P0 BRA -0xc0 ;\n\
                   .L_x_1:\n";
        let t = parse_sections(out, 2).unwrap();
        assert_eq!(t, [None, Some("@!P0 BRA -0xc0 ;".to_string())]);
        let twice = format!("{out}\x20       /*0010*/  NOP ;\n");
        assert_eq!(
            parse_sections(&twice, 2).unwrap_err(),
            "listing line 21: a second instruction in section .text.k1"
        );
        assert_eq!(
            parse_sections("  /*0000*/ NOP ;\n", 2).unwrap_err(),
            "listing line 1: instruction outside the one-word sections"
        );
    }

    #[test]
    fn raw_mode_errors_at_a_base() {
        let e = "nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x5a5a5a5a5a5a5a20\n";
        let s = scan_stderr(e, RAW_BASE, 4);
        assert_eq!(
            s.addressed,
            [(
                2,
                "Unrecognized operation for functional unit 'uC'".to_string()
            )]
        );
        assert!(scan_stderr(e, 0, 4).addressed.is_empty());
    }

    #[test]
    fn hex_literal_parsing() {
        let v: Vec<u64> = hex_literals("LDC R1, c[0x0][0x37c] ;").collect();
        assert_eq!(v, [0, 0x37c]);
        let v: Vec<u64> = hex_literals("@!P0 BRA -0xc0 ;").collect();
        assert_eq!(v, [0u64.wrapping_sub(0xc0)]);
        let v: Vec<u64> = hex_literals("RET.REL.NODEC R6 0x5a5a5a5a5a5a58c0 ;").collect();
        assert_eq!(v, [0x5a5a_5a5a_5a5a_58c0]);
        // More than 16 digits: the low 64 bits.
        let v: Vec<u64> = hex_literals("X 0x112345678abcdef01 ;").collect();
        assert_eq!(v, [0x1234_5678_abcd_ef01]);
        // Not literals: `0x` inside a token, `0x` without digits.
        assert_eq!(hex_literals("R10x5, 0x ;").count(), 0);
        assert_eq!(hex_literals("").count(), 0);
        assert_eq!(hex_literals("0x1f").collect::<Vec<_>>(), [0x1f]);
    }

    #[test]
    fn address_revealing_texts() {
        // Real pass-2 texts (SM100/SM90 at -base RAW_BASE).
        assert!(reveals_address("@!P1 BRA 0x5a5a5a5a5a5a5a40 ;"));
        assert!(reveals_address(
            "BSSY.RECONVERGENT B0, 0x5a5a5a5a5a5a5aa0 ;"
        ));
        assert!(reveals_address("@!P0 BRA 0x5a5a5a5a5a5a5970 ;"));
        assert!(reveals_address("RET.REL.NODEC R6 0x5a5a5a5a5a5a58c0 ;"));
        assert!(reveals_address("BRA 0x5a5a5a5a5a5a5a50;"));
        assert!(reveals_address("LEPC R20, 0x5a5a5a5a5a5a5a50 ;"));
        // Real, far targets (the same words print `@!P0 BRA 0x80502200240020 ;` and
        // `@!UPT ULEPC UR158, -0xbed6b91967d2b7 ;` at 0).
        assert!(reveals_address("@!P0 BRA 0x5adaaa7c5a7e5ad0 ;"));
        assert!(reveals_address("@!UPT ULEPC UR158, 0x599b83a140f28749 ;"));
        // Any mnemonic: the size alone decides.
        assert!(reveals_address("XYZ R1, 0x599b83a140f28749 ;"));
        assert!(reveals_address("XYZ R1, -0x100000000 ;"));
        assert!(!reveals_address("XYZ R1, -0xffffffff ;"));
        assert!(!reveals_address("BRA;"));
        assert_eq!(text_mnemonic("@!P0 BRA.U 0x10 ;"), "BRA");
        assert_eq!(text_mnemonic("NOP;"), "NOP");
        assert_eq!(text_mnemonic("RET.REL.NODEC R6 0x0 ;"), "RET");
        assert_eq!(text_mnemonic(""), "");
        // Ordinary immediates of other instructions.
        assert!(!reveals_address("LDC R1, c[0x0][0x37c] ;"));
        assert!(!reveals_address(
            "@P0 TLD4.R.EF P0, R0, R0, R0, R0, 0x0, 0x0, INVALID0, 0x0 ;"
        ));
        assert!(!reveals_address("IADD3 R0, R1, -0x10, RZ ;"));
        assert!(!reveals_address("MOV R0, 0xffffffff ;"));
        assert!(!reveals_address("NOP;"));
        // Immediates near RAW_BASE's low 32 bits (real random words): no longer candidates.
        assert!(!reveals_address(
            "@!UP4 UIADD3 UR23, UP0, UR37, 0x5a5a9278, UR22 ;"
        ));
        assert!(!reveals_address(
            "@P1 LD.LU.LTC64B.U8.CONSTANT.CTA R166, [R47+0x5a66faf5], !P0 ;"
        ));
        assert!(!reveals_address(""));
    }
}
