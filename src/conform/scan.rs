//! Scan real compiler output: ptxas cubins, read as ELF, every instruction word of their
//! `.text.<kernel>` sections decoded with the tables and compared with nvdisasm.
//!
//! Facts this module relies on (ptxas and nvdisasm 13.5.37 from PyPI, checked with readelf):
//! - a cubin is ELF64 little-endian with `e_machine` 190 (`EM_CUDA`); each kernel's code is a
//!   section `.text.<kernel>` holding 16-byte words, little-endian, low 64 bits first;
//! - the arch is in `e_flags`: with `EI_ABIVERSION` 8 (ptxas 13.5) it is
//!   `0x0600_0000 | (sm << 8) | low` (SM80 `0x6005004`, SM90 `0x6005a04`, SM100 `0x6006402`;
//!   see [`crate::oracle::cubin_e_flags`]); older cubins (ABI version below 8) keep the SM
//!   number in the low byte (`EF_CUDA_SM80 = 0x50`), which is read the same way but was not
//!   checked here.
//!
//! A word is *tabled* when a table of its arch claims it: a variant matches, or its opcode
//! bits are a table's and only other fixed bits differ ([`Verdict::ReservedBit`]), or nvdisasm
//! names it with the mnemonic of a table of that arch. A tabled word is *matched* when a
//! variant matches and *unmatched* otherwise (a coverage gap: the report names the nearest
//! variant and the fixed bits that differ). Words of archs or mnemonics without a table are
//! counted, never matched; nvdisasm's mnemonics tell which of them belong to a table of
//! another arch.

use crate::arch::Arch;
use crate::codec::{Codec, FuzzCase, Verdict, Word, bit_list};
use crate::conform::{first_difference, inline_diff};
use crate::oracle::{self, Answer, Entry, Nvdisasm, OracleError};
use crate::reading::model::Model;
use crate::render::Renderer;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Errors of a scan. Every variant that concerns a file names it.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// A file or folder could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a cubin this module can read (not ELF64, not `EM_CUDA`, no arch in
    /// `e_flags`, a code section whose size is not a multiple of 16).
    #[error("{path}: not a readable cubin: {message}")]
    NotCubin {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Nothing to scan: the paths hold no `*.cubin` file.
    #[error("no .cubin file in {0}")]
    NoCubins(String),
    /// nvdisasm, or the recorded answers, failed.
    #[error(transparent)]
    Oracle(#[from] OracleError),
}

impl ScanError {
    fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ScanError::Io {
            path: path.into(),
            source,
        }
    }
}

/// One kernel's code: the words of its `.text.<name>` section, in address order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// Kernel name (the section name without `.text.`).
    pub name: String,
    /// The words; word `i` is at address `16 * i`.
    pub words: Vec<u128>,
}

/// A cubin's code and arch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cubin {
    /// The file as given.
    pub path: PathBuf,
    /// Arch from `e_flags`.
    pub arch: Arch,
    /// The raw `e_flags`.
    pub e_flags: u32,
    /// Code sections in file order.
    pub kernels: Vec<Kernel>,
}

impl Cubin {
    /// Number of instruction words.
    pub fn instructions(&self) -> usize {
        self.kernels.iter().map(|k| k.words.len()).sum()
    }
}

const EM_CUDA: u16 = 190;

/// The arch `e_flags` names, given the ELF `EI_ABIVERSION`: `(e_flags >> 8) & 0xff` for ABI
/// version 8 and later (the top byte is then `0x06`), `e_flags & 0xff` before. `None` when
/// that is no plausible SM number (20..=200).
pub fn arch_from_e_flags(e_flags: u32, abi_version: u8) -> Option<Arch> {
    let sm = if abi_version >= 8 || e_flags >> 24 == 0x06 {
        (e_flags >> 8) & 0xff
    } else {
        e_flags & 0xff
    };
    (20..=200).contains(&sm).then_some(Arch(sm as u16))
}

/// Reads a cubin from bytes; `path` is only used in messages and kept in the result.
pub fn parse_cubin(path: &Path, data: &[u8]) -> Result<Cubin, ScanError> {
    use object::read::elf::{ElfFile64, FileHeader};
    use object::{Object, ObjectSection};
    let bad = |message: String| ScanError::NotCubin {
        path: path.to_path_buf(),
        message,
    };
    let file = ElfFile64::<object::Endianness>::parse(data).map_err(|e| {
        // An ELF magic that does not parse is a file cut short or damaged, not another format.
        bad(match data.starts_with(b"\x7fELF") {
            true => format!(
                "an ELF64 file cut short or damaged ({e}; {} bytes)",
                data.len()
            ),
            false => format!("not an ELF64 file ({e})"),
        })
    })?;
    let endian = file.endian();
    let header = file.elf_header();
    let machine = header.e_machine(endian).0;
    if machine != EM_CUDA {
        return Err(bad(format!(
            "e_machine is {machine}, not {EM_CUDA} (EM_CUDA)"
        )));
    }
    let e_flags = header.e_flags(endian).0;
    let abi_version = header.e_ident().abi_version;
    let arch = arch_from_e_flags(e_flags, abi_version)
        .ok_or_else(|| bad(format!("e_flags {e_flags:#x} names no SM arch")))?;
    let mut kernels = Vec::new();
    for s in file.sections() {
        let name = s
            .name()
            .map_err(|e| bad(format!("unreadable section name ({e})")))?;
        let Some(kernel) = name.strip_prefix(".text.") else {
            continue;
        };
        let bytes = s
            .data()
            .map_err(|e| bad(format!("section {name}: unreadable data ({e})")))?;
        if bytes.len() % 16 != 0 {
            return Err(bad(format!(
                "section {name} holds {} bytes, not a multiple of 16",
                bytes.len()
            )));
        }
        let words = bytes
            .chunks_exact(16)
            .map(|c| u128::from_le_bytes(c.try_into().expect("16-byte chunk")))
            .collect();
        kernels.push(Kernel {
            name: kernel.to_string(),
            words,
        });
    }
    Ok(Cubin {
        path: path.to_path_buf(),
        arch,
        e_flags,
        kernels,
    })
}

