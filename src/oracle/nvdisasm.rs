//! Running nvdisasm: finding it, and disassembling many words fast and faithfully.
//!
//! Facts this relies on (nvdisasm 13.5.37; measured, not documented by NVIDIA):
//! - `nvdisasm -b SM100 raw.bin` prints two `.headerflags` lines, then one line per word,
//!   `        /*0060*/    TEXT ;` (address in hex, text padded with runs of spaces), no labels.
//!   If any word is illegal it prints nothing on stdout, exits 1, and stderr names only the first
//!   one (`nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x...`).
//! - Some legal words print no line at all (`-json` shows `"opcode":""`): their text is `""`.
//! - `nvdisasm -c -ndf x.cubin` on a cubin (see [`super::build_cubin`]) whose kernel holds the
//!   words prints, when some are illegal, nothing on stdout and one stderr line per illegal word,
//!   in address order: `nvdisasm error   : <reason> at address 0x%08x` (for `uC` reasons it is
//!   followed by `nvdisasm error   : Illegal instruction found`). Without `-ndf` a cubin whose
//!   last word is not a terminator fails with `Function falls through`.
//! - The text of a few words depends on their address: relative branch targets (`BRA`, `BSSY`,
//!   `CALL.REL`, `RET.REL`, ...) are printed as absolute signed addresses (`BRA -0xc0` at 0),
//!   `ULEPC` adds the address. The recorded text is always the word's text **at address 0**.
//!   Such words are found by disassembling the legal words twice in one raw batch (the list,
//!   then the list again) and comparing each word's two texts; they are then disassembled in a cubin with one
//!   section per word (every section starts at address 0, and targets outside the section are
//!   printed as numbers, as in raw mode). Where the target falls inside the one-word section
//!   (nvdisasm then prints a label such as `` `(k25) ``), that word gets its own raw run.
//!
//! Speed (2-core machine, 50k random SM100 words): see the crate report; one raw batch runs
//! about 30-65k legal words/s on one core, plus ~0.3 s start-up per call.

use super::{Answer, OracleError, build_cubin, normalize_reason, normalize_text, word_to_hex};
use crate::arch::Arch;
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// Default largest number of words per chunk. Each chunk costs at least two nvdisasm runs
/// (~0.3 s start-up each) and its output is held in memory (~100 bytes per word); chunks run in
/// parallel, so an input is cut into `max(threads, len / chunk)` chunks of equal size.
pub const DEFAULT_CHUNK_WORDS: usize = 32768;

/// A located, runnable nvdisasm.
#[derive(Debug, Clone)]
pub struct Nvdisasm {
    path: PathBuf,
    version: String,
    chunk_words: usize,
}

/// Counters from one [`Nvdisasm::disassemble_with_stats`] call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DisassembleStats {
    /// Words asked about.
    pub words: usize,
    /// Words nvdisasm calls illegal.
    pub illegal: usize,
    /// Legal words that print no text.
    pub empty: usize,
    /// Illegal words nvdisasm names without an address (reason [`UNADDRESSED_REASON`]).
    pub unaddressed: usize,
    /// Extra cubin runs with marker words, needed to place unaddressed illegal words.
    pub marker_runs: usize,
    /// Legal words whose text depends on their address.
    pub address_dependent: usize,
    /// Of those, words that needed a raw run of their own.
    pub single_runs: usize,
    /// Raw-mode words the cubin pass called legal but raw mode rejected (expected 0).
    pub disagreements: usize,
    /// Output lines that were neither an instruction, a label nor a directive, appended to the
    /// instruction before them (expected 0; none seen).
    pub continuation_lines: usize,
    /// nvdisasm processes started.
    pub runs: usize,
}

impl DisassembleStats {
    fn add(&mut self, o: &DisassembleStats) {
        self.words += o.words;
        self.illegal += o.illegal;
        self.empty += o.empty;
        self.unaddressed += o.unaddressed;
        self.marker_runs += o.marker_runs;
        self.address_dependent += o.address_dependent;
        self.single_runs += o.single_runs;
        self.disagreements += o.disagreements;
        self.continuation_lines += o.continuation_lines;
        self.runs += o.runs;
    }
}

