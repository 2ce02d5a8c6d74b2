//! Report layer: one run's state (agreement with nvdisasm per variant, the mismatching words,
//! findings, what nvdisasm says each bit of each variant is, fuzz crashes), written as
//! report.json, report.csv, report.md and a self-contained report.html, and compared with a
//! baseline (a previous report.json). The JSON schema is documented in the README.
//!
//! [`run`] does it all: [`build`] (load tables, oracle recordings, crashes; diff; read bits),
//! [`compare`] against the baseline, [`write_all`].

pub mod actions;
pub mod compare;
pub mod crashes;
mod html;
pub mod matrix;
mod rootcauses;
mod text;
pub mod words;

pub use compare::{Comparison, compare};
pub use crashes::{Crash, scan_crashes};
pub use text::{last_line, summary_text};

use crate::arch::Arch;
use crate::codec::{Codec, CodecError, VariantId, Verdict, Word};
use crate::conform::resolve::{bit_findings, disagreement};
use crate::conform::{DiffCounts, Finding, diff, lint};
use crate::oracle::{self, Entry, Manifest, OracleError};
use crate::reading::flips::{Answers, Effect, TableBit, read_bits};
use crate::reading::resolved::{ResolvedError, ResolvedSet};
use crate::render::Renderer;
use crate::spec::{self, FieldKind, SpecError};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// `schema` of report.json.
pub const SCHEMA: &str = "sass-conform-report/1";

/// Bit status letters of [`VariantRow::bits`].
pub const CONFIRMED: char = 'c';
/// nvdisasm contradicts the table on this bit.
pub const CONTRADICTED: char = 'x';
/// nvdisasm's answer for this bit was never recorded.
pub const UNSEEN: char = 'u';

/// Errors of the report layer.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// Reading the tables.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// Building the codec.
    #[error(transparent)]
    Codec(#[from] CodecError),
    /// Reading oracle recordings or running nvdisasm.
    #[error(transparent)]
    Oracle(#[from] OracleError),
    /// Reading the resolved tables.
    #[error(transparent)]
    Resolved(#[from] ResolvedError),
    /// I/O.
    #[error("{path}: {source}")]
    Io {
        /// File or folder.
        path: PathBuf,
        /// OS error.
        source: std::io::Error,
    },
    /// A malformed JSON file (baseline, crash manifest).
    #[error("{path}:{line}: {message}")]
    Json {
        /// File.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A baseline whose `schema` is not [`SCHEMA`] (another version, or none at all).
    #[error("{path}: schema is {found}, expected `{SCHEMA}`; refusing it as a baseline")]
    Schema {
        /// The baseline file.
        path: PathBuf,
        /// What its `schema` holds, quoted (`` `sass-conform-report/0` ``), or `missing`.
        found: String,
    },
    /// Writing CSV.
    #[error("{path}: {message}")]
    Csv {
        /// File.
        path: PathBuf,
        /// csv's message.
        message: String,
    },
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ReportError + '_ {
    move |source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What to build a report from.
#[derive(Debug, Clone)]
pub struct Options {
    /// Folder (or file) of tables.
    pub specs: PathBuf,
    /// Oracle folders (recursively `*.tsv`); their entries are compared together. A folder or
    /// file reached twice (same canonical path) is read once.
    pub oracle: Vec<PathBuf>,
    /// Resolved tables; used for the diff when the file exists.
    pub resolved: Option<PathBuf>,
    /// Folders of fuzz crashes, `<dir>/<target>/<file>` (corpus/regressions, fuzz/artifacts).
    pub crash_dirs: Vec<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            specs: "specs".into(),
            oracle: vec!["oracle".into()],
            resolved: Some("resolved/tables.json".into()),
            crash_dirs: vec!["corpus/regressions".into(), "fuzz/artifacts".into()],
        }
    }
}

/// The outcome counts of a diff: [`DiffCounts`], the same type and agreement figures as
/// `sass-conform diff`.
pub type Counts = DiffCounts;

/// Bits by what nvdisasm says of them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BitCounts {
    /// nvdisasm confirms the table.
    pub confirmed: usize,
    /// nvdisasm contradicts the table.
    pub contradicted: usize,
    /// Never seen.
    pub unseen: usize,
}

impl BitCounts {
    fn of(bits: &str) -> BitCounts {
        let n = |c| bits.chars().filter(|&b| b == c).count();
        BitCounts {
            confirmed: n(CONFIRMED),
            contradicted: n(CONTRADICTED),
            unseen: n(UNSEEN),
        }
    }
    fn add(&mut self, o: &BitCounts) {
        self.confirmed += o.confirmed;
        self.contradicted += o.contradicted;
        self.unseen += o.unseen;
    }
}

/// Where the report's data came from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Inputs {
    /// Tables folder.
    pub specs: String,
    /// Oracle folders with their entry counts.
    pub oracle: Vec<OracleInput>,
    /// `resolved` (the diff used resolved/tables.json) or `as written`.
    pub view: String,
    /// The resolved tables file used, if any.
    pub resolved: Option<String>,
    /// nvdisasm versions named by the oracle folders' MANIFEST.json.
    pub nvdisasm_versions: Vec<String>,
    /// Crash folders scanned.
    pub crash_dirs: Vec<String>,
    /// Tables under `specs` that did not load, each `path: why` (file and line): left out of
    /// every figure, the others still read ([`crate::spec::load_tables_lenient`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_tables: Vec<String>,
}