/// Reads a cubin file.
pub fn read_cubin(path: &Path) -> Result<Cubin, ScanError> {
    let data = std::fs::read(path).map_err(|e| ScanError::io(path, e))?;
    parse_cubin(path, &data)
}

/// The cubin files named by `paths`: files as given, folders searched recursively for
/// `*.cubin`; sorted, without duplicates. Errors when none is found.
pub fn cubin_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ScanError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), ScanError> {
        let rd = std::fs::read_dir(dir).map_err(|e| ScanError::io(dir, e))?;
        for ent in rd {
            let ent = ent.map_err(|e| ScanError::io(dir, e))?;
            let p = ent.path();
            if p.is_dir() {
                walk(&p, out)?;
            } else if p.extension().is_some_and(|x| x == "cubin") {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    out.sort();
    out.dedup();
    if out.is_empty() {
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(ScanError::NoCubins(names.join(", ")));
    }
    Ok(out)
}

/// nvdisasm's answers by (arch, word).
pub type Answers = HashMap<(Arch, u128), Answer>;

/// When to run nvdisasm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Live {
    /// Never: recorded answers only (words without one are not compared).
    Never,
    /// For the words the recordings lack, if nvdisasm can be found (an explicit
    /// `nvdisasm` path must work).
    #[default]
    IfMissing,
    /// For every word, ignoring the recordings.
    Always,
}

/// What [`scan_paths`] does.
#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    /// Cubin files or folders.
    pub paths: Vec<PathBuf>,
    /// Folder of recorded answers (`oracle/cubins`: `<arch>.tsv` files); missing is fine.
    pub oracle: Option<PathBuf>,
    /// When to run nvdisasm.
    pub live: Live,
    /// nvdisasm binary (else [`Nvdisasm::locate`]'s search).
    pub nvdisasm: Option<PathBuf>,
    /// Record nvdisasm's answers into `DIR/<arch>.tsv` (e.g. `oracle/cubins`), with a record
    /// per file in `DIR/../MANIFEST.json`. The recorded answers are read from `DIR` (not
    /// [`ScanOptions::oracle`]) and nvdisasm is asked only for the words they lack (every
    /// word with [`Live::Always`]); what the files hold stays, and a file with nothing new
    /// is left as it is.
    pub record: Option<PathBuf>,
    /// Write each matched word as a roundtrip fuzz seed `DIR/cubin-<key>-<word>`.
    pub seeds: Option<PathBuf>,
    /// The command line, for the manifest.
    pub command: String,
}

/// Where the answers of a scan came from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AnswerSources {
    /// Distinct (arch, word) pairs scanned.
    pub words: usize,
    /// Answered from the recordings.
    pub recorded: usize,
    /// Answered by nvdisasm now.
    pub live: usize,
    /// Without an answer.
    pub missing: usize,
    /// The recordings' folder, if any was read.
    pub oracle: Option<String>,
    /// nvdisasm's version, if it ran.
    pub nvdisasm: Option<String>,
}

/// Counts for one arch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchSummary {
    /// The arch.
    pub arch: Arch,
    /// Cubins of this arch.
    pub files: usize,
    /// Kernels (code sections).
    pub kernels: usize,
    /// Instruction words.
    pub instructions: usize,
    /// Words a table of this arch claims (see the module notes).
    pub tabled: usize,
    /// Tabled words a variant matches.
    pub matched: usize,
    /// Tabled words no variant matches (coverage gaps).
    pub unmatched: usize,
    /// Tabled words with an nvdisasm answer.
    pub compared: usize,
    /// Compared words whose text is nvdisasm's exactly (after whitespace normalisation).
    pub agree: usize,
    /// Words a table of this arch claims by their bits (a variant matches, or the table's
    /// opcode bits do) that nvdisasm names with another mnemonic: not tabled; see
    /// [`ScanReport::foreign`].
    pub claimed_elsewhere: usize,
    /// Mnemonics that have a table on this arch.
    pub tables: Vec<String>,
    /// Matched words per variant key.
    pub variants: BTreeMap<String, usize>,
    /// Words nvdisasm names with the mnemonic of a table of another arch only (no table here):
    /// mnemonic -> count.
    pub no_table_here: BTreeMap<String, usize>,
}

/// Where a word is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Place {
    /// Cubin file.
    pub file: String,
    /// Kernel name.
    pub kernel: String,
    /// Byte address inside the kernel's section.
    pub address: u64,
}

