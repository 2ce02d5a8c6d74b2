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
//! 0. With a legality hint ([`Nvdisasm::disassemble_stream_hinted`]; the campaign's comes from
//!    the learned reading): one raw batch of the words hinted legal at [`RAW_BASE`], as pass 2
//!    does, without pass 1. A word raw mode refuses, or a batch that fails otherwise, sends
//!    the hinted words back to passes 1 and 2, so the answers do not depend on the hint.
//! 1. One cubin, one kernel: the words, then [`MARKER_WORD`]. The marker is always illegal, so
//!    stdout is always empty (the cheap case above) and stderr names every illegal word; the
//!    marker's own lines (an addressed `uC` error at index `n` and the `Illegal instruction
//!    found` after it) are recognised and dropped. Unaddressed illegal words are placed from
//!    the order of the lines, or, when that is ambiguous, by a second run with a marker before
//!    each word.
//! 2. One raw batch of the legal words at `-base` [`RAW_BASE`]. A word whose text there prints a
//!    number of 2^32 or more ([`reveals_address`]), or has the mnemonic of one that does in
//!    the same batch ([`text_mnemonic`]), is a candidate for address dependence; every other word's text is
//!    its text at address 0.
//! 3. The candidates, in cubins with one section per word (every section starts at address 0,
//!    and targets outside the section are printed as numbers, as in raw mode). Where the target
//!    falls inside the one-word section (nvdisasm then prints a label such as `` `(k25) ``),
//!    that word gets its own raw run.
//!
//! (A "legacy" variant of these passes, without the markers and `-base`, was removed once
//! both gave identical answers on every recorded oracle word and 200k random words per arch.)
//!
//! The code is in three parts: [`process`] runs one nvdisasm process (process group,
//! limits, signals), `passes` holds the passes above, and [`listing`] the pure parsers of
//! nvdisasm's stdout and stderr.

pub(crate) mod listing;
mod passes;
pub(crate) mod process;

pub use listing::{MARKER_WORD, UNADDRESSED_REASON, hex_literals, reveals_address, text_mnemonic};