/// One oracle folder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct OracleInput {
    /// Folder.
    pub dir: String,
    /// `*.tsv` files read.
    pub files: usize,
    /// Entries read.
    pub entries: usize,
}

/// Totals.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Summary {
    /// Table files.
    pub tables: usize,
    /// Variants.
    pub variants: usize,
    /// Archs with tables.
    pub archs: Vec<Arch>,
    /// Outcome counts of every oracle entry, in the report's view.
    pub counts: Counts,
    /// `counts.legal_agreement()`.
    pub legal_agreement: Option<f64>,
    /// `counts.verdict_agreement()`.
    pub verdict_agreement: Option<f64>,
    /// Outcome counts per figure: `check SM80 LD` (the check split, never learned from: the
    /// headline), `ptxas SM80` (the compiler's words, never learned from), `learned`.
    pub figures: BTreeMap<String, Counts>,
    /// Outcome counts with the tables as written.
    pub counts_as_written: Counts,
    /// Legal-text agreement of the tables as written.
    pub legal_agreement_as_written: Option<f64>,
    /// Entries attributed to a variant (the rest: opcodes no table knows).
    pub attributed: usize,
    /// Attributed entries that disagree with nvdisasm (listed in `mismatches`), those
    /// nvdisasm prints as another instruction included.
    pub mismatches: usize,
    /// Of `mismatches`, the entries nvdisasm prints as another instruction (another
    /// mnemonic, e.g. SM80 `LDG` for a word of an `LD` variant's opcode): no table describes
    /// them, so they are not the tables' disagreements.
    #[serde(default)]
    pub other_instructions: usize,
    /// Mismatch groups (other instructions included).
    pub mismatch_groups: usize,
    /// Findings (lint + resolve).
    pub findings: usize,
    /// Findings by kind.
    pub findings_by_kind: BTreeMap<String, usize>,
    /// Bits of every variant by status.
    pub bits: BitCounts,
    /// Variants whose fixed word nvdisasm accepts.
    pub fixed_words_legal: usize,
    /// Variants whose fixed word nvdisasm rejects.
    pub fixed_words_illegal: usize,
    /// Variants whose fixed word was never recorded.
    pub fixed_words_unrecorded: usize,
    /// Fuzz crashes listed.
    pub fuzz_crashes: usize,
}

/// A field of a variant's layout, for the picture.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FieldSpan {
    /// The table's label.
    pub label: String,
    /// `operand`, `modifier`, `operand-modifier`, `guard`, `sched`, `flag`.
    pub kind: String,
    /// Bits, lowest first, as ranges: `76-77,79-80` (the value's low bits come first).
    pub bits: String,
}

/// One variant.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct VariantRow {
    /// Arch.
    pub arch: Option<Arch>,
    /// Table mnemonic.
    pub mnemonic: String,
    /// Variant key.
    pub key: String,
    /// Variant title.
    pub title: String,
    /// Table file.
    pub file: String,
    /// 1-based line of the variant.
    pub line: usize,
    /// The table's fixed word (32 hex digits).
    pub fixed_word: String,
    /// The bits the table fixes (32 hex digits).
    pub fixed_mask: String,
    /// nvdisasm's answer for it: its text, `illegal: reason`, or null if never recorded.
    pub fixed_word_answer: Option<String>,
    /// Oracle entries attributed to the variant (its fixed bits as written match them, or it is
    /// the nearest variant).
    pub words_checked: usize,
    /// Outcome counts of those entries (report's view).
    pub counts: Counts,
    /// Legal-text agreement (report's view); null when nvdisasm accepted none of them.
    pub agreement: Option<f64>,
    /// Legal-text agreement of the table as written.
    pub agreement_as_written: Option<f64>,
    /// Entries that disagree (`counts.mismatched()`).
    pub mismatches: usize,
    /// Findings about the variant.
    pub findings: usize,
    /// Fuzz crashes whose input names the variant.
    pub fuzz_crashes: usize,
    /// 128 letters, index i = bit i: `c` confirmed, `x` contradicted, `u` unseen.
    pub bits: String,
    /// `bits` counted.
    pub bit_counts: BitCounts,
    /// The layout's fields.
    pub fields: Vec<FieldSpan>,
    /// Per bit: the table's claim and nvdisasm's reading (HTML tooltips; not in JSON).
    #[serde(skip)]
    pub notes: Vec<String>,
    /// Indices in [`Report::mismatches`] of the mismatching words attributed to the variant
    /// (HTML; not in JSON).
    #[serde(skip)]
    pub mismatch_ix: Vec<usize>,
}

