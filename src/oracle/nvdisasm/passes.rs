//! The passes of one chunk (see the module notes of [`super`]): pass 1 finds the illegal words
//! in a cubin, pass 2 reads the legal words' texts in one raw batch, pass 3 asks again at
//! address 0 for the words whose text may depend on their address. Every run's output is
//! checked for completeness: pass 2's batch ends with [`END_WORD`], whose line must be the
//! last, so a listing cut short is an error and never a row of empty answers.

use super::listing::{
    MARKER_WORD, UNADDRESSED_REASON, first_lines, parse_listing, parse_sections, place_orphans,
    reveals_address, scan_stderr, text_mnemonic,
};
use super::process::{self, Limits, RunError, RunOutput};
use super::{ChunkOut, DisassembleStats, Nvdisasm, RAW_BASE};
use crate::arch::Arch;
use crate::oracle::{Answer, OracleError, build_cubin, word_to_hex};
use std::ffi::OsStr;
use std::fs;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The word that ends every pass-2 batch: `EXIT ;`, legal on every arch from SM75 to SM121.
/// Its line must be in the listing, at its address, or the listing was cut short.
pub const END_WORD: u128 = 0x000fea0003800000_000000000000794d;

/// How many words hinted legal raw mode may refuse in one chunk before the chunk's hinted
/// words all go through pass 1 (each refusal costs a raw batch).
pub const MAX_HINT_MISSES: usize = 3;

/// What one raw batch gave (see [`Nvdisasm::raw_batch`]).
enum RawBatch {
    /// One optional text per word (None: no line printed for it).
    Texts(Vec<Option<String>>),
    /// Raw mode refused the word at this index, for this reason.
    Refused(usize, String),
    /// nvdisasm failed without naming a word (its first stderr lines).
    Failed(String),
}

/// The state one chunk's passes share.
pub(super) struct Ctx<'a> {
    arch: Arch,
    tmp: tempfile::TempDir,
    st: DisassembleStats,
    cancel: &'a AtomicBool,
}
impl Nvdisasm {
    /// All passes for one chunk. Words for which `likely_legal` holds skip pass 1: they go
    /// straight to a raw batch (pass 0), and only a word raw mode refuses, or a batch that
    /// fails otherwise, falls back to the full passes. A wrong hint costs a run, never an
    /// answer: a refused word gets pass 1's reason like any other, and every text comes from
    /// the same raw batch at [`RAW_BASE`] and pass 3. `|_| false` gives the plain passes.
    pub(super) fn run_chunk(
        &self,
        arch: Arch,
        words: &[u128],
        likely_legal: &(dyn Fn(u128) -> bool + Sync),
        cancel: &AtomicBool,
    ) -> Result<ChunkOut, OracleError> {
        if words.is_empty() {
            return Ok((Vec::new(), DisassembleStats::default()));
        }
        let tmp = process::scratch_dir().map_err(|e| self.fail(arch, words[0], e.to_string()))?;
        let mut cx = Ctx {
            arch,
            tmp,
            st: DisassembleStats {
                words: words.len(),
                chunks: 1,
                ..Default::default()
            },
            cancel,
        };
        let mut answers: Vec<Option<Answer>> = vec![None; words.len()];

        // Pass 0: the words hinted legal, in one raw batch; `rest` gets the others.
        let guessed: Vec<usize> = (0..words.len())
            .filter(|&i| likely_legal(words[i]))
            .collect();
        let (mut moving, rest) = self.pass0(&mut cx, words, guessed, &mut answers)?;

        // Pass 1: one cubin, one kernel: which of the rest are illegal, and why.
        if !rest.is_empty() {
            let ws: Vec<u128> = rest.iter().map(|&i| words[i]).collect();
            let reasons = self.find_illegal(&mut cx, &ws)?;
            let mut legal = Vec::new();
            for (&i, r) in rest.iter().zip(reasons) {
                match r {
                    Some(r) => answers[i] = Some(Answer::Illegal(r)),
                    None => legal.push(i),
                }
            }
            // Pass 2: their legal words' texts; `moving` gets the words to ask again.
            moving.extend(self.pass2(&mut cx, words, legal, &mut answers)?);
            moving.sort_unstable();
        }

        // Pass 3: address-dependent words, each in its own section (address 0).
        cx.st.address_dependent = moving.len();
        if !moving.is_empty() {
            let ws: Vec<u128> = moving.iter().map(|&i| words[i]).collect();
            let texts = self.at_address_zero(&mut cx, &ws)?;
            for (&i, t) in moving.iter().zip(texts) {
                answers[i] = Some(Answer::Text(t));
            }
        }

        let answers: Vec<Answer> = answers
            .into_iter()
            .map(|a| a.unwrap_or_else(|| Answer::Text(String::new())))
            .collect();
        let mut st = cx.st;
        for a in &answers {
            match a {
                Answer::Illegal(r) => {
                    st.illegal += 1;
                    if r == UNADDRESSED_REASON {
                        st.unaddressed += 1;
                    }
                }
                Answer::Text(t) if t.is_empty() => st.empty += 1,
                _ => {}
            }
        }
        Ok((answers, st))
    }

