//! Running nvdisasm: finding it, and disassembling many words fast and faithfully.
//!
//! Facts this relies on (nvdisasm 13.5.37; measured, not documented by NVIDIA):
//! - `nvdisasm -b SM100 raw.bin` prints two `.headerflags` lines, then one line per word,
//!   `        /*0060*/    TEXT ;` (address in hex, text padded with runs of spaces), no labels.
//!   If any word is illegal it prints nothing on stdout, exits 1, and stderr names only the first
//!   one (`nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x...`).
//!   It still decodes every word first: a failing batch costs about half a printing one.
//! - `-base A` makes the first word's address `A` (any multiple of 16, 64 bits): the line
//!   addresses and every printed branch target are then 64-bit absolute values
//!   (`BRA 0x5a5a5a5a5a5a5a40` at `-base 0x5a5a5a5a5a5a5a00`, `BRA 0x40` at 0; above
//!   `0x8000000000000000` they print negative, `BRA -0xfc0` at `0xfffffffffffff000`).
//! - Some legal words print no line at all (`-json` shows `"opcode":""`): their text is `""`.
//! - `nvdisasm -c -ndf x.cubin` on a cubin (see [`super::build_cubin`]) whose kernel holds the
//!   words prints, when some are illegal, nothing on stdout and one stderr line per illegal word,
//!   in address order: `nvdisasm error   : <reason> at address 0x%08x` (for `uC` reasons it is
//!   followed by `nvdisasm error   : Illegal instruction found`). Without `-ndf` a cubin whose
//!   last word is not a terminator fails with `Function falls through`. Printing the listing
//!   is most of the cost: with an illegal word in it, the run takes about 0.6 of a raw batch of
//!   the same words, with none about 1.2.
//! - Start-up costs about 0.6 s per process (SM90, 2-core machine), and a process holds about
//!   0.7 KB per word of its input (240 MB for a 262144-word raw batch).
//! - The text of a few words depends on their address: relative branch targets (`BRA`, `BSSY`,
//!   `CALL.REL`, `RET.REL`, ...) are printed as absolute signed addresses (`BRA -0xc0` at 0),
//!   `LEPC` adds the address. The recorded text is always the word's text **at address 0**.
//!
//! The passes, per chunk of words (chunks run in parallel, one nvdisasm process each at a time):
//! 1. One cubin, one kernel: the words, then [`MARKER_WORD`]. The marker is always illegal, so
//!    stdout is always empty (the cheap case above) and stderr names every illegal word; the
//!    marker's own lines (an addressed `uC` error at index `n` and the `Illegal instruction
//!    found` after it) are recognised and dropped. Unaddressed illegal words are placed from
//!    the order of the lines, or, when that is ambiguous, by a second run with a marker before
//!    each word.
//! 2. One raw batch of the legal words at `-base` [`RAW_BASE`]. A word whose text there has a
//!    branch-like mnemonic or a number that is large or near its own address
//!    ([`reveals_address`]) is a candidate for address dependence; every other word's text is
//!    its text at address 0.
//! 3. The candidates, in cubins with one section per word (every section starts at address 0,
//!    and targets outside the section are printed as numbers, as in raw mode). Where the target
//!    falls inside the one-word section (nvdisasm then prints a label such as `` `(k25) ``),
//!    that word gets its own raw run.
//!
//! Before this (and still reachable with [`Nvdisasm::with_legacy_passes`], for validation),
//! pass 1 had no marker (its listing served as copy 1 when no word was illegal) and pass 2 was
//! one raw batch of the legal words twice, comparing each word's two texts. Both methods give
//! identical answers on every recorded oracle word and on 200k random words per arch on SM80,
//! SM90 and SM100 (see the crate report).

use super::{Answer, OracleError, build_cubin, normalize_reason, normalize_text, word_to_hex};
use crate::arch::Arch;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

/// Default largest number of words per chunk. Each chunk costs at least two nvdisasm runs
/// (~0.6 s start-up each); the chunks in flight, their nvdisasm output and their answers are
/// held in memory, at most `threads + 1` chunks whatever the length of the input. Measured
/// with 2 threads (`oracle run`, SM90): this process peaked at 185 MB for 1M words and
/// 281 MB for 10M words (the same bound; the rest is likely allocator fragmentation across
/// threads), and each nvdisasm process at ~240 MB (~0.7 KB per word).
pub const DEFAULT_CHUNK_WORDS: usize = 262_144;

/// Largest chunk [`Nvdisasm::with_chunk_words`] accepts (keeps `16 * index` below 2^26, so
/// addresses in pass 2 never leave [`RAW_BASE`]'s neighbourhood).
pub const MAX_CHUNK_WORDS: usize = 1 << 22;

/// The chunk size of the legacy passes (their pass 3 puts every address-dependent word of a
/// chunk in one cubin, at most [`super::MAX_KERNELS`] sections).
const LEGACY_CHUNK_WORDS: usize = 32_768;