/// One tabled word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScannedWord {
    /// 32 hex digits.
    pub word: String,
    /// Arch.
    pub arch: Arch,
    /// Where it is (the first place, when a word occurs several times).
    pub place: Place,
    /// Mnemonic of the table that claims it.
    pub table: String,
    /// Matching variant, or the nearest one when none matches.
    pub key: String,
    /// A variant matches.
    pub matched: bool,
    /// Fixed bits that differ from `key` (empty when matched).
    pub differing_bits: Vec<u8>,
    /// The table verdict.
    pub verdict: Verdict,
    /// Our text (null when no variant matches).
    pub ours: Option<String>,
    /// nvdisasm's text (or its reason for an illegal word), if answered.
    pub nvdisasm: Option<String>,
    /// Our text is nvdisasm's (null when there is no answer).
    pub agree: Option<bool>,
}

/// Unmatched tabled words sharing (arch, nearest variant, differing fixed bits).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Gap {
    /// Arch.
    pub arch: Arch,
    /// Table mnemonic.
    pub table: String,
    /// Nearest variant.
    pub key: String,
    /// Fixed bits of `key` the words differ in.
    pub bits: Vec<u8>,
    /// `true` when the words' opcode bits (0..=11) are not the table's (claimed by nvdisasm's
    /// mnemonic only).
    pub opcode_differs: bool,
    /// Words in the group (occurrences).
    pub count: usize,
    /// The lowest word.
    pub example: String,
    /// Where it is.
    pub place: Place,
    /// nvdisasm's text for it.
    pub nvdisasm: Option<String>,
}

/// Tabled words whose text differs from nvdisasm's, grouped by (arch, key, where the texts
/// first differ).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TextMismatch {
    /// Arch.
    pub arch: Arch,
    /// Variant key (nearest, when we reject).
    pub key: String,
    /// `guard`, `modifiers`, `operand N`, `operand-count`, or `we-reject`.
    pub field: String,
    /// Words in the group (occurrences).
    pub count: usize,
    /// The lowest word.
    pub example: String,
    /// Where it is.
    pub place: Place,
    /// Our text (null when we reject).
    pub ours: Option<String>,
    /// nvdisasm's text.
    pub nvdisasm: String,
    /// `[-ours-]{+nvdisasm+}` (empty when we reject).
    pub diff: String,
}

/// Words a table of the arch claims by their bits that nvdisasm names with another mnemonic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ForeignClaim {
    /// Arch.
    pub arch: Arch,
    /// The claiming table's mnemonic.
    pub table: String,
    /// nvdisasm's mnemonic (`(illegal)`, `(no text)` when it has none).
    pub mnemonic: String,
    /// Occurrences.
    pub count: usize,
    /// Of which a variant of the table matches outright (the rest match its opcode bits only).
    pub matched: usize,
    /// The lowest word.
    pub example: String,
    /// Its matching or nearest variant.
    pub key: String,
    /// Our text for it, when a variant matches and our reading calls it legal.
    pub ours: Option<String>,
    /// Whether a variant matches the example outright (else `key` is only the nearest).
    pub example_matched: bool,
    /// nvdisasm's text for it.
    pub nvdisasm: String,
}

/// Result of a scan.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ScanReport {
    /// Cubins scanned.
    pub files: Vec<String>,
    /// Where nvdisasm's answers came from.
    pub answers: AnswerSources,
    /// Per arch, ascending.
    pub archs: Vec<ArchSummary>,
    /// Coverage gaps, by arch then count (descending).
    pub gaps: Vec<Gap>,
    /// Text disagreements, by arch then count (descending).
    pub mismatches: Vec<TextMismatch>,
    /// Words a table claims that nvdisasm names with another mnemonic, grouped by (arch,
    /// table, nvdisasm's mnemonic): the table's opcode bits (or a variant) are too loose.
    pub foreign: Vec<ForeignClaim>,
    /// Every tabled word occurrence.
    pub words: Vec<ScannedWord>,
    /// Roundtrip seeds written (`--seeds`).
    pub seeds_written: usize,
}

/// The mnemonic of an nvdisasm line without guard and modifiers: `@!P0 LD.E.64 R2, ...` ->
/// `LD`. `None` for an empty line.
pub fn base_mnemonic(text: &str) -> Option<&str> {
    let mut toks = text.split_whitespace();
    let mut t = toks.next()?;
    if t.starts_with('@') {
        t = toks.next()?;
    }
    let m = t.split('.').next()?.trim_end_matches(';');
    (!m.is_empty()).then_some(m)
}