    /// Pass 0: one raw batch of the `guessed` words (indices into `words`, hinted legal) at
    /// [`RAW_BASE`], without pass 1. A word raw mode refuses leaves the batch (the batch runs
    /// again without it, at most [`MAX_HINT_MISSES`] times); a batch failing otherwise, or
    /// more misses, sends all of them back. Fills the answers of the words whose text shows
    /// no address; returns (candidates for pass 3, the indices the full passes must read:
    /// the unguessed and the sent back, in order).
    fn pass0(
        &self,
        cx: &mut Ctx,
        words: &[u128],
        mut guessed: Vec<usize>,
        answers: &mut [Option<Answer>],
    ) -> Result<(Vec<usize>, Vec<usize>), OracleError> {
        let mut texts = None;
        while !guessed.is_empty() {
            let lw: Vec<u128> = guessed.iter().map(|&i| words[i]).collect();
            match self.raw_batch(cx, &lw, RAW_BASE)? {
                RawBatch::Texts(t) => {
                    texts = Some(t);
                    break;
                }
                RawBatch::Refused(j, _) if cx.st.hint_misses < MAX_HINT_MISSES => {
                    cx.st.hint_misses += 1;
                    guessed.remove(j);
                }
                _ => {
                    cx.st.hint_misses += 1;
                    guessed.clear();
                }
            }
        }
        let mut moving = Vec::new();
        if let Some(texts) = texts {
            cx.st.hinted += guessed.len();
            moving = self.place_texts(&guessed, texts, answers);
        }
        let taken: std::collections::HashSet<usize> = guessed.iter().copied().collect();
        let rest = (0..words.len()).filter(|i| !taken.contains(i)).collect();
        Ok((moving, rest))
    }

    /// Pass 2: one raw batch of the `legal` words (indices into `words`, called legal by
    /// pass 1) at [`RAW_BASE`]. Fills the answers of words whose text shows no address;
    /// returns the indices of the others (candidates).
    fn pass2(
        &self,
        cx: &mut Ctx,
        words: &[u128],
        mut legal: Vec<usize>,
        answers: &mut [Option<Answer>],
    ) -> Result<Vec<usize>, OracleError> {
        let texts = loop {
            if legal.is_empty() {
                return Ok(Vec::new());
            }
            let lw: Vec<u128> = legal.iter().map(|&i| words[i]).collect();
            match self.raw_batch(cx, &lw, RAW_BASE)? {
                RawBatch::Texts(t) => break t,
                RawBatch::Refused(j, reason) => {
                    // Raw mode rejects a word the cubin pass let through: record its reason
                    // and retry without it.
                    cx.st.disagreements += 1;
                    answers[legal[j]] = Some(Answer::Illegal(reason));
                    legal.remove(j);
                }
                RawBatch::Failed(m) => return Err(self.fail(cx.arch, lw[0], m)),
            }
        };
        Ok(self.place_texts(&legal, texts, answers))
    }

    /// The texts of one raw batch at [`RAW_BASE`] (the j-th is `legal[j]`'s) into `answers`,
    /// but for the words whose text shows their address ([`reveals_address`]) or has the
    /// mnemonic of one that does in this batch ([`text_mnemonic`]; learned from the batch,
    /// so no list of branch mnemonics is kept): their indices are returned, for pass 3.
    fn place_texts(
        &self,
        legal: &[usize],
        texts: Vec<Option<String>>,
        answers: &mut [Option<Answer>],
    ) -> Vec<usize> {
        let relative: std::collections::HashSet<String> = texts
            .iter()
            .flatten()
            .filter(|t| reveals_address(t))
            .map(|t| text_mnemonic(t).to_string())
            .collect();
        let mut moving = Vec::new();
        for (&i, t) in legal.iter().zip(texts) {
            let t = t.unwrap_or_default();
            if relative.contains(text_mnemonic(&t)) {
                moving.push(i);
            } else {
                answers[i] = Some(Answer::Text(t));
            }
        }
        moving
    }