use super::{Answer, OracleError, word_to_hex};
use crate::arch::Arch;
use listing::{first_lines, parse_version};
use std::collections::{BTreeMap, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::Duration;

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
    /// number near their address.
    pub address_dependent: usize,
    /// Of those, words that needed a raw run of their own.
    pub single_runs: usize,
    /// Raw-mode words the cubin pass called legal but raw mode rejected (expected 0).
    pub disagreements: usize,
    /// Words read by a raw batch without the cubin pass, on a caller's hint that they are
    /// legal ([`Nvdisasm::disassemble_stream_hinted`]).
    pub hinted: usize,
    /// Raw batches that failed on a word hinted legal (each sends it, or all the chunk's
    /// hinted words, back to the cubin pass).
    pub hint_misses: usize,
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
        self.hinted += o.hinted;
        self.hint_misses += o.hint_misses;
        self.chunks += o.chunks;
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
        let out = process::version_output(path).map_err(|e| bad(e.to_string()))?;
        let version = parse_version(&out.stdout).ok_or_else(|| {
            bad(format!(
                "`--version` printed no version (exit status {}): {}",
                if out.ok { "0" } else { "not 0" },
                first_lines(&format!("{}{}", out.stdout, out.stderr), 3)
            ))
        })?;
        Ok(Nvdisasm {
            path: path.to_path_buf(),
            version,
            chunk_words: None,
            timeout: None,
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

    /// Kill an nvdisasm process (its whole process group) that, with the reading of its
    /// output, takes longer than `limit`, and fail with [`OracleError::Nvdisasm`] (default:
    /// 120 s plus 2 ms per word of its input, several times what a loaded 2-core machine
    /// needs).
    pub fn with_timeout(mut self, limit: Duration) -> Nvdisasm {
        self.timeout = Some(limit);
        self
    }

    fn chunk_size(&self) -> usize {
        self.chunk_words.unwrap_or(DEFAULT_CHUNK_WORDS)
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
    /// `threads * chunk + 1` words ahead (16 bytes each), so memory does not grow with the
    /// input.
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
        sink: F,
    ) -> Result<DisassembleStats, OracleError>
    where
        I: IntoIterator<Item = Result<u128, OracleError>>,
        F: FnMut(u128, Answer) -> Result<(), OracleError>,
    {
        self.disassemble_stream_hinted(arch, words, &|_| false, sink)
    }

    /// [`Nvdisasm::disassemble_stream`] with a legality hint: the words for which
    /// `likely_legal` holds (called on the worker threads) skip the cubin pass and go straight
    /// to one raw batch per chunk, which is all nvdisasm's own `-b ARCH raw.bin` does. The
    /// answers are those of the plain stream whatever the hint: a hinted word raw mode refuses
    /// (or a raw batch that fails otherwise) goes back to the cubin pass, at the cost of a
    /// rerun of the batch ([`DisassembleStats::hint_misses`]). A good hint (e.g. the learned
    /// reading's legality, right on > 99.99% of words) brings the cost of a legal word from
    /// about 1.6 raw batches (cubin pass + raw batch) to one.
    pub fn disassemble_stream_hinted<I, F>(
        &self,
        arch: Arch,
        words: I,
        likely_legal: &(dyn Fn(u128) -> bool + Sync),
        mut sink: F,
    ) -> Result<DisassembleStats, OracleError>
    where
        I: IntoIterator<Item = Result<u128, OracleError>>,
        F: FnMut(u128, Answer) -> Result<(), OracleError>,
    {
        self.disassemble_stream_judged(arch, words, likely_legal, &|_, _| (), |w, a, ()| sink(w, a))
    }

    /// [`Nvdisasm::disassemble_stream_hinted`] with a `judge` run on the worker threads: each
    /// chunk's answers are judged (`judge(word, &answer)`, e.g. our decoding compared with
    /// nvdisasm's, [`crate::conform::Comparer`]) on the thread that disassembled the chunk,
    /// as soon as its nvdisasm runs end, and `sink(word, answer, verdict)` gets the verdict
    /// in input order. The calling thread is then left with the bookkeeping: the work per
    /// word that does not depend on order runs on all cores, and the last chunks' judging
    /// does not wait for one thread after nvdisasm is done.
    pub fn disassemble_stream_judged<I, J, V, F>(
        &self,
        arch: Arch,
        words: I,
        likely_legal: &(dyn Fn(u128) -> bool + Sync),
        judge: &J,
        mut sink: F,
    ) -> Result<DisassembleStats, OracleError>
    where
        I: IntoIterator<Item = Result<u128, OracleError>>,
        J: Fn(u128, &Answer) -> V + Sync,
        V: Send,
        F: FnMut(u128, Answer, V) -> Result<(), OracleError>,
    {
        let threads = rayon::current_num_threads().max(1);
        let mut reader = Chunker::new(words.into_iter(), threads, self.chunk_size());
        let cancel = AtomicBool::new(false);
        let (job_tx, job_rx) = mpsc::channel::<(usize, Vec<u128>)>();
        let job_rx = Mutex::new(job_rx);
        // A chunk's words, with its answers, counters and verdicts.
        type Judged<V> = (Vec<u128>, (ChunkOut, Vec<V>));
        type Done<V> = (usize, Vec<u128>, Result<(ChunkOut, Vec<V>), OracleError>);
        let (res_tx, res_rx) = mpsc::channel::<Done<V>>();
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
                            self.run_chunk(arch, &chunk, likely_legal, cancel)
                                .map(|out| {
                                    let v = chunk.iter().zip(&out.0).map(|(&w, a)| judge(w, a));
                                    let v = v.collect();
                                    (out, v)
                                })
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
                let mut done: BTreeMap<usize, Judged<V>> = BTreeMap::new();
                loop {
                    super::interrupt::check()?;
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
                    while let Some((chunk, ((answers, st), verdicts))) = done.remove(&sunk) {
                        stats.add(&st);
                        for ((w, a), v) in chunk.into_iter().zip(answers).zip(verdicts) {
                            sink(w, a, v)?;
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
        // One word past the window tells whether the input ends there (then the last
        // `threads` chunks are cut equal, not one full chunk and a split remainder).
        while !self.exhausted && self.pending.len() <= window {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        // Exactly `threads * max` words: `threads` full chunks, not [4, 2, 2].
        assert_eq!(chunk_sizes(8, 2, 4), [4, 4]);
        assert_eq!(chunk_sizes(9, 2, 4), [4, 3, 2]);
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
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("w.bin");
        passes::write_raw(&p, &[w]).unwrap();
        let out = std::process::Command::new(n.path())
            .args(["-b", &arch.to_string()])
            .arg(&p)
            .output()
            .unwrap();
        if !out.status.success() {
            return None;
        }
        let t = listing::parse_listing(&String::from_utf8_lossy(&out.stdout), 0, 1).unwrap();
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
        // Judged on the workers: each verdict reaches the sink with its own word and answer.
        let judge = |w: u128, a: &Answer| (w, a.text().len());
        let mut judged = Vec::new();
        let words_in = words.iter().map(|&w| Ok(w));
        n.disassemble_stream_judged(Arch(100), words_in, &|_| false, &judge, |w, a, v| {
            judged.push((w, a, v));
            Ok(())
        })
        .unwrap();
        assert_eq!(judged.len(), 20);
        for ((w, a, v), (sw, sa)) in judged.iter().zip(&seen) {
            assert_eq!((w, a), (sw, sa));
            assert_eq!(*v, (*w, a.text().len()));
        }
        assert_eq!(judged[0].2, (exit, "EXIT ;".len()));
    }

    #[test]
    #[ignore = "needs nvdisasm"]
    fn live_hints_change_the_passes_not_the_answers() {
        let n = live().with_chunk_words(8);
        let exit = LOOP_SM100[2].0;
        // Legal loop words, branches (pass 3), the all-zero word (illegal, unaddressed) and
        // an illegal `uC` word, interleaved.
        let words: Vec<u128> = (0..24)
            .map(|i| match i % 6 {
                0 => exit,
                1 => 0,
                2 => LOOP_BRANCHES[i % LOOP_BRANCHES.len()].0,
                3 => 1u128 << 100,
                _ => LOOP_SM100[i % LOOP_SM100.len()].0,
            })
            .collect();
        let (plain, st0) = n.disassemble_with_stats(Arch(100), &words, None).unwrap();
        let run = |hint: &(dyn Fn(u128) -> bool + Sync)| {
            let mut out = Vec::new();
            let st = n
                .disassemble_stream_hinted(Arch(100), words.iter().map(|&w| Ok(w)), hint, |_, a| {
                    out.push(a);
                    Ok(())
                })
                .unwrap();
            (out, st)
        };
        assert_eq!((st0.hinted, st0.hint_misses), (0, 0));
        // A right hint: the legal words skip the cubin pass, no misses.
        let legal: std::collections::HashSet<u128> = words
            .iter()
            .zip(&plain)
            .filter(|(_, a)| a.is_legal())
            .map(|(w, _)| *w)
            .collect();
        let (right, st) = run(&|w| legal.contains(&w));
        assert_eq!(right, plain);
        assert_eq!((st.hinted, st.hint_misses), (16, 0));
        // Every word hinted legal: raw mode refuses the illegal ones, and they go back to the
        // cubin pass; the answers (with the cubin pass's reasons) do not change.
        let (wrong, st) = run(&|_| true);
        assert_eq!(wrong, plain);
        assert!(st.hint_misses >= 3, "{st:?}");
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