/// Scans cubins against the tables with the given answers (pure: no files, no nvdisasm).
pub fn scan(
    codec: &Codec,
    r: &Renderer,
    model: Option<&Model>,
    cubins: &[Cubin],
    answers: &Answers,
) -> ScanReport {
    let all_tables: BTreeSet<&str> = codec.tables.iter().map(|t| t.mnemonic.as_str()).collect();
    let mut archs: BTreeMap<Arch, ArchSummary> = BTreeMap::new();
    let mut words = Vec::new();
    let mut gaps: BTreeMap<(Arch, String, Vec<u8>), Gap> = BTreeMap::new();
    let mut mism: BTreeMap<(Arch, String, String), TextMismatch> = BTreeMap::new();
    let mut foreign: BTreeMap<(Arch, String, String), ForeignClaim> = BTreeMap::new();
    for c in cubins {
        let s = archs.entry(c.arch).or_insert_with(|| ArchSummary {
            arch: c.arch,
            files: 0,
            kernels: 0,
            instructions: 0,
            tabled: 0,
            matched: 0,
            unmatched: 0,
            compared: 0,
            agree: 0,
            claimed_elsewhere: 0,
            variants: BTreeMap::new(),
            no_table_here: BTreeMap::new(),
            tables: codec
                .tables
                .iter()
                .filter(|t| t.arch == Some(c.arch))
                .map(|t| t.mnemonic.clone())
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect(),
        });
        s.files += 1;
        s.kernels += c.kernels.len();
        for k in &c.kernels {
            for (i, &w) in k.words.iter().enumerate() {
                s.instructions += 1;
                let answer = answers.get(&(c.arch, w));
                let place = || Place {
                    file: c.path.display().to_string(),
                    kernel: k.name.clone(),
                    address: 16 * i as u64,
                };
                let sw = match classify(codec, r, model, c.arch, w, answer, &s.tables, place) {
                    Class::Tabled(sw) => sw,
                    Class::Foreign {
                        claim,
                        nvdisasm,
                        mnemonic,
                    } => {
                        s.claimed_elsewhere += 1;
                        let word = Word(w).to_string();
                        let f = foreign
                            .entry((c.arch, claim.table.clone(), mnemonic.clone()))
                            .or_insert_with(|| ForeignClaim {
                                arch: c.arch,
                                table: claim.table.clone(),
                                mnemonic: mnemonic.clone(),
                                count: 0,
                                matched: 0,
                                example: word.clone(),
                                key: claim.key.clone(),
                                ours: claim.ours.clone(),
                                example_matched: claim.matched,
                                nvdisasm: nvdisasm.clone(),
                            });
                        f.count += 1;
                        f.matched += usize::from(claim.matched);
                        if word < f.example {
                            f.example = word;
                            f.key = claim.key;
                            f.ours = claim.ours;
                            f.example_matched = claim.matched;
                            f.nvdisasm = nvdisasm;
                        }
                        note_untabled(&all_tables, answer, &mut s.no_table_here);
                        continue;
                    }
                    Class::Other => {
                        note_untabled(&all_tables, answer, &mut s.no_table_here);
                        continue;
                    }
                };
                s.tabled += 1;
                if sw.matched {
                    s.matched += 1;
                    *s.variants.entry(sw.key.clone()).or_default() += 1;
                } else {
                    s.unmatched += 1;
                    let g = gaps
                        .entry((c.arch, sw.key.clone(), sw.differing_bits.clone()))
                        .or_insert_with(|| Gap {
                            arch: c.arch,
                            table: sw.table.clone(),
                            key: sw.key.clone(),
                            bits: sw.differing_bits.clone(),
                            opcode_differs: !matches!(sw.verdict, Verdict::ReservedBit { .. }),
                            count: 0,
                            example: sw.word.clone(),
                            place: sw.place.clone(),
                            nvdisasm: sw.nvdisasm.clone(),
                        });
                    g.count += 1;
                    if sw.word < g.example {
                        g.example = sw.word.clone();
                        g.place = sw.place.clone();
                        g.nvdisasm = sw.nvdisasm.clone();
                    }
                }
                if let Some(agree) = sw.agree {
                    s.compared += 1;
                    if agree {
                        s.agree += 1;
                    } else {
                        let theirs = sw.nvdisasm.clone().unwrap_or_default();
                        let field = match &sw.ours {
                            Some(o) => first_difference(o, &theirs),
                            None => "we-reject".to_string(),
                        };
                        let m = mism
                            .entry((c.arch, sw.key.clone(), field.clone()))
                            .or_insert_with(|| TextMismatch {
                                arch: c.arch,
                                key: sw.key.clone(),
                                field,
                                count: 0,
                                example: sw.word.clone(),
                                place: sw.place.clone(),
                                ours: sw.ours.clone(),
                                diff: text_diff(sw.ours.as_deref(), &theirs),
                                nvdisasm: theirs.clone(),
                            });
                        m.count += 1;
                        if sw.word < m.example {
                            m.example = sw.word.clone();
                            m.place = sw.place.clone();
                            m.diff = text_diff(sw.ours.as_deref(), &theirs);
                            m.ours = sw.ours.clone();
                            m.nvdisasm = theirs;
                        }
                    }
                }
                words.push(sw);
            }
        }
    }
    let mut gaps: Vec<Gap> = gaps.into_values().collect();
    gaps.sort_by(|a, b| {
        (a.arch, std::cmp::Reverse(a.count), &a.key, &a.bits).cmp(&(
            b.arch,
            std::cmp::Reverse(b.count),
            &b.key,
            &b.bits,
        ))
    });
    let mut mismatches: Vec<TextMismatch> = mism.into_values().collect();
    mismatches.sort_by(|a, b| {
        (a.arch, std::cmp::Reverse(a.count), &a.key, &a.field).cmp(&(
            b.arch,
            std::cmp::Reverse(b.count),
            &b.key,
            &b.field,
        ))
    });
    ScanReport {
        files: cubins
            .iter()
            .map(|c| c.path.display().to_string())
            .collect(),
        answers: AnswerSources::default(),
        archs: archs.into_values().collect(),
        gaps,
        mismatches,
        foreign: foreign.into_values().collect(),
        words,
        seeds_written: 0,
    }
}