    /// One raw batch of `words` and then [`END_WORD`] at `base`: one optional text per word
    /// (None: nvdisasm printed no line for it), the first word raw mode rejects (index,
    /// reason), or nvdisasm's first stderr lines when it fails without naming a word. Errors
    /// when nvdisasm cannot run or times out, exits 0 without the `.headerflags` line every
    /// listing starts with, prints a listing [`parse_listing`] refuses, or one without the end
    /// word's line (cut short).
    fn raw_batch(&self, cx: &mut Ctx, words: &[u128], base: u64) -> Result<RawBatch, OracleError> {
        let arch = cx.arch;
        let n = words.len();
        let rpath = cx.tmp.path().join("legal.bin");
        let mut batch = words.to_vec();
        batch.push(END_WORD);
        write_raw(&rpath, &batch).map_err(|e| self.fail(arch, words[0], e.to_string()))?;
        let (b, base_s) = (arch.to_string(), format!("{base:#x}"));
        let r = self.run(cx, words[0], &["-b", &b, "-base", &base_s], &rpath, n + 1)?;
        if !r.ok {
            let scan = scan_stderr(&r.stderr, base, n);
            return Ok(match scan.addressed.into_iter().next() {
                Some((j, reason)) => RawBatch::Refused(j, reason),
                None => RawBatch::Failed(first_lines(&r.stderr, 5)),
            });
        }
        if !r.stdout.contains(".headerflags") {
            return Err(self.fail(
                arch,
                words[0],
                format!(
                    "raw batch of {n} words exited 0 but printed no listing (no .headerflags \
                     line); stderr: {}",
                    first_lines(&r.stderr, 3)
                ),
            ));
        }
        let mut texts = parse_listing(&r.stdout, base, n + 1)
            .map_err(|m| self.fail(arch, words[0], format!("raw batch of {n} words: {m}")))?;
        self.check_deadline(arch, words[0], &r)?;
        if texts.pop().flatten().is_none() {
            return Err(self.fail(
                arch,
                words[0],
                format!(
                    "raw batch of {n} words: the listing is cut short (no line for the end \
                     word {} at address {:#x})",
                    word_to_hex(END_WORD),
                    base.wrapping_add(16 * n as u64)
                ),
            ));
        }
        Ok(RawBatch::Texts(texts))
    }

    /// Pass 3: the text at address 0 of each of `words` (all legal): cubins of at most
    /// [`crate::oracle::MAX_KERNELS`] one-word sections, and a raw run of its own for a word whose
    /// text shows a label.
    fn at_address_zero(&self, cx: &mut Ctx, words: &[u128]) -> Result<Vec<String>, OracleError> {
        let arch = cx.arch;
        let mut out = Vec::with_capacity(words.len());
        for group in words.chunks(crate::oracle::MAX_KERNELS) {
            let kernels: Vec<[u128; 1]> = group.iter().map(|&w| [w]).collect();
            let refs: Vec<&[u128]> = kernels.iter().map(|k| &k[..]).collect();
            let ppath = cx.tmp.path().join("each.cubin");
            let bytes = build_cubin(arch, &refs)?;
            fs::write(&ppath, bytes).map_err(|e| self.fail(arch, group[0], e.to_string()))?;
            let r = self.run(cx, group[0], &["-c", "-ndf"], &ppath, group.len())?;
            if !r.ok {
                return Err(self.fail(arch, group[0], first_lines(&r.stderr, 5)));
            }
            let per = parse_sections(&r.stdout, group.len())
                .map_err(|m| self.fail(arch, group[0], format!("pass 3: {m}")))?;
            self.check_deadline(arch, group[0], &r)?;
            for (k, &w) in group.iter().enumerate() {
                let Some(text) = per[k].clone() else {
                    return Err(self.fail(
                        arch,
                        w,
                        format!("pass 3: no line for this word in section .text.k{k}"),
                    ));
                };
                if !text.contains('`') {
                    out.push(text);
                    continue;
                }
                // A label: the target fell inside the section. Ask raw mode directly.
                cx.st.single_runs += 1;
                let one = cx.tmp.path().join("one.bin");
                write_raw(&one, &[w]).map_err(|e| self.fail(arch, w, e.to_string()))?;
                let b = format!("{arch}");
                let r = self.run(cx, w, &["-b", &b], &one, 1)?;
                if !r.ok {
                    return Err(self.fail(arch, w, first_lines(&r.stderr, 5)));
                }
                let t = parse_listing(&r.stdout, 0, 1)
                    .map_err(|m| self.fail(arch, w, format!("single raw run: {m}")))?;
                self.check_deadline(arch, w, &r)?;
                let Some(text) = t.into_iter().next().flatten() else {
                    return Err(self.fail(arch, w, "single raw run printed no line".into()));
                };
                out.push(text);
            }
        }
        Ok(out)
    }