impl VariantRow {
    /// `SM100 TLD_P_R_R_R_R_UR_D_I`.
    pub fn name(&self) -> String {
        variant_name(self.arch, &self.key)
    }
}

pub(crate) fn variant_name(arch: Option<Arch>, key: &str) -> String {
    match arch {
        Some(a) => format!("{a} {key}"),
        None => key.to_string(),
    }
}

/// One word where we disagree with nvdisasm.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct MismatchRow {
    /// Arch.
    pub arch: Option<Arch>,
    /// 32 hex digits.
    pub word: String,
    /// Variant key.
    pub key: String,
    /// `text`, `oracle-illegal`, `we-reject`.
    pub cause: String,
    /// Where the texts first differ (`modifiers`, `operand 2`, ...).
    pub field: String,
    /// nvdisasm's text or reason.
    pub nvdisasm: String,
    /// Our text (null where we reject).
    pub ours: Option<String>,
    /// Word diff ours -> nvdisasm, `[-ours-]{+nvdisasm+}`.
    pub diff: String,
}

/// Mismatches sharing (key, field, cause).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GroupRow {
    /// Variant key (`-`: no table knows the opcode).
    pub key: String,
    /// Field.
    pub field: String,
    /// Cause.
    pub cause: String,
    /// Entries.
    pub count: usize,
    /// Smallest example.
    pub example: MismatchRow,
}

/// A finding (lint or resolve).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FindingRow {
    /// `lint` (static) or `resolve` (from nvdisasm's bit readings).
    pub source: String,
    /// Table file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// Variant key (`""` for the file).
    pub key: String,
    /// Kind.
    pub kind: String,
    /// Bits, as ranges: `41-58,89`.
    pub bits: String,
    /// Message.
    pub message: String,
    /// nvdisasm's reading (resolve), cut to 300 characters.
    pub reading: Option<String>,
    /// One nvdisasm answer backing it: `word: text` (cut to 200 characters).
    pub evidence: Option<String>,
}

impl FindingRow {
    fn of(source: &str, f: &Finding) -> FindingRow {
        FindingRow {
            source: source.into(),
            file: f.file.clone(),
            line: f.line,
            key: f.key.clone(),
            kind: f.kind.clone(),
            bits: crate::conform::finding::compact_bits(&f.bits),
            message: f.message.clone(),
            reading: f.reading.as_ref().map(|r| cut(r, 300)),
            evidence: f
                .evidence
                .get(1)
                .or(f.evidence.first())
                .map(|e| cut(&format!("{}: {}", e.word, e.nvdisasm), 200)),
        }
    }
    /// Identity for comparisons: file, key, kind, bits.
    pub fn id(&self) -> (&str, &str, &str, &str) {
        (&self.file, &self.key, &self.kind, &self.bits)
    }
    /// `file:line: [kind] key: message (bits ...)`, as [`Finding::line_text`] prints it.
    pub fn line_text(&self) -> String {
        crate::conform::finding::line_text(
            &self.file,
            self.line,
            &self.kind,
            &self.key,
            &self.message,
            &self.bits,
        )
    }
}

pub(crate) fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut t: String = s.chars().take(n).collect();
    t.push('…');
    t
}

/// A report (report.json).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Report {
    /// [`SCHEMA`].
    pub schema: String,
    /// UTC time it was made, `YYYY-MM-DDTHH:MM:SSZ`.
    pub generated: String,
    /// sass-conform version.
    pub tool_version: String,
    /// Inputs.
    pub inputs: Inputs,
    /// Totals.
    pub summary: Summary,
    /// Every variant, table order.
    pub variants: Vec<VariantRow>,
    /// Mismatch groups (every entry, attributed or not), largest first.
    pub mismatch_groups: Vec<GroupRow>,
    /// Every attributed mismatching word, sorted by arch, key (the variant the view decodes it
    /// as), word.
    pub mismatches: Vec<MismatchRow>,
    /// Findings, lint then resolve.
    pub findings: Vec<FindingRow>,
    /// Findings grouped by root cause (lint and resolve), most variants first, each with its
    /// evidence words and the patch hunks that correct it (when the resolved layouts are
    /// given and the text format can hold the correction).
    #[serde(default)]
    pub root_causes: Vec<crate::conform::rootcause::RootCause>,
    /// Fuzz crashes.
    pub crashes: Vec<Crash>,
    /// The comparison with the baseline (null without one).
    pub comparison: Option<Comparison>,
    /// The differential campaign's printed summary (`sass-conform campaign`'s text: fresh
    /// words against live nvdisasm, agreement per table, root causes, new ones marked `*`),
    /// the report's headline when given (`report --campaign FILE`; the nightly's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub campaign: Option<String>,
}