/// `[-ours-]{+nvdisasm+}`, or empty when we reject the word (nothing to compare).
fn text_diff(ours: Option<&str>, theirs: &str) -> String {
    ours.map_or(String::new(), |o| inline_diff(o, theirs))
}

/// Counts a word nvdisasm names with the mnemonic of a table of another arch.
fn note_untabled(
    all_tables: &BTreeSet<&str>,
    answer: Option<&Answer>,
    counts: &mut BTreeMap<String, usize>,
) {
    if let Some(Answer::Text(t)) = answer
        && let Some(m) = base_mnemonic(t)
        && all_tables.contains(m)
    {
        *counts.entry(m.to_string()).or_default() += 1;
    }
}

/// What a table of the arch says of a word by its bits alone.
struct Claim {
    table: String,
    key: String,
    matched: bool,
    bits: Vec<u8>,
    verdict: Verdict,
    ours: Option<String>,
}

/// The claim of the tables of `arch` on `w`: a matching variant, or a table whose opcode bits
/// match (nearest variant, [`Verdict::ReservedBit`]); `None` otherwise.
fn codec_claim(
    codec: &Codec,
    r: &Renderer,
    model: Option<&Model>,
    arch: Arch,
    w: u128,
) -> Option<Claim> {
    let word = Word(w);
    match codec
        .decode(arch, word)
        .map(|d| super::choose(codec, model, d))
    {
        Some(d) => Some(Claim {
            table: codec.table(d.id).mnemonic.clone(),
            key: codec.variant(d.id).key.clone(),
            matched: true,
            bits: Vec::new(),
            verdict: super::verdict(codec, model, &d),
            ours: super::legality(codec, model, &d).text(|| r.render(codec, &d)),
        }),
        None => match codec.check(arch, word) {
            Verdict::ReservedBit { key, bits } => {
                let id = codec.find_key(&key, Some(arch))?;
                Some(Claim {
                    table: codec.table(id).mnemonic.clone(),
                    key: key.clone(),
                    matched: false,
                    bits: bits.clone(),
                    verdict: Verdict::ReservedBit { key, bits },
                    ours: None,
                })
            }
            _ => None,
        },
    }
}

/// The variant of table `mnemonic` on `arch` whose fixed bits differ least from `w`, with the
/// differing bits (for words nvdisasm names with a tabled mnemonic that no table claims).
fn nearest_in_table(codec: &Codec, arch: Arch, mnemonic: &str, w: u128) -> Option<Claim> {
    let (id, diff) = codec
        .ids()
        .filter(|&id| {
            let t = codec.table(id);
            t.arch == Some(arch) && t.mnemonic == mnemonic
        })
        .map(|id| {
            let v = codec.variant(id);
            (id, (w ^ v.fixed_value) & v.fixed_mask)
        })
        .min_by_key(|&(id, d)| (d.count_ones(), id))?;
    Some(Claim {
        table: mnemonic.to_string(),
        key: codec.variant(id).key.clone(),
        matched: false,
        bits: bit_list(diff),
        verdict: Verdict::NoVariant,
        ours: None,
    })
}

/// How one word is counted.
enum Class {
    /// A table of the arch covers it (or should).
    Tabled(ScannedWord),
    /// A table of the arch claims it, but nvdisasm names it otherwise (or rejects it).
    Foreign {
        claim: Claim,
        nvdisasm: String,
        mnemonic: String,
    },
    /// No table of the arch has anything to do with it.
    Other,
}

/// Classifies `w`: with an nvdisasm answer, nvdisasm's mnemonic decides whether the word is
/// tabled; without one, the tables' claim does.
#[allow(clippy::too_many_arguments)]
fn classify(
    codec: &Codec,
    r: &Renderer,
    model: Option<&Model>,
    arch: Arch,
    w: u128,
    answer: Option<&Answer>,
    arch_tables: &[String],
    place: impl FnOnce() -> Place,
) -> Class {
    let claim = codec_claim(codec, r, model, arch, w);
    let claim = match answer {
        None => claim,
        Some(a) => {
            let mnemonic = match a {
                Answer::Text(t) => base_mnemonic(t),
                Answer::Illegal(_) => None,
            };
            let tabled = mnemonic.filter(|m| arch_tables.iter().any(|t| t == m));
            match (tabled, claim) {
                (Some(m), Some(c)) if c.matched || c.table == m => Some(c),
                (Some(m), _) => nearest_in_table(codec, arch, m, w),
                (None, Some(c)) => {
                    let mnemonic = match a {
                        Answer::Illegal(_) => "(illegal)".to_string(),
                        Answer::Text(_) => mnemonic.unwrap_or("(no text)").to_string(),
                    };
                    return Class::Foreign {
                        claim: c,
                        nvdisasm: a.text().to_string(),
                        mnemonic,
                    };
                }
                (None, None) => None,
            }
        }
    };
    let Some(c) = claim else {
        return Class::Other;
    };
    let agree = answer.map(|a| match a {
        Answer::Text(t) => c.ours.as_deref() == Some(t.as_str()),
        Answer::Illegal(_) => c.ours.is_none(),
    });
    Class::Tabled(ScannedWord {
        word: Word(w).to_string(),
        arch,
        place: place(),
        table: c.table,
        key: c.key,
        matched: c.matched,
        differing_bits: c.bits,
        verdict: c.verdict,
        ours: c.ours,
        nvdisasm: answer.map(|a| a.text().to_string()),
        agree,
    })
}