    /// Pass 1: the reason for each illegal word of `words` (None: legal), from one cubin run
    /// whose kernel ends with a [`MARKER_WORD`] (so that nvdisasm never prints the listing;
    /// the marker's error, addressed at index `words.len()`, must be there and is dropped), or
    /// two when nvdisasm reports illegal words without an address and their place is not
    /// clear: then every word is put after a [`MARKER_WORD`], whose addressed error pins the
    /// place of each unaddressed one.
    fn find_illegal(
        &self,
        cx: &mut Ctx,
        words: &[u128],
    ) -> Result<Vec<Option<String>>, OracleError> {
        let arch = cx.arch;
        let n = words.len();
        let cpath = cx.tmp.path().join("chunk.cubin");
        let mut k = Vec::with_capacity(n + 1);
        k.extend_from_slice(words);
        k.push(MARKER_WORD);
        let cubin = build_cubin(arch, &[&k])?;
        fs::write(&cpath, &cubin).map_err(|e| self.fail(arch, words[0], e.to_string()))?;
        let out = self.run(cx, words[0], &["-c", "-ndf"], &cpath, n + 1)?;
        match marker_pass_reasons(&out.stdout, &out.stderr, n) {
            Ok(Some(reasons)) => return Ok(reasons),
            Ok(None) => {}
            Err(message) => return Err(self.fail(arch, words[0], message)),
        }
        // Ambiguous: interleave markers, so that word i sits at index 2i+1 after a marker.
        cx.st.marker_runs += 1;
        let mut inter = Vec::with_capacity(n * 2);
        for &w in words {
            inter.push(MARKER_WORD);
            inter.push(w);
        }
        let cubin = build_cubin(arch, &[&inter])?;
        fs::write(&cpath, &cubin).map_err(|e| self.fail(arch, words[0], e.to_string()))?;
        let out = self.run(cx, words[0], &["-c", "-ndf"], &cpath, inter.len())?;
        let scan = scan_stderr(&out.stderr, 0, inter.len());
        if let Some(line) = scan.other.first() {
            return Err(self.fail(
                arch,
                words[0],
                format!(
                    "marker run: unexpected stderr line `{}`",
                    super::listing::quote80(line)
                ),
            ));
        }
        let mut reasons: Vec<Option<String>> = vec![None; n];
        let mut markers = 0usize;
        for (i, r) in scan.addressed {
            if i % 2 == 0 {
                markers += 1;
            } else {
                reasons[i / 2] = Some(r);
            }
        }
        if markers != n {
            return Err(self.fail(
                arch,
                words[0],
                format!(
                    "marker word {} was not reported illegal with an address ({markers} of {n} \
                     were); cannot place unaddressed illegal words",
                    word_to_hex(MARKER_WORD),
                ),
            ));
        }
        for o in scan.orphans {
            match o {
                Some(m) if m % 2 == 0 && reasons[m / 2].is_none() => {
                    reasons[m / 2] = Some(UNADDRESSED_REASON.to_string())
                }
                _ => {
                    return Err(self.fail(
                        arch,
                        words[0],
                        "unaddressed illegal word out of place in the marker run".into(),
                    ));
                }
            }
        }
        Ok(reasons)
    }

    /// Run nvdisasm with `args` and `file` (holding `n_words` words) in the chunk's scratch
    /// folder, through [`process::run`] with this chunk's limits.
    fn run(
        &self,
        cx: &mut Ctx,
        word: u128,
        args: &[&str],
        file: &Path,
        n_words: usize,
    ) -> Result<RunOutput, OracleError> {
        cx.st.runs += 1;
        let mut argv: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        argv.push(file.as_os_str());
        let limits = Limits {
            time: self.time_limit(n_words),
            output: output_limit(n_words),
        };
        process::run(&self.path, &argv, cx.tmp.path(), limits, cx.cancel).map_err(|e| match e {
            RunError::Interrupted(signal) => OracleError::Interrupted { signal },
            e => self.fail(
                cx.arch,
                word,
                format!(
                    "`{} {} {}`: {e}",
                    self.path.display(),
                    args.join(" "),
                    file.display()
                ),
            ),
        })
    }