/// The address pass 2 puts its first word at (`nvdisasm -base`). Every byte is `0x5a` (but the
/// last, for 16-byte alignment), so any printed number derived from an address, whole or
/// truncated to its low 32 or 48 bits, stands out from the immediates words print.
pub const RAW_BASE: u64 = 0x5a5a_5a5a_5a5a_5a00;

/// A located, runnable nvdisasm.
#[derive(Debug, Clone)]
pub struct Nvdisasm {
    path: PathBuf,
    version: String,
    chunk_words: Option<usize>,
    timeout: Option<Duration>,
    legacy: bool,
}

/// Counters from one [`Nvdisasm::disassemble_with_stats`] or [`Nvdisasm::disassemble_stream`]
/// call.
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
    /// Legal words disassembled again at address 0 in pass 3: those whose pass-2 text shows a
    /// number near their address (legacy passes: whose two texts differ).
    pub address_dependent: usize,
    /// Of those, words that needed a raw run of their own.
    pub single_runs: usize,
    /// Raw-mode words the cubin pass called legal but raw mode rejected (expected 0).
    pub disagreements: usize,
    /// Output lines that were neither an instruction, a label nor a directive, appended to the
    /// instruction before them (expected 0; none seen).
    pub continuation_lines: usize,
    /// Chunks the words were cut into.
    pub chunks: usize,
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
        self.chunks += o.chunks;
        self.runs += o.runs;
    }
}