/// Reads the cubins of `opts.paths`, gets nvdisasm's answers (recorded, live, or both, as
/// `opts` says), scans, and records answers and writes seeds when asked.
pub fn scan_paths(
    codec: &Codec,
    r: &Renderer,
    model: Option<&Model>,
    opts: &ScanOptions,
) -> Result<ScanReport, ScanError> {
    let cubins = cubin_paths(&opts.paths)?
        .iter()
        .map(|p| read_cubin(p))
        .collect::<Result<Vec<_>, _>>()?;
    // Distinct words per arch, sorted.
    let mut distinct: BTreeMap<Arch, BTreeSet<u128>> = BTreeMap::new();
    for c in &cubins {
        let set = distinct.entry(c.arch).or_default();
        for k in &c.kernels {
            set.extend(k.words.iter().copied());
        }
    }
    let mut sources = AnswerSources {
        words: distinct.values().map(BTreeSet::len).sum(),
        ..AnswerSources::default()
    };
    // Recording reads what the folder recorded into already holds (and asks only the words
    // it lacks, as `oracle forms` does); `--live` asks every word again.
    let recorded_in = opts.record.as_ref().or(opts.oracle.as_ref());
    let mut kept: BTreeMap<PathBuf, Vec<Entry>> = BTreeMap::new();
    let mut answers: Answers = HashMap::new();
    if opts.live != Live::Always
        && let Some(dir) = recorded_in
    {
        for (path, entries) in oracle::load_dir(dir)? {
            for e in &entries {
                if distinct.get(&e.arch).is_some_and(|s| s.contains(&e.word)) {
                    answers.insert((e.arch, e.word), e.answer.clone());
                }
            }
            if opts.record.is_some() {
                kept.insert(path, entries);
            }
        }
        sources.oracle = Some(dir.display().to_string());
        sources.recorded = answers.len();
    } else if let (Some(dir), Live::Always) = (&opts.record, opts.live) {
        // Asked again, but what the files hold beyond this scan's words stays.
        for (path, entries) in oracle::load_dir(dir)? {
            kept.insert(path, entries);
        }
    }
    let wanted: BTreeMap<Arch, Vec<u128>> = distinct
        .iter()
        .map(|(&a, s)| {
            let ws: Vec<u128> = s
                .iter()
                .copied()
                .filter(|&w| !answers.contains_key(&(a, w)))
                .collect();
            (a, ws)
        })
        .filter(|(_, ws)| !ws.is_empty())
        .collect();
    let nv = match opts.live {
        Live::Never => None,
        _ if wanted.is_empty() => None,
        _ if opts.record.is_some() => Some(Nvdisasm::locate(opts.nvdisasm.as_deref())?),
        Live::Always => Some(Nvdisasm::locate(opts.nvdisasm.as_deref())?),
        Live::IfMissing => match Nvdisasm::locate(opts.nvdisasm.as_deref()) {
            Ok(n) => Some(n),
            Err(e) if opts.nvdisasm.is_some() => return Err(e.into()),
            Err(_) => None,
        },
    };
    let mut asked: BTreeMap<Arch, Vec<Entry>> = BTreeMap::new();
    if let Some(nv) = &nv {
        sources.nvdisasm = Some(nv.version().to_string());
        for (&arch, ws) in &wanted {
            let got = nv.disassemble(arch, ws, None)?;
            sources.live += got.len();
            for (&w, a) in ws.iter().zip(got) {
                answers.insert((arch, w), a.clone());
                asked.entry(arch).or_default().push(Entry {
                    arch,
                    word: w,
                    answer: a,
                });
            }
        }
    }
    sources.missing = sources.words - answers.len();
    if let (Some(dir), Some(nv)) = (&opts.record, &nv) {
        record(dir, asked, &kept, nv.version(), &opts.command)?;
    }
    let mut report = scan(codec, r, model, &cubins, &answers);
    report.answers = sources;
    if let Some(dir) = &opts.seeds {
        report.seeds_written = write_seeds(codec, &report, dir)?;
    }
    Ok(report)
}