    /// The time one run (start to parsed output) may take: the configured timeout, or 120 s
    /// plus 2 ms per word, several times what a loaded 2-core machine needs.
    fn time_limit(&self, n_words: usize) -> Duration {
        self.timeout
            .unwrap_or_else(|| Duration::from_secs(120) + Duration::from_millis(2 * n_words as u64))
    }

    /// A timeout error when the run and the parsing of its output took past its deadline.
    fn check_deadline(&self, arch: Arch, word: u128, r: &RunOutput) -> Result<(), OracleError> {
        if Instant::now() > r.deadline {
            return Err(self.fail(
                arch,
                word,
                "nvdisasm and the reading of its output ran past the time limit".into(),
            ));
        }
        Ok(())
    }

    pub(super) fn fail(&self, arch: Arch, word: u128, message: String) -> OracleError {
        OracleError::Nvdisasm {
            arch,
            word: word_to_hex(word),
            message,
        }
    }
}

/// Pass 1's reasons from its stderr, for a kernel of `n` words followed by [`MARKER_WORD`]:
/// `Ok(Some(reason per word))` (None: legal), `Ok(None)` when unaddressed illegal words cannot
/// be placed from the order of the lines alone (the marker-interleave run decides), `Err` when
/// the marker is not reported illegal with an address at index `n` (then the lines cannot be
/// trusted: nvdisasm failed otherwise, or accepts the marker on this arch).
///
/// Output nvdisasm does not print in this case is an error too: anything on stdout (the
/// marker keeps the listing from being printed), or a stderr line that is neither an
/// addressed error inside the kernel, `Illegal instruction found` nor a warning.
fn marker_pass_reasons(
    stdout: &str,
    stderr: &str,
    n: usize,
) -> Result<Option<Vec<Option<String>>>, String> {
    if let Some(line) = stdout.lines().find(|l| !l.trim().is_empty()) {
        return Err(format!(
            "cubin pass: unexpected output on stdout `{}`",
            super::listing::quote80(line.trim())
        ));
    }
    let scan = scan_stderr(stderr, 0, n + 1);
    if let Some(line) = scan.other.first() {
        return Err(format!(
            "cubin pass: unexpected stderr line `{}`",
            super::listing::quote80(line)
        ));
    }
    let mut reasons: Vec<Option<String>> = vec![None; n + 1];
    for (i, r) in scan.addressed {
        reasons[i] = Some(r);
    }
    if reasons[n].is_none() {
        return Err(format!(
            "marker word {} after the {n} words was not reported illegal with an address; \
             stderr: {}",
            word_to_hex(MARKER_WORD),
            first_lines(stderr, 5)
        ));
    }
    if !scan.orphans.is_empty() && !place_orphans(&mut reasons, &scan.orphans) {
        return Ok(None);
    }
    reasons.truncate(n);
    Ok(Some(reasons))
}

/// The most output (bytes, stdout and stderr each) a run about `n_words` words may print:
/// 64 KiB plus 1 KiB per word, about eight times the longest listing seen. Past it the run is
/// killed, so that junk cannot fill the disk or take long to read.
fn output_limit(n_words: usize) -> u64 {
    (64 << 10) + 1024 * n_words as u64
}

