//! Subcommands of the `sass-conform` binary (clap), mapping layer errors to messages.

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use sass_conform::Arch;
use sass_conform::codec::{
    Codec, Decoded, EncodeOptions, FuzzCase, VariantId, Word, field_group, sweep_words,
};
use sass_conform::conform::word_json::{WordJson, explain};
use sass_conform::conform::{Differ, Finding, lint, predict};
use sass_conform::oracle::{self, Entry, Manifest, Nvdisasm};
use sass_conform::reading::combos::Split;
use sass_conform::reading::model::Model;
use sass_conform::reading::resolved::{Provenance, ResolvedSet, resolve_tables};
use sass_conform::render::{Renderer, TextBuf, TextOut};
use sass_conform::spec::{self, ModifierName};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `println!` that returns the write error (a closed pipe ends the command quietly, see
/// main.rs) instead of panicking.
macro_rules! outln {
    ($($t:tt)*) => {
        writeln!(std::io::stdout().lock(), $($t)*)?
    };
}

mod campaign;
mod explain;
mod learn;
mod shards;
mod synth;

/// Spec-conformance fuzzer and differential tester for NVIDIA SASS encoding tables.
#[derive(Parser, Debug)]
#[command(name = "sass-conform", version)]
pub struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Inspect the tables.
    #[command(subcommand)]
    Spec(SpecCmd),
    /// Decode words (hex, or `-` for one per line on stdin): word, variant, text, verdict
    /// (`--json`: one object per word, the same as `check --json`).
    Decode(WordsArgs),
    /// Table-based verdict for words (hex, or `-` for stdin): word, verdict, why (the nearest
    /// variant and the differing bits of a reserved-bit word, ...).
    Check(WordsArgs),
    /// Encode a variant from `LABEL=VALUE` assignments (e.g. `operand_1=5 modi_4=EL`).
    Encode(EncodeArgs),
    /// Record nvdisasm's answers.
    #[command(subcommand)]
    Oracle(OracleCmd),
    /// Compare the project's decoding with every recorded oracle entry (offline).
    Diff(DiffArgs),
    /// Static findings: what the tables say that is inconsistent on its own terms.
    Lint(LintArgs),
    /// What nvdisasm says each bit of each variant does, against the table (offline from
    /// oracle/).
    Resolve(ResolveArgs),
    /// Fuzz corpora.
    #[command(subcommand)]
    Corpus(CorpusCmd),
    /// Scan ptxas cubins against the tables: per arch, instructions, tabled, matched,
    /// unmatched (coverage gaps), agreement with nvdisasm.
    Scan(ScanArgs),
    /// Time the product against nvdisasm on the same words (decode, render, record, parse,
    /// diff), or print generated words for timing other commands.
    #[command(subcommand)]
    Bench(BenchCmd),
    /// Nightly report: report.json, .csv, .md and .html in --out, compared with --baseline
    /// (exit 1 on a regression, named on the last line).
    Report(ReportArgs),
    /// Which archs nvdisasm agrees with for tables without an arch line: every variant's fixed
    /// word on every arch nvdisasm takes, against the distilled line (offline from
    /// oracle/arch-infer/; `--record` asks nvdisasm and records).
    ArchInfer(ArchInferArgs),
    /// Differential campaign against live nvdisasm: table-aware words, predicted with the
    /// learned reading, diffed; disagreements minimised and grouped by root cause.
    Campaign(CampaignArgs),
    /// Learn the reading of any tables in one command: sweeps, form bits, the learn split,
    /// sweeps around forms, learning, a second learn split from the learned layout, learning
    /// again, the check split, then the check-split figure per table
    /// and what nvdisasm proves. Resumable: recorded answers stay; a second run adds what is
    /// missing. Tables outside specs/ get a workspace beside them (`<path>.learn`).
    Learn(learn::LearnArgs),
    /// What the learned reading says of a variant (or of every variant of a mnemonic): its
    /// fields, how nvdisasm's text is printed (the learned printer's slots), how it is chosen.
    Explain(explain::ExplainArgs),
    /// Write one table per mnemonic (dialect A) from real words (ptxas cubins) and designed
    /// nvdisasm experiments around each variant; `--learn` then learns each table from
    /// scratch and writes OUT/MATRIX.tsv (check-split figures, findings).
    Synth(synth::SynthArgs),
    /// Shards of a run (`--shard I/N` of synth, learn, campaign).
    #[command(subcommand)]
    Shards(ShardsCmd),
    /// The report for many tables: OUT/index.html (per arch; arch x mnemonic; every table's
    /// variants, check split, verdict, findings, root causes), OUT/index.md, and one page per
    /// table (OUT/tables/<ARCH>-<MNEMONIC>.html), from a synth folder (MATRIX.tsv,
    /// <ARCH>/<MNEMONIC>.txt, <ARCH>/VARIANTS.tsv, <ARCH>/.learn/<MNEMONIC>/learn.log).
    MatrixReport(MatrixReportArgs),
}

/// Arguments of `matrix-report`.
#[derive(Args, Debug)]
struct MatrixReportArgs {
    /// The synth folder.
    #[arg(long, default_value = "synth")]
    synth: PathBuf,
    /// Where the pages go.
    #[arg(long)]
    out: PathBuf,
    /// The pages' title.
    #[arg(long, default_value = "sass-conform synth matrix")]
    title: String,
}