/// Adds the answers nvdisasm gave now (`asked`, per arch) to `DIR/<arch>.tsv` (its recorded
/// rows, `kept` by path as read from `DIR`, stay; a new answer replaces a recorded one for
/// the same word) and upserts their records in `DIR/../MANIFEST.json`, as one set
/// ([`oracle::OracleWriter`]). The file of an arch nothing was asked for is left as it is.
fn record(
    dir: &Path,
    asked: BTreeMap<Arch, Vec<Entry>>,
    kept: &BTreeMap<PathBuf, Vec<Entry>>,
    version: &str,
    command: &str,
) -> Result<(), ScanError> {
    if asked.is_empty() {
        return Ok(());
    }
    let root = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut writer = oracle::OracleWriter::open(root)?;
    for (arch, new) in asked {
        let file = format!("{}.tsv", arch.to_string().to_lowercase());
        let mut entries: Vec<Entry> = kept.get(&dir.join(&file)).cloned().unwrap_or_default();
        entries.extend(new);
        writer.stage_entries(
            &format!("{dir_name}/{file}"),
            arch,
            &mut entries,
            version,
            command,
        )?;
    }
    writer.commit()?;
    Ok(())
}

/// Writes each matched tabled word as a roundtrip seed `cubin-<key>-<word>`; returns how many
/// distinct seeds there are.
fn write_seeds(codec: &Codec, report: &ScanReport, dir: &Path) -> Result<usize, ScanError> {
    std::fs::create_dir_all(dir).map_err(|e| ScanError::io(dir, e))?;
    let mut done = BTreeSet::new();
    for w in report.words.iter().filter(|w| w.matched) {
        if !done.insert((w.key.clone(), w.word.clone())) {
            continue;
        }
        let Some(id) = codec.find_key(&w.key, Some(w.arch)) else {
            continue;
        };
        let word = Word(u128::from_str_radix(&w.word, 16).expect("32 hex digits"));
        let path = dir.join(format!("cubin-{}-{}", w.key, w.word));
        std::fs::write(&path, FuzzCase::seed_bytes(codec, id, word))
            .map_err(|e| ScanError::io(&path, e))?;
    }
    Ok(done.len())
}