/// Write `words` as 16 little-endian bytes each.
pub(super) fn write_raw(path: &Path, words: &[u128]) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(words.len() * 16);
    for w in words {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    fs::write(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_lines_are_dropped() {
        assert_eq!(output_limit(2), 67_584);
        // Real pass-1 stderr (SM100): NOP, f5ff (uC), d67 (Opclass), 0 (unaddressed), marker.
        let e = "nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000010\n\
                 nvdisasm error   : Illegal instruction found\n\
                 nvdisasm error   : Opclass 'tld_b_noConst_', undefined value 0x10 for table 'TABLES_opex_0' at address 0x00000020\n\
                 nvdisasm error   : Illegal instruction found\n\
                 nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000040\n\
                 nvdisasm error   : Illegal instruction found\n";
        let r = marker_pass_reasons("", e, 4).unwrap().unwrap();
        assert_eq!(
            r,
            [
                None,
                Some("Unrecognized operation for functional unit 'uC'".to_string()),
                Some(
                    "Opclass 'tld_b_noConst_', undefined value 0x10 for table 'TABLES_opex_0'"
                        .to_string()
                ),
                Some(UNADDRESSED_REASON.to_string()),
            ]
        );
        // Real: EXIT, 0 (unaddressed), NOP, f5ff (uC), marker. The unaddressed one lies in
        // {EXIT, 0}: ambiguous, the interleave run decides.
        let e2 = "nvdisasm error   : Illegal instruction found\n\
                  nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000030\n\
                  nvdisasm error   : Illegal instruction found\n\
                  nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000040\n\
                  nvdisasm error   : Illegal instruction found\n";
        assert_eq!(marker_pass_reasons("", e2, 4), Ok(None));
        // The same lines for 5 words: index 4 is a word, the marker (index 5) is missing.
        let err = marker_pass_reasons("", e2, 5).unwrap_err();
        assert!(
            err.contains("marker word 00000000000000000000000000000001"),
            "{err}"
        );
        // All legal: only the marker's two lines.
        let e3 = "nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000020\n\
                  nvdisasm error   : Illegal instruction found\n";
        assert_eq!(marker_pass_reasons("", e3, 2), Ok(Some(vec![None, None])));
        // nvdisasm printed nothing (e.g. exited 0 with a listing): an error, not "all legal".
        assert!(marker_pass_reasons("", "", 2).is_err());
        // Output nvdisasm does not print here is an error, not ignored.
        let err = marker_pass_reasons("\t.headerflags junk\n", e3, 2).unwrap_err();
        assert_eq!(
            err,
            "cubin pass: unexpected output on stdout `.headerflags junk`"
        );
        let junk = format!("{e3}garbage line\n");
        let err = marker_pass_reasons("", &junk, 2).unwrap_err();
        assert_eq!(err, "cubin pass: unexpected stderr line `garbage line`");
    }

    /// A raw batch of `words` at `base` (their texts, whitespace normalised), dropping every
    /// word raw mode refuses (its text is then None).
    fn raw_texts(n: &Nvdisasm, arch: Arch, words: &[u128], base: u64) -> Vec<Option<String>> {
        let cancel = AtomicBool::new(false);
        let mut cx = Ctx {
            arch,
            tmp: process::scratch_dir().unwrap(),
            st: DisassembleStats::default(),
            cancel: &cancel,
        };
        let mut keep: Vec<usize> = (0..words.len()).collect();
        loop {
            let ws: Vec<u128> = keep.iter().map(|&i| words[i]).collect();
            match n.raw_batch(&mut cx, &ws, base).unwrap() {
                RawBatch::Texts(t) => {
                    let mut out = vec![None; words.len()];
                    for (&i, t) in keep.iter().zip(t) {
                        out[i] = t.map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "));
                    }
                    return out;
                }
                RawBatch::Refused(j, _) => {
                    keep.remove(j);
                }
                RawBatch::Failed(m) => panic!("{arch}: {m}"),
            }
        }
    }

    /// Every legal random word whose text differs between base 0 and [`RAW_BASE`] must be a
    /// pass-3 candidate ([`reveals_address`] of its text at [`RAW_BASE`]): a miss would record
    /// a text that holds only at [`RAW_BASE`]. Seeded uniformly random words, all 128 bits.
    #[test]
    #[ignore = "needs nvdisasm"]
    fn live_address_dependence_is_caught() {
        let n = Nvdisasm::locate(None).expect("nvdisasm (run scripts/install-nvdisasm)");
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for arch in [Arch(80), Arch(90), Arch(100)] {
            let words: Vec<u128> = (0..200_000)
                .map(|_| (u128::from(next()) << 64) | u128::from(next()))
                .collect();
            let answers = n.disassemble(arch, &words, None).unwrap();
            let legal: Vec<u128> = words
                .iter()
                .zip(&answers)
                .filter(|(_, a)| a.is_legal())
                .map(|(&w, _)| w)
                .collect();
            let at0 = raw_texts(&n, arch, &legal, 0);
            let at_base = raw_texts(&n, arch, &legal, RAW_BASE);
            let mut moved = 0;
            for ((w, a), b) in legal.iter().zip(&at0).zip(&at_base) {
                if a != b {
                    moved += 1;
                    let b = b.as_deref().unwrap_or("");
                    assert!(reveals_address(b), "{arch} {w:032x}: `{b}` at RAW_BASE");
                }
            }
            // 200k random words give several thousand legal ones and a few branches (SM80: 6,073
            // and 1; SM90 and SM100 more).
            assert!(
                legal.len() > 3000 && moved >= 1,
                "{arch}: {} {moved}",
                legal.len()
            );
        }
    }
}