/// The state one chunk's passes share.
struct Ctx<'a> {
    arch: Arch,
    tmp: TempDir,
    st: DisassembleStats,
    cancel: &'a AtomicBool,
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
        let out = version_output(path).map_err(|e| bad(e.to_string()))?;
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
            chunk_words: None,
            timeout: None,
            legacy: false,
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

    /// Set the largest number of words per chunk (clamped to 1..=[`MAX_CHUNK_WORDS`]; default
    /// [`DEFAULT_CHUNK_WORDS`]). Chunks are disassembled in parallel, one per rayon thread.
    pub fn with_chunk_words(mut self, n: usize) -> Nvdisasm {
        self.chunk_words = Some(n.clamp(1, MAX_CHUNK_WORDS));
        self
    }

    /// Kill an nvdisasm process that runs longer than `limit` and fail with
    /// [`OracleError::Nvdisasm`] (default: 120 s plus 2 ms per word of its input, several
    /// times what a loaded 2-core machine needs).
    pub fn with_timeout(mut self, limit: Duration) -> Nvdisasm {
        self.timeout = Some(limit);
        self
    }

    /// Use the passes this module used before the marker and `-base` passes (pass 2 holds the
    /// legal words twice and compares their texts; chunks of at most 32768 words). Same answers,
    /// slower; kept to validate the new passes against (`oracle run --legacy-passes`).
    #[doc(hidden)]
    pub fn with_legacy_passes(mut self) -> Nvdisasm {
        self.legacy = true;
        self
    }

    fn chunk_size(&self) -> usize {
        let default = if self.legacy {
            LEGACY_CHUNK_WORDS
        } else {
            DEFAULT_CHUNK_WORDS
        };
        let n = self.chunk_words.unwrap_or(default);
        if self.legacy {
            n.min(super::MAX_KERNELS)
        } else {
            n
        }
    }

    /// Disassemble `words` for `arch`: one [`Answer`] per word, in input order.
    ///
    /// Words are `u128`, bit 0 least significant, laid in memory as 16 little-endian bytes.
    /// A legal word's text is what `nvdisasm -b ARCH raw.bin` prints for it alone at address 0,
    /// normalised by [`normalize_text`]; an illegal word's reason is the one nvdisasm gives in a
    /// cubin (see the module notes for the passes). The input is cut into chunks run on all
    /// cores (see [`Nvdisasm::disassemble_stream`]); `progress`, if given, is advanced by one
    /// per answer, as the chunks end in input order.
    ///
    /// Errors: [`OracleError::Nvdisasm`] (naming the arch and a word) when nvdisasm fails in a
    /// way that is not an illegal word, times out, or temporary files cannot be written.
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
        let mut out = Vec::with_capacity(words.len());
        let st = self.disassemble_stream(arch, words.iter().map(|&w| Ok(w)), |_, a| {
            out.push(a);
            if let Some(pb) = progress {
                pb.inc(1);
            }
            Ok(())
        })?;
        Ok((out, st))
    }

    /// Disassemble a stream of words for `arch`, calling `sink(word, answer)` once per word in
    /// input order (answers as in [`Nvdisasm::disassemble`]).
    ///
    /// Words are read in chunks of at most the chunk size ([`Nvdisasm::with_chunk_words`]); up
    /// to `rayon::current_num_threads()` chunks are disassembled at once, each on its own
    /// thread (one nvdisasm process at a time per chunk). At most `threads + 1` chunks are
    /// in flight or waiting for their turn at the sink, and the reader looks at most
    /// `threads * chunk` words ahead (16 bytes each), so memory does not grow with the input.
    /// When the input ends, the words left are cut into equal chunks, a multiple of `threads`
    /// of them, so that the cores finish together (an input of `n <= threads * chunk` words
    /// gives `threads` chunks of `n / threads`).
    ///
    /// `words` and `sink` run on the calling thread. The first `Err` from `words` or `sink`, or
    /// the first failing chunk, stops the stream: running nvdisasm processes are killed and
    /// that error is returned (the sink may have seen a prefix of the answers).
    /// Errors: those of `words` and `sink`, and [`OracleError::Nvdisasm`] as in
    /// [`Nvdisasm::disassemble`].
    pub fn disassemble_stream<I, F>(
        &self,
        arch: Arch,
        words: I,
        mut sink: F,
    ) -> Result<DisassembleStats, OracleError>
    where
        I: IntoIterator<Item = Result<u128, OracleError>>,
        F: FnMut(u128, Answer) -> Result<(), OracleError>,
    {
        let threads = rayon::current_num_threads().max(1);
        let mut reader = Chunker::new(words.into_iter(), threads, self.chunk_size());
        let cancel = AtomicBool::new(false);
        let (job_tx, job_rx) = mpsc::channel::<(usize, Vec<u128>)>();
        let job_rx = Mutex::new(job_rx);
        type Done = (usize, Vec<u128>, Result<ChunkOut, OracleError>);
        let (res_tx, res_rx) = mpsc::channel::<Done>();
        let mut stats = DisassembleStats::default();
        std::thread::scope(|s| {
            for _ in 0..threads {
                let res_tx = res_tx.clone();
                let (job_rx, cancel) = (&job_rx, &cancel);
                s.spawn(move || {
                    loop {
                        let job = match job_rx.lock() {
                            Ok(rx) => rx.recv(),
                            Err(_) => return,
                        };
                        let Ok((seq, chunk)) = job else { return };
                        let r = if cancel.load(Ordering::Relaxed) {
                            Err(self.fail(arch, chunk[0], "cancelled".into()))
                        } else {
                            self.run_chunk(arch, &chunk, cancel)
                        };
                        if res_tx.send((seq, chunk, r)).is_err() {
                            return;
                        }
                    }
                });
            }
            drop(res_tx);
            let job_tx = job_tx;
            let result = (|| -> Result<(), OracleError> {
                let (mut sent, mut sunk) = (0usize, 0usize);
                let mut done: BTreeMap<usize, (Vec<u128>, ChunkOut)> = BTreeMap::new();
                loop {
                    while sent - sunk < threads + 1 {
                        let Some(chunk) = reader.next_chunk()? else {
                            break;
                        };
                        job_tx
                            .send((sent, chunk))
                            .map_err(|_| self.fail(arch, 0, "worker threads ended".into()))?;
                        sent += 1;
                    }
                    if sunk == sent {
                        return Ok(());
                    }
                    let (seq, chunk, r) = res_rx
                        .recv()
                        .map_err(|_| self.fail(arch, 0, "worker threads ended".into()))?;
                    done.insert(seq, (chunk, r?));
                    while let Some((chunk, (answers, st))) = done.remove(&sunk) {
                        stats.add(&st);
                        for (w, a) in chunk.into_iter().zip(answers) {
                            sink(w, a)?;
                        }
                        sunk += 1;
                    }
                }
            })();
            if result.is_err() {
                cancel.store(true, Ordering::Relaxed);
            }
            drop(job_tx);
            result
        })?;
        Ok(stats)
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
        cancel: &AtomicBool,
    ) -> Result<ChunkOut, OracleError> {
        if words.is_empty() {
            return Ok((Vec::new(), DisassembleStats::default()));
        }
        let tmp = TempDir::new().map_err(|e| self.fail(arch, words[0], e.to_string()))?;
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

        // Pass 1: one cubin, one kernel: which words are illegal, and why.
        let (reasons, listing) = self.find_illegal(&mut cx, words, !self.legacy)?;
        for (i, r) in reasons.into_iter().enumerate() {
            if let Some(r) = r {
                answers[i] = Some(Answer::Illegal(r));
            }
        }

        // Pass 2: the legal words' texts; `moving` gets the words to ask again at address 0.
        let moving = if self.legacy {
            self.legacy_pass2(&mut cx, words, &mut answers, listing)?
        } else {
            self.pass2(&mut cx, words, &mut answers)?
        };

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

    /// Pass 2: one raw batch of the legal words at [`RAW_BASE`]. Fills the answers of words
    /// whose text shows no address; returns the indices of the others (candidates).
    fn pass2(
        &self,
        cx: &mut Ctx,
        words: &[u128],
        answers: &mut [Option<Answer>],
    ) -> Result<Vec<usize>, OracleError> {
        let mut legal: Vec<usize> = (0..words.len()).filter(|&i| answers[i].is_none()).collect();
        let texts = loop {
            if legal.is_empty() {
                return Ok(Vec::new());
            }
            let lw: Vec<u128> = legal.iter().map(|&i| words[i]).collect();
            match self.raw_batch(cx, &lw, RAW_BASE)? {
                Ok(t) => break t,
                Err((j, reason)) => {
                    // Raw mode rejects a word the cubin pass let through: record its reason
                    // and retry without it.
                    cx.st.disagreements += 1;
                    answers[legal[j]] = Some(Answer::Illegal(reason));
                    legal.remove(j);
                }
            }
        };
        let mut moving = Vec::new();
        for (j, (&i, t)) in legal.iter().zip(texts).enumerate() {
            let t = t.unwrap_or_default();
            if reveals_address(&t, RAW_BASE.wrapping_add(16 * j as u64)) {
                moving.push(i);
            } else {
                answers[i] = Some(Answer::Text(t));
            }
        }
        Ok(moving)
    }

    /// The legacy pass 2: the legal words twice in one raw batch (copy 1 at addresses 16*j,
    /// copy 2 at 16*(L+j)); a word whose two texts differ depends on its address. When pass 1
    /// found no illegal word, its listing serves as copy 1 and the batch holds copy 2 only.
    fn legacy_pass2(
        &self,
        cx: &mut Ctx,
        words: &[u128],
        answers: &mut [Option<Answer>],
        listing: Option<String>,
    ) -> Result<Vec<usize>, OracleError> {
        let mut legal: Vec<usize> = (0..words.len()).filter(|&i| answers[i].is_none()).collect();
        let (texts0, texts1) = loop {
            if legal.is_empty() {
                return Ok(Vec::new());
            }
            let l = legal.len();
            let mut lw: Vec<u128> = legal.iter().map(|&i| words[i]).collect();
            let from_cubin = listing.as_ref().filter(|_| l == words.len());
            if from_cubin.is_none() {
                lw.extend_from_within(..);
            }
            let base = if from_cubin.is_some() {
                16 * l as u64
            } else {
                0
            };
            match self.raw_batch(cx, &lw, base)? {
                Err((j, reason)) => {
                    let j = j % l;
                    cx.st.disagreements += 1;
                    answers[legal[j]] = Some(Answer::Illegal(reason));
                    legal.remove(j);
                }
                Ok(mut t) => {
                    if let Some(cubin_text) = from_cubin {
                        let t0 = parse_listing(cubin_text, 0, l, &mut cx.st.continuation_lines);
                        break (t0, t);
                    }
                    let t1 = t.split_off(l);
                    break (t, t1);
                }
            }
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
        Ok(moving)
    }

    /// One raw batch of `words` at `base`: one optional text per word, or the first word raw
    /// mode rejects (index, reason). Errors when nvdisasm fails otherwise, or exits 0 without
    /// the `.headerflags` lines every listing starts with.
    #[allow(clippy::type_complexity)]
    fn raw_batch(
        &self,
        cx: &mut Ctx,
        words: &[u128],
        base: u64,
    ) -> Result<Result<Vec<Option<String>>, (usize, String)>, OracleError> {
        let arch = cx.arch;
        let rpath = cx.tmp.path.join("legal.bin");
        write_raw(&rpath, words).map_err(|e| self.fail(arch, words[0], e.to_string()))?;
        let b = format!("{arch}");
        let base_s = format!("{base:#x}");
        let r = self.run(
            cx,
            words[0],
            &["-b", &b, "-base", &base_s],
            &rpath,
            words.len(),
        )?;
        if !r.ok {
            let scan = scan_stderr(&r.stderr, base, words.len());
            return match scan.addressed.into_iter().next() {
                Some(bad) => Ok(Err(bad)),
                None => Err(self.fail(arch, words[0], first_lines(&r.stderr, 5))),
            };
        }
        if !r.stdout.contains(".headerflags") {
            return Err(self.fail(
                arch,
                words[0],
                format!(
                    "raw batch of {} words exited 0 but printed no listing (no .headerflags \
                     line); stderr: {}",
                    words.len(),
                    first_lines(&r.stderr, 3)
                ),
            ));
        }
        Ok(Ok(parse_listing(
            &r.stdout,
            base,
            words.len(),
            &mut cx.st.continuation_lines,
        )))
    }

    /// Pass 3: the text at address 0 of each of `words` (all legal): cubins of at most
    /// [`super::MAX_KERNELS`] one-word sections, and a raw run of its own for a word whose
    /// text shows a label.
    fn at_address_zero(&self, cx: &mut Ctx, words: &[u128]) -> Result<Vec<String>, OracleError> {
        let arch = cx.arch;
        let mut out = Vec::with_capacity(words.len());
        for group in words.chunks(super::MAX_KERNELS) {
            let kernels: Vec<[u128; 1]> = group.iter().map(|&w| [w]).collect();
            let refs: Vec<&[u128]> = kernels.iter().map(|k| &k[..]).collect();
            let ppath = cx.tmp.path.join("each.cubin");
            let bytes = build_cubin(arch, &refs)?;
            fs::write(&ppath, bytes).map_err(|e| self.fail(arch, group[0], e.to_string()))?;
            let r = self.run(cx, group[0], &["-c", "-ndf"], &ppath, group.len())?;
            if !r.ok {
                return Err(self.fail(arch, group[0], first_lines(&r.stderr, 5)));
            }
            let per = parse_sections(&r.stdout, group.len(), &mut cx.st.continuation_lines);
            for (k, &w) in group.iter().enumerate() {
                let text = per.get(k).cloned().flatten().unwrap_or_default();
                if !text.contains('`') {
                    out.push(text);
                    continue;
                }
                // A label: the target fell inside the section. Ask raw mode directly.
                cx.st.single_runs += 1;
                let one = cx.tmp.path.join("one.bin");
                write_raw(&one, &[w]).map_err(|e| self.fail(arch, w, e.to_string()))?;
                let b = format!("{arch}");
                let r = self.run(cx, w, &["-b", &b], &one, 1)?;
                if !r.ok {
                    return Err(self.fail(arch, w, first_lines(&r.stderr, 5)));
                }
                let t = parse_listing(&r.stdout, 0, 1, &mut cx.st.continuation_lines);
                out.push(t[0].clone().unwrap_or_default());
            }
        }
        Ok(out)
    }

    /// Pass 1: the reason for each illegal word of `words` (None: legal), from one cubin run,
    /// or two when nvdisasm reports illegal words without an address and their place is not
    /// clear: then every word is put after a [`MARKER_WORD`], whose addressed error pins the
    /// place of each unaddressed one.
    ///
    /// With `trailing_marker`, the kernel ends with a [`MARKER_WORD`], so that nvdisasm never
    /// prints the listing; its error (addressed, at index `words.len()`) must be there and is
    /// dropped. Without it (legacy), the listing is returned when no word is illegal.
    fn find_illegal(
        &self,
        cx: &mut Ctx,
        words: &[u128],
        trailing_marker: bool,
    ) -> Result<(Vec<Option<String>>, Option<String>), OracleError> {
        let arch = cx.arch;
        let n = words.len();
        let cpath = cx.tmp.path.join("chunk.cubin");
        let cubin = if trailing_marker {
            let mut k = Vec::with_capacity(n + 1);
            k.extend_from_slice(words);
            k.push(MARKER_WORD);
            build_cubin(arch, &[&k])?
        } else {
            build_cubin(arch, &[words])?
        };
        fs::write(&cpath, &cubin).map_err(|e| self.fail(arch, words[0], e.to_string()))?;
        let out = self.run(cx, words[0], &["-c", "-ndf"], &cpath, n)?;
        if trailing_marker {
            match marker_pass_reasons(&out.stderr, n) {
                Ok(Some(reasons)) => return Ok((reasons, None)),
                Ok(None) => {}
                Err(message) => return Err(self.fail(arch, words[0], message)),
            }
        } else {
            let scan = scan_stderr(&out.stderr, 0, n);
            if !out.ok && scan.addressed.is_empty() && scan.orphans.is_empty() {
                return Err(self.fail(arch, words[0], first_lines(&out.stderr, 5)));
            }
            if out.ok && scan.addressed.is_empty() && scan.orphans.is_empty() {
                return Ok((vec![None; n], Some(out.stdout)));
            }
            let mut reasons: Vec<Option<String>> = vec![None; n];
            for (i, r) in scan.addressed {
                reasons[i] = Some(r);
            }
            if scan.orphans.is_empty() || place_orphans(&mut reasons, &scan.orphans) {
                return Ok((reasons, None));
            }
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
        Ok((reasons, None))
    }

    /// Run nvdisasm on `file` (holding `n_words` words) with stdout and stderr going to files
    /// in the chunk's folder; kill it when it runs past the timeout or the stream is cancelled.
    fn run(
        &self,
        cx: &mut Ctx,
        word: u128,
        args: &[&str],
        file: &Path,
        n_words: usize,
    ) -> Result<RunOutput, OracleError> {
        let arch = cx.arch;
        cx.st.runs += 1;
        let io =
            |e: std::io::Error| self.fail(arch, word, format!("{}: {e}", cx.tmp.path.display()));
        let out_path = cx.tmp.path.join("stdout.txt");
        let err_path = cx.tmp.path.join("stderr.txt");
        let out_f = fs::File::create(&out_path).map_err(io)?;
        let err_f = fs::File::create(&err_path).map_err(io)?;
        let mut child = Command::new(&self.path)
            .args(args)
            .arg(file)
            .stdin(Stdio::null())
            .stdout(out_f)
            .stderr(err_f)
            .spawn()
            .map_err(|e| {
                self.fail(
                    arch,
                    word,
                    format!("cannot run {}: {e}", self.path.display()),
                )
            })?;
        let limit = self.timeout.unwrap_or_else(|| {
            Duration::from_secs(120) + Duration::from_millis(2 * n_words as u64)
        });
        let start = Instant::now();
        let mut nap = Duration::from_millis(1);
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break s,
                Ok(None) => {}
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(self.fail(arch, word, format!("waiting for nvdisasm: {e}")));
                }
            }
            let cancelled = cx.cancel.load(Ordering::Relaxed);
            if cancelled || start.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                let why = if cancelled {
                    "cancelled".to_string()
                } else {
                    format!(
                        "`{} {} {}` ran longer than {:.0} s; killed",
                        self.path.display(),
                        args.join(" "),
                        file.display(),
                        limit.as_secs_f64()
                    )
                };
                return Err(self.fail(arch, word, why));
            }
            std::thread::sleep(nap);
            nap = (nap * 2).min(Duration::from_millis(20));
        };
        let stdout = fs::read(&out_path).map_err(io)?;
        let stderr = fs::read(&err_path).map_err(io)?;
        // No copy for valid UTF-8 (nvdisasm prints ASCII): stdout is ~100 bytes per word.
        let text = |v: Vec<u8>| {
            String::from_utf8(v)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        };
        Ok(RunOutput {
            ok: status.success(),
            stdout: text(stdout),
            stderr: text(stderr),
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

/// One chunk's answers (input order) and counters.
type ChunkOut = (Vec<Answer>, DisassembleStats);

/// Cuts a stream of words into chunks (see [`Nvdisasm::disassemble_stream`]).
struct Chunker<I> {
    it: I,
    pending: VecDeque<u128>,
    exhausted: bool,
    threads: usize,
    max: usize,
    tail: Option<usize>,
}

impl<I: Iterator<Item = Result<u128, OracleError>>> Chunker<I> {
    fn new(it: I, threads: usize, max: usize) -> Chunker<I> {
        Chunker {
            it,
            pending: VecDeque::new(),
            exhausted: false,
            threads: threads.max(1),
            max: max.max(1),
            tail: None,
        }
    }

    /// The next chunk: `max` words while more than `threads * max` are left; then equal cuts
    /// of what is left, `threads * ceil(left / (threads * max))` of them.
    fn next_chunk(&mut self) -> Result<Option<Vec<u128>>, OracleError> {
        let window = self.threads * self.max;
        while !self.exhausted && self.pending.len() < window {
            match self.it.next() {
                Some(Ok(w)) => self.pending.push_back(w),
                Some(Err(e)) => return Err(e),
                None => self.exhausted = true,
            }
        }
        if self.pending.is_empty() {
            return Ok(None);
        }
        let size = if self.exhausted {
            let left = self.pending.len();
            *self.tail.get_or_insert_with(|| {
                let k = self.threads * left.div_ceil(window);
                left.div_ceil(k).max(1)
            })
        } else {
            self.max
        };
        let take = size.min(self.pending.len());
        Ok(Some(self.pending.drain(..take).collect()))
    }
}

/// Pass 1's reasons from its stderr, for a kernel of `n` words followed by [`MARKER_WORD`]:
/// `Ok(Some(reason per word))` (None: legal), `Ok(None)` when unaddressed illegal words cannot
/// be placed from the order of the lines alone (the marker-interleave run decides), `Err` when
/// the marker is not reported illegal with an address at index `n` (then the lines cannot be
/// trusted: nvdisasm failed otherwise, or accepts the marker on this arch).
fn marker_pass_reasons(stderr: &str, n: usize) -> Result<Option<Vec<Option<String>>>, String> {
    let scan = scan_stderr(stderr, 0, n + 1);
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

/// Mnemonics (the text's first word after any `@P` predicate, up to its first `.`) whose
/// operands nvdisasm prints relative to the word's own address. Seen (nvdisasm 13.5.37,
/// SM80/SM90/SM100, 720k random and branch-mutant words): `BRA`, `BSSY`, `CALL`, `LEPC`,
/// `ULEPC`, `WARPSYNC`; the others are branches and calls of the same families (`RET.REL`
/// prints a target too), listed so that no such word depends on the number test alone.
pub const PC_RELATIVE_MNEMONICS: &[&str] = &[
    "BRA", "BRX", "BRXU", "BSSY", "BPT", "CALL", "JMP", "JMX", "JMXU", "LEPC", "RET", "ULEPC",
    "WARPSYNC",
];

/// Whether `text` (a word's text in pass 2, where the word sits at address `addr`) may depend
/// on the word's address, so that pass 3 must ask again at address 0. True when any of:
/// - its mnemonic is in [`PC_RELATIVE_MNEMONICS`];
/// - it prints a `0x` literal (a leading `-` negates it, two's complement) of magnitude at
///   least 2^32 as a signed 64-bit value: at [`RAW_BASE`] every printed target is one (unless
///   the offset cancels the base to within 2^32, a 2^-26 chance for a random offset);
///   immediates rarely are;
/// - a literal lies within 2^52 of `addr`, or its low 48 bits within 2^40 of `addr`'s, or its
///   low 32 bits within 2^20 of `addr`'s (in case nvdisasm truncates).
///
/// False matches only cost a pass-3 run, misses would be wrong answers, so the net is wide:
/// relative targets reach far (`@!P0 BRA 0x80502200240020 ;` at 0 on SM90), so nearness
/// alone misses some.
pub fn reveals_address(text: &str, addr: u64) -> bool {
    let mut toks = text.split_whitespace();
    let first = match toks.next() {
        Some(t) if t.starts_with('@') => toks.next(),
        t => t,
    };
    if let Some(m) = first
        && PC_RELATIVE_MNEMONICS.contains(&m.split(['.', ';']).next().unwrap_or(""))
    {
        return true;
    }
    hex_literals(text).any(|v| {
        let d64 = v.wrapping_sub(addr) as i64;
        let d48 = ((v.wrapping_sub(addr) << 16) as i64) >> 16;
        let d32 = (v as u32).wrapping_sub(addr as u32) as i32;
        (v as i64).unsigned_abs() >= 1 << 32
            || d64.unsigned_abs() < 1 << 52
            || d48.unsigned_abs() < 1 << 40
            || d32.unsigned_abs() < 1 << 20
    })
}

/// The `0x` hex literals of `text` as 64-bit values, in order: `-0x10` gives
/// `0xfffffffffffffff0`; a literal of more than 16 digits gives its low 64 bits.
pub fn hex_literals(text: &str) -> impl Iterator<Item = u64> + '_ {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            let Some(pos) = text[i..].find("0x") else {
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
pub const MARKER_WORD: u128 = 1;

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
///
/// `base` is the address of word 0 (0 in a cubin, the `-base` value in raw mode).
fn scan_stderr(stderr: &str, base: u64, n: usize) -> Scan {
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
/// How long `nvdisasm --version` may take before the binary counts as broken (it answers in
/// ~0.1 s; a hung one would otherwise freeze every command that locates nvdisasm).
const VERSION_TIMEOUT: Duration = Duration::from_secs(30);

/// `path --version`'s output, killing it after [`VERSION_TIMEOUT`].
fn version_output(path: &Path) -> std::io::Result<std::process::Output> {
    let mut child = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let start = Instant::now();
    while child.try_wait()?.is_none() {
        if start.elapsed() > VERSION_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other(format!(
                "`--version` ran longer than {} s; killed",
                VERSION_TIMEOUT.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.wait_with_output()
}

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

    #[test]
    fn marker_lines_are_dropped() {
        // Real pass-1 stderr (SM100): NOP, f5ff (uC), d67 (Opclass), 0 (unaddressed), marker.
        let e = "nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000010\n\
                 nvdisasm error   : Illegal instruction found\n\
                 nvdisasm error   : Opclass 'tld_b_noConst_', undefined value 0x10 for table 'TABLES_opex_0' at address 0x00000020\n\
                 nvdisasm error   : Illegal instruction found\n\
                 nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000040\n\
                 nvdisasm error   : Illegal instruction found\n";
        let r = marker_pass_reasons(e, 4).unwrap().unwrap();
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
        assert_eq!(marker_pass_reasons(e2, 4), Ok(None));
        // The same lines for 5 words: index 4 is a word, the marker (index 5) is missing.
        let err = marker_pass_reasons(e2, 5).unwrap_err();
        assert!(
            err.contains("marker word 00000000000000000000000000000001"),
            "{err}"
        );
        // All legal: only the marker's two lines.
        let e3 = "nvdisasm error   : Unrecognized operation for functional unit 'uC' at address 0x00000020\n\
                  nvdisasm error   : Illegal instruction found\n";
        assert_eq!(marker_pass_reasons(e3, 2), Ok(Some(vec![None, None])));
        // nvdisasm printed nothing (e.g. exited 0 with a listing): an error, not "all legal".
        assert!(marker_pass_reasons("", 2).is_err());
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
        // Real pass-2 texts (SM100/SM90 at -base RAW_BASE) with the word's index j.
        let at = |j: u64| RAW_BASE + 16 * j;
        assert!(reveals_address("@!P1 BRA 0x5a5a5a5a5a5a5a40 ;", at(0)));
        assert!(reveals_address(
            "BSSY.RECONVERGENT B0, 0x5a5a5a5a5a5a5aa0 ;",
            at(1)
        ));
        assert!(reveals_address("@!P0 BRA 0x5a5a5a5a5a5a5970 ;", at(3)));
        assert!(reveals_address(
            "RET.REL.NODEC R6 0x5a5a5a5a5a5a58c0 ;",
            at(4)
        ));
        assert!(reveals_address("BRA 0x5a5a5a5a5a5a5a50;", at(5)));
        assert!(reveals_address("LEPC R20, 0x5a5a5a5a5a5a5a50 ;", at(3)));
        // Real, far targets (the same words print `@!P0 BRA 0x80502200240020 ;` and
        // `@!UPT ULEPC UR158, -0xbed6b91967d2b7 ;` at 0): the mnemonic and the size decide.
        assert!(reveals_address("@!P0 BRA 0x5adaaa7c5a7e5ad0 ;", at(41)));
        assert!(reveals_address(
            "@!UPT ULEPC UR158, 0x599b83a140f28749 ;",
            at(0)
        ));
        assert!(reveals_address("XYZ R1, 0x599b83a140f28749 ;", at(0)));
        assert!(reveals_address("XYZ R1, -0x100000000 ;", at(0)));
        assert!(reveals_address("BRA;", at(0)));
        // Ordinary immediates of other instructions.
        assert!(!reveals_address("LDC R1, c[0x0][0x37c] ;", at(0)));
        assert!(!reveals_address(
            "@P0 TLD4.R.EF P0, R0, R0, R0, R0, 0x0, 0x0, INVALID0, 0x0 ;",
            at(7)
        ));
        assert!(!reveals_address("IADD3 R0, R1, -0x10, RZ ;", at(0)));
        assert!(!reveals_address("MOV R0, 0xffffffff ;", at(0)));
        assert!(!reveals_address("NOP;", at(0)));
        // Truncated to the low 48 or 32 bits (never seen; caught all the same).
        assert!(reveals_address("XYZ 0x5a5a5a5a5a40 ;", at(0)));
        assert!(reveals_address("XYZ 0x5a5a5a40 ;", at(0)));
        assert!(reveals_address("XYZ 0x5a5b5a40 ;", at(0)));
        assert!(!reveals_address("XYZ 0x7a5a5a40 ;", at(0)));
        // A false match (only costs a pass-3 run): an immediate near the low 32 bits.
        assert!(reveals_address("IADD3 R0, R1, 0x5a5a5a5a, RZ ;", at(0)));
        assert!(!reveals_address("", at(0)));
    }

    fn chunk_sizes(n: usize, threads: usize, max: usize) -> Vec<usize> {
        let mut c = Chunker::new((0..n as u128).map(Ok), threads, max);
        let mut out = Vec::new();
        let mut next = 0u128;
        while let Some(chunk) = c.next_chunk().unwrap() {
            for w in &chunk {
                assert_eq!(*w, next, "words stay in order");
                next += 1;
            }
            out.push(chunk.len());
        }
        assert_eq!(next as usize, n);
        out
    }

    #[test]
    fn chunks_are_large_and_the_tail_is_balanced() {
        assert_eq!(chunk_sizes(0, 2, 4), Vec::<usize>::new());
        assert_eq!(chunk_sizes(1, 2, 4), [1]);
        assert_eq!(chunk_sizes(10, 2, 3), [3, 3, 2, 2]);
        assert_eq!(chunk_sizes(200_000, 2, 262_144), [100_000, 100_000]);
        assert_eq!(
            chunk_sizes(1_000_000, 2, 262_144),
            [262_144, 262_144, 237_856, 237_856]
        );
        // One thread: no balancing needed.
        assert_eq!(chunk_sizes(7, 1, 3), [3, 3, 1]);
    }

    #[test]
    fn a_bad_input_word_stops_the_chunker() {
        let words = vec![
            Ok(1u128),
            Err(OracleError::Input {
                message: "bad".into(),
            }),
            Ok(2),
        ];
        let mut c = Chunker::new(words.into_iter(), 2, 4);
        assert!(matches!(c.next_chunk(), Err(OracleError::Input { .. })));
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
    fn live_stream_keeps_order_and_stops_on_errors() {
        let n = live().with_chunk_words(3);
        let exit = LOOP_SM100[2].0;
        let words: Vec<u128> = (0..20)
            .map(|i| match i % 4 {
                0 => exit,
                1 => 0,
                2 => LOOP_BRANCHES[i % LOOP_BRANCHES.len()].0,
                _ => 1u128 << 100,
            })
            .collect();
        let mut seen = Vec::new();
        let st = n
            .disassemble_stream(Arch(100), words.iter().map(|&w| Ok(w)), |w, a| {
                seen.push((w, a));
                Ok(())
            })
            .unwrap();
        assert_eq!(seen.len(), 20);
        assert_eq!(st.words, 20);
        assert_eq!(st.chunks, 7, "{st:?}");
        for (i, (w, a)) in seen.iter().enumerate() {
            assert_eq!(*w, words[i]);
            assert_eq!(a.is_legal(), i % 4 == 0 || i % 4 == 2, "{i} {a:?}");
        }
        assert_eq!(seen[0].1, Answer::Text("EXIT ;".into()));
        assert_eq!(seen[2].1, Answer::Text(LOOP_BRANCHES[2].1.into()));
        // A failing sink stops the stream with its error.
        let mut calls = 0;
        let err = n
            .disassemble_stream(Arch(100), words.iter().map(|&w| Ok(w)), |_, _| {
                calls += 1;
                if calls == 5 {
                    Err(OracleError::Input {
                        message: "sink full".into(),
                    })
                } else {
                    Ok(())
                }
            })
            .unwrap_err();
        assert_eq!(err.to_string(), "oracle: sink full");
        assert_eq!(calls, 5);
    }

    #[test]
    #[ignore = "needs nvdisasm"]
    fn live_marker_is_illegal_on_every_arch() {
        let n = live();
        let exit = LOOP_SM100[2].0;
        for sm in [
            75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 107, 110, 120, 121,
        ] {
            // Pass 1 fails with an error naming the marker if the arch accepts it.
            let (a, st) = n
                .disassemble_with_stats(Arch(sm), &[exit, 0], None)
                .unwrap();
            assert!(a[0].is_legal(), "SM{sm}: {a:?}");
            assert_eq!(a[1], Answer::Illegal(UNADDRESSED_REASON.into()), "SM{sm}");
            assert_eq!(st.illegal, 1);
        }
    }

    #[test]
    #[ignore = "needs nvdisasm"]
    fn live_timeout_kills_nvdisasm() {
        let n = live().with_timeout(Duration::from_millis(1));
        let err = n.disassemble_one(Arch(100), LOOP_SM100[2].0).unwrap_err();
        assert!(err.to_string().contains("killed"), "{err}");
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