impl ScanReport {
    /// The human-readable report: a table of counts per arch, then the tables each arch has,
    /// the words with no table, the matched variants, the coverage gaps and the text
    /// mismatches (at most `top` groups of each), nvdisasm's text next to ours.
    pub fn to_text(&self, top: usize) -> String {
        let mut o = String::new();
        let a = &self.answers;
        let _ = writeln!(
            o,
            "{} cubins; nvdisasm answers for {} distinct words: {} recorded{}, {} live{}, {} none",
            self.files.len(),
            a.words,
            a.recorded,
            a.oracle
                .as_deref()
                .map_or(String::new(), |d| format!(" ({d})")),
            a.live,
            a.nvdisasm
                .as_deref()
                .map_or(String::new(), |v| format!(" (nvdisasm {v})")),
            a.missing
        );
        let _ = writeln!(
            o,
            "\n{:<6} {:>6} {:>8} {:>13} {:>7} {:>8} {:>10}  agreement with nvdisasm",
            "arch", "files", "kernels", "instructions", "tabled", "matched", "unmatched"
        );
        for s in &self.archs {
            let agreement = if s.compared == 0 {
                if s.tabled == 0 {
                    "-".to_string()
                } else {
                    "no answers".to_string()
                }
            } else {
                format!(
                    "{}/{} ({:.1}%)",
                    s.agree,
                    s.compared,
                    100.0 * s.agree as f64 / s.compared as f64
                )
            };
            let _ = writeln!(
                o,
                "{:<6} {:>6} {:>8} {:>13} {:>7} {:>8} {:>10}  {}",
                s.arch.to_string(),
                s.files,
                s.kernels,
                s.instructions,
                s.tabled,
                s.matched,
                s.unmatched,
                agreement
            );
        }
        let _ = writeln!(
            o,
            "\ntables per arch, and tabled mnemonics with no table there:"
        );
        for s in &self.archs {
            let tables = if s.tables.is_empty() {
                "none".to_string()
            } else {
                s.tables.join(", ")
            };
            let other = if s.no_table_here.is_empty() {
                if self.answers.words == self.answers.missing {
                    " (needs nvdisasm answers to name them)".to_string()
                } else {
                    String::new()
                }
            } else {
                let parts: Vec<String> = s
                    .no_table_here
                    .iter()
                    .map(|(m, n)| format!("{m} {n}"))
                    .collect();
                format!(
                    "; no table on {} for: {} (counted as instructions only)",
                    s.arch,
                    parts.join(", ")
                )
            };
            let _ = writeln!(o, "  {}: tables {tables}{other}", s.arch);
        }
        let _ = writeln!(o, "\nmatched variants:");
        for s in &self.archs {
            for (k, n) in &s.variants {
                let _ = writeln!(o, "  {:<6} {:>5}  {k}", s.arch.to_string(), n);
            }
        }
        let _ = writeln!(
            o,
            "\ncoverage gaps (tabled words no variant matches): {} groups",
            self.gaps.len()
        );
        for g in self.gaps.iter().take(top) {
            let _ = writeln!(
                o,
                "  {:<6} {:>5}  {} nearest {}: fixed bits {:?} differ{}\n         word {} at {}:{}+{:#x}\n         nvdisasm: {}",
                g.arch.to_string(),
                g.count,
                g.table,
                g.key,
                g.bits,
                if g.opcode_differs {
                    " (opcode bits too; claimed by nvdisasm's mnemonic)"
                } else {
                    ""
                },
                g.example,
                g.place.file,
                g.place.kernel,
                g.place.address,
                g.nvdisasm.as_deref().unwrap_or("(no answer)")
            );
        }
        if self.gaps.len() > top {
            let _ = writeln!(
                o,
                "  ... {} more groups (--top, --json)",
                self.gaps.len() - top
            );
        }
        let _ = writeln!(
            o,
            "\nwords a table claims by its bits that nvdisasm names otherwise (not tabled): {} groups",
            self.foreign.len()
        );
        for f in self.foreign.iter().take(top) {
            let _ = writeln!(
                o,
                "  {:<6} {:>5}  {} table claims {} ({} match a variant outright)\n         word {} {} {}\n         ours:     {}\n         nvdisasm: {}",
                f.arch.to_string(),
                f.count,
                f.table,
                f.mnemonic,
                f.matched,
                f.example,
                if f.example_matched {
                    "variant"
                } else {
                    "nearest"
                },
                f.key,
                f.ours.as_deref().unwrap_or(if f.example_matched {
                    "(the variant matches; our reading does not call the word legal)"
                } else {
                    "(no variant matches)"
                }),
                f.nvdisasm
            );
        }
        if self.foreign.len() > top {
            let _ = writeln!(
                o,
                "  ... {} more groups (--top, --json)",
                self.foreign.len() - top
            );
        }
        let _ = writeln!(
            o,
            "\ntext mismatches with nvdisasm: {} groups",
            self.mismatches.len()
        );
        for m in self.mismatches.iter().take(top) {
            let _ = writeln!(
                o,
                "  {:<6} {:>5}  {}  {}\n         word {} at {}:{}+{:#x}\n         ours:     {}\n         nvdisasm: {}",
                m.arch.to_string(),
                m.count,
                m.key,
                m.field,
                m.example,
                m.place.file,
                m.place.kernel,
                m.place.address,
                m.ours
                    .as_deref()
                    .unwrap_or("(rejected: no variant matches)"),
                m.nvdisasm,
            );
            if !m.diff.is_empty() {
                let _ = writeln!(o, "         diff:     {}", m.diff);
            }
        }
        if self.mismatches.len() > top {
            let _ = writeln!(
                o,
                "  ... {} more groups (--top, --json)",
                self.mismatches.len() - top
            );
        }
        if self.seeds_written > 0 {
            let _ = writeln!(o, "\n{} roundtrip seeds written", self.seeds_written);
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_from_flags() {
        assert_eq!(arch_from_e_flags(0x6005004, 8), Some(Arch(80)));
        assert_eq!(arch_from_e_flags(0x6005a04, 8), Some(Arch(90)));
        assert_eq!(arch_from_e_flags(0x6006402, 8), Some(Arch(100)));
        assert_eq!(arch_from_e_flags(0x500550, 7), Some(Arch(80)));
        assert_eq!(arch_from_e_flags(0, 8), None);
        for a in [75, 80, 86, 89, 90, 100, 103, 120, 121] {
            let f = crate::oracle::cubin_e_flags(Arch(a));
            assert_eq!(arch_from_e_flags(f, 8), Some(Arch(a)));
        }
    }

    #[test]
    fn mnemonics() {
        assert_eq!(base_mnemonic("@!P0 LD.E.64 R2, [R2.64] ;"), Some("LD"));
        assert_eq!(
            base_mnemonic("TLD4.R R8, R16, R22, UR4, 2D ;"),
            Some("TLD4")
        );
        assert_eq!(base_mnemonic("NOP;"), Some("NOP"));
        assert_eq!(base_mnemonic(""), None);
    }

    #[test]
    fn built_cubin_reads_back() {
        let words = [0x000fea0003800000_000000000000794du128, 0x1234];
        let data = crate::oracle::build_cubin(Arch(90), &[&words, &[]]).unwrap();
        let c = parse_cubin(Path::new("x.cubin"), &data).unwrap();
        assert_eq!(c.arch, Arch(90));
        assert_eq!(c.kernels.len(), 2);
        assert_eq!(c.kernels[0].name, "k0");
        assert_eq!(c.kernels[0].words, words);
        assert_eq!(c.instructions(), 2);
    }

    #[test]
    fn garbage_is_a_clean_error() {
        let e = parse_cubin(Path::new("junk.cubin"), b"not an elf at all").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("junk.cubin: not a readable cubin"),
            "{e}"
        );
        let mut data = crate::oracle::build_cubin(Arch(80), &[&[1u128]]).unwrap();
        data[18] = 62; // e_machine = EM_X86_64
        let e = parse_cubin(Path::new("x86.cubin"), &data).unwrap_err();
        assert!(e.to_string().contains("e_machine is 62"), "{e}");
        // A real cubin cut short says so.
        let data = crate::oracle::build_cubin(Arch(80), &[&[1u128]]).unwrap();
        let e = parse_cubin(Path::new("cut.cubin"), &data[..40]).unwrap_err();
        let e = e.to_string();
        assert!(
            e.starts_with("cut.cubin: not a readable cubin: an ELF64 file cut short or damaged ("),
            "{e}"
        );
        assert!(e.ends_with("; 40 bytes)"), "{e}");
        let e = parse_cubin(Path::new("junk.cubin"), b"not an elf at all").unwrap_err();
        assert!(e.to_string().contains(": not an ELF64 file ("), "{e}");
    }
}