impl Report {
    /// Reads a report.json (a baseline).
    ///
    /// Errors: [`ReportError::Io`], [`ReportError::Json`] (not JSON, or not a report), and
    /// [`ReportError::Schema`] when its `schema` is not exactly [`SCHEMA`] (checked first, so
    /// a report of another schema is named as such rather than as a field mismatch).
    pub fn read(path: &Path) -> Result<Report, ReportError> {
        let data = std::fs::read(path).map_err(io_err(path))?;
        let json_err = |e: serde_json::Error| ReportError::Json {
            path: path.to_path_buf(),
            line: e.line(),
            message: e.to_string(),
        };
        let value: serde_json::Value = serde_json::from_slice(&data).map_err(json_err)?;
        let found = match value.get("schema") {
            Some(serde_json::Value::String(s)) if s == SCHEMA => None,
            Some(serde_json::Value::String(s)) => Some(format!("`{}`", cut(s, 80))),
            Some(other) => Some(format!("`{}`", cut(&other.to_string(), 80))),
            None => Some("missing".to_string()),
        };
        if let Some(found) = found {
            return Err(ReportError::Schema {
                path: path.to_path_buf(),
                found,
            });
        }
        drop(value);
        serde_json::from_slice(&data).map_err(json_err)
    }
    /// The regressions found by the comparison (empty without a baseline).
    pub fn regressions(&self) -> &[String] {
        self.comparison
            .as_ref()
            .map_or(&[][..], |c| c.regressions.as_slice())
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ`, now.
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let s = secs % 86_400;
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        oracle::today_utc(),
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// Builds a report (no comparison) from the tables, oracle folders and crash folders.
pub fn build(opts: &Options) -> Result<Report, ReportError> {
    // A table that does not load is named in the report and left out; the others are read.
    let (tables, mut skipped) = spec::load_tables_lenient(std::slice::from_ref(&opts.specs), None);
    if tables.is_empty() && !skipped.is_empty() {
        return Err(skipped.swap_remove(0).error.into());
    }
    let written = Codec::new(tables.clone())?;
    let resolved = opts.resolved.as_ref().filter(|p| p.is_file());
    let mut layouts: Vec<spec::Table> = Vec::new();
    let (view_codec, model, view) = match resolved {
        Some(p) => {
            let set = ResolvedSet::read(p, &tables)?;
            let model = (!set.model.tables.is_empty()).then_some(set.model);
            layouts = set.layouts;
            (Some(Codec::new(set.tables)?), model, "resolved")
        }
        None => (None, None, "as written"),
    };
    let codec = view_codec.as_ref().unwrap_or(&written);

    let mut inputs = Inputs {
        specs: opts.specs.display().to_string(),
        view: view.into(),
        resolved: resolved.map(|p| p.display().to_string()),
        crash_dirs: opts
            .crash_dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect(),
        skipped_tables: skipped.iter().map(|s| s.error.to_string()).collect(),
        ..Default::default()
    };
    let mut entries: Vec<Entry> = Vec::new();
    let mut figure_of: Vec<(usize, String)> = Vec::new();
    // The same folder named twice (`X`, `./X`, a symlink to X) or a folder inside another is
    // read once: folders and files are compared by their canonical paths.
    let mut seen_dirs = std::collections::HashSet::new();
    let mut seen_files = std::collections::HashSet::new();
    for dir in &opts.oracle {
        // A folder that is not there (a mistyped `--oracle`) is an error, as in `diff`: an
        // empty report written over the last one was the result before.
        if !dir.is_dir() {
            return Err(oracle::OracleError::BadFile {
                path: dir.clone(),
                line: 0,
                message: "no such oracle folder (record one with `sass-conform oracle record`)"
                    .into(),
            }
            .into());
        }
        let canonical = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        if !seen_dirs.insert(canonical) {
            continue;
        }
        // Answers for other archs (oracle/arch-infer/) are not evidence about these tables.
        let mut files = Vec::new();
        let mut listed = 0;
        for (p, e) in oracle::load_dir(dir)? {
            listed += e.len();
            if !oracle::is_evidence_file(&p) {
                continue;
            }
            if seen_files.insert(p.canonicalize().map_err(io_err(&p))?) {
                files.push((p, e));
            }
        }
        let n: usize = files.iter().map(|(_, e)| e.len()).sum();
        // An empty folder is an error, as in `diff`: a report of no words said nothing. (A
        // folder inside another one named, read already, is not empty.)
        if listed == 0 {
            return Err(oracle::OracleError::BadFile {
                path: dir.clone(),
                line: 0,
                message: "no oracle entries (*.tsv) in this folder (record some with \
                          `sass-conform oracle record`)"
                    .into(),
            }
            .into());
        }
        inputs.oracle.push(OracleInput {
            dir: dir.display().to_string(),
            files: files.len(),
            entries: n,
        });
        for (p, e) in files {
            figure_of.push((entries.len(), crate::reading::combos::figure_of(&p)));
            entries.extend(e);
        }
        let m = Manifest::read_or_default(dir.join("MANIFEST.json"))?;
        inputs
            .nvdisasm_versions
            .extend(m.files.into_iter().map(|f| f.nvdisasm_version));
    }
    inputs.nvdisasm_versions.sort();
    inputs.nvdisasm_versions.dedup();

    let crashes = scan_crashes(&opts.crash_dirs)?;
    let mut report = assemble(&written, codec, model.as_ref(), &entries, crashes);
    // The patch hunk of each root cause: each table against its resolved layout.
    if layouts.len() == tables.len() {
        let all: Vec<crate::conform::Finding> = lint(&written)
            .into_iter()
            .chain(bit_findings(
                &written,
                &read_bits(&written, &Answers::new(&entries)),
            ))
            .collect();
        let answers = Answers::new(&entries);
        let layouts = crate::conform::patch::corrections(&tables, &layouts, &answers);
        let patches = crate::conform::patch::patches(&tables, &layouts, &all, &answers)?;
        crate::conform::rootcause::attach_patches(&mut report.root_causes, &patches);
    }
    report.summary.figures = figures(codec, model.as_ref(), &entries, &figure_of);
    report.inputs = inputs;
    Ok(report)
}

/// Row index of every variant id (codec order).
struct Rows {
    offsets: Vec<usize>,
    by_key: HashMap<(Arch, String), usize>,
}

impl Rows {
    fn new(codec: &Codec) -> Rows {
        let mut offsets = Vec::new();
        let mut n = 0;
        for t in &codec.tables {
            offsets.push(n);
            n += t.variants.len();
        }
        let mut by_key = HashMap::new();
        for id in codec.ids() {
            if let Some(arch) = codec.table(id).arch {
                by_key
                    .entry((arch, codec.variant(id).key.clone()))
                    .or_insert(offsets[id.table as usize] + id.variant as usize);
            }
        }
        Rows { offsets, by_key }
    }
    fn index(&self, id: VariantId) -> usize {
        self.offsets[id.table as usize] + id.variant as usize
    }
    /// The variants an entry belongs to: every variant whose fixed bits as written match it
    /// (several where the tables overlap), else the one the view decodes it as, else the
    /// nearest variant (reserved-bit verdict), else none. The tables as written come first:
    /// the resolved view merges variants nvdisasm reads alike, and every sweep word was made
    /// from one variant as written.
    fn attribute(&self, written: &Codec, view: &Codec, arch: Arch, word: u128) -> Vec<usize> {
        if let Some(d) = written.decode(arch, Word(word)) {
            let mut v = vec![self.index(d.id)];
            v.extend(d.others().iter().map(|&id| self.index(id)));
            return v;
        }
        if let Some(d) = view.decode(arch, Word(word)) {
            return vec![self.index(d.id)];
        }
        for c in [view, written] {
            if let Verdict::ReservedBit { key, .. } = c.check(arch, Word(word)) {
                return self.by_key.get(&(arch, key)).copied().into_iter().collect();
            }
        }
        Vec::new()
    }
}

fn kind_name(k: &FieldKind) -> &'static str {
    match k {
        FieldKind::Operand(_) => "operand",
        FieldKind::Modifier(_) => "modifier",
        FieldKind::OperandModifier => "operand-modifier",
        FieldKind::Guard => "guard",
        FieldKind::Sched(_) => "sched",
        FieldKind::Flag(_) => "flag",
    }
}

/// Counts per figure (the check split per table, the compiler's words per arch, what was
/// learned from; see [`crate::reading::combos::figure_of`]), `starts` giving where each
/// file's entries begin in `entries` and its figure.
fn figures(
    view: &Codec,
    model: Option<&crate::reading::model::Model>,
    entries: &[Entry],
    starts: &[(usize, String)],
) -> BTreeMap<String, Counts> {
    let r = Renderer::new(view);
    let mut out: BTreeMap<String, Counts> = BTreeMap::new();
    for (k, (start, name)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(entries.len(), |s| s.0);
        let res = crate::conform::diff_with(view, &r, model, &entries[*start..end]);
        out.entry(name.clone()).or_default().add(&res.counts);
    }
    out
}

/// The report's body from loaded data: `written` is the codec of the tables as written (bit
/// readings, findings, rows), `view` the one the diff uses (the same variants).
fn assemble(
    written: &Codec,
    view: &Codec,
    model: Option<&crate::reading::model::Model>,
    entries: &[Entry],
    crashes: Vec<Crash>,
) -> Report {
    let rows_index = Rows::new(written);
    let r_view = Renderer::new(view);
    let r_written = Renderer::new(written);
    let n = rows_index.offsets.last().map_or(0, |&o| {
        o + written.tables.last().map_or(0, |t| t.variants.len())
    });
    let mut counts = vec![Counts::default(); n];
    let mut counts_aw = vec![Counts::default(); n];
    let mut mismatches = Vec::new();
    let mut mismatch_rows: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut summary = Summary::default();
    // Each entry alone through `diff` (the same classification as `sass-conform diff`), in
    // parallel; the whole set once more for the groups.
    let (per_entry, all) = rayon::join(
        || {
            entries
                .par_iter()
                .map(|e| {
                    let one = std::slice::from_ref(e);
                    let res = crate::conform::diff_with(view, &r_view, model, one);
                    let res_aw = diff(written, &r_written, one);
                    let rows = rows_index.attribute(written, view, e.arch, e.word);
                    (res, res_aw.counts, rows)
                })
                .collect::<Vec<_>>()
        },
        || crate::conform::diff_with(view, &r_view, model, entries),
    );
    for (res, counts_w, rows) in per_entry {
        summary.counts.add(&res.counts);
        summary.counts_as_written.add(&counts_w);
        if rows.is_empty() {
            continue;
        }
        summary.attributed += 1;
        for &row in &rows {
            counts[row].add(&res.counts);
            counts_aw[row].add(&counts_w);
        }
        if let Some(g) = res.groups.into_iter().next() {
            for &row in &rows {
                mismatch_rows[row].push(mismatches.len());
            }
            let m = g.example;
            mismatches.push(MismatchRow {
                arch: Some(m.arch),
                word: m.word,
                key: g.key,
                cause: g.cause,
                field: g.field,
                nvdisasm: m.nvdisasm,
                ours: m.ours,
                diff: m.diff,
            });
        }
    }
    let mut order: Vec<usize> = (0..mismatches.len()).collect();
    order.sort_by(|&i, &j| {
        let (a, b) = (&mismatches[i], &mismatches[j]);
        (a.arch, &a.key, &a.word).cmp(&(b.arch, &b.key, &b.word))
    });
    let mut new_pos = vec![0; order.len()];
    for (pos, &i) in order.iter().enumerate() {
        new_pos[i] = pos;
    }
    let mismatches: Vec<MismatchRow> = order.iter().map(|&i| mismatches[i].clone()).collect();
    for ix in mismatch_rows.iter_mut() {
        for i in ix.iter_mut() {
            *i = new_pos[*i];
        }
        ix.sort_unstable();
    }
    let groups: Vec<GroupRow> = all
        .groups
        .into_iter()
        .map(|g| GroupRow {
            key: g.key,
            field: g.field,
            cause: g.cause,
            count: g.count,
            example: MismatchRow {
                arch: Some(g.example.arch),
                word: g.example.word,
                key: String::new(),
                cause: String::new(),
                field: String::new(),
                nvdisasm: g.example.nvdisasm,
                ours: g.example.ours,
                diff: g.example.diff,
            },
        })
        .collect();

    let answers = Answers::new(entries);
    let readings = read_bits(written, &answers);
    let lint_f = lint(written);
    let mut bit_f = bit_findings(written, &readings);
    bit_f.extend(crate::conform::forms::form_findings(written, &answers));
    let texts = crate::conform::names::texts_by_arch(entries);
    bit_f.extend(crate::conform::names::name_findings(
        written, &readings, &texts,
    ));
    let root_causes =
        crate::conform::rootcause::group(&lint_f.iter().chain(&bit_f).cloned().collect::<Vec<_>>());
    let mut findings: Vec<FindingRow> = lint_f.iter().map(|f| FindingRow::of("lint", f)).collect();
    findings.extend(bit_f.iter().map(|f| FindingRow::of("resolve", f)));
    let reading_of: HashMap<VariantId, _> = readings.iter().map(|(id, r)| (*id, r)).collect();

    let mut rows = Vec::with_capacity(n);
    for id in written.ids() {
        let (t, v) = (written.table(id), written.variant(id));
        let i = rows_index.index(id);
        let tb = crate::reading::flips::table_bits(v);
        let mut bits = vec![UNSEEN; 128];
        let mut notes: Vec<String> = (0..128)
            .map(|b| format!("bit {b}: {}", table_claim(&tb[b])))
            .collect();
        let reading = reading_of.get(&id);
        match reading {
            None => {
                for note in notes.iter_mut() {
                    note.push_str(" — never seen: the fixed word was not recorded");
                }
            }
            Some(r) if !r.base_legal => {
                for note in notes.iter_mut() {
                    note.push_str(&format!(
                        " — never seen: nvdisasm rejects the fixed word ({})",
                        r.base.nvdisasm
                    ));
                }
            }
            Some(r) => {
                let opcode = v.opcode_mask();
                for (b, note) in notes.iter_mut().enumerate() {
                    if opcode >> b & 1 == 0 {
                        continue;
                    }
                    bits[b] = CONFIRMED;
                    note.push_str(" — confirmed: opcode bit (nvdisasm accepts the fixed word)");
                }
                for br in &r.bits {
                    let b = br.bit as usize;
                    let reading = crate::conform::resolve::reading_text(v, &br.effect);
                    match (disagreement(v, br), &br.effect) {
                        (Some(kind), _) => {
                            bits[b] = CONTRADICTED;
                            notes[b].push_str(&format!(" — contradicted ({kind}): {reading}"));
                        }
                        (None, Effect::Unseen) => {
                            notes[b].push_str(" — never seen: the flipped word was not recorded");
                        }
                        (None, _) => {
                            bits[b] = CONFIRMED;
                            notes[b].push_str(&format!(" — confirmed: {reading}"));
                        }
                    }
                }
            }
        }
        let bits: String = bits.into_iter().collect();
        let c = &counts[i];
        let arch = t.arch;
        rows.push(VariantRow {
            arch,
            mnemonic: t.mnemonic.clone(),
            key: v.key.clone(),
            title: v.title.clone(),
            file: t.path.clone(),
            line: v.line,
            fixed_word: Word(v.fixed_value).to_string(),
            fixed_mask: Word(v.fixed_mask).to_string(),
            fixed_word_answer: reading.map(|r| r.base.nvdisasm.clone()),
            words_checked: c.total,
            agreement: c.legal_share(),
            agreement_as_written: counts_aw[i].legal_share(),
            mismatches: c.mismatched(),
            counts: c.clone(),
            findings: findings
                .iter()
                .filter(|f| f.file == t.path && f.key == v.key)
                .count(),
            fuzz_crashes: crashes
                .iter()
                .filter(|cr| cr.variants.iter().any(|n| *n == variant_name(arch, &v.key)))
                .count(),
            bit_counts: BitCounts::of(&bits),
            bits,
            fields: v
                .fields
                .iter()
                .map(|f| FieldSpan {
                    label: f.label.clone(),
                    kind: kind_name(&f.kind).into(),
                    bits: f
                        .ranges
                        .iter()
                        .map(|r| match r.len {
                            1 => r.lo.to_string(),
                            _ => format!("{}-{}", r.lo, r.hi()),
                        })
                        .collect::<Vec<_>>()
                        .join(","),
                })
                .collect(),
            notes,
            mismatch_ix: std::mem::take(&mut mismatch_rows[i]),
        });
    }

    summary.tables = written.tables.len();
    summary.variants = rows.len();
    summary.archs = written.archs();
    summary.legal_agreement = summary.counts.legal_share();
    summary.verdict_agreement = summary.counts.verdict_share();
    summary.legal_agreement_as_written = summary.counts_as_written.legal_share();
    summary.mismatches = mismatches.len();
    summary.other_instructions = mismatches
        .iter()
        .filter(|m| m.cause == "no-variant")
        .count();
    summary.mismatch_groups = groups.len();
    summary.findings = findings.len();
    for f in &findings {
        *summary.findings_by_kind.entry(f.kind.clone()).or_default() += 1;
    }
    for r in &rows {
        summary.bits.add(&r.bit_counts);
        match &r.fixed_word_answer {
            None => summary.fixed_words_unrecorded += 1,
            Some(a) if a.starts_with("illegal: ") => summary.fixed_words_illegal += 1,
            Some(_) => summary.fixed_words_legal += 1,
        }
    }
    summary.fuzz_crashes = crashes.len();
    Report {
        schema: SCHEMA.into(),
        generated: now_utc(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        inputs: Inputs::default(),
        summary,
        variants: rows,
        mismatch_groups: groups,
        mismatches,
        findings,
        root_causes,
        crashes,
        comparison: None,
        campaign: None,
    }
}

fn table_claim(t: &TableBit) -> String {
    match t {
        TableBit::Fixed(b) => format!("table: fixed {}", *b as u8),
        TableBit::Field { label, index, .. } => format!("table: {label} [bit {index}]"),
        TableBit::Undescribed => "table: undescribed".into(),
    }
}

/// The four files of a report, in the order they are written.
pub const REPORT_FILES: [&str; 4] = ["report.json", "report.csv", "report.md", "report.html"];

/// Writes report.json, report.csv, report.md and report.html into `out`, as a set: all four
/// are rendered and written into a staging folder `out/.report-staging.<pid>` first, then
/// renamed into place (the files they replace are moved aside and put back if a rename fails).
/// On any error the previous set is left as it was and the staging folder is removed.
pub fn write_all(report: &Report, out: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let [json_name, csv_name, md_name, html_name] = REPORT_FILES;
    let mut json = serde_json::to_vec_pretty(report).map_err(|e| ReportError::Json {
        path: out.join(json_name),
        line: 0,
        message: e.to_string(),
    })?;
    json.push(b'\n');
    let csv = text::csv(report).map_err(|message| ReportError::Csv {
        path: out.join(csv_name),
        message,
    })?;
    let contents: [(&str, Vec<u8>); 4] = [
        (json_name, json),
        (csv_name, csv),
        (md_name, text::markdown(report).into_bytes()),
        (html_name, html::page(report).into_bytes()),
    ];
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    let staging = out.join(format!(".report-staging.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir(&staging).map_err(io_err(&staging))?;
    let result = (|| {
        for (name, data) in &contents {
            let p = staging.join(name);
            std::fs::write(&p, data).map_err(io_err(&p))?;
        }
        swap_in(&staging, out, &REPORT_FILES)
    })();
    let _ = std::fs::remove_dir_all(&staging);
    result?;
    Ok(REPORT_FILES.iter().map(|n| out.join(n)).collect())
}

/// Renames `staging/<name>` to `out/<name>` for every name, moving each replaced file to
/// `staging/<name>.old` first; on a failure, undoes the renames done so far.
fn swap_in(staging: &Path, out: &Path, names: &[&str]) -> Result<(), ReportError> {
    // (target, backup of what it replaced, if anything)
    let mut done: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    let mut step = |name: &str| -> Result<(), ReportError> {
        let target = out.join(name);
        let backup = staging.join(format!("{name}.old"));
        let had_old = match std::fs::symlink_metadata(&target) {
            Ok(m) if m.is_dir() => {
                return Err(ReportError::Io {
                    path: target.clone(),
                    source: std::io::Error::new(
                        std::io::ErrorKind::IsADirectory,
                        "is a folder, not a report file",
                    ),
                });
            }
            Ok(_) => {
                std::fs::rename(&target, &backup).map_err(io_err(&target))?;
                true
            }
            Err(_) => false,
        };
        let renamed = std::fs::rename(staging.join(name), &target).map_err(io_err(&target));
        done.push((target, had_old.then_some(backup)));
        renamed
    };
    let mut result = Ok(());
    for name in names {
        result = step(name);
        if result.is_err() {
            break;
        }
    }
    if result.is_err() {
        for (target, backup) in done.into_iter().rev() {
            match backup {
                Some(b) => {
                    let _ = std::fs::rename(&b, &target);
                }
                None => {
                    let _ = std::fs::remove_file(&target);
                }
            }
        }
    }
    result
}

/// What [`run`] did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The report (with its comparison).
    pub report: Report,
    /// Files written.
    pub files: Vec<PathBuf>,
}

/// Builds the report, compares it with `baseline` (a previous report.json) when given, and
/// writes the four files into `out`.
pub fn run(opts: &Options, out: &Path, baseline: Option<&Path>) -> Result<Outcome, ReportError> {
    run_with_campaign(opts, out, baseline, None)
}

/// [`run`], with the campaign's printed summary as the report's headline (see
/// [`Report::campaign`]).
pub fn run_with_campaign(
    opts: &Options,
    out: &Path,
    baseline: Option<&Path>,
    campaign: Option<String>,
) -> Result<Outcome, ReportError> {
    let mut report = build(opts)?;
    report.campaign = campaign;
    if let Some(b) = baseline {
        let base = Report::read(b)?;
        report.comparison = Some(compare(&base, &report, &b.display().to_string()));
    }
    let files = write_all(&report, out)?;
    Ok(Outcome { report, files })
}

/// Percentage with two decimals, `-` for none.
pub fn pct(x: Option<f64>) -> String {
    match x {
        Some(v) => format!("{:.2}%", 100.0 * v),
        None => "-".into(),
    }
}