impl Nvdisasm {
    /// Find nvdisasm, in this order:
    /// 1. `explicit` (the CLI's `--nvdisasm PATH`);
    /// 2. the `NVDISASM` environment variable, if set and not empty;
    /// 3. `nvdisasm` in a `PATH` folder;
    /// 4. `<project root>/.tools/nvdisasm/**/bin/nvdisasm`, where `scripts/install-nvdisasm`
    ///    puts it; the project root is the first folder upward from the current folder whose
    ///    `Cargo.toml` has `name = "sass-conform"`, and also this crate's own source folder.
    ///
    /// The binary found is run once with `--version`. Errors: [`OracleError::BadBinary`] when
    /// the path from 1 or 2 does not run as nvdisasm; [`OracleError::NotFound`], whose message
    /// says to run `scripts/install-nvdisasm`, when nothing is found.
    pub fn locate(explicit: Option<&Path>) -> Result<Nvdisasm, OracleError> {
        if let Some(p) = explicit {
            return Nvdisasm::from_path(p);
        }
        if let Some(p) = std::env::var_os("NVDISASM").filter(|v| !v.is_empty()) {
            return Nvdisasm::from_path(Path::new(&p));
        }
        let mut searched = vec!["--nvdisasm".to_string(), "$NVDISASM".to_string()];
        if let Some(paths) = std::env::var_os("PATH") {
            for dir in std::env::split_paths(&paths) {
                let cand = dir.join("nvdisasm");
                if cand.is_file()
                    && let Ok(n) = Nvdisasm::from_path(&cand)
                {
                    return Ok(n);
                }
            }
            searched.push("$PATH".into());
        }
        let mut roots = Vec::new();
        if let Ok(cwd) = std::env::current_dir()
            && let Some(r) = project_root_from(&cwd)
        {
            roots.push(r);
        }
        let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        if !roots.contains(&manifest_dir) {
            roots.push(manifest_dir);
        }
        for root in roots {
            let tools = root.join(".tools").join("nvdisasm");
            searched.push(format!("{}/**/bin/nvdisasm", tools.display()));
            let mut found = Vec::new();
            find_bins(&tools, 0, &mut found);
            found.sort();
            for cand in found {
                if let Ok(n) = Nvdisasm::from_path(&cand) {
                    return Ok(n);
                }
            }
        }
        Err(OracleError::NotFound {
            searched: searched.join(", "),
        })
    }