fn matrix_report_cmd(a: &MatrixReportArgs) -> Result<ExitCode> {
    use sass_conform::report::matrix;
    let entries = matrix::collect(&a.synth)?;
    if entries.is_empty() {
        bail!(
            "{}: no table (expected MATRIX.tsv or <ARCH>/VARIANTS.tsv with <ARCH>/<MNEMONIC>.txt)",
            a.synth.display()
        );
    }
    let files = matrix::write(&entries, &a.out, &a.title)?;
    for s in matrix::summaries(&entries) {
        outln!(
            "{}: {} tables, {} learned, {} >= {}% on both",
            s.arch,
            s.tables,
            s.learned,
            s.ok,
            matrix::GOAL_PERCENT
        );
    }
    outln!(
        "matrix-report: {} files in {} ({})",
        files.len(),
        a.out.display(),
        a.out.join("index.html").display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `shards` subcommands.
#[derive(Subcommand, Debug)]
enum ShardsCmd {
    /// Join the shards' output folders into what one unsharded run writes: tables and logs
    /// copied (a file two shards hold must be the same), row tables (VARIANTS.tsv,
    /// SKIPPED.tsv, MATRIX.tsv) joined by (arch, mnemonic), oracle files joined (two answers
    /// for one word are an error), MANIFEST.json recounted, campaign --json reports joined.
    Merge(shards::MergeArgs),
}

#[derive(Args, Debug)]
struct CampaignArgs {
    #[command(flatten)]
    view: ViewArgs,
    /// Folder (or file) of tables.
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
    /// Oracle root (`--record` writes DIR/campaign/<ARCH>-<seed>.tsv and MANIFEST.json).
    #[arg(long, default_value = "oracle")]
    oracle: PathBuf,
    /// Only the tables of this arch.
    #[arg(long)]
    arch: Option<Arch>,
    /// Only the table of this mnemonic (TLD, TEX, LD, TMML, TLD4).
    #[arg(long)]
    table: Option<String>,
    /// Time budget in minutes, split evenly over the tables.
    #[arg(long)]
    minutes: Option<f64>,
    /// Word budget, split evenly over the tables (with --minutes: whichever ends first).
    #[arg(long)]
    words: Option<u64>,
    /// Seed of the word generator (a shard is (arch, table, seed)).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Only shard I of N (1 <= I <= N) of the selected tables, sorted by (arch, mnemonic).
    /// The budget (--minutes, --words) stays the whole run's, split over all selected
    /// tables, and each table keeps its seed: a shard's tables get what they get unsharded,
    /// so `sass-conform shards merge` joins the shards' --json into the unsharded run's.
    #[arg(long, value_name = "I/N")]
    shard: Option<sass_conform::shard::Shard>,
    /// nvdisasm processes at once (default: every core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Record the words and answers into the oracle (learnable next time).
    #[arg(long)]
    record: bool,
    /// With --record: agreeing words kept per table (every disagreeing and minimising word
    /// is kept).
    #[arg(long, default_value_t = 20_000)]
    record_max: usize,
    /// Fuzz corpus folders whose words join the campaign (named after their target).
    #[arg(long, default_values = ["corpus/roundtrip", "corpus/decode_render"])]
    corpus: Vec<PathBuf>,
    /// Words per nvdisasm process (default: from the budget, at most 262144).
    #[arg(long)]
    chunk_words: Option<usize>,
    /// Root causes minimised per table.
    #[arg(long, default_value_t = 100)]
    minimise_max: usize,
    /// Minimising rounds (one nvdisasm batch each) at most.
    #[arg(long, default_value_t = 40)]
    rounds: usize,
    /// Write the figures and root causes as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// An earlier run's --json: new root causes exit 3, a fallen agreement or a root cause
    /// it lists as `fixed` exits 1.
    #[arg(long, value_name = "FILE")]
    known: Option<PathBuf>,
    /// With --known: how far (0..1) a table's legal agreement may fall before it counts.
    #[arg(long, default_value_t = 0.005)]
    tolerance: f64,
    /// Time nvdisasm's raw batches against the campaign's path on the same legal words.
    #[arg(long)]
    compare_raw: bool,
    /// With --compare-raw: legal words timed, an equal share from each table.
    #[arg(long, default_value_t = 200_000)]
    raw_words: usize,
    /// nvdisasm binary (else $NVDISASM, PATH, .tools/nvdisasm).
    #[arg(long)]
    nvdisasm: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct CorpusCoverageArgs {
    /// Fuzz corpus folders, named after their target (roundtrip, decode_render).
    #[arg(default_values = ["corpus/roundtrip"])]
    dirs: Vec<PathBuf>,
    /// Folder (or file) of tables.
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
    /// Per table figures as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct CorpusDictArgs {
    /// Folder (or file) of tables.
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
    /// Output file (default: stdout), e.g. fuzz/roundtrip.dict.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct ArchInferArgs {
    /// Table files or folders.
    #[arg(default_value = "specs")]
    paths: Vec<PathBuf>,
    /// Also rank tables whose header names an arch (a check of the method).
    #[arg(long)]
    all: bool,
    /// Oracle root; recordings are in DIR/arch-infer/<ARCH>.tsv.
    #[arg(long, default_value = "oracle")]
    oracle: PathBuf,
    /// Ask nvdisasm for every arch and record the answers (manifest: DIR/MANIFEST.json).
    #[arg(long)]
    record: bool,
    /// nvdisasm binary (else $NVDISASM, PATH, .tools/nvdisasm); with --record.
    #[arg(long)]
    nvdisasm: Option<PathBuf>,
    /// Differing texts to show per arch.
    #[arg(long, default_value_t = 0)]
    examples: usize,
    /// One JSON object per table (the full ranking, per variant outcomes included).
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct ScanArgs {
    #[command(flatten)]
    view: ViewArgs,
    /// Cubin files or folders (searched recursively for *.cubin).
    #[arg(default_value = "corpus/cubins")]
    paths: Vec<PathBuf>,
    /// Folder of recorded nvdisasm answers for the cubins (<arch>.tsv).
    #[arg(long, default_value = "oracle/cubins")]
    oracle: PathBuf,
    /// Folder (or file) of tables.
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
    /// nvdisasm binary (else $NVDISASM, PATH, .tools/nvdisasm); asked for words the
    /// recordings lack.
    #[arg(long)]
    nvdisasm: Option<PathBuf>,
    /// Recorded answers only; never run nvdisasm.
    #[arg(long, conflicts_with_all = ["live", "record"])]
    offline: bool,
    /// Ask nvdisasm for every word, ignoring the recordings.
    #[arg(long)]
    live: bool,
    /// Record nvdisasm's answers in DIR/<arch>.tsv (manifest: DIR/../MANIFEST.json), e.g.
    /// `--record oracle/cubins`: the answers DIR holds are read (instead of --oracle's) and
    /// nvdisasm is asked only for the words they lack (with --live, for every word); what
    /// the files hold stays.
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
    /// Write every matched word as a roundtrip fuzz seed DIR/cubin-<key>-<word>.
    #[arg(long, value_name = "DIR")]
    seeds: Option<PathBuf>,
    /// The whole report as JSON.
    #[arg(long)]
    json: bool,
    /// Gap and mismatch groups to print in text mode.
    #[arg(long, default_value_t = 20)]
    top: usize,
}

#[derive(Subcommand, Debug)]
enum CorpusCmd {
    /// Record nvdisasm's answers for the words fuzz inputs hold that the oracle lacks.
    Record(CorpusRecordArgs),
    /// Write roundtrip seeds made of real words: every variant's fixed word and, per variant,
    /// up to N recorded oracle words nvdisasm accepts.
    Seed {
        /// Output folder.
        #[arg(long, default_value = "corpus/roundtrip")]
        out: PathBuf,
        /// Folder of recorded oracle files.
        #[arg(long, default_value = "oracle")]
        oracle: PathBuf,
        /// Tables.
        #[arg(long, default_value = "specs")]
        specs: PathBuf,
        /// Oracle words per variant.
        #[arg(long, default_value_t = 4)]
        per_variant: usize,
    },
    /// Table coverage of fuzz corpora: per table, the (variant, field, value class) triples
    /// and the modifier-group pairs at non-default values their inputs reach.
    Coverage(CorpusCoverageArgs),
    /// Write a libFuzzer dictionary for the roundtrip target from the tables (opcode bit
    /// patterns per arch, variant selectors, modifier values).
    Dict(CorpusDictArgs),
}

#[derive(Args, Debug)]
struct ResolveArgs {
    /// Table files or folders.
    #[arg(default_value = "specs")]
    paths: Vec<PathBuf>,
    /// Arch for tables without an arch line.
    #[arg(long)]
    arch: Option<Arch>,
    /// Folder of recorded oracle files.
    #[arg(long, default_value = "oracle")]
    oracle: PathBuf,
    /// One JSON object per finding per line (with `evidence` and `reading`).
    #[arg(long)]
    json: bool,
    /// Also write the resolved tables (the tables as nvdisasm reads them) to this file.
    #[arg(long, value_name = "PATH", num_args = 0..=1, default_missing_value = "resolved/tables.json")]
    write: Option<PathBuf>,
    /// Also write corrected copies of the tables into DIR, in their own dialects and under
    /// the same relative paths (specs/sm100/TLD.txt -> DIR/sm100/TLD.txt), for `diff -u`.
    #[arg(long, value_name = "DIR")]
    emit_tables: Option<PathBuf>,
    /// Print a unified diff of the table files (the corrections the text format can hold:
    /// labels, cells, value names, distilled lines; the same as `--emit-tables`), each hunk
    /// annotated with the root causes it corrects, instead of the findings; apply it with
    /// `patch -p1` from the folder above the tables' folder.
    #[arg(long)]
    patch: bool,
    /// The learned reading (written by `resolve --write`) that explains the findings in table
    /// words; left out when the file is missing or does not match the tables (a warning), an
    /// error when it is not a resolved file.
    #[arg(long, default_value = "resolved/tables.json")]
    resolved: PathBuf,
    /// Print nothing but the summary line of `--write` (set by `learn`).
    #[arg(skip)]
    quiet: bool,
    /// Write the layouts, the legality model and the operand and modifier readings without
    /// learning the printers (set by `learn` for a learning step whose next experiments read
    /// only the layouts: the form-bit experiment and the learn splits). The file then reads
    /// words without a learned printer.
    #[arg(skip)]
    skip_printers: bool,
    /// The printers an earlier learning step of this process ended with (set by `learn`):
    /// a variant keeps its printer while that prints its answers as before
    /// ([`sass_conform::reading::printer::Carried`]); this step's printers replace them.
    #[arg(skip)]
    carried: Option<CarriedPrinters>,
}

/// Printers carried from one learning step to the next within a process (`learn`).
pub(crate) type CarriedPrinters =
    std::sync::Arc<std::sync::Mutex<sass_conform::reading::printer::Carried>>;

/// Which view of the tables the codec uses.
#[derive(Args, Debug, Clone)]
struct ViewArgs {
    /// Resolved tables (written by `resolve --write`); used when the file exists.
    #[arg(long, default_value = "resolved/tables.json")]
    resolved: PathBuf,
    /// Use the tables as written, ignoring the resolved readings.
    #[arg(long)]
    as_written: bool,
    /// No warning when `resolved` is missing (`learn`'s own steps, before it writes one).
    #[arg(skip)]
    quiet_missing: bool,
}

#[derive(Args, Debug)]
struct LintArgs {
    /// Table files or folders.
    #[arg(default_value = "specs")]
    paths: Vec<PathBuf>,
    /// Arch for tables without an arch line.
    #[arg(long)]
    arch: Option<Arch>,
    /// One JSON object per finding per line.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand, Debug)]
enum SpecCmd {
    /// One line per table: path, arch, mnemonic, variant count.
    List(SpecsArgs),
    /// The parsed model of one table.
    Dump {
        /// Table file.
        file: PathBuf,
        /// Print JSON (the only format).
        #[arg(long)]
        json: bool,
        /// Arch for a table without an arch line.
        #[arg(long)]
        arch: Option<Arch>,
    },
}

#[derive(Args, Debug)]
struct SpecsArgs {
    /// Table files or folders.
    #[arg(default_value = "specs")]
    paths: Vec<PathBuf>,
}

#[derive(Args, Debug)]
struct WordsArgs {
    #[command(flatten)]
    view: ViewArgs,
    /// Arch of the words (SM80, sm_90, ...).
    #[arg(long)]
    arch: Arch,
    /// Words as hex (`0x` optional, up to 32 digits, most significant first, fewer
    /// zero-extended); `-` reads one per line from stdin (blank and `#` lines skipped; the
    /// first bad line ends the output with its error, exit 2).
    words: Vec<String>,
    /// One JSON object per line.
    #[arg(long)]
    json: bool,
    /// Folder (or file) of tables.
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
}

#[derive(Args, Debug)]
struct EncodeArgs {
    #[command(flatten)]
    view: ViewArgs,
    /// Variant key (e.g. TLD_P_R_R_R_R_UR_D_I).
    key: String,
    /// `LABEL=VALUE`: label as in the table with `_` or nothing for the space (`operand_1`,
    /// `modi4`, `pred`); value a number (decimal, 0x hex, 0b binary) or a modifier name.
    assignments: Vec<String>,
    /// Arch, when the key exists on several.
    #[arg(long)]
    arch: Option<Arch>,
    /// Allow modifier values the table marks INVALIDn.
    #[arg(long)]
    allow_invalid: bool,
    /// Folder (or file) of tables.
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
}

#[derive(Subcommand, Debug)]
enum OracleCmd {
    /// Record nvdisasm's answers for every variant's sweep words into oracle/.
    Record(RecordArgs),
    /// Ask nvdisasm about words (one 32-hex-digit word per line; `#` lines and blank lines
    /// skipped) and write its answers as an oracle TSV, rows in input order (unsorted).
    Run(OracleRunArgs),
    /// Check every oracle file against MANIFEST.json (row count, sha256, no conflicting
    /// answers), or update its records.
    Manifest(ManifestArgs),
    /// Record combination words (every bit a variant does not fix random) for the learn or
    /// check split into DIR/combos/<split>/<ARCH>-<MNEMONIC>.tsv.
    Combos(CombosArgs),
    /// Record the form-bit experiment (fixed bits nvdisasm refuses alone, flipped with every
    /// other bit, then swept around the first legal pair) into
    /// DIR/forms/<ARCH>-<MNEMONIC>.tsv; see `reading::forms`.
    Forms(FormsArgs),
    /// Record the printer's sweep experiment (around each form of each variant, every group
    /// swept alone; see `reading::printer::form_sweep_words`) into
    /// DIR/sweeps/<ARCH>-<MNEMONIC>.tsv. Reads the resolved tables and the learn answers.
    Sweeps(FormsArgs),
}

#[derive(Args, Debug)]
struct FormsArgs {
    #[command(flatten)]
    view: ViewArgs,
    /// Folder (or files) of tables.
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
    /// Oracle root to write into (MANIFEST.json there is updated).
    #[arg(long, default_value = "oracle")]
    out: PathBuf,
    /// nvdisasm binary (else $NVDISASM, PATH, .tools/nvdisasm).
    #[arg(long)]
    nvdisasm: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct CombosArgs {
    #[command(flatten)]
    view: ViewArgs,
    /// Folder (or files) of tables.
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
    /// Oracle root to write into (MANIFEST.json there is updated).
    #[arg(long, default_value = "oracle")]
    out: PathBuf,
    /// Which split: `learn` (the model learns from it), `relearn` (learned from too, drawn from
    /// the layout a learning ended with) or `check` (never learned from).
    #[arg(long, value_enum)]
    split: Split,
    /// Words per variant.
    #[arg(long, default_value_t = 2000)]
    per_variant: usize,
    /// nvdisasm binary (else $NVDISASM, PATH, .tools/nvdisasm).
    #[arg(long)]
    nvdisasm: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct OracleRunArgs {
    /// Arch to disassemble for (SM90, sm_100, ...).
    #[arg(long)]
    arch: Arch,
    /// Words file, or `-` for stdin.
    #[arg(long, default_value = "-")]
    words: PathBuf,
    /// Output TSV file, or `-` for stdout.
    #[arg(long, default_value = "-")]
    out: PathBuf,
    /// nvdisasm binary (else $NVDISASM, PATH, .tools/nvdisasm).
    #[arg(long)]
    nvdisasm: Option<PathBuf>,
    /// Largest chunk of words per nvdisasm process.
    #[arg(long)]
    chunk_words: Option<usize>,
    /// Seconds one nvdisasm process may run, reading its output included (default 120 s
    /// plus 2 ms per word).
    #[arg(long)]
    timeout: Option<f64>,
    /// Words the learned reading calls legal skip the cubin pass (one raw batch instead of
    /// two passes; the answers are the same, a wrong hint costs a rerun).
    #[arg(long)]
    hint: bool,
    /// Tables for `--hint` (folder or files).
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
    #[command(flatten)]
    view: ViewArgs,
}

#[derive(Args, Debug)]
struct RecordArgs {
    /// Folder (or files) of tables.
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
    /// Output folder.
    #[arg(long, default_value = "oracle")]
    out: PathBuf,
    /// nvdisasm binary (else $NVDISASM, PATH, .tools/nvdisasm).
    #[arg(long)]
    nvdisasm: Option<PathBuf>,
    /// Words per variant, at least.
    #[arg(long, default_value_t = 200)]
    per_variant: usize,
    /// Seed of the random fills.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seconds one nvdisasm process may run, reading its output included (default 120 s
    /// plus 2 ms per word).
    #[arg(long)]
    timeout: Option<f64>,
}

#[derive(Args, Debug)]
struct ManifestArgs {
    /// The oracle folder (holding MANIFEST.json).
    #[arg(long, default_value = "oracle")]
    oracle: PathBuf,
    /// Recompute the row count and sha256 of every listed file (after an intended edit).
    #[arg(long)]
    update: bool,
    /// With --update: also list these TSV files (inside the folder), made by the nvdisasm
    /// of --nvdisasm-version.
    #[arg(long, requires = "update")]
    add: Vec<PathBuf>,
    /// The nvdisasm version that made the --add files.
    #[arg(long, requires = "add")]
    nvdisasm_version: Option<String>,
}

#[derive(Args, Debug)]
struct DiffArgs {
    #[command(flatten)]
    view: ViewArgs,
    /// Folder of recorded oracle files.
    #[arg(long, default_value = "oracle")]
    oracle: PathBuf,
    /// Folder (or file) of tables.
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
    /// Print counts and mismatch groups as JSON.
    #[arg(long)]
    json: bool,
    /// Mismatch groups to print in text mode.
    #[arg(long, default_value_t = 20)]
    top: usize,
    /// Also write every disagreeing word (not only each group's example) to FILE as CSV:
    /// figure (`check SM90 FRND`, `ptxas SM90`, `learned`), arch, word, cause, variant key,
    /// field, nvdisasm's text, ours (`(refused: why)` where we reject).
    #[arg(long, value_name = "FILE")]
    words: Option<PathBuf>,
    /// Set by `learn`: the reading was learned from this oracle folder, so its words outside
    /// the check split and the compiler's words count as learned from (not a flag).
    #[arg(skip)]
    learned_here: bool,
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<ExitCode> {
    let code = run_cmd(cli)?;
    let skipped = skipped_tables();
    if code == ExitCode::SUCCESS && skipped > 0 {
        eprintln!(
            "sass-conform: {} skipped (named above): exit status 1",
            sass_conform::conform::rootcause::counted(skipped, "table")
        );
        return Ok(ExitCode::from(1));
    }
    Ok(code)
}

/// The subcommand of `cli`, run.
fn run_cmd(cli: Cli) -> Result<ExitCode> {
    match cli.cmd {
        Cmd::Spec(SpecCmd::List(a)) => spec_list(&a.paths),
        Cmd::Spec(SpecCmd::Dump { file, arch, .. }) => {
            let t = spec::load_table(&file, arch)?;
            outln!("{}", serde_json::to_string_pretty(&t)?);
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Decode(a) => words_cmd(&a, true),
        Cmd::Check(a) => words_cmd(&a, false),
        Cmd::Encode(a) => encode(&a),
        Cmd::Oracle(OracleCmd::Record(a)) => record(&a),
        Cmd::Oracle(OracleCmd::Run(a)) => oracle_run(&a),
        Cmd::Oracle(OracleCmd::Combos(a)) => record_combos(&a),
        Cmd::Oracle(OracleCmd::Forms(a)) => record_forms(&a),
        Cmd::Oracle(OracleCmd::Sweeps(a)) => record_sweeps(&a).map(|_| ExitCode::SUCCESS),
        Cmd::Oracle(OracleCmd::Manifest(a)) => oracle_manifest(&a),
        Cmd::Diff(a) => diff_cmd(&a),
        Cmd::Lint(a) => lint_cmd(&a),
        Cmd::Resolve(a) => resolve_cmd(&a),
        Cmd::Scan(a) => scan_cmd(&a),
        Cmd::Bench(BenchCmd::Run(a)) => bench_run(&a),
        Cmd::Bench(BenchCmd::Words(a)) => bench_words(&a),
        Cmd::Bench(BenchCmd::Decode(a)) => bench_decode(&a),
        Cmd::Report(a) => report_cmd(&a),
        Cmd::Corpus(CorpusCmd::Record(a)) => corpus_record(&a),
        Cmd::ArchInfer(a) => arch_infer_cmd(&a),
        Cmd::Campaign(a) => campaign::campaign_cmd(&a),
        Cmd::Learn(a) => learn::learn_cmd(&a),
        Cmd::Explain(a) => explain::explain_cmd(&a),
        Cmd::Synth(a) => synth::synth_cmd(&a),
        Cmd::Shards(ShardsCmd::Merge(a)) => shards::merge_cmd(&a),
        Cmd::MatrixReport(a) => matrix_report_cmd(&a),
        Cmd::Corpus(CorpusCmd::Coverage(a)) => campaign::coverage_cmd(&a),
        Cmd::Corpus(CorpusCmd::Dict(a)) => campaign::dict_cmd(&a),
        Cmd::Corpus(CorpusCmd::Seed {
            out,
            oracle,
            specs,
            per_variant,
        }) => corpus_seed(&out, &oracle, &specs, per_variant),
    }
}

fn arch_infer_cmd(a: &ArchInferArgs) -> Result<ExitCode> {
    use sass_conform::conform::archinfer::{CANDIDATE_ARCHS, index, infer_arch, load_recorded};
    let tables: Vec<_> = load_some_tables(&a.paths, None)?
        .into_iter()
        .filter(|t| a.all || t.arch_source != "header")
        .collect();
    if a.record {
        let nv = Nvdisasm::locate(a.nvdisasm.as_deref())?;
        let command = std::env::args().collect::<Vec<_>>().join(" ");
        let refs: Vec<_> = tables.iter().collect();
        let n = sass_conform::conform::archinfer::record(
            &nv,
            &refs,
            &CANDIDATE_ARCHS,
            &a.oracle,
            &command,
        )?;
        eprintln!("{n} answers recorded in {}/arch-infer/", a.oracle.display());
    }
    let entries = load_recorded(&sass_conform::locate::data_path(&a.oracle))?;
    let idx = index(&entries);
    for t in &tables {
        let r = infer_arch(t, &CANDIDATE_ARCHS, |arch, w| idx.get(&(arch, w)).copied());
        if a.json {
            outln!("{}", serde_json::to_string(&r)?);
        } else {
            write!(std::io::stdout().lock(), "{}", r.render_text(a.examples))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn scan_cmd(a: &ScanArgs) -> Result<ExitCode> {
    use sass_conform::conform::scan::{Live, ScanOptions, scan_paths};
    use sass_conform::locate;
    let (codec, _, model) = load_view_model(&a.specs, &a.view)?;
    let live = match (a.offline, a.live) {
        (true, _) => Live::Never,
        (_, true) => Live::Always,
        _ => Live::IfMissing,
    };
    let opts = ScanOptions {
        paths: a.paths.iter().map(|p| locate::data_path(p)).collect(),
        oracle: Some(locate::data_path(&a.oracle)),
        live,
        nvdisasm: a.nvdisasm.clone(),
        record: a.record.clone(),
        seeds: a.seeds.clone(),
        command: std::env::args().collect::<Vec<_>>().join(" "),
    };
    let report = scan_paths(&codec, &Renderer::new(&codec), model.as_ref(), &opts)?;
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        write!(std::io::stdout().lock(), "{}", report.to_text(a.top))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn load_codec(specs: &Path) -> Result<Codec> {
    let tables = load_some_tables(&[specs.to_path_buf()], None)?;
    Ok(Codec::new(tables)?)
}

/// Tables under `paths`; an error when there are none (a wrong folder, say).
/// The default `specs` missing from the current directory means the bundled tables.
fn load_some_tables(paths: &[PathBuf], arch: Option<Arch>) -> Result<Vec<spec::Table>> {
    // `specs` (the default) or `specs/sm100/TLD.txt` away from the repository: the bundled
    // tables of those names.
    if paths
        .iter()
        .all(|p| !p.exists() && p.starts_with(sass_conform::locate::SPECS))
    {
        let named: Vec<spec::Table> = spec::bundled_tables()?
            .into_iter()
            .filter(|t| paths.iter().any(|p| Path::new(&t.path).starts_with(p)))
            .collect();
        if !named.is_empty() {
            if let Some(note) = sass_conform::locate::bundled_beside_workspaces() {
                eprintln!("{note}");
            }
            return Ok(named);
        }
    }
    // One bad table never stops the others: it is named on stderr, left out, and the
    // command's exit status made 1 ([`skipped_tables`]); only when no table loads is it
    // the error.
    let (tables, mut skipped) = spec::load_tables_lenient(paths, arch);
    if tables.is_empty() && !skipped.is_empty() {
        return Err(skipped.swap_remove(0).error.into());
    }
    for s in &skipped {
        warn_skipped(&s.error.to_string());
    }
    if tables.is_empty() {
        bail!(
            "no table files (*.txt) under {}; give the specs folder (--specs) or table files",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    warn_arch_kept(&tables, arch);
    Ok(tables)
}

/// Names on stderr (once per table and run) each table whose arch line says another arch than
/// `--arch`: the arch line is kept, the option only gives an arch to tables without one.
fn warn_arch_kept(tables: &[spec::Table], arch: Option<Arch>) {
    static WARNED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let Some(arch) = arch else {
        return;
    };
    let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
    for t in tables {
        if t.arch_source == "header"
            && t.arch.is_some_and(|a| a != arch)
            && !warned.contains(&t.path)
        {
            eprintln!(
                "warning: {}: --arch {arch} not applied: the table's arch line says {} (the \
                 option gives an arch to tables without one)",
                t.path,
                t.arch.map_or(String::new(), |a| a.to_string())
            );
            warned.push(t.path.clone());
        }
    }
}

/// The tables skipped so far in this run (each named once on stderr by [`warn_skipped`]).
static SKIPPED_TABLES: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Names a table that did not load on stderr, once per run (a command can load its tables
/// twice), and counts it for the exit status ([`skipped_tables`]).
fn warn_skipped(why: &str) {
    let mut seen = SKIPPED_TABLES.lock().unwrap_or_else(|e| e.into_inner());
    if !seen.iter().any(|s| s == why) {
        eprintln!("warning: table skipped (the others are read): {why}");
        seen.push(why.to_string());
    }
}

/// How many tables did not load in this run ([`warn_skipped`]).
fn skipped_tables() -> usize {
    SKIPPED_TABLES.lock().map_or(0, |s| s.len())
}

/// Every recorded entry under `dir`; an error when there is none.
fn load_entries(dir: &Path) -> Result<Vec<Entry>> {
    load_entries_where(dir, oracle::is_evidence_file)
}

/// Every recorded entry of the files under `dir` that `keep` accepts; an error when there is
/// none.
fn load_entries_where(dir: &Path, keep: impl Fn(&Path) -> bool) -> Result<Vec<Entry>> {
    let dir = &sass_conform::locate::data_path(dir);
    if !dir.is_dir() {
        bail!(
            "{}: no such oracle folder (record one with `sass-conform oracle record`)",
            dir.display()
        );
    }
    let entries = oracle::load_entries_where(dir, keep)?;
    if entries.is_empty() {
        bail!("{}", no_entries(dir));
    }
    Ok(entries)
}

/// Why an oracle folder gave nothing: a folder of that name here hides the repository's.
fn no_entries(dir: &Path) -> String {
    let repo = Path::new(sass_conform::locate::REPO).join(dir);
    let hint =
        match dir.is_relative() && repo.is_dir() && !dir.starts_with(sass_conform::locate::REPO) {
            true => format!(
                " (this is {} in the current directory, which hides the repository's {}: \
             give --oracle {} or run from elsewhere)",
                dir.display(),
                repo.display(),
                repo.display()
            ),
            false => String::new(),
        };
    format!(
        "{}: no oracle entries (*.tsv) in this folder{hint}",
        dir.display()
    )
}

/// The codec over the resolved view when `view.resolved` exists (and not `--as-written`),
/// else over the tables as written. Returns the codec and a word saying which.
fn load_view(specs: &Path, view: &ViewArgs) -> Result<(Codec, &'static str)> {
    let (codec, name, _) = load_view_model(specs, view)?;
    Ok((codec, name))
}

/// The resolved layouts (table labels, corrected bits) when the resolved file has them and
/// `--as-written` is not given.
fn load_layouts(specs: &Path, view: &ViewArgs) -> Result<Option<Codec>> {
    let tables = load_some_tables(&[specs.to_path_buf()], None)?;
    let Some(set) = read_resolved(specs, view, &tables)? else {
        return Ok(None);
    };
    if set.layouts.is_empty() {
        return Ok(None);
    }
    Ok(Some(Codec::new(set.layouts)?))
}

/// [`load_view`] plus the learned reading stored with the resolved tables (`None` as written,
/// or when the resolved file predates it).
fn load_view_model(specs: &Path, view: &ViewArgs) -> Result<(Codec, &'static str, Option<Model>)> {
    let tables = load_some_tables(&[specs.to_path_buf()], None)?;
    let Some(set) = read_resolved(specs, view, &tables)? else {
        return Ok((Codec::new(tables)?, "as written", None));
    };
    let model = (!set.model.tables.is_empty()).then_some(set.model);
    Ok((Codec::new(set.tables)?, "resolved", model))
}

/// The resolved view of `tables`: `--resolved` when it is a file, the bundled view when both
/// it and the tables are the bundled defaults (see [`sass_conform::locate`]), else none (or
/// `--as-written`).
fn read_resolved(
    specs: &Path,
    view: &ViewArgs,
    tables: &[spec::Table],
) -> Result<Option<ResolvedSet>> {
    use sass_conform::locate;
    if view.as_written {
        return Ok(None);
    }
    if view.resolved.is_file() {
        return Ok(Some(ResolvedSet::read(&view.resolved, tables)?));
    }
    let default = view.resolved == Path::new(locate::RESOLVED);
    if !default && !view.quiet_missing {
        eprintln!(
            "warning: --resolved {}: no such file; reading the tables as written (write one \
             with `resolve --write {0}`)",
            view.resolved.display()
        );
    }
    if locate::wants_bundled_tables(&[specs.to_path_buf()])
        && locate::wants_bundled_resolved(&view.resolved)
    {
        let name = Path::new("(bundled) resolved/tables.json");
        return Ok(Some(ResolvedSet::from_slice(
            locate::BUNDLED_RESOLVED,
            name,
            tables,
        )?));
    }
    Ok(None)
}

fn spec_list(paths: &[PathBuf]) -> Result<ExitCode> {
    use sass_conform::conform::rootcause::counted;
    let tables = load_some_tables(paths, None)?;
    let mut total = 0;
    for t in &tables {
        let arch = t.arch.map_or("-".to_string(), |a| a.to_string());
        outln!(
            "{}\t{}\t{}\t{}",
            t.path,
            arch,
            t.mnemonic,
            counted(t.variants.len(), "variant")
        );
        total += t.variants.len();
    }
    outln!(
        "total\t{}\t{}",
        counted(tables.len(), "table"),
        counted(total, "variant")
    );
    Ok(ExitCode::SUCCESS)
}

fn words_cmd(a: &WordsArgs, decode: bool) -> Result<ExitCode> {
    let (codec, owned_model) = load_words_view(&a.specs, &a.view, a.arch)?;
    let r = Renderer::new(&codec);
    let model = owned_model.as_ref();
    let result = write_words(&a.words, |w, out, scratch| {
        if a.json {
            let p = predict(&codec, &r, model, a.arch, w);
            out.push_str(&serde_json::to_string(&WordJson::new(&p))?);
            out.push('\n');
        } else if decode {
            decode_line(&codec, &r, model, a.arch, w, out, scratch);
        } else {
            let p = predict(&codec, &r, model, a.arch, w);
            out.push_str(&format!(
                "{}\t{}\t{}\n",
                p.word,
                p.verdict.name(),
                explain(&p)
            ));
        }
        Ok(())
    });
    // The tables and the reading live until the process ends: freeing them costs more than
    // a short run's decoding.
    std::mem::forget((codec, owned_model, r));
    result?;
    Ok(ExitCode::SUCCESS)
}

/// The codec and learned reading `decode`/`check` use for words of `arch`: as
/// [`load_view_model`] gives them, but when the resolved view is the bundled one (the default,
/// or a file with the same bytes), only the tables of `arch` are parsed
/// ([`sass_conform::load`]). An error when no table has the arch.
fn load_words_view(specs: &Path, view: &ViewArgs, arch: Arch) -> Result<(Codec, Option<Model>)> {
    use sass_conform::{load, locate};
    let no_table = |archs: &[Arch]| {
        anyhow::anyhow!(
            "no table is loaded for {}; tables cover {:?}",
            arch,
            archs.iter().map(|a| a.to_string()).collect::<Vec<_>>()
        )
    };
    let bundled = if view.as_written {
        None
    } else if view.resolved.is_file() {
        std::fs::read(&view.resolved)
            .is_ok_and(|data| load::is_bundled(&data))
            .then_some(view.resolved.as_path())
    } else if locate::wants_bundled_tables(&[specs.to_path_buf()])
        && locate::wants_bundled_resolved(&view.resolved)
    {
        Some(Path::new("(bundled) resolved/tables.json"))
    } else {
        None
    };
    if let Some(name) = bundled {
        // The tables, which only confirm that the view names their variants, are parsed while
        // the arch's view is; errors as from `load::bundled_arch_view` after the tables.
        let (tables, view) = rayon::join(
            || load_some_tables(&[specs.to_path_buf()], None),
            || load::parse_bundled_arch(arch, name),
        );
        let tables = tables?;
        let keys = match load::PARTS.is_empty() {
            true => Ok(()),
            false => load::check_bundled_keys(&tables, name),
        };
        // Other tables than the view's (a table skipped, a sub-folder given): the whole view
        // is read below, restricted to the tables loaded.
        if keys.is_ok()
            && let Some(v) = view?
        {
            if v.tables.is_empty() {
                return Err(no_table(&v.archs));
            }
            return Ok((Codec::new(v.tables)?, v.model));
        }
    }
    let (codec, _, model) = load_view_model(specs, view)?;
    if !codec.archs().contains(&arch) {
        return Err(no_table(&codec.archs()));
    }
    Ok((codec, model))
}

/// One line of `decode`'s text output (word, key, text, verdict), as from [`predict`] and
/// [`shown_text`], with no allocation for a legal word.
fn decode_line(
    codec: &Codec,
    r: &Renderer,
    model: Option<&Model>,
    arch: Arch,
    w: Word,
    out: &mut TextBuf,
    scratch: &mut Decoded,
) {
    use sass_conform::conform::{legality, verdict_name};
    use sass_conform::reading::legality::Legality;
    if decode_chosen(codec, model, arch, w, scratch) {
        let d: &Decoded = scratch;
        if legality(codec, model, d) == Legality::Legal {
            push_word(w, out);
            out.push('\t');
            out.push_str(&codec.variant(d.id).key);
            out.push('\t');
            r.render_buf(codec, d, out);
            out.push('\t');
            out.push_str(verdict_name(codec, model, d));
            out.push('\n');
            return;
        }
    }
    let p = predict(codec, r, model, arch, w);
    out.push_str(&p.word);
    out.push('\t');
    out.push_str(p.key.as_deref().unwrap_or("-"));
    out.push('\t');
    out.push_str(&shown_text(&p));
    out.push('\t');
    out.push_str(p.verdict.name());
    out.push('\n');
}

/// Decodes `w` into the caller's `scratch` as the learned reading chooses among the variants
/// that match (`conform::choose` of `codec.decode`), with no new 464-byte struct built,
/// copied or decoded twice per word: the variant is settled first, then its fields are read.
/// False when no variant matches.
#[inline]
fn decode_chosen(
    codec: &Codec,
    model: Option<&Model>,
    arch: Arch,
    w: Word,
    scratch: &mut Decoded,
) -> bool {
    if !codec.match_into(arch, w, scratch) {
        return false;
    }
    if let Some(m) = model {
        m.choose_in_place(codec, scratch);
    }
    codec.read_fields(scratch);
    true
}

/// Appends a word as 32 lowercase hex digits (as [`Word`]'s `Display`).
fn push_word(w: Word, out: &mut TextBuf) {
    out.push_ascii(&word_hex(w.0));
}

/// The 32 lowercase hex digits of `w`, eight at a time: each nibble spread to a byte, then
/// `0` added, and `a` - `0` - 10 more where the nibble is 10 or more.
fn word_hex(w: u128) -> [u8; 32] {
    let mut buf = [0u8; 32];
    for (k, chunk) in buf.chunks_exact_mut(8).enumerate() {
        let mut n = (w >> (96 - 32 * k)) as u32 as u64;
        n = (n | n << 16) & 0x0000_ffff_0000_ffff;
        n = (n | n << 8) & 0x00ff_00ff_00ff_00ff;
        n = (n | n << 4) & 0x0f0f_0f0f_0f0f_0f0f;
        let letters = ((n + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
        chunk.copy_from_slice(&(n + 0x3030_3030_3030_3030 + letters * 0x27).to_be_bytes());
    }
    buf
}

#[cfg(test)]
#[test]
fn words_print_as_display_does() {
    let mut x = 5u64;
    for _ in 0..1000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let w = (x as u128) << 64 | (x.rotate_left(17) ^ 0xfedc_ba98) as u128;
        for w in [w, w >> 37, 0, u128::MAX] {
            assert_eq!(word_hex(w), format!("{}", Word(w)).as_bytes());
        }
    }
}

#[cfg(test)]
#[test]
fn an_empty_patch_says_why() {
    let f = |kind: &str| Finding {
        file: "t.txt".into(),
        line: 3,
        key: "OP_R".into(),
        kind: kind.into(),
        bits: vec![90],
        message: String::new(),
        evidence: Vec::new(),
        reading: None,
    };
    let three = [
        f("field-effect-unexplained"),
        f("sched-value-rejected"),
        f("sched-value-rejected"),
    ];
    assert_eq!(patch_summary(4, 2, &three), "4 hunks over 2 tables");
    assert_eq!(patch_summary(0, 1, &[]), "0 hunks over 1 table");
    assert_eq!(
        patch_summary(0, 1, &three),
        "0 hunks over 1 table: the resolved layouts equal the tables as written (labels, \
         cells, value names, distilled lines); the 3 findings (field-effect-unexplained 1, \
         sched-value-rejected 2) are ones the table format cannot hold: `sass-conform report` \
         (or `resolve --json`) gives each with its evidence"
    );
}

/// Runs `line` over the words of a decode/check call in input order and writes what it
/// appends through one buffered writer: the arguments one by one, stdin (`-`) in large blocks
/// of whole lines (strict hex, lines of at most 4 KiB: see [`sass_conform::words`]) through
/// [`stdin_words`]. A bad line stops the words after the output of those before it.
fn write_words(
    args: &[String],
    line: impl Fn(Word, &mut TextBuf, &mut Decoded) -> Result<()> + Sync,
) -> Result<()> {
    use sass_conform::words::parse_word;
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout());
    let mut one = TextBuf::new();
    let mut scratch = Decoded::EMPTY;
    for a in args {
        if a != "-" {
            one.clear();
            let w = Word(parse_word(a)?);
            line(w, &mut one, &mut scratch)?;
            out.write_all(one.as_bytes())?;
            continue;
        }
        let written = stdin_words(&mut out, &line);
        if written.is_err() {
            out.flush()?;
        }
        written?;
    }
    out.flush()?;
    Ok(())
}

/// What the workers of [`stdin_words`] share about the output: where it goes, whose block is
/// next, and why it stopped.
struct LinesOut<'a, W> {
    out: &'a mut W,
    /// The place of the next block to write (0, 1, ...).
    next: usize,
    /// Set by the first error or panic: nothing more is written.
    stopped: bool,
    /// That error, or the panic of a worker.
    failure: Option<std::thread::Result<anyhow::Error>>,
}

/// Formats stdin's word lines with `line` on [`rayon::current_num_threads`] threads (this one
/// and the rest spawned), each taking the next block of whole lines
/// ([`sass_conform::words::BLOCK_BYTES`]) from the input, formatting it into its own buffer and
/// writing it to `out` once the blocks before it are written: input order, no thread in
/// between, two buffers per thread. The first bad line (or read error) ends the output after
/// the text of the lines before it, as [`parse_lines`] reports it.
///
/// [`parse_lines`]: sass_conform::words::parse_lines
fn stdin_words<W: Write + Send>(
    out: &mut W,
    line: &(impl Fn(Word, &mut TextBuf, &mut Decoded) -> Result<()> + Sync),
) -> Result<()> {
    use sass_conform::words::{BLOCK_BYTES, Block, LineBlocks, parse_lines};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Condvar, Mutex};
    let threads = rayon::current_num_threads().max(1);
    // The input and the next block's place.
    let input = Mutex::new((
        LineBlocks::new(std::io::stdin(), "stdin", BLOCK_BYTES),
        0usize,
    ));
    let stop = AtomicBool::new(false);
    let output = Mutex::new(LinesOut {
        out,
        next: 0,
        stopped: false,
        failure: None,
    });
    let turn = Condvar::new();
    let work = || {
        let mut bytes: Vec<u8> = Vec::new();
        let mut text = TextBuf::new();
        let mut scratch = Decoded::EMPTY;
        while !stop.load(Ordering::Relaxed) {
            // Take the next block (copied out, so the input is free for the next thread).
            let (seq, first_line, read_error) = {
                let Ok(mut guard) = input.lock() else { return };
                let (blocks, count) = &mut *guard;
                let seq = *count;
                match blocks.next_block() {
                    Ok(Some(b)) => {
                        bytes.clear();
                        bytes.extend_from_slice(b.bytes);
                        *count += 1;
                        (seq, b.first_line, None)
                    }
                    Ok(None) => return,
                    Err(e) => {
                        // The input ends here for every thread; reported in its turn.
                        stop.store(true, Ordering::Relaxed);
                        *count += 1;
                        (seq, 0, Some(anyhow::Error::from(e)))
                    }
                }
            };
            let formatted = match read_error {
                Some(e) => {
                    text.clear();
                    Ok(Some(e))
                }
                None => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    text.clear();
                    // Text lines run to about 4.5 times their word's line.
                    text.reserve(bytes.len() * 5);
                    let mut failed: Option<anyhow::Error> = None;
                    let block = Block {
                        bytes: &bytes,
                        first_line,
                    };
                    let parsed = parse_lines(block, "stdin", |w| {
                        if failed.is_none() {
                            failed = line(Word(w), &mut text, &mut scratch).err();
                        }
                    });
                    failed.or(parsed.err().map(Into::into))
                })),
            };
            let Ok(mut o) = output.lock() else { return };
            while !o.stopped && o.next != seq {
                o = match turn.wait(o) {
                    Ok(o) => o,
                    Err(_) => return,
                };
            }
            if o.stopped {
                return;
            }
            let failure = match formatted {
                Ok(error) => match o.out.write_all(text.as_bytes()) {
                    Ok(()) => error.map(Ok),
                    Err(e) => Some(Ok(e.into())),
                },
                Err(panic) => Some(Err(panic)),
            };
            o.next += 1;
            if failure.is_some() {
                o.stopped = true;
                o.failure = failure;
                stop.store(true, Ordering::Relaxed);
            }
            drop(o);
            turn.notify_all();
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(work);
        }
        work();
    });
    let o = output
        .into_inner()
        .map_err(|_| anyhow::anyhow!("stdin: a worker failed"))?;
    match o.failure {
        None => Ok(()),
        Some(Ok(e)) => Err(e),
        Some(Err(panic)) => std::panic::resume_unwind(panic),
    }
}

fn encode(a: &EncodeArgs) -> Result<ExitCode> {
    let (codec, _, model) = load_view_model(&a.specs, &a.view)?;
    // Fields are named as in the table (the resolved layouts keep the table's labels); the
    // word is then read as nvdisasm reads it.
    let layouts = load_layouts(&a.specs, &a.view)?;
    let enc = layouts.as_ref().unwrap_or(&codec);
    let id = enc
        .find_key(&a.key, a.arch)
        .with_context(|| format!("no variant with key `{}`", a.key))?;
    let values = assignments(enc, id, &a.assignments)?;
    let opts = EncodeOptions {
        allow_invalid: a.allow_invalid,
    };
    let w = enc.encode(id, &values, opts)?;
    let r = Renderer::new(&codec);
    let arch = codec.table(id).arch.expect("codec tables have an arch");
    let p = predict(&codec, &r, model.as_ref(), arch, w);
    outln!("{}\t{}\t{}", w, shown_text(&p), p.verdict.name());
    Ok(ExitCode::SUCCESS)
}

/// The text column of `decode`/`encode`: the predicted text, or why there is none
/// (`(another instruction: LDG)`, `(illegal: undefined value 0x10 in TABLES_opex_0)`). A word
/// the learned reading refuses while the table's verdict (the next column) is `valid` says so
/// (`(illegal: Unrecognized operation ...; every field is valid by the table)`): nvdisasm
/// refuses what the table allows.
fn shown_text(p: &sass_conform::conform::Prediction) -> String {
    use sass_conform::codec::Verdict;
    use sass_conform::reading::legality::Legality;
    if let Some(t) = &p.text {
        return t.clone();
    }
    let table_allows = match p.verdict {
        Verdict::Valid { .. } => "; every field is valid by the table",
        _ => "",
    };
    match &p.legality {
        Some(Legality::OtherMnemonic { mnemonic }) => format!("(another instruction: {mnemonic})"),
        Some(Legality::Undefined { table, value }) => {
            format!("(illegal: undefined value {value:#x} in {table}{table_allows})")
        }
        Some(Legality::Unrecognized { reason }) => format!("(illegal: {reason}{table_allows})"),
        _ => format!("({})", explain(p)),
    }
}

/// Field values from `LABEL=VALUE` assignments (others 0).
fn assignments(codec: &Codec, id: VariantId, given: &[String]) -> Result<Vec<u64>> {
    let v = codec.variant(id);
    let mut values = vec![0u64; v.fields.len()];
    let squash = |s: &str| s.replace([' ', '_'], "").to_ascii_lowercase();
    for a in given {
        let (label, val) = a
            .split_once('=')
            .with_context(|| format!("`{a}` is not LABEL=VALUE"))?;
        let i = v
            .fields
            .iter()
            .position(|f| squash(&f.label) == squash(label))
            .with_context(|| {
                let labels: Vec<&str> = v.fields.iter().map(|f| f.label.as_str()).collect();
                format!("{} has no field `{label}`; fields: {labels:?}", v.key)
            })?;
        let f = &v.fields[i];
        values[i] = match parse_number(val) {
            Some(n) => n,
            None => field_group(v, f)
                .and_then(|g| {
                    g.values.iter().find(|r| match &r.name {
                        ModifierName::Named(n) => n == val,
                        ModifierName::Invalid(n) => format!("INVALID{n}") == val,
                        _ => false,
                    })
                })
                .map(|r| r.value as u64)
                .with_context(|| format!("`{val}` is neither a number nor a value of `{label}`"))?,
        };
    }
    Ok(values)
}

fn parse_number(s: &str) -> Option<u64> {
    if let Some(h) = s.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()
    } else if let Some(b) = s.strip_prefix("0b") {
        u64::from_str_radix(b, 2).ok()
    } else {
        s.parse().ok()
    }
}

fn oracle_run(a: &OracleRunArgs) -> Result<ExitCode> {
    oracle::interrupt::install()?;
    let nv = configure(Nvdisasm::locate(a.nvdisasm.as_deref())?, a.timeout)?;
    let nv = match a.chunk_words {
        Some(n) => nv.with_chunk_words(n),
        None => nv,
    };
    let hinted = if a.hint {
        Some(load_view_model(&a.specs, &a.view)?)
    } else {
        None
    };
    let hint = |w: u128| {
        hinted.as_ref().is_some_and(|(codec, _, model)| {
            sass_conform::conform::hint::likely_legal(codec, model.as_ref(), a.arch, Word(w))
        })
    };
    let s = oracle::run_words(&nv, a.arch, Some(&a.words), Some(&a.out), &hint, true)?;
    eprintln!("{}", s.line());
    Ok(ExitCode::SUCCESS)
}

/// `nv` with the `--timeout` given, if any (a positive number of seconds).
fn configure(nv: Nvdisasm, timeout: Option<f64>) -> Result<Nvdisasm> {
    Ok(match timeout {
        Some(t) if t > 0.0 && t.is_finite() => {
            nv.with_timeout(std::time::Duration::from_secs_f64(t))
        }
        Some(t) => bail!("--timeout {t}: expected a positive number of seconds"),
        None => nv,
    })
}

fn record(a: &RecordArgs) -> Result<ExitCode> {
    oracle::interrupt::install()?;
    let nv = configure(Nvdisasm::locate(a.nvdisasm.as_deref())?, a.timeout)?;
    let codec = load_codec(&a.specs)?;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let mut writer = oracle::OracleWriter::open(&a.out)?;
    for t in &codec.tables {
        let arch = t.arch.expect("codec tables have an arch");
        let mut words: Vec<u128> = Vec::new();
        for v in &t.variants {
            words.extend(sweep_words(v, a.per_variant, a.seed).iter().map(|w| w.0));
        }
        let rel = format!("{}/{}.tsv", arch.to_string().to_lowercase(), t.mnemonic);
        let label = format!("{} {}", arch, t.mnemonic);
        stage_words(
            &nv,
            &mut writer,
            &a.out,
            arch,
            &label,
            words,
            &rel,
            &command,
        )?;
    }
    writer.commit()?;
    eprintln!("{}: committed with MANIFEST.json", a.out.display());
    Ok(ExitCode::SUCCESS)
}

/// Asks nvdisasm about `words` of `arch` (sorted and deduplicated first; with a progress bar
/// named `label`) and stages the answers as `rel` under the oracle `out`, saying how many are
/// legal.
#[allow(clippy::too_many_arguments)]
fn stage_words(
    nv: &Nvdisasm,
    writer: &mut oracle::OracleWriter,
    out: &Path,
    arch: Arch,
    label: &str,
    mut words: Vec<u128>,
    rel: &str,
    command: &str,
) -> Result<()> {
    words.sort_unstable();
    words.dedup();
    let pb = indicatif::ProgressBar::new(words.len() as u64).with_style(
        indicatif::ProgressStyle::with_template(
            "{msg:24} [{bar:40}] {pos}/{len} words {per_sec} eta {eta}",
        )?
        .progress_chars("=> "),
    );
    pb.set_message(label.to_string());
    let answers = nv.disassemble(arch, &words, Some(&pb))?;
    pb.finish();
    let mut entries: Vec<Entry> = words
        .iter()
        .zip(answers)
        .map(|(&word, answer)| Entry { arch, word, answer })
        .collect();
    writer.stage_entries(rel, arch, &mut entries, nv.version(), command)?;
    let legal = entries.iter().filter(|e| e.answer.is_legal()).count();
    eprintln!(
        "{}: {} words, {} legal, {} illegal (staged)",
        out.join(rel).display(),
        entries.len(),
        legal,
        entries.len() - legal
    );
    Ok(())
}

fn oracle_manifest(a: &ManifestArgs) -> Result<ExitCode> {
    if a.update {
        let command = std::env::args().collect::<Vec<_>>().join(" ");
        let mut writer = oracle::OracleWriter::open(&a.oracle)?;
        let n = writer.rehash(&a.add, a.nvdisasm_version.as_deref(), &command)?;
        writer.commit()?;
        eprintln!(
            "{}: {n} records updated",
            a.oracle.join("MANIFEST.json").display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let dir = &sass_conform::locate::data_path(&a.oracle);
    let listed = oracle::ListedFiles::open(dir)?;
    let n = oracle::for_each_entry_where(dir, |_| true, |_| {})?;
    outln!(
        "{}: {} files, {n} entries: all match {}",
        dir.display(),
        listed.files.len(),
        listed.manifest_path.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn record_combos(a: &CombosArgs) -> Result<ExitCode> {
    use sass_conform::reading::combos;
    oracle::interrupt::install()?;
    let nv = Nvdisasm::locate(a.nvdisasm.as_deref())?;
    let written = load_codec(&a.specs)?;
    let (view, _) = load_view(&a.specs, &a.view)?;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let mut writer = oracle::OracleWriter::open(&a.out)?;
    for (ti, t) in written.tables.iter().enumerate() {
        let arch = t.arch.expect("codec tables have an arch");
        let mut words: Vec<u128> = Vec::new();
        for vi in 0..t.variants.len() {
            let v = &view.tables[ti].variants[vi];
            words.extend(combos::random_words(v, a.per_variant, a.split.seed()));
        }
        let rel = combos::split_file(a.split, arch, &t.mnemonic);
        let label = format!("{} {} {}", a.split.name(), arch, t.mnemonic);
        stage_words(
            &nv,
            &mut writer,
            &a.out,
            arch,
            &label,
            words,
            &rel,
            &command,
        )?;
    }
    writer.commit()?;
    eprintln!("{}: committed with MANIFEST.json", a.out.display());
    Ok(ExitCode::SUCCESS)
}

/// `oracle forms`: the form-bit experiment of `reading::forms`, in rounds (each round asks
/// nvdisasm about the words the answers so far call for), on the resolved layouts' fixed words,
/// with the quiet-word experiment of `reading::semicolon`. Resumable: a table's recorded file
/// is read first and only the words it lacks are asked (nvdisasm is found only then); a file
/// that lacks none is left as it is.
fn record_forms(a: &FormsArgs) -> Result<ExitCode> {
    use sass_conform::reading::{flips::Answers, forms};
    oracle::interrupt::install()?;
    let codec = match load_layouts(&a.specs, &a.view)? {
        Some(c) => c,
        None => load_codec(&a.specs)?,
    };
    let written = load_codec(&a.specs)?;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let mut writer = oracle::OracleWriter::open(&a.out)?;
    let mut nv: Option<Nvdisasm> = None;
    for t in &codec.tables {
        let arch = t.arch.expect("codec tables have an arch");
        let rel = forms::forms_file(arch, &t.mnemonic);
        let path = a.out.join(&rel);
        let mut entries = match path.is_file() {
            true => oracle::read_entries(&path)?,
            false => Vec::new(),
        };
        let recorded = entries.len();
        let own = written
            .tables
            .iter()
            .find(|w| w.arch == t.arch && w.mnemonic == t.mnemonic);
        let sweeps = a.out.join(format!(
            "{}/{}.tsv",
            arch.to_string().to_lowercase(),
            t.mnemonic
        ));
        let sweeps = match (own, sweeps.is_file()) {
            (Some(_), true) => oracle::read_entries(&sweeps)?,
            _ => Vec::new(),
        };
        for round in 1..=4 {
            let mut want = forms_words(t, arch, &entries);
            if let Some(own) = own {
                want.extend(rebase_words(own, arch, &sweeps, &entries));
                want.sort_unstable();
                want.dedup();
            }
            if want.is_empty() {
                break;
            }
            let nv = match &mut nv {
                Some(n) => n,
                None => nv.insert(Nvdisasm::locate(a.nvdisasm.as_deref())?),
            };
            let pb = indicatif::ProgressBar::new(want.len() as u64);
            pb.set_message(format!("{arch} {} round {round}", t.mnemonic));
            let answers = nv.disassemble(arch, &want, Some(&pb))?;
            pb.finish_and_clear();
            entries.extend(want.iter().zip(answers).map(|(&word, answer)| Entry {
                arch,
                word,
                answer,
            }));
        }
        let found: usize = {
            let known = Answers::new(&entries);
            t.variants
                .iter()
                .map(|v| forms::forms_of(v, arch, &known).len())
                .sum()
        };
        let Some(nv) = nv.as_ref().filter(|_| entries.len() > recorded) else {
            eprintln!(
                "{}: {} words, {found} form bits (complete: nothing asked)",
                path.display(),
                entries.len()
            );
            continue;
        };
        writer.stage_entries(&rel, arch, &mut entries, nv.version(), &command)?;
        eprintln!(
            "{}: {} words ({} new), {found} form bits (staged)",
            path.display(),
            entries.len(),
            entries.len() - recorded
        );
    }
    writer.commit()?;
    eprintln!("{}: committed with MANIFEST.json", a.out.display());
    Ok(ExitCode::SUCCESS)
}

/// The flips around the legal neighbour of each variant of the written table `t` whose fixed
/// word nvdisasm refuses ([`sass_conform::reading::flips::rebase_words`]), from the sweep
/// answers (`sweeps`, where the fixed words and their flips are) and this file's (`entries`).
fn rebase_words(t: &spec::Table, arch: Arch, sweeps: &[Entry], entries: &[Entry]) -> Vec<u128> {
    use sass_conform::reading::flips::{self, Answers};
    let known = Answers::of_parts(&[sweeps, entries]);
    t.variants
        .iter()
        .flat_map(|v| flips::rebase_words(v, &t.mnemonic, arch, &known))
        .collect()
}

/// The words of the form-bit and quiet-word experiments for table `t` on `arch` that the
/// answers so far call for and lack, sorted, once each.
fn forms_words(t: &spec::Table, arch: Arch, entries: &[Entry]) -> Vec<u128> {
    use sass_conform::reading::{flips::Answers, forms, semicolon};
    let known = Answers::new(entries);
    let mut want: Vec<u128> = t
        .variants
        .iter()
        .flat_map(|v| {
            let v = &*forms::centred(v, &t.mnemonic, arch, &known);
            let mut w = forms::experiment_words(v, arch, &known);
            w.extend(semicolon::probe_words(v, arch, &known));
            w
        })
        .filter(|&w| known.get(arch, w).is_none())
        .collect();
    want.sort_unstable();
    want.dedup();
    want
}

/// What one `oracle sweeps` run asked.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SweepRound {
    /// Words recorded.
    pub(crate) added: usize,
    /// Of those, the words the reading it started from (the resolved file it read) reads
    /// otherwise than nvdisasm does (text or verdict; words of another instruction not
    /// counted).
    pub(crate) misread: usize,
}

/// `oracle sweeps`: records the sweep words [`form_sweep_words`] asks for that are not yet
/// recorded (added to `sweeps/<ARCH>-<MNEMONIC>.tsv`); returns how many were added and how
/// many of them the reading read before misreads ([`SweepRound`]).
fn record_sweeps(a: &FormsArgs) -> Result<SweepRound> {
    use sass_conform::reading::legality;
    use sass_conform::reading::printer::{form_sweep_words, samples_by_variant};
    oracle::interrupt::install()?;
    let nv = Nvdisasm::locate(a.nvdisasm.as_deref())?;
    let (codec, _, model) = load_view_model(&a.specs, &a.view)?;
    let model = model.unwrap_or_default();
    let entries = load_entries_where(&a.out, sass_conform::reading::combos::is_learnable)?;
    let per = samples_by_variant(&codec, &model, &entries);
    // Every answer by the table its word decodes as, for the index sweep's constraint tables.
    let mut answers_by_table: Vec<Vec<(u128, &oracle::Answer)>> =
        vec![Vec::new(); codec.tables.len()];
    for e in &entries {
        if let Some(d) = codec.decode(e.arch, sass_conform::codec::Word(e.word)) {
            answers_by_table[d.id.table as usize].push((e.word, &e.answer));
        }
    }
    let known: std::collections::HashSet<(Arch, u128)> =
        entries.iter().map(|e| (e.arch, e.word)).collect();
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let mut writer = oracle::OracleWriter::open(&a.out)?;
    let mut staged = 0;
    let mut round = SweepRound::default();
    let renderer = Renderer::new(&codec);
    let comparer = sass_conform::conform::Comparer::new(&codec, &renderer, Some(&model));
    for (ti, t) in codec.tables.iter().enumerate() {
        let arch = t.arch.expect("codec tables have an arch");
        let mut want: Vec<u128> = t
            .variants
            .iter()
            .enumerate()
            .flat_map(|(vi, v)| {
                let empty = Vec::new();
                let s = per.get(&(ti as u16, vi as u16)).unwrap_or(&empty);
                form_sweep_words(v, s)
            })
            .chain(legality::index_sweep_words(
                &t.variants,
                &answers_by_table[ti],
            ))
            .filter(|w| !known.contains(&(arch, *w)))
            .collect();
        want.sort_unstable();
        want.dedup();
        if want.is_empty() {
            continue;
        }
        let pb = indicatif::ProgressBar::new(want.len() as u64);
        pb.set_message(format!("{arch} {} sweeps", t.mnemonic));
        let answers = nv.disassemble(arch, &want, Some(&pb))?;
        pb.finish_and_clear();
        let rel = format!("sweeps/{arch}-{}.tsv", t.mnemonic);
        // A later round adds to the file: what is recorded stays.
        let recorded = a.out.join(&rel);
        let mut rows: Vec<Entry> = match recorded.is_file() {
            true => oracle::read_entries(&recorded)?,
            false => Vec::new(),
        };
        round.misread += want
            .iter()
            .zip(&answers)
            .filter(|(w, answer)| comparer.compare(arch, **w, answer).disagreement().is_some())
            .count();
        rows.extend(
            want.iter()
                .zip(answers)
                .map(|(&word, answer)| Entry { arch, word, answer }),
        );
        round.added += want.len();
        writer.stage_entries(&rel, arch, &mut rows, nv.version(), &command)?;
        eprintln!(
            "{}: {} words (staged)",
            a.out.join(&rel).display(),
            rows.len()
        );
        staged += 1;
    }
    if staged > 0 {
        writer.commit()?;
        eprintln!("{}: committed with MANIFEST.json", a.out.display());
    } else {
        eprintln!("no variant needs a sweep around its forms");
    }
    Ok(round)
}

fn diff_cmd(a: &DiffArgs) -> Result<ExitCode> {
    use sass_conform::conform::DiffCounts;
    use sass_conform::reading::combos::figure_of;
    let (codec, view, model) = load_view_model(&a.specs, &a.view)?;
    let r = Renderer::new(&codec);
    let mut differ = Differ::new(&codec, &r).with_model(model.as_ref());
    let oracle_dir = &sass_conform::locate::data_path(&a.oracle);
    let mut figures: std::collections::BTreeMap<String, DiffCounts> = Default::default();
    if !oracle_dir.is_dir() {
        bail!(
            "{}: no such oracle folder (record one with `sass-conform oracle record`)",
            oracle_dir.display()
        );
    }
    // The learned reading learned from the project's oracle/ (or, in `learn`, from the
    // workspace's): words of another folder count as "other", never as learned from.
    let project = sass_conform::locate::data_path(Path::new("oracle"));
    let is_project = a.learned_here
        || std::fs::canonicalize(oracle_dir).ok() == std::fs::canonicalize(&project).ok();
    let mut words = match &a.words {
        Some(path) => Some(disagreement_writer(path)?),
        None => None,
    };
    let mut write_error: Option<anyhow::Error> = None;
    let mut written: std::collections::HashSet<(String, Arch, u128)> = Default::default();
    let n = oracle::for_each_entry_in_files(oracle_dir, oracle::is_evidence_file, |p, e| {
        let before = differ.counts().clone();
        let outcome = differ.add(&e);
        let mut figure = figure_of(p);
        if !is_project && figure == "learned" {
            figure = "other".into();
        }
        // A word recorded in two files of one figure (a sweep and a combination, say) is one
        // row.
        if let (Some(w), Some(d)) = (words.as_mut(), outcome.disagreement())
            && write_error.is_none()
            && written.insert((figure.clone(), e.arch, e.word))
            && let Err(err) = write_disagreement(w, &figure, d)
        {
            write_error = Some(err);
        }
        figures
            .entry(figure)
            .or_default()
            .add(&differ.counts().since(&before));
    })?;
    if let (Some(err), Some(path)) = (write_error, &a.words) {
        return Err(err.context(format!("{}: the words file", path.display())));
    }
    if let (Some(mut w), Some(path)) = (words, &a.words) {
        w.flush()
            .with_context(|| format!("{}: writing the disagreeing words", path.display()))?;
    }
    if n == 0 {
        bail!("{}", no_entries(oracle_dir));
    }
    let mut res = differ.finish();
    res.figures = figures;
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&res)?);
        return Ok(ExitCode::SUCCESS);
    }
    print_figures(&res.figures, oracle_dir)?;
    let c = &res.counts;
    outln!("tables                       {view}");
    outln!("entries                      {}", c.total);
    outln!("match                        {}", c.matched);
    outln!("agree illegal                {}", c.agree_illegal);
    outln!("text mismatch                {}", c.text_mismatch);
    outln!(
        "oracle-illegal, we decode    {}",
        c.oracle_illegal_we_decode
    );
    outln!(
        "we reject, oracle decodes    {}",
        c.we_reject_oracle_decodes
    );
    outln!("no variant                   {}", c.no_variant);
    outln!(
        "agreement (every answer above, learned-from included; the headline is the check \
         split): legal text {:.2}%, legal/illegal verdict {:.2}%",
        100.0 * c.legal_agreement(),
        100.0 * c.verdict_agreement()
    );
    for g in res.groups.iter().take(a.top) {
        outln!(
            "{:6}  {}  {}  {}\n        word {} ({})\n        nvdisasm: {}\n        diff:     {}",
            g.count,
            g.key,
            g.field,
            g.cause,
            g.example.word,
            g.example.arch,
            g.example.nvdisasm,
            g.example.diff
        );
    }
    if a.top == 0 && !res.groups.is_empty() {
        outln!(
            "{} groups of words read otherwise or matched to no variant ({} no variant; list \
             them with --top N or --json)",
            res.groups.len(),
            res.groups
                .iter()
                .filter(|g| g.cause == "no-variant")
                .count()
        );
    } else if res.groups.len() > a.top {
        outln!(
            "... {} more groups (--top, --json)",
            res.groups.len() - a.top
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// A CSV writer for `diff --words`, its header written.
fn disagreement_writer(path: &Path) -> Result<csv::Writer<std::fs::File>> {
    let mut w = csv::Writer::from_path(path)
        .with_context(|| format!("{}: cannot create the words file", path.display()))?;
    w.write_record([
        "figure", "arch", "word", "cause", "key", "field", "nvdisasm", "ours",
    ])
    .with_context(|| format!("{}: writing the header", path.display()))?;
    Ok(w)
}

/// One disagreeing word as a row of `diff --words`.
fn write_disagreement(
    w: &mut csv::Writer<std::fs::File>,
    figure: &str,
    d: &sass_conform::conform::Difference,
) -> Result<()> {
    let m = &d.mismatch;
    w.write_record([
        figure,
        &m.arch.to_string(),
        &m.word,
        d.cause,
        &d.key,
        &d.field,
        &m.nvdisasm,
        &ours_text(d),
    ])
    .context("writing a disagreeing word")
}

/// Our side of a disagreeing word for the words file: our text, or for a word we refuse
/// (`we-reject`) why, as `(refused: fixed bits [91])`, never an empty cell.
fn ours_text(d: &sass_conform::conform::Difference) -> String {
    match &d.mismatch.ours {
        Some(t) => t.clone(),
        None => format!("(refused: {})", d.field),
    }
}

/// The headline of `diff`: the check split per table and its total, then the compiler's
/// words per arch (both never learned from), then what the reading learned from.
fn print_figures(
    figures: &std::collections::BTreeMap<String, sass_conform::conform::DiffCounts>,
    dir: &Path,
) -> Result<()> {
    use sass_conform::conform::DiffCounts;
    let line = |name: &str, c: &DiffCounts| {
        let legal = c.matched + c.text_mismatch + c.we_reject_oracle_decodes;
        // No legal word read by a table (its table skipped, or another instruction's words):
        // no figure, not 100% of nothing.
        if legal == 0 && c.no_variant > 0 {
            return format!(
                "  {name:<22} {:>7} words  no table loaded reads them (a table skipped, or \
                 another instruction's words)",
                c.total
            );
        }
        format!(
            "  {name:<22} {:>7} words  legal text {:>7.3}% ({}/{})  verdict {:>7.3}%",
            c.total,
            100.0 * c.legal_agreement(),
            c.matched,
            legal,
            100.0 * c.verdict_agreement()
        )
    };
    for (title, prefix) in [
        ("check split (never learned from)", "check "),
        (
            "compiler words (ptxas cubins, never learned from)",
            "ptxas ",
        ),
    ] {
        let rows: Vec<_> = figures
            .iter()
            .filter(|(k, _)| k.starts_with(prefix))
            .collect();
        if rows.is_empty() {
            continue;
        }
        outln!("{title}");
        let mut all = DiffCounts::default();
        for (k, c) in rows {
            outln!("{}", line(&k[prefix.len()..], c));
            all.add(c);
        }
        outln!("{}", line("all", &all));
    }
    if let Some(c) = figures.get("learned") {
        outln!("learned from (sweeps, learn split)");
        outln!("{}", line("all", c));
    }
    if let Some(c) = figures.get("other") {
        outln!(
            "words of {} outside the check split (learned from when the reading was learned from this folder, as in a `learn` workspace)",
            dir.display()
        );
        outln!("{}", line("all", c));
    }
    Ok(())
}

fn lint_cmd(a: &LintArgs) -> Result<ExitCode> {
    let codec = Codec::new(load_some_tables(&a.paths, a.arch)?)?;
    let findings = lint(&codec);
    print_findings(&findings, a.json)?;
    Ok(ExitCode::SUCCESS)
}

/// Findings as lines (`file:line: [kind] key: message (bits)`) plus a count by kind, or as
/// JSON lines.
fn print_findings(findings: &[Finding], json: bool) -> Result<()> {
    let out = std::io::stdout().lock();
    let mut out = BufWriter::new(out);
    let mut by_kind: std::collections::BTreeMap<&str, usize> = Default::default();
    for f in findings {
        *by_kind.entry(&f.kind).or_default() += 1;
        if json {
            serde_json::to_writer(&mut out, f)?;
            writeln!(out)?;
        } else {
            writeln!(out, "{}", f.line_text())?;
        }
    }
    if !json {
        writeln!(out, "{} findings", findings.len())?;
        for (k, n) in by_kind {
            writeln!(out, "  {n:5} {k}")?;
        }
    }
    out.flush()?;
    Ok(())
}

fn corpus_seed(
    out: &Path,
    oracle_dir: &Path,
    specs: &Path,
    per_variant: usize,
) -> Result<ExitCode> {
    let codec = load_codec(specs)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let mut seeds: Vec<(VariantId, Word)> = codec
        .ids()
        .map(|id| (id, Word(codec.variant(id).fixed_value)))
        .collect();
    let mut taken: std::collections::HashMap<VariantId, usize> = Default::default();
    {
        let entries = load_entries(oracle_dir)?;
        for e in entries.iter().filter(|e| e.answer.is_legal()) {
            if let Some(d) = codec.decode(e.arch, Word(e.word)) {
                let n = taken.entry(d.id).or_default();
                if *n < per_variant {
                    *n += 1;
                    seeds.push((d.id, Word(e.word)));
                }
            }
        }
    }
    // A fixed word that is also a recorded word is one seed (one file name).
    let named: std::collections::BTreeMap<String, (VariantId, Word)> = seeds
        .into_iter()
        .map(|(id, w)| (format!("seed-{}-{}", codec.variant(id).key, w), (id, w)))
        .collect();
    for (name, (id, w)) in &named {
        std::fs::write(out.join(name), FuzzCase::seed_bytes(&codec, *id, *w))
            .with_context(|| format!("writing into {}", out.display()))?;
    }
    eprintln!("{} seeds written to {}", named.len(), out.display());
    Ok(ExitCode::SUCCESS)
}

/// The learned reading that explains `resolve`'s findings in table words, or none: a missing
/// file is silent (no reading learned yet; `--resolved /nonexistent` asks for the findings
/// without one), a reading for other tables (stale: the tables changed since) is named on
/// stderr and left out. Errors: any other file that cannot be read, or is not a resolved file
/// (garbage, damaged indices), as in `decode`.
fn explaining_reading(
    path: &std::path::Path,
    tables: &[sass_conform::spec::Table],
) -> Result<Option<ResolvedSet>> {
    use sass_conform::reading::resolved::ResolvedError;
    match ResolvedSet::read(path, tables) {
        Ok(set) => Ok(Some(set)),
        Err(ResolvedError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            Ok(None)
        }
        Err(e @ ResolvedError::Stale { .. }) => {
            eprintln!("sass-conform: warning: {e}; findings are shown without it");
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

fn resolve_cmd(a: &ResolveArgs) -> Result<ExitCode> {
    use sass_conform::conform::resolve::bit_findings_read;
    use sass_conform::reading::flips::{Answers, read_bits};
    let codec = Codec::new(load_some_tables(&a.paths, a.arch)?)?;
    // Never the check split nor the compiler's words: they are what the reading is scored on.
    let entries = load_entries_where(&a.oracle, sass_conform::reading::combos::is_learnable)?;
    let answers = Answers::new(&entries);
    // The findings are printed, or annotate the patch; `--quiet` without `--patch` (what
    // `learn` runs after each step) uses none of them, and does not work them out.
    let (findings, causes) = if a.quiet && !a.patch {
        (Vec::new(), Vec::new())
    } else {
        // The learned reading explains bits in table words, when resolved/tables.json matches.
        let set = explaining_reading(&a.resolved, &codec.tables)?;
        let readings = read_bits(&codec, &answers);
        let mut findings =
            bit_findings_read(&codec, &readings, set.as_ref().map(|s| &s.tables[..]));
        findings.extend(sass_conform::conform::forms::form_findings(
            &codec, &answers,
        ));
        if let Some(s) = &set {
            findings.extend(sass_conform::conform::hidden::hidden_findings(
                &codec, &s.tables, &entries,
            ));
            findings.extend(sass_conform::conform::aliases::alias_findings(
                &codec, &s.tables, &entries,
            ));
        }
        let texts = sass_conform::conform::names::texts_by_arch(&entries);
        findings.extend(sass_conform::conform::names::name_findings(
            &codec, &readings, &texts,
        ));
        let causes = sass_conform::conform::rootcause::group(&findings);
        (findings, causes)
    };
    let resolved = (a.write.is_some() || a.emit_tables.is_some() || a.patch)
        .then(|| resolve_tables(&codec, &entries));
    // The corrected tables: for the patch and the emitted tables only.
    let corrected = resolved
        .as_ref()
        .filter(|_| a.emit_tables.is_some() || a.patch)
        .map(|r| sass_conform::conform::patch::corrections(&codec.tables, r, &answers));
    let mut out = BufWriter::new(std::io::stdout().lock());
    if a.quiet {
    } else if let (true, Some(r)) = (a.patch, &corrected) {
        patch_out(&mut out, &a.paths, &codec.tables, r, &findings, &answers)?;
    } else {
        sass_conform::conform::rootcause::print(&mut out, &findings, &causes, a.json)?;
    }
    out.flush()?;
    if let (Some(dir), Some(tables)) = (&a.emit_tables, &corrected) {
        emit_tables(dir, &a.paths, &codec.tables, tables)?;
    }
    if let Some(path) = &a.write {
        let tables = resolved.clone().expect("resolved when --write is given");
        let reading = sass_conform::reading::resolved::read_tables(tables.clone(), &entries);
        let manifest = Manifest::read_or_default(
            sass_conform::locate::data_path(&a.oracle).join("MANIFEST.json"),
        )?;
        let mut versions: Vec<String> = manifest
            .files
            .iter()
            .map(|f| f.nvdisasm_version.clone())
            .collect();
        versions.sort();
        versions.dedup();
        let mut model = Model::learn(&Codec::new(reading.clone())?, &entries);
        let mut reading = reading;
        if a.skip_printers {
            eprintln!("printers: not learned in this step");
        } else {
            let mut carried = a
                .carried
                .as_ref()
                .map(|c| c.lock().unwrap_or_else(|e| e.into_inner()));
            let ps = sass_conform::reading::printer::learn_printers(
                &mut reading,
                &mut model,
                &entries,
                carried.as_deref_mut(),
            )?;
            eprintln!(
                "printers: {} of {} variants read by a learned printer; {} of {} legal answers learned from reproduced",
                ps.kept, ps.variants, ps.reproduced, ps.answers
            );
        }
        model.relearn_recognizers(&Codec::new(reading.clone())?, &entries);
        let set = ResolvedSet {
            provenance: Provenance {
                command: std::env::args().collect::<Vec<_>>().join(" "),
                date: oracle::today_utc(),
                nvdisasm_versions: versions,
                oracle_entries: entries.len(),
                method: sass_conform::reading::resolved::METHOD.into(),
            },
            model,
            tables: reading,
            layouts: tables,
        };
        // Ctrl-C while learning: nothing is written.
        oracle::interrupt::check()?;
        set.write(path)?;
        if a.skip_printers {
            eprintln!("{}: layouts and model written", path.display());
            return Ok(ExitCode::SUCCESS);
        }
        let c2 = Codec::new(set.tables)?;
        let r2 = Renderer::new(&c2);
        let mut differ = Differ::new(&c2, &r2).with_model(Some(&set.model));
        for e in &entries {
            differ.add(e);
        }
        let res = differ.finish();
        eprintln!(
            "{}: resolved tables written; on {} recorded answers they agree {:.2}% on legal text, {:.2}% on legal/illegal",
            path.display(),
            entries.len(),
            100.0 * res.counts.legal_agreement(),
            100.0 * res.counts.verdict_agreement()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `resolve --patch`: every table's patch, paths as `<folder name>/<path in it>` (or as
/// loaded for a file given directly), hunks annotated with root causes.
fn patch_out(
    out: &mut impl Write,
    paths: &[PathBuf],
    tables: &[spec::Table],
    resolved: &[spec::Table],
    findings: &[Finding],
    answers: &sass_conform::reading::flips::Answers,
) -> Result<()> {
    let mut hunks = 0;
    for mut p in sass_conform::conform::patch::patches(tables, resolved, findings, answers)? {
        let path = Path::new(&p.path).to_path_buf();
        if let Some((dir, rel)) = paths
            .iter()
            .filter(|p| p.is_dir())
            .find_map(|p| path.strip_prefix(p).ok().map(|rel| (p, rel)))
        {
            let name = dir.file_name().map(PathBuf::from).unwrap_or_default();
            p.path = name.join(rel).display().to_string();
        }
        hunks += p.hunks.len();
        write!(out, "{}", p.text())?;
    }
    eprintln!("{}", patch_summary(hunks, tables.len(), findings));
    Ok(())
}

/// The line `resolve --patch` ends with on stderr: the hunk count, and when there is no hunk,
/// why (the resolved layouts already equal the tables as written, so each finding, counted per
/// kind, is one the table format cannot hold).
fn patch_summary(hunks: usize, tables: usize, findings: &[Finding]) -> String {
    let head = format!(
        "{hunks} {} over {tables} {}",
        if hunks == 1 { "hunk" } else { "hunks" },
        if tables == 1 { "table" } else { "tables" }
    );
    if hunks > 0 || findings.is_empty() {
        return head;
    }
    let mut kinds: std::collections::BTreeMap<&str, usize> = Default::default();
    for f in findings {
        *kinds.entry(f.kind.as_str()).or_default() += 1;
    }
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
    format!(
        "{head}: the resolved layouts equal the tables as written (labels, cells, value names, \
         distilled lines); the {} {} ({}) are ones the table format cannot hold: \
         `sass-conform report` (or `resolve --json`) gives each with its evidence",
        findings.len(),
        if findings.len() == 1 {
            "finding"
        } else {
            "findings"
        },
        kinds.join(", ")
    )
}

/// `resolve --emit-tables DIR`: every table corrected by its resolved reading, written to
/// DIR under its path relative to the folder it was found in (a file given directly: its path
/// after the last `specs` folder, else its name).
fn emit_tables(
    dir: &Path,
    paths: &[PathBuf],
    tables: &[spec::Table],
    resolved: &[spec::Table],
) -> Result<()> {
    // The arch of a table without an arch line comes from ARCH_MANIFEST.tsv next to it: kept,
    // so `lint DIR` reads the emitted tables with the same archs.
    let manifest = match paths.iter().find(|p| p.join("ARCH_MANIFEST.tsv").is_file()) {
        Some(p) => Some(std::fs::read_to_string(p.join("ARCH_MANIFEST.tsv"))?),
        None if sass_conform::locate::wants_bundled_tables(paths) => {
            Some(spec::BUNDLED_ARCH_MANIFEST.to_string())
        }
        None => None,
    };
    if let Some(text) = manifest {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let to = dir.join("ARCH_MANIFEST.tsv");
        std::fs::write(&to, text).with_context(|| format!("writing {}", to.display()))?;
    }
    for (t, r) in tables.iter().zip(resolved) {
        let path = Path::new(&t.path);
        let rel = paths
            .iter()
            .filter(|p| p.is_dir())
            .find_map(|p| path.strip_prefix(p).ok())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| {
                let comps: Vec<_> = path.components().collect();
                let after = comps.iter().rposition(|c| c.as_os_str() == "specs");
                match after {
                    Some(i) if i + 1 < comps.len() => comps[i + 1..].iter().collect(),
                    _ => path.file_name().map(PathBuf::from).unwrap_or_default(),
                }
            });
        let text = spec::table_text(&t.path)?;
        let out = spec::emit::emit_table(&text, t, r)?;
        spec::emit::write_emitted(dir, &rel, &out)?;
        let changed = text
            .lines()
            .zip(out.lines())
            .filter(|(a, b)| a != b)
            .count();
        let unwritten = spec::emit::unwritten(t, r).len();
        eprintln!(
            "{}: {changed} lines changed from {}; {unwritten} resolved readings the text format cannot hold",
            dir.join(&rel).display(),
            t.path
        );
    }
    Ok(())
}

#[derive(Args, Debug)]
struct ReportArgs {
    #[command(flatten)]
    view: ViewArgs,
    /// Output folder [default: reports/<today>].
    #[arg(long)]
    out: Option<PathBuf>,
    /// A previous report.json to compare with (e.g. reports/baseline.json).
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Oracle folders, compared together (repeatable).
    #[arg(long, default_values = ["oracle"])]
    oracle: Vec<PathBuf>,
    /// Folder (or file) of tables.
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
    /// Folders of fuzz crashes, <dir>/<target>/<file> (repeatable).
    #[arg(long, default_values = ["corpus/regressions", "fuzz/artifacts"])]
    crashes: Vec<PathBuf>,
    /// Also print, per table, the N largest kinds of nvdisasm-proven finding and the N largest
    /// mismatch groups, one evidence word each (what scripts/main ends with).
    #[arg(long, default_value_t = 0)]
    top: usize,
    /// The printed summary of a `sass-conform campaign` run (its stdout, e.g. the nightly's
    /// OUT/campaign.txt): the report's headline.
    #[arg(long)]
    campaign: Option<PathBuf>,
}

fn report_cmd(a: &ReportArgs) -> Result<ExitCode> {
    use sass_conform::locate;
    use sass_conform::report;
    // Away from the repository (no tables here), the report runs in the repository the
    // binary was built from, so it reads its tables, resolved view, oracle and baseline under
    // the same names (`specs/sm100/TLD.txt`) as there and compares like for like. A path
    // that exists here is still the caller's, and the output is written here.
    let away = locate::wants_bundled_tables(std::slice::from_ref(&a.specs))
        && Path::new(locate::REPO).join(locate::SPECS).is_dir();
    let here = std::env::current_dir().context("reading the current directory")?;
    let input = |p: &Path| match away && here.join(p).exists() {
        true => here.join(p),
        false => p.to_path_buf(),
    };
    let out = (a.out.clone()).unwrap_or_else(|| Path::new("reports").join(oracle::today_utc()));
    let out = if away { here.join(out) } else { out };
    let campaign = match &a.campaign {
        Some(p) => Some(
            std::fs::read_to_string(input(p))
                .with_context(|| format!("reading the campaign summary {}", p.display()))?,
        ),
        None => None,
    };
    let opts = report::Options {
        specs: a.specs.clone(),
        oracle: a.oracle.iter().map(|p| input(p)).collect(),
        resolved: (!a.view.as_written).then(|| input(&a.view.resolved)),
        crash_dirs: a.crashes.iter().map(|p| input(p)).collect(),
    };
    let baseline = a.baseline.as_deref().map(input);
    if away {
        std::env::set_current_dir(locate::REPO)
            .with_context(|| format!("entering the repository {}", locate::REPO))?;
    }
    let done = report::run_with_campaign(&opts, &out, baseline.as_deref(), campaign)?;
    for why in &done.report.inputs.skipped_tables {
        warn_skipped(why);
    }
    outln!("{}", report::summary_text(&done.report).trim_end());
    write!(
        std::io::stdout().lock(),
        "{}",
        report::actions::actions_text(&done.report, a.top)
    )?;
    for f in &done.files {
        outln!("wrote {}", f.display());
    }
    if let Some(line) = report::last_line(&done.report) {
        outln!("{line}");
    }
    Ok(match done.report.regressions().is_empty() {
        true => ExitCode::SUCCESS,
        false => ExitCode::from(1),
    })
}

#[derive(Args, Debug)]
struct CorpusRecordArgs {
    /// Fuzz target the inputs belong to (`roundtrip` or `decode_render`).
    #[arg(long)]
    target: String,
    /// Input files or folders.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Oracle folder to write (<arch>/fuzz-<target>.tsv and MANIFEST.json).
    #[arg(long)]
    out: PathBuf,
    /// Oracle folders whose words are already known (repeatable).
    #[arg(long, default_values = ["oracle"])]
    oracle: Vec<PathBuf>,
    /// nvdisasm binary (else $NVDISASM, PATH, .tools/nvdisasm).
    #[arg(long)]
    nvdisasm: Option<PathBuf>,
    /// Most words to record.
    #[arg(long, default_value_t = 20_000)]
    max: usize,
    /// Print the new words (`arch<TAB>word`) instead of recording them.
    #[arg(long)]
    dry_run: bool,
}

fn corpus_record(a: &CorpusRecordArgs) -> Result<ExitCode> {
    use sass_conform::report::words;
    let codec = Codec::new(spec::bundled_tables()?)?;
    let oracles: Vec<PathBuf> = a
        .oracle
        .iter()
        .map(|p| sass_conform::locate::data_path(p))
        .collect();
    let known = words::known_words(&[oracles, vec![a.out.clone()]].concat())?;
    let new = words::new_words(&codec, &a.target, &a.inputs, &known, a.max)?;
    if a.dry_run {
        for (arch, w) in &new {
            outln!("{arch}\t{}", Word(*w));
        }
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("{}: {} words not yet recorded", a.target, new.len());
    if !new.is_empty() {
        let nv = Nvdisasm::locate(a.nvdisasm.as_deref())?;
        let command = std::env::args().collect::<Vec<_>>().join(" ");
        let name = format!("fuzz-{}", a.target);
        for (path, n, legal) in words::record(&nv, &new, &a.out, &name, &command)? {
            eprintln!("{}: {n} words, {legal} legal", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Subcommand, Debug)]
enum BenchCmd {
    /// Generate words from the tables, run nvdisasm and the product on the same words, print
    /// each goal with its measured ratio and the words/s behind it.
    Run(BenchRunArgs),
    /// Print generated words, 32 hex digits per line (e.g. for `oracle run`, `decode -`).
    Words(BenchWordsArgs),
    /// Time decode (to field values) and decode + render in this process, on one core, over a
    /// word list (best of several passes); prints words/s of each.
    Decode(BenchDecodeArgs),
}

#[derive(Args, Debug)]
struct BenchDecodeArgs {
    #[command(flatten)]
    view: ViewArgs,
    /// Arch of the words.
    #[arg(long)]
    arch: Arch,
    /// Word list, one per line (`-`: stdin).
    #[arg(long, default_value = "-")]
    words: String,
    /// Timed passes over the words; the fastest counts.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
    passes: u32,
    /// Folder (or file) of tables.
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
}

#[derive(Args, Debug)]
struct BenchRunArgs {
    #[command(flatten)]
    view: ViewArgs,
    /// Words to generate (over every arch, a variant drawn uniformly per word; at least
    /// 10000: below ~1M nvdisasm's start-up, ~0.6 s per process, weighs on every ratio).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(10_000..))]
    words: u64,
    /// Seed of the generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Shares of illegal words (percent, 1 to 99) mixed in for the recording goal.
    #[arg(long, value_delimiter = ',', default_value = "5,40",
          value_parser = clap::value_parser!(u32).range(1..=99))]
    mix: Vec<u32>,
    /// Also write the measurements as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// nvdisasm binary (else $NVDISASM, PATH, .tools/nvdisasm).
    #[arg(long)]
    nvdisasm: Option<PathBuf>,
    /// Folder (or file) of tables.
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
    /// Oracle folder for the diff goal.
    #[arg(long, default_value = "oracle")]
    oracle: PathBuf,
}

#[derive(Args, Debug)]
struct BenchWordsArgs {
    #[command(flatten)]
    view: ViewArgs,
    /// How many words.
    #[arg(long, default_value_t = 1_000_000)]
    count: usize,
    /// Only variants of this arch (e.g. SM90).
    #[arg(long)]
    arch: Option<Arch>,
    /// Seed of the generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Only words of this table (its mnemonic, e.g. TLD; with --arch when several archs
    /// have one).
    #[arg(long)]
    table: Option<String>,
    /// Only words the learned reading calls legal (nvdisasm prints a text for them: what a
    /// raw nvdisasm batch needs, as it stops at the first illegal word).
    #[arg(long)]
    legal: bool,
    /// Folder (or file) of tables.
    #[arg(long, default_value = "specs")]
    specs: PathBuf,
}

fn bench_run(a: &BenchRunArgs) -> Result<ExitCode> {
    use sass_conform::bench::{BenchOptions, render_report, run};
    let (codec, view) = load_view(&a.specs, &a.view)?;
    let nv = Nvdisasm::locate(a.nvdisasm.as_deref())?;
    let table_texts = spec::table_paths(&a.specs)?
        .into_iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
            Ok((p.display().to_string(), text))
        })
        .collect::<Result<Vec<_>>>()?;
    let scratch = std::env::temp_dir().join(format!("sass-conform-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    let opts = BenchOptions {
        words: a.words as usize,
        seed: a.seed,
        mixes: a.mix.clone(),
        table_texts,
        oracle_dir: sass_conform::locate::data_path(&a.oracle),
        scratch: scratch.clone(),
    };
    if let Some(path) = &a.json {
        // Fail before minutes of measurements, not after.
        std::fs::write(path, "")
            .with_context(|| format!("{}: cannot write the JSON report", path.display()))?;
    }
    eprintln!("bench: {} words from the tables ({view})", a.words);
    let rep = run(&codec, &nv, &opts, |step| eprintln!("  {step}"));
    let _ = std::fs::remove_dir_all(&scratch);
    let rep = rep?;
    if let Some(path) = &a.json {
        std::fs::write(path, serde_json::to_string_pretty(&rep)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    write!(std::io::stdout().lock(), "{}", render_report(&rep))?;
    Ok(ExitCode::SUCCESS)
}

fn bench_words(a: &BenchWordsArgs) -> Result<ExitCode> {
    use sass_conform::bench::WordGenerator;
    let (codec, _, model) = load_view_model(&a.specs, &a.view)?;
    let mut g = WordGenerator::new(&codec, a.arch, a.seed);
    if g.is_empty() {
        bail!(
            "no table of {} under {}",
            a.arch.map_or("any arch".into(), |x| x.to_string()),
            a.specs.display()
        );
    }
    if let Some(t) = &a.table
        && !codec.ids().any(|id| {
            codec.table(id).mnemonic == *t && a.arch.is_none_or(|x| codec.table(id).arch == Some(x))
        })
    {
        bail!("no table {t} under {}", a.specs.display());
    }
    let r = Renderer::new(&codec);
    let keep = |arch: Arch, w: u128| {
        let d = codec.decode(arch, Word(w));
        let table_ok = a
            .table
            .as_ref()
            .is_none_or(|t| d.as_ref().is_some_and(|d| codec.table(d.id).mnemonic == *t));
        table_ok
            && (!a.legal
                || predict(&codec, &r, model.as_ref(), arch, Word(w))
                    .text
                    .is_some())
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    let (mut kept, mut tried) = (0usize, 0usize);
    while kept < a.count {
        let (arch, w) = g.next_word()?;
        tried += 1;
        if keep(arch, w) {
            writeln!(out, "{}", Word(w))?;
            kept += 1;
        } else if tried > 1000 + 100 * a.count {
            bail!("only {kept} of {tried} generated words were kept (--table, --legal)");
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `bench decode`: in-process decode and decode + render rates on one core.
fn bench_decode(a: &BenchDecodeArgs) -> Result<ExitCode> {
    use sass_conform::conform::legality;
    let text = if a.words == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)?;
        s
    } else {
        std::fs::read_to_string(&a.words).with_context(|| format!("reading {}", a.words))?
    };
    let words = sass_conform::words::read_words(text.as_bytes(), &a.words)
        .map(|w| w.map(Word))
        .collect::<Result<Vec<Word>, _>>()?;
    if words.is_empty() {
        bail!("{}: no words", a.words);
    }
    let (codec, model) = load_words_view(&a.specs, &a.view, a.arch)?;
    let r = Renderer::new(&codec);
    let best = |f: &mut dyn FnMut() -> usize| {
        let mut best = f64::INFINITY;
        let mut sink = 0usize;
        for _ in 0..a.passes {
            let t = std::time::Instant::now();
            sink = sink.wrapping_add(std::hint::black_box(f()));
            best = best.min(t.elapsed().as_secs_f64());
        }
        (best, sink)
    };
    let mut into = sass_conform::codec::Decoded::EMPTY;
    let (decode, n1) = best(&mut || {
        let mut n = 0;
        for &w in &words {
            if codec.decode_into(a.arch, w, &mut into) {
                n += into.n_fields;
            }
        }
        n
    });
    let mut s = TextBuf::new();
    let (render, n2) = best(&mut || {
        let mut n = 0;
        for &w in &words {
            if decode_chosen(&codec, model.as_ref(), a.arch, w, &mut into)
                && legality(&codec, model.as_ref(), &into)
                    == sass_conform::reading::legality::Legality::Legal
            {
                s.clear();
                r.render_buf(&codec, &into, &mut s);
                n += s.as_bytes().len();
            }
        }
        n
    });
    std::hint::black_box((n1, n2));
    let n = words.len() as f64;
    outln!("words\t{}", words.len());
    outln!(
        "decode_seconds\t{decode:.6}\ndecode_words_per_second\t{:.0}",
        n / decode
    );
    outln!(
        "render_seconds\t{render:.6}\nrender_words_per_second\t{:.0}",
        n / render
    );
    Ok(ExitCode::SUCCESS)
}