    /// Use the nvdisasm at `path`, checking it runs: `nvdisasm --version` must print a line
    /// with `V<major>.<minor>.<patch>` (e.g. `Cuda compilation tools, release 13.5, V13.5.37`).
    /// Errors: [`OracleError::BadBinary`].
    pub fn from_path(path: &Path) -> Result<Nvdisasm, OracleError> {
        let bad = |reason: String| OracleError::BadBinary {
            path: path.to_path_buf(),
            reason,
        };
        let out = Command::new(path)
            .arg("--version")
            .output()
            .map_err(|e| bad(e.to_string()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let version = parse_version(&text).ok_or_else(|| {
            bad(format!(
                "`--version` printed no version ({}): {}",
                out.status,
                first_lines(
                    &format!("{text}{}", String::from_utf8_lossy(&out.stderr)),
                    3
                )
            ))
        })?;
        Ok(Nvdisasm {
            path: path.to_path_buf(),
            version,
            chunk_words: DEFAULT_CHUNK_WORDS,
        })
    }

    /// nvdisasm's version, e.g. `13.5.37` (from `nvdisasm --version`).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The binary's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Set the largest number of words per chunk (at least 1; default
    /// [`DEFAULT_CHUNK_WORDS`]). Chunks are disassembled in parallel, one per rayon thread.
    pub fn with_chunk_words(mut self, n: usize) -> Nvdisasm {
        self.chunk_words = n.clamp(1, super::cubin::MAX_KERNELS);
        self
    }

    /// Disassemble `words` for `arch`: one [`Answer`] per word, in input order.
    ///
    /// Words are `u128`, bit 0 least significant, laid in memory as 16 little-endian bytes.
    /// A legal word's text is what `nvdisasm -b ARCH raw.bin` prints for it alone at address 0,
    /// normalised by [`normalize_text`]; an illegal word's reason is the one nvdisasm gives in a
    /// cubin (see the module notes for the passes). The input is cut into chunks run on all
    /// cores (rayon); `progress`, if given, is advanced by each chunk's word count as it ends.
    ///
    /// Errors: [`OracleError::Nvdisasm`] (naming the arch and a word) when nvdisasm fails in a
    /// way that is not an illegal word, or temporary files cannot be written.
    pub fn disassemble(
        &self,
        arch: Arch,
        words: &[u128],
        progress: Option<&indicatif::ProgressBar>,
    ) -> Result<Vec<Answer>, OracleError> {
        self.disassemble_with_stats(arch, words, progress)
            .map(|(a, _)| a)
    }

    /// [`Nvdisasm::disassemble`] plus counters about what happened.
    pub fn disassemble_with_stats(
        &self,
        arch: Arch,
        words: &[u128],
        progress: Option<&indicatif::ProgressBar>,
    ) -> Result<(Vec<Answer>, DisassembleStats), OracleError> {
        let stats = Mutex::new(DisassembleStats::default());
        let threads = rayon::current_num_threads().max(1);
        let size = words
            .len()
            .div_ceil(threads)
            .clamp(1, self.chunk_words.max(1));
        let chunks: Result<Vec<Vec<Answer>>, OracleError> = words
            .par_chunks(size)
            .map(|chunk| {
                let (answers, st) = self.run_chunk(arch, chunk)?;
                if let Some(pb) = progress {
                    pb.inc(chunk.len() as u64);
                }
                if let Ok(mut s) = stats.lock() {
                    s.add(&st);
                }
                Ok(answers)
            })
            .collect();
        let mut out = Vec::with_capacity(words.len());
        for c in chunks? {
            out.extend(c);
        }
        let stats = stats.into_inner().unwrap_or_default();
        Ok((out, stats))
    }

    /// Disassemble one word (see [`Nvdisasm::disassemble`]).
    pub fn disassemble_one(&self, arch: Arch, word: u128) -> Result<Answer, OracleError> {
        let mut v = self.disassemble(arch, &[word], None)?;
        v.pop().ok_or_else(|| OracleError::Nvdisasm {
            arch,
            word: word_to_hex(word),
            message: "no answer".into(),
        })
    }

    /// All passes for one chunk.
    fn run_chunk(
        &self,
        arch: Arch,
        words: &[u128],
    ) -> Result<(Vec<Answer>, DisassembleStats), OracleError> {
        let mut st = DisassembleStats {
            words: words.len(),
            ..Default::default()
        };
        if words.is_empty() {
            return Ok((Vec::new(), st));
        }
        let tmp = TempDir::new().map_err(|e| self.fail(arch, words[0], e.to_string()))?;
        let mut answers: Vec<Option<Answer>> = vec![None; words.len()];

        // Pass 1: one cubin, one kernel: which words are illegal, and why.
        let (reasons, listing) = self.find_illegal(arch, words, &tmp, &mut st)?;
        for (i, r) in reasons.into_iter().enumerate() {
            if let Some(r) = r {
                answers[i] = Some(Answer::Illegal(r));
            }
        }

        // Pass 2: one raw batch holding the legal words twice: copy 1 at addresses 16*j,
        // copy 2 at 16*(L+j). A word whose two texts differ depends on its address.
        // When pass 1 found no illegal word, its listing (same text as raw mode at the same
        // addresses, except that branch targets become labels) serves as copy 1, and the raw
        // batch holds copy 2 only, at base 16*L.
        let mut legal: Vec<usize> = (0..words.len()).filter(|&i| answers[i].is_none()).collect();
        let (texts0, texts1) = loop {
            if legal.is_empty() {
                break (Vec::new(), Vec::new());
            }
            let l = legal.len();
            let mut lw: Vec<u128> = legal.iter().map(|&i| words[i]).collect();
            let from_cubin = listing.as_ref().filter(|_| l == words.len());
            if from_cubin.is_none() {
                lw.extend_from_within(..);
            }
            let rpath = tmp.path.join("legal.bin");
            write_raw(&rpath, &lw).map_err(|e| self.fail(arch, lw[0], e.to_string()))?;
            let b = format!("{arch}");
            let base = format!("{:#x}", 16 * l);
            let r = match from_cubin {
                Some(_) => self.run(arch, lw[0], &["-b", &b, "-base", &base], &rpath, &mut st)?,
                None => self.run(arch, lw[0], &["-b", &b], &rpath, &mut st)?,
            };
            if !r.ok {
                // Raw mode rejects a word the cubin pass let through: record its reason and retry.
                let bad = scan_stderr(&r.stderr, l).addressed;
                let Some((j, reason)) = bad.into_iter().next() else {
                    return Err(self.fail(arch, lw[0], first_lines(&r.stderr, 5)));
                };
                st.disagreements += 1;
                answers[legal[j]] = Some(Answer::Illegal(reason));
                legal.remove(j);
                continue;
            }
            if let Some(cubin_text) = from_cubin {
                let t0 = parse_listing(cubin_text, 0, l, &mut st.continuation_lines);
                let t1 = parse_listing(&r.stdout, 16 * l as u64, l, &mut st.continuation_lines);
                break (t0, t1);
            }
            let mut t = parse_listing(&r.stdout, 0, 2 * l, &mut st.continuation_lines);
            let t1 = t.split_off(l);
            break (t, t1);
        };
        let mut moving = Vec::new();
        for (j, &i) in legal.iter().enumerate() {
            let t0 = texts0.get(j).cloned().flatten().unwrap_or_default();
            let t1 = texts1.get(j).cloned().flatten().unwrap_or_default();
            if t0 != t1 {
                moving.push(i);
            } else {
                answers[i] = Some(Answer::Text(t0));
            }
        }

        // Pass 3: address-dependent words, each in its own section (address 0).
        st.address_dependent = moving.len();
        if !moving.is_empty() {
            let kernels: Vec<[u128; 1]> = moving.iter().map(|&i| [words[i]]).collect();
            let refs: Vec<&[u128]> = kernels.iter().map(|k| &k[..]).collect();
            let ppath = tmp.path.join("each.cubin");
            let bytes = build_cubin(arch, &refs)?;
            fs::write(&ppath, bytes)
                .map_err(|e| self.fail(arch, words[moving[0]], e.to_string()))?;
            let out = self.run(arch, words[moving[0]], &["-c", "-ndf"], &ppath, &mut st)?;
            if !out.ok {
                return Err(self.fail(arch, words[moving[0]], first_lines(&out.stderr, 5)));
            }
            let per = parse_sections(&out.stdout, moving.len(), &mut st.continuation_lines);
            for (k, &i) in moving.iter().enumerate() {
                let text = per.get(k).cloned().flatten().unwrap_or_default();
                if text.contains('`') {
                    // A label: the target fell inside the section. Ask raw mode directly.
                    st.single_runs += 1;
                    let one = tmp.path.join("one.bin");
                    write_raw(&one, &[words[i]])
                        .map_err(|e| self.fail(arch, words[i], e.to_string()))?;
                    let b = format!("{arch}");
                    let r = self.run(arch, words[i], &["-b", &b], &one, &mut st)?;
                    if !r.ok {
                        return Err(self.fail(arch, words[i], first_lines(&r.stderr, 5)));
                    }
                    let t = parse_listing(&r.stdout, 0, 1, &mut st.continuation_lines);
                    answers[i] = Some(Answer::Text(t[0].clone().unwrap_or_default()));
                } else {
                    answers[i] = Some(Answer::Text(text));
                }
            }
        }

        let answers: Vec<Answer> = answers
            .into_iter()
            .map(|a| a.unwrap_or_else(|| Answer::Text(String::new())))
            .collect();
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

    /// Pass 1: the reason for each illegal word of `words` (None: legal), from one cubin run,
    /// or two when nvdisasm reports illegal words without an address and their place is not
    /// clear: then every word is put after a [`MARKER_WORD`], whose addressed error pins the
    /// place of each unaddressed one.
    fn find_illegal(
        &self,
        arch: Arch,
        words: &[u128],
        tmp: &TempDir,
        st: &mut DisassembleStats,
    ) -> Result<(Vec<Option<String>>, Option<String>), OracleError> {
        let cpath = tmp.path.join("chunk.cubin");
        let cubin = build_cubin(arch, &[words])?;
        fs::write(&cpath, &cubin).map_err(|e| self.fail(arch, words[0], e.to_string()))?;
        let out = self.run(arch, words[0], &["-c", "-ndf"], &cpath, st)?;
        let scan = scan_stderr(&out.stderr, words.len());
        if !out.ok && scan.addressed.is_empty() && scan.orphans.is_empty() {
            return Err(self.fail(arch, words[0], first_lines(&out.stderr, 5)));
        }
        if out.ok && scan.addressed.is_empty() && scan.orphans.is_empty() {
            return Ok((vec![None; words.len()], Some(out.stdout)));
        }
        let mut reasons: Vec<Option<String>> = vec![None; words.len()];
        for (i, r) in scan.addressed {
            reasons[i] = Some(r);
        }
        if scan.orphans.is_empty() || place_orphans(&mut reasons, &scan.orphans) {
            return Ok((reasons, None));
        }
        // Ambiguous: interleave markers, so that word i sits at index 2i+1 after a marker.
        st.marker_runs += 1;
        let mut inter = Vec::with_capacity(words.len() * 2);
        for &w in words {
            inter.push(MARKER_WORD);
            inter.push(w);
        }
        let cubin = build_cubin(arch, &[&inter])?;
        fs::write(&cpath, &cubin).map_err(|e| self.fail(arch, words[0], e.to_string()))?;
        let out = self.run(arch, words[0], &["-c", "-ndf"], &cpath, st)?;
        let scan = scan_stderr(&out.stderr, inter.len());
        let mut reasons: Vec<Option<String>> = vec![None; words.len()];
        let mut markers = 0usize;
        for (i, r) in scan.addressed {
            if i % 2 == 0 {
                markers += 1;
            } else {
                reasons[i / 2] = Some(r);
            }
        }
        if markers != words.len() {
            return Err(self.fail(
                arch,
                words[0],
                format!(
                    "marker word {} was not reported illegal with an address ({markers} of {} were); \
                     cannot place unaddressed illegal words",
                    word_to_hex(MARKER_WORD),
                    words.len()
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
        Ok((reasons, None))
    }

    fn run(
        &self,
        arch: Arch,
        word: u128,
        args: &[&str],
        file: &Path,
        st: &mut DisassembleStats,
    ) -> Result<RunOutput, OracleError> {
        st.runs += 1;
        let out = Command::new(&self.path)
            .args(args)
            .arg(file)
            .output()
            .map_err(|e| {
                self.fail(
                    arch,
                    word,
                    format!("cannot run {}: {e}", self.path.display()),
                )
            })?;
        Ok(RunOutput {
            ok: out.status.success(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        })
    }

    fn fail(&self, arch: Arch, word: u128, message: String) -> OracleError {
        OracleError::Nvdisasm {
            arch,
            word: word_to_hex(word),
            message,
        }
    }
}

struct RunOutput {
    ok: bool,
    stdout: String,
    stderr: String,
}

/// The reason nvdisasm gives, without an address, for some illegal words (e.g. the all-zero
/// word, whose opcode field is 0).
pub const UNADDRESSED_REASON: &str = "Illegal instruction found";

/// A word that every arch from SM75 to SM121 rejects with an addressed
/// `Unrecognized operation for functional unit 'uC' at address ...` error.
const MARKER_WORD: u128 = 1;

/// What a cubin pass's stderr says.
#[derive(Debug, Default, PartialEq)]
struct Scan {
    /// (word index, reason) from `... at address 0x...` lines, first reason per word, ascending.
    addressed: Vec<(usize, String)>,
    /// `Illegal instruction found` lines that do not follow a `functional unit` line: each is
    /// an illegal word nvdisasm gives no address for, lying after the word index given (None:
    /// before the first addressed word).
    orphans: Vec<Option<usize>>,
    /// Lines that are none of the above (warnings, fatal errors).
    other: Vec<String>,
}

/// Scan a cubin pass's stderr. Facts: lines come in address order; an
/// `Unrecognized operation for functional unit 'X' at address A` line is always followed by one
/// `Illegal instruction found` line; other reasons (`Opclass ...`) are not; some illegal words
/// (opcode field 0) give only an `Illegal instruction found` line, in their place in the order.
fn scan_stderr(stderr: &str, n: usize) -> Scan {
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
            .and_then(|pos| super::split_hex_address(&line[pos + " at address ".len()..]));
        match addr {
            Some(a) if a % 16 == 0 && ((a / 16) as usize) < n => {
                let i = (a / 16) as usize;
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
fn place_orphans(reasons: &mut [Option<String>], orphans: &[Option<usize>]) -> bool {
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

/// Parse a raw-mode listing into one optional text per word (index = (addr - base) / 16).
fn parse_listing(stdout: &str, base: u64, n: usize, cont: &mut usize) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> = vec![None; n];
    let mut last: Option<usize> = None;
    for line in stdout.lines() {
        match classify(line) {
            Line::Insn(a, t) => {
                last = None;
                let Some(off) = a.checked_sub(base) else {
                    continue;
                };
                if off % 16 != 0 {
                    continue;
                }
                let i = (off / 16) as usize;
                if i < n {
                    let text = normalize_text(t);
                    out[i] = Some(match out[i].take() {
                        Some(prev) if !prev.is_empty() => format!("{prev} {text}"),
                        _ => text,
                    });
                    last = Some(i);
                }
            }
            Line::Skip => {}
            Line::Other(t) => {
                if let Some(i) = last {
                    *cont += 1;
                    let prev = out[i].take().unwrap_or_default();
                    out[i] = Some(normalize_text(&format!("{prev} {t}")));
                }
            }
        }
    }
    out
}

/// Parse a cubin listing with one word per section `.text.k<i>` into one text per section.
fn parse_sections(stdout: &str, n: usize, cont: &mut usize) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> = vec![None; n];
    let mut cur: Option<usize> = None;
    let mut in_insn = false;
    for line in stdout.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix(".section") {
            in_insn = false;
            cur = rest
                .trim()
                .strip_prefix(".text.k")
                .and_then(|r| r.split(',').next())
                .and_then(|k| k.parse::<usize>().ok())
                .filter(|&k| k < n);
            continue;
        }
        match classify(line) {
            Line::Insn(_, t) => {
                in_insn = true;
                if let Some(k) = cur {
                    let text = normalize_text(t);
                    out[k] = Some(match out[k].take() {
                        Some(prev) if !prev.is_empty() => format!("{prev} {text}"),
                        _ => text,
                    });
                }
            }
            Line::Skip => in_insn = in_insn && !t.ends_with(':'),
            Line::Other(t) => {
                if let (Some(k), true) = (cur, in_insn) {
                    *cont += 1;
                    let prev = out[k].take().unwrap_or_default();
                    out[k] = Some(normalize_text(&format!("{prev} {t}")));
                }
            }
        }
    }
    out
}

fn write_raw(path: &Path, words: &[u128]) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(words.len() * 16);
    for w in words {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    fs::write(path, bytes)
}

/// `V13.5.37` in `nvdisasm --version` output -> `13.5.37`.
fn parse_version(text: &str) -> Option<String> {
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

fn first_lines(s: &str, n: usize) -> String {
    let v: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).take(n).collect();
    if v.is_empty() {
        "(no message)".into()
    } else {
        v.join(" | ")
    }
}

/// The first folder from `start` upward whose `Cargo.toml` declares `name = "sass-conform"`.
fn project_root_from(start: &Path) -> Option<PathBuf> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        if let Ok(text) = fs::read_to_string(d.join("Cargo.toml"))
            && text.lines().any(|l| {
                let l: String = l.chars().filter(|c| !c.is_whitespace()).collect();
                l == "name=\"sass-conform\""
            })
        {
            return Some(d.to_path_buf());
        }
        dir = d.parent();
    }
    None
}

/// Files `.../bin/nvdisasm` under `dir`, at most 8 levels down.
fn find_bins(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth > 8 {
        return;
    }
    let Ok(rd) = fs::read_dir(dir) else { return };
    for ent in rd.flatten() {
        let p = ent.path();
        let Ok(ft) = ent.file_type() else { continue };
        if ft.is_dir() {
            find_bins(&p, depth + 1, out);
        } else if p.file_name().is_some_and(|n| n == "nvdisasm")
            && p.parent()
                .and_then(|d| d.file_name())
                .is_some_and(|n| n == "bin")
        {
            out.push(p);
        }
    }
}

/// A temporary folder removed on drop.
struct TempDir {
    path: PathBuf,
}

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let path = base.join(format!(
            "sass-conform-nvdisasm-{}-{}-{nanos}",
            std::process::id(),
            super::files::unique_counter()
        ));
        fs::create_dir_all(&path)?;
        Ok(TempDir { path })
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let r = scan_stderr(e, 4);
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
        let scan = scan_stderr(e, 7);
        assert_eq!(scan.orphans, vec![None, Some(1), Some(4), Some(4)]);
        let mut reasons = vec![None; 7];
        for (i, r) in &scan.addressed {
            reasons[*i] = Some(r.clone());
        }
        // Region after word 1 holds words 2 and 3 but only one orphan: ambiguous.
        assert!(!place_orphans(&mut reasons.clone(), &scan.orphans));
        // With 6 words (no legal word 3 between), it is decided.
        let scan6 = scan_stderr(e.replace("0x00000040", "0x00000030").as_str(), 6);
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
                   \x20       /*10000030*/              @!P0 BRA   0x10000000 ;\n\
                   \x20       weird continuation\n";
        let mut cont = 0;
        let t = parse_listing(out, 0x1000_0000, 4, &mut cont);
        assert_eq!(t[0], None);
        assert_eq!(t[1].as_deref(), Some("LDC R1, c[0x0][0x37c] ;"));
        assert_eq!(t[2], None);
        assert_eq!(
            t[3].as_deref(),
            Some("@!P0 BRA 0x10000000 ; weird continuation")
        );
        assert_eq!(cont, 1);
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
        let mut cont = 0;
        let t = parse_sections(out, 2, &mut cont);
        assert_eq!(t[0], None);
        assert_eq!(t[1].as_deref(), Some("@!P0 BRA -0xc0 ;"));
        assert_eq!(cont, 0);
    }

    #[test]
    fn project_root_is_found() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(
            project_root_from(&here.join("src/oracle")).as_deref(),
            Some(here)
        );
    }

    #[test]
    fn missing_binary_is_an_error() {
        let err = Nvdisasm::from_path(Path::new("/nonexistent/nvdisasm")).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/nvdisasm"), "{err}");
        let nf = OracleError::NotFound {
            searched: "x".into(),
        };
        assert!(nf.to_string().contains("scripts/install-nvdisasm"));
    }

    // ---- Tests below need nvdisasm (CI has none): run with
    // `cargo test oracle -- --ignored` after `scripts/install-nvdisasm`.

    /// SM100 words taken from a ptxas 13.5 cubin (a loop with a call), with the text nvdisasm
    /// prints for each alone at address 0 (checked one `-b SM100` run per word).
    const LOOP_SM100: &[(u128, &str)] = &[
        (
            0x000fe20000000800_0000df00ff017b82,
            "LDC R1, c[0x0][0x37c] ;",
        ),
        (
            0x000ea20008000a00_00006b00ff0477ac,
            "LDCU.64 UR4, c[0x0][0x358] ;",
        ),
        (0x000fea0003800000_000000000000794d, "EXIT ;"),
        (0x000fc00000000000_0000000000007918, "NOP;"),
    ];

    /// Address-dependent SM100 words from the same cubin, with their text at address 0.
    const LOOP_BRANCHES: &[(u128, &str)] = &[
        (
            0x000fe80003800200_0000008000007945,
            "BSSY.RECONVERGENT B0, 0x90 ;",
        ),
        (0x000fea0003800000_00000000000c9947, "@!P1 BRA 0x40 ;"),
        (0x000fea0003c00000_0000000000147944, "CALL.REL.NOINC 0x60 ;"),
        (0x000fea000383ffff_fffffffc00cc8947, "@!P0 BRA -0xc0 ;"),
        (
            0x000fec0003c3ffff_fffffffc069c7950,
            "RET.REL.NODEC R6 -0x180 ;",
        ),
        (0x000fc0000383ffff_fffffffc00fc7947, "BRA 0x0;"),
    ];

    fn live() -> Nvdisasm {
        Nvdisasm::locate(None).expect("nvdisasm (run scripts/install-nvdisasm)")
    }

    /// One raw run for one word at address 0: the reference.
    fn reference(n: &Nvdisasm, arch: Arch, w: u128) -> Option<String> {
        let tmp = TempDir::new().unwrap();
        let p = tmp.path.join("w.bin");
        write_raw(&p, &[w]).unwrap();
        let out = Command::new(n.path())
            .args(["-b", &arch.to_string()])
            .arg(&p)
            .output()
            .unwrap();
        if !out.status.success() {
            return None;
        }
        let t = parse_listing(&String::from_utf8_lossy(&out.stdout), 0, 1, &mut 0);
        Some(t[0].clone().unwrap_or_default())
    }

    #[test]
    #[ignore = "needs nvdisasm"]
    fn live_known_words() {
        let n = live();
        assert!(n.version().chars().next().unwrap().is_ascii_digit());
        let words: Vec<u128> = LOOP_SM100
            .iter()
            .chain(LOOP_BRANCHES)
            .map(|p| p.0)
            .collect();
        let (answers, st) = n.disassemble_with_stats(Arch(100), &words, None).unwrap();
        for (&(w, text), a) in LOOP_SM100.iter().chain(LOOP_BRANCHES).zip(&answers) {
            assert_eq!(a, &Answer::Text(text.into()), "{w:032x}");
            assert_eq!(Some(text.to_string()), reference(&n, Arch(100), w));
        }
        assert_eq!(st.address_dependent, LOOP_BRANCHES.len(), "{st:?}");
        let bad = n.disassemble_one(Arch(100), 0).unwrap();
        assert_eq!(bad, Answer::Illegal(UNADDRESSED_REASON.into()));
        // Unaddressed illegal words (opcode 0) between legal ones: needs the marker run.
        let exit = LOOP_SM100[2].0;
        let nop = LOOP_SM100[3].0;
        let mixed = [exit, 0, nop, 1u128 << 100, exit, 0, 0, nop];
        let (answers, st) = n.disassemble_with_stats(Arch(100), &mixed, None).unwrap();
        let legal: Vec<bool> = answers.iter().map(|a| a.is_legal()).collect();
        assert_eq!(
            legal,
            [true, false, true, false, true, false, false, true],
            "{answers:?}"
        );
        assert_eq!(st.unaddressed, 4, "{st:?}");
        assert!(st.marker_runs >= 1, "{st:?}");
    }

    #[test]
    #[ignore = "needs nvdisasm"]
    fn live_random_words_match_one_word_runs() {
        let n = live().with_chunk_words(3000);
        // xorshift random words, plus branch-like words found in real code.
        let mut s = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut words: Vec<u128> = (0..12000)
            .map(|_| (u128::from(next()) << 64) | u128::from(next()))
            .collect();
        words.extend(LOOP_BRANCHES.iter().map(|&(w, _)| w));
        for arch in [Arch(100), Arch(90), Arch(80)] {
            let (answers, st) = n.disassemble_with_stats(arch, &words, None).unwrap();
            assert_eq!(answers.len(), words.len());
            eprintln!("{arch}: {st:?}");
            // Every legal answer equals a one-word raw run; sample the random part, check all
            // address-dependent-looking ones.
            for (i, (w, a)) in words.iter().zip(&answers).enumerate() {
                if i % 97 != 0 && i < 12000 && !a.text().contains("0x") {
                    continue;
                }
                if i % 7 != 0 && i < 12000 {
                    continue;
                }
                match a {
                    Answer::Text(t) => {
                        assert_eq!(Some(t.clone()), reference(&n, arch, *w), "{arch} {w:032x}")
                    }
                    Answer::Illegal(_) => {
                        assert_eq!(reference(&n, arch, *w), None, "{arch} {w:032x}")
                    }
                }
            }
        }
    }
}
