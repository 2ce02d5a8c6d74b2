//! `sass-conform campaign`: the differential campaign against live nvdisasm (see
//! `sass_conform::conform::campaign`), with its progress bar, root-cause report, recording
//! and the raw-batch comparison; and `corpus coverage` / `corpus dict` (table coverage).

use super::{CampaignArgs, CorpusCoverageArgs, CorpusDictArgs, load_codec, load_view_model};
use anyhow::{Context, Result, bail};
use sass_conform::Arch;
use sass_conform::codec::coverage::{CoverageMap, Reached, TableCoverage};
use sass_conform::codec::{Codec, FuzzCase, VariantId, Word, field_group};
use sass_conform::conform::campaign::{
    Causes, Disagreement, Generator, Judge, RootCause, Source, TableResult, decode_command,
    disagreement, learnable_entries, merge_shards, minimise, nvdisasm_command, shard_file,
};
use sass_conform::conform::hint::likely_legal;
use sass_conform::conform::{DiffCounts, Differ};
use sass_conform::oracle::{self, Answer, Entry, Nvdisasm};
use sass_conform::reading::combos::{Split, split_of};
use sass_conform::render::Renderer;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// What a campaign run writes with `--json` and reads back with `--known`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct CampaignReport {
    /// Seed of the run.
    pub seed: u64,
    /// Words asked in the campaign proper (minimising not included).
    pub words: u64,
    /// Wall seconds of the campaign proper.
    pub seconds: f64,
    /// Per table: `SM100 TLD` -> legal-text agreement (0..=1) and counts.
    pub tables: BTreeMap<String, TableFigure>,
    /// Root causes found.
    pub root_causes: Vec<CauseLine>,
    /// Root causes known to be fixed: finding one again is a regression (kept from `--known`).
    #[serde(default)]
    pub fixed: Vec<CauseLine>,
    /// The raw-batch comparison, with `--compare-raw`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<RawFigure>,
}

/// One table's figures: the agreement is measured on the words drawn from the tables alone
/// (`counts`), not on corpus words and mutations of disagreeing words (in `all`), which
/// are chosen for disagreeing.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct TableFigure {
    /// Share of nvdisasm-legal table-drawn words whose text we reproduce.
    pub legal_agreement: f64,
    /// Share of table-drawn words where we agree on legal vs illegal.
    pub verdict_agreement: f64,
    /// The counts of the table-drawn words.
    pub counts: DiffCounts,
    /// The counts of every word asked (corpus words and mutations included).
    #[serde(default)]
    pub all: DiffCounts,
    /// Words per second in this table's campaign.
    pub words_per_second: f64,
    /// How nvdisasm was run: words hinted legal (straight to a raw batch, no cubin pass),
    /// raw batches failed by a wrong hint, processes started.
    #[serde(default)]
    pub nvdisasm: PassFigure,
}

/// nvdisasm's passes in one table's campaign (from [`DisassembleStats`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct PassFigure {
    /// Words hinted legal by the reading, read by a raw batch without the cubin pass.
    pub hinted: usize,
    /// Raw batches a wrong hint failed.
    pub hint_misses: usize,
    /// nvdisasm processes started.
    pub runs: usize,
}

/// One root cause as reported.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(super) struct CauseLine {
    /// `SM100 TLD`.
    pub table: String,
    /// Variant key.
    pub key: String,
    /// Where.
    pub field: String,
    /// Kind.
    pub kind: String,
    /// Disagreeing words.
    #[serde(default)]
    pub count: usize,
    /// Minimal word.
    #[serde(default)]
    pub word: String,
    /// nvdisasm's text or reason for it.
    #[serde(default)]
    pub nvdisasm: String,
    /// Ours (empty where we reject).
    #[serde(default)]
    pub ours: String,
}

impl CauseLine {
    fn key(&self) -> (&str, &str, &str, &str) {
        (&self.table, &self.key, &self.field, &self.kind)
    }
}

/// nvdisasm's raw batch against the campaign's path on the same legal words, same cores.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct RawFigure {
    /// Legal words timed.
    pub words: usize,
    /// Processes run side by side (the cores used).
    pub jobs: usize,
    /// nvdisasm raw batches: words/s.
    pub raw_words_per_second: f64,
    /// The campaign's path (ask + predict + diff) on the same words: words/s.
    pub campaign_words_per_second: f64,
    /// campaign / raw.
    pub ratio: f64,
    /// nvdisasm processes the campaign's path started for these words, one round (raw
    /// batches of the words hinted legal, pass 3 for words whose text shows a number near
    /// their address, the cubin passes for words hinted illegal).
    #[serde(default)]
    pub nvdisasm_runs: usize,
    /// Raw batches run for the same words, one round (one per core per arch).
    #[serde(default)]
    pub raw_runs: usize,
    /// CPU seconds (user + system) of the raw batches' nvdisasm processes, best round.
    #[serde(default)]
    pub raw_cpu_seconds: f64,
    /// CPU seconds of the campaign path's nvdisasm processes, best round.
    #[serde(default)]
    pub campaign_nvdisasm_cpu_seconds: f64,
    /// CPU seconds of the campaign path's own work (hint, files, listing parse, predict,
    /// diff), best round: the project's overhead whatever else the machine runs.
    #[serde(default)]
    pub campaign_own_cpu_seconds: f64,
}

/// Runs `campaign`.
pub(super) fn campaign_cmd(a: &CampaignArgs) -> Result<ExitCode> {
    oracle::interrupt::install()?;
    let jobs = a.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .context("starting the worker threads")?;
    pool.install(|| run(a, jobs.max(1)))
}

/// One selected table: its arch, mnemonic and variants in the view codec.
struct Selected {
    arch: Arch,
    mnemonic: String,
    ids: Vec<VariantId>,
}

fn run(a: &CampaignArgs, jobs: usize) -> Result<ExitCode> {
    let (codec, view, model) = load_view_model(&a.specs, &a.view)?;
    let r = Renderer::new(&codec);
    let written = load_codec(&a.specs)?;
    let nv = Nvdisasm::locate(a.nvdisasm.as_deref())?;
    let selected = select(&codec, a.arch, a.table.as_deref())?;
    // Read first: a wrong --known fails before the campaign, not after it.
    let known = match &a.known {
        Some(p) => Some(read_report(&sass_conform::locate::data_path(p))?),
        None => None,
    };
    let corpus = corpus_words(&written, &a.corpus)?;
    let n = selected.len() as f64;
    let per_table_secs = a.minutes.map(|m| m * 60.0 / n);
    let per_table_words = a.words.map(|w| (w as f64 / n).ceil() as u64);
    if per_table_secs.is_none() && per_table_words.is_none() {
        bail!("give a budget: --minutes N or --words N");
    }
    eprintln!(
        "campaign: {} table(s), seed {}, {jobs} nvdisasm jobs, reading: {view}{}",
        selected.len(),
        a.seed,
        if model.is_some() {
            " + learned model"
        } else {
            ""
        }
    );
    let pb =
        indicatif::ProgressBar::new_spinner().with_style(indicatif::ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {pos} words {per_sec} {msg}",
        )?);
    pb.enable_steady_tick(Duration::from_millis(250));
    let mut report = CampaignReport {
        seed: a.seed,
        ..CampaignReport::default()
    };
    let mut all_causes: Vec<RootCause> = Vec::new();
    let mut to_record: BTreeMap<String, (Arch, Vec<Entry>)> = BTreeMap::new();
    let mut legal_sample: Vec<(Arch, u128)> = Vec::new();
    let t_all = Instant::now();
    // A shard's tables: ranks in (arch, mnemonic) order; each table keeps its index (its seed).
    let shard = a.shard.unwrap_or(sass_conform::shard::Shard::ALL);
    let mine: HashSet<usize> = shard
        .select((0..selected.len()).collect(), |&i| {
            (selected[i].arch, selected[i].mnemonic.clone())
        })
        .into_iter()
        .collect();
    if a.shard.is_some() {
        eprintln!(
            "campaign: shard {shard}: {} of {} tables",
            mine.len(),
            selected.len()
        );
    }
    for (ti, sel) in selected.iter().enumerate() {
        if !mine.contains(&ti) {
            continue;
        }
        let table = format!("{} {}", sel.arch, sel.mnemonic);
        let words: Vec<u128> = corpus
            .iter()
            .filter(|(arch, w)| {
                *arch == sel.arch
                    && codec
                        .decode(sel.arch, Word(*w))
                        .is_some_and(|d| sel.ids.contains(&d.id))
            })
            .map(|(_, w)| *w)
            .collect();
        let seed = a.seed.wrapping_mul(0x9e37_79b9).wrapping_add(ti as u64);
        let generator = RefCell::new(Generator::new(&codec, sel.ids.clone(), words, seed));
        let mut differ = Differ::new(&codec, &r).with_model(model.as_ref());
        // The unbiased sample: words drawn from the tables only (no corpus, no mutation).
        let mut sample = Differ::new(&codec, &r).with_model(model.as_ref());
        let sources: RefCell<std::collections::VecDeque<Source>> = RefCell::default();
        let mut causes = Causes::default();
        let mut kept: Vec<Entry> = Vec::new();
        let mut found: Vec<Disagreement> = Vec::new();
        let t = Instant::now();
        let deadline = per_table_secs.map(|s| t + Duration::from_secs_f64(s));
        let limit = per_table_words.unwrap_or(u64::MAX);
        let mut made = 0u64;
        // The timed legal words, spread evenly over the tables (and so the archs).
        let (mut sampled, per_table_raw) = (0usize, a.raw_words.div_ceil(selected.len()));
        let chunk = a.chunk_words.unwrap_or_else(|| {
            // Chunks in flight when the budget ends still run (up to jobs + 1 of them): keep
            // them to ~15% of a table's budget at ~20k words/s per core.
            let by_time = per_table_secs.map_or(usize::MAX, |s| (s * 2_000.0) as usize);
            let by_words = (limit as usize).div_ceil(jobs);
            by_time
                .min(by_words)
                .clamp(2048, oracle::DEFAULT_CHUNK_WORDS)
        });
        let nvc = nv.clone().with_chunk_words(chunk);
        let words = std::iter::from_fn(|| {
            if made >= limit || deadline.is_some_and(|d| Instant::now() >= d) {
                return None;
            }
            made += 1;
            let (w, src) = generator.borrow_mut().next_word();
            sources.borrow_mut().push_back(src);
            Some(Ok(w))
        });
        let r_causes = &mut causes;
        // Words the reading calls legal skip nvdisasm's cubin pass (the answers are the same).
        let hint = |w| likely_legal(&codec, model.as_ref(), sel.arch, Word(w));
        // Our reading against nvdisasm's, on the worker threads.
        let cmp = differ.comparer();
        let judge = |w, a: &Answer| cmp.compare(sel.arch, w, a);
        let st =
            nvc.disassemble_stream_judged(sel.arch, words, &hint, &judge, |word, answer, o| {
                differ.record(&o);
                // Answers come in input order: the front source is this word's.
                if sources.borrow_mut().pop_front() == Some(Source::Table) {
                    sample.record(&o);
                }
                let e = Entry {
                    arch: sel.arch,
                    word,
                    answer,
                };
                if let Some(d) = disagreement(&table, &o) {
                    generator.borrow_mut().push_mismatch(word);
                    if r_causes.add(d.clone()) {
                        found.push(d);
                    }
                    if a.record {
                        kept.push(e.clone());
                    }
                } else if a.record && kept.len() < a.record_max {
                    kept.push(e.clone());
                }
                if e.answer.is_legal() && sampled < per_table_raw && a.compare_raw {
                    sampled += 1;
                    legal_sample.push((sel.arch, word));
                }
                pb.inc(1);
                if pb.position().is_multiple_of(2048) {
                    let c = differ.counts();
                    pb.set_message(format!(
                        "{table} ({}/{}): {} mismatches, {} root causes",
                        ti + 1,
                        selected.len(),
                        c.mismatched() - c.no_variant,
                        r_causes.len()
                    ));
                }
                Ok(())
            })?;
        let seconds = t.elapsed().as_secs_f64();
        let counts = differ.finish().counts;
        let sampled = sample.finish().counts;
        // Minimise one example per root cause, all causes of the table together.
        let judge = Judge {
            codec: &codec,
            renderer: &r,
            model: model.as_ref(),
            arch: sel.arch,
            table: table.clone(),
        };
        found.truncate(a.minimise_max);
        if !found.is_empty() {
            pb.set_message(format!("{table}: minimising {} root causes", found.len()));
            let (min, asked) = minimise(&judge, &nv, &found, a.rounds)?;
            for (d, m) in found.iter().zip(min) {
                if let Some(rc) = causes.by_cause.get_mut(&d.cause) {
                    rc.minimal = Some(m.mismatch);
                    rc.minimise_asked = asked.len();
                }
            }
            if a.record {
                kept.extend(asked);
            }
        }
        let res = TableResult {
            table: table.clone(),
            counts: counts.clone(),
            seconds,
        };
        report.words += res.counts.total as u64;
        report.tables.insert(
            table.clone(),
            TableFigure {
                legal_agreement: sampled.legal_agreement(),
                verdict_agreement: sampled.verdict_agreement(),
                words_per_second: counts.total as f64 / seconds.max(1e-9),
                nvdisasm: PassFigure {
                    hinted: st.hinted,
                    hint_misses: st.hint_misses,
                    runs: st.runs,
                },
                counts: sampled,
                all: counts,
            },
        );
        all_causes.extend(causes.by_cause.into_values());
        if a.record {
            let rel = shard_file(
                sel.arch,
                a.table.as_deref().map(|_| sel.mnemonic.as_str()),
                a.seed,
            );
            to_record
                .entry(rel)
                .or_insert_with(|| (sel.arch, Vec::new()))
                .1
                .extend(kept);
        }
    }
    report.seconds = t_all.elapsed().as_secs_f64();
    pb.finish_and_clear();
    if a.compare_raw && !legal_sample.is_empty() {
        report.raw = Some(compare_raw(
            &nv,
            &codec,
            &r,
            model.as_ref(),
            &legal_sample,
            jobs,
        )?);
    }
    report.root_causes = all_causes.iter().map(cause_line).collect();
    // By table (stable: each table's causes in the order found), as merged shards give them.
    report.root_causes.sort_by(|x, y| x.table.cmp(&y.table));
    if let Some(k) = &known {
        report.fixed = k.fixed.clone();
    }
    print_report(&report, &all_causes, known.as_ref())?;
    if let Some(p) = &a.json {
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(p, text + "\n").with_context(|| format!("writing {}", p.display()))?;
    }
    if a.record {
        record(a, &nv, to_record)?;
    }
    Ok(verdict(&report, known.as_ref(), a.tolerance))
}

/// The tables of `codec` on `arch` (all archs when `None`) named `table` (all when `None`).
fn select(codec: &Codec, arch: Option<Arch>, table: Option<&str>) -> Result<Vec<Selected>> {
    let mut out = Vec::new();
    for (ti, t) in codec.tables.iter().enumerate() {
        let Some(tarch) = t.arch else { continue };
        if arch.is_some_and(|a| a != tarch)
            || table.is_some_and(|m| !m.eq_ignore_ascii_case(&t.mnemonic))
        {
            continue;
        }
        let ids = codec.ids().filter(|id| id.table as usize == ti).collect();
        out.push(Selected {
            arch: tarch,
            mnemonic: t.mnemonic.clone(),
            ids,
        });
    }
    if out.is_empty() {
        bail!(
            "no table matches --arch {} --table {}",
            arch.map_or("(any)".into(), |a| a.to_string()),
            table.unwrap_or("(any)")
        );
    }
    Ok(out)
}

/// Words held by the fuzz inputs in `dirs` (`roundtrip` and `decode_render` layouts, told
/// apart by the folder's name), deduplicated.
fn corpus_words(written: &Codec, dirs: &[PathBuf]) -> Result<Vec<(Arch, u128)>> {
    let mut out = BTreeSet::new();
    for_each_input(dirs, |target, data| {
        out.extend(sass_conform::report::words::input_words(
            written, target, data,
        ));
    })?;
    Ok(out.into_iter().collect())
}

/// Calls `f(target, bytes)` for every fuzz input under `dirs` (the target named by its
/// folder, e.g. `roundtrip`); returns how many inputs there were. Errors name an unreadable
/// file.
fn for_each_input(dirs: &[PathBuf], mut f: impl FnMut(&str, &[u8])) -> Result<usize> {
    let mut inputs = 0;
    for d in dirs {
        // The repository's corpus when run from elsewhere (an installed binary).
        let d = &sass_conform::locate::data_path(d);
        if !d.is_dir() {
            eprintln!(
                "note: no fuzz corpus at {}: its inputs are left out",
                d.display()
            );
        }
        let target = d
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for p in files_under(d)? {
            let data = std::fs::read(&p).with_context(|| format!("reading {}", p.display()))?;
            inputs += 1;
            f(&target, &data);
        }
    }
    Ok(inputs)
}

/// Regular files under `dir` (recursively, sorted); none when it does not exist.
fn files_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    if !dir.is_dir() {
        return Ok(out);
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Rounds of each side in [`compare_raw`]; the fastest counts.
const ROUNDS: usize = 3;

/// nvdisasm raw batches on `jobs` cores side by side against the campaign's path (ask +
/// predict + diff) on the same legal words.
fn compare_raw(
    nv: &Nvdisasm,
    codec: &Codec,
    r: &Renderer,
    model: Option<&sass_conform::reading::model::Model>,
    sample: &[(Arch, u128)],
    jobs: usize,
) -> Result<RawFigure> {
    let mut by_arch: BTreeMap<Arch, Vec<u128>> = BTreeMap::new();
    for &(a, w) in sample {
        by_arch.entry(a).or_default().push(w);
    }
    let scratch = tempfile::tempdir()?;
    let (mut raw, mut ours) = (Side::default(), Side::default());
    let (mut runs, mut raw_runs, mut n) = (0usize, 0usize, 0usize);
    for (arch, words) in &by_arch {
        let part = words.len().div_ceil(jobs).max(1);
        // Three rounds, the sides alternating, each side's fastest round kept: nvdisasm's own
        // CPU time varies by up to 20% from run to run on an idle 2-core VM, and a load that
        // comes and goes (another build) then weighs on both sides alike.
        let (mut raw_best, mut ours_best) = (Side::worst(), Side::worst());
        let mut last_runs = 0;
        for _ in 0..ROUNDS {
            let start = Clock::now();
            raw_batches(nv, *arch, words, part, scratch.path())?;
            raw_best = raw_best.best(start.since());
            let start = Clock::now();
            last_runs = campaign_path(nv, codec, r, model, *arch, words, part)?;
            ours_best = ours_best.best(start.since());
        }
        runs += last_runs;
        raw_runs += words.len().div_ceil(part);
        raw.add(&raw_best);
        ours.add(&ours_best);
        n += words.len();
    }
    let raw_rate = n as f64 / raw.seconds.max(1e-9);
    let ours_rate = n as f64 / ours.seconds.max(1e-9);
    Ok(RawFigure {
        words: n,
        jobs,
        raw_words_per_second: raw_rate,
        campaign_words_per_second: ours_rate,
        ratio: ours_rate / raw_rate,
        nvdisasm_runs: runs,
        raw_runs,
        raw_cpu_seconds: raw.nvdisasm_cpu,
        campaign_nvdisasm_cpu_seconds: ours.nvdisasm_cpu,
        campaign_own_cpu_seconds: ours.own_cpu,
    })
}

/// The wall and CPU clocks at one moment.
struct Clock {
    at: Instant,
    own_cpu: f64,
    children_cpu: f64,
}

impl Clock {
    fn now() -> Clock {
        let (own_cpu, children_cpu) = sass_conform::bench::cpu_seconds();
        Clock {
            at: Instant::now(),
            own_cpu,
            children_cpu,
        }
    }

    /// The cost of the work since this moment.
    fn since(&self) -> Side {
        let now = Clock::now();
        Side {
            seconds: now.at.duration_since(self.at).as_secs_f64(),
            nvdisasm_cpu: now.children_cpu - self.children_cpu,
            own_cpu: now.own_cpu - self.own_cpu,
        }
    }
}

/// The campaign's path (ask with the hint, predict and diff on the workers) over `words`,
/// in chunks of `part`: the nvdisasm processes it started.
fn campaign_path(
    nv: &Nvdisasm,
    codec: &Codec,
    r: &Renderer,
    model: Option<&sass_conform::reading::model::Model>,
    arch: Arch,
    words: &[u128],
    part: usize,
) -> Result<usize> {
    let nvc = nv.clone().with_chunk_words(part);
    let mut d = Differ::new(codec, r).with_model(model);
    let hint = |w| likely_legal(codec, model, arch, Word(w));
    let cmp = d.comparer();
    let judge = |w, a: &Answer| cmp.compare(arch, w, a);
    let words = words.iter().map(|&w| Ok(w));
    let st = nvc.disassemble_stream_judged(arch, words, &hint, &judge, |_, _, o| {
        d.record(&o);
        Ok(())
    })?;
    Ok(st.runs)
}

/// One side's cost of a stretch of work: wall seconds, CPU seconds of the nvdisasm processes
/// it ran and of this process (ours).
#[derive(Debug, Clone, Copy, Default)]
struct Side {
    seconds: f64,
    nvdisasm_cpu: f64,
    own_cpu: f64,
}

impl Side {
    fn worst() -> Side {
        Side {
            seconds: f64::MAX,
            ..Side::default()
        }
    }

    /// The faster of two rounds (its CPU figures with it).
    fn best(self, other: Side) -> Side {
        if other.seconds < self.seconds {
            other
        } else {
            self
        }
    }

    fn add(&mut self, o: &Side) {
        self.seconds += o.seconds;
        self.nvdisasm_cpu += o.nvdisasm_cpu;
        self.own_cpu += o.own_cpu;
    }
}

/// nvdisasm's own raw batches of `words` (`nvdisasm -b ARCH raw.bin`), cut in
/// parts of `part` words run side by side, one process per part.
fn raw_batches(nv: &Nvdisasm, arch: Arch, words: &[u128], part: usize, dir: &Path) -> Result<()> {
    std::thread::scope(|s| -> Result<()> {
        let hs: Vec<_> = words
            .chunks(part)
            .enumerate()
            .map(|(i, c)| {
                let dir = dir.join(i.to_string());
                s.spawn(move || -> Result<()> {
                    std::fs::create_dir_all(&dir)?;
                    sass_conform::bench::time_raw_batch(nv, arch, c, &dir)?;
                    Ok(())
                })
            })
            .collect();
        for h in hs {
            h.join()
                .map_err(|_| anyhow::anyhow!("raw batch thread panicked"))??;
        }
        Ok(())
    })
}

fn cause_line(rc: &RootCause) -> CauseLine {
    let m = rc.minimal.as_ref().unwrap_or(&rc.example);
    CauseLine {
        table: rc.cause.table.clone(),
        key: rc.cause.key.clone(),
        field: rc.cause.field.clone(),
        kind: rc.cause.kind.clone(),
        count: rc.count,
        word: m.word.clone(),
        nvdisasm: m.nvdisasm.clone(),
        ours: m.ours.clone().unwrap_or_default(),
    }
}

/// Joins the `--json` reports of a campaign's shards (same seed) into the unsharded run's:
/// the tables of all (a table in two shards must have the same figures), the root causes by
/// table, words and seconds summed (seconds: the shards' total, not a wall time), `fixed`
/// from the first. The raw-batch comparison is kept only when a single shard has one.
pub(super) fn merge_reports(reports: &[(String, CampaignReport)]) -> Result<CampaignReport> {
    let Some((first_name, first)) = reports.first() else {
        bail!("no campaign report to merge");
    };
    let mut out = CampaignReport {
        seed: first.seed,
        fixed: first.fixed.clone(),
        ..CampaignReport::default()
    };
    let mut raws = Vec::new();
    for (name, r) in reports {
        if r.seed != first.seed {
            bail!(
                "{name}: seed {} differs from {first_name}'s {}: not shards of one campaign",
                r.seed,
                first.seed
            );
        }
        for (t, f) in &r.tables {
            if let Some(old) = out.tables.get(t) {
                let same = serde_json::to_value(old)? == serde_json::to_value(f)?;
                if !same {
                    bail!(
                        "{t}: shards disagree ({name} and an earlier report give different figures)"
                    );
                }
                continue;
            }
            out.tables.insert(t.clone(), f.clone());
            out.root_causes
                .extend(r.root_causes.iter().filter(|c| &c.table == t).cloned());
        }
        out.words += r.words;
        out.seconds += r.seconds;
        if let Some(raw) = &r.raw {
            raws.push(raw.clone());
        }
    }
    out.root_causes.sort_by(|x, y| x.table.cmp(&y.table));
    if raws.len() == 1 {
        out.raw = raws.pop();
    }
    Ok(out)
}

/// Reads a campaign's `--json` report.
pub(super) fn read_report(p: &Path) -> Result<CampaignReport> {
    let text = std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}: not a campaign report", p.display()))
}

fn print_report(
    rep: &CampaignReport,
    causes: &[RootCause],
    known: Option<&CampaignReport>,
) -> Result<()> {
    let is_known =
        |c: &CauseLine| known.is_some_and(|k| k.root_causes.iter().any(|x| x.key() == c.key()));
    outln!(
        "campaign: {} fresh words (never learned from) in {:.1} s, {:.0} words/s, seed {}",
        rep.words,
        rep.seconds,
        rep.words as f64 / rep.seconds.max(1e-9),
        rep.seed
    );
    outln!("  agreement on the words drawn from the tables (no corpus words, no mutations):");
    for (t, f) in &rep.tables {
        let c = &f.counts;
        outln!(
            "  {t:<12} {:>9} of {:>9} words  legal text {:>7.3}% ({}/{})  verdict {:>7.3}%  disagree {}  not tabled {}  {:.0} words/s",
            c.total,
            f.all.total,
            100.0 * f.legal_agreement,
            c.matched,
            c.matched + c.text_mismatch + c.we_reject_oracle_decodes,
            100.0 * f.verdict_agreement,
            c.mismatched() - c.no_variant,
            c.no_variant,
            f.words_per_second
        );
        let p = &f.nvdisasm;
        outln!(
            "  {:<12} nvdisasm: {} processes, {} of {} words hinted legal (no cubin pass), {} hint misses",
            "",
            p.runs,
            p.hinted,
            f.all.total,
            p.hint_misses
        );
    }
    if let Some(r) = &rep.raw {
        outln!(
            "  throughput on {} legal words, {} cores: campaign path {:.0} words/s, nvdisasm raw {:.0} words/s: {:.1}% (best of {} rounds each; {} nvdisasm processes against {} raw batches)",
            r.words,
            r.jobs,
            r.campaign_words_per_second,
            r.raw_words_per_second,
            100.0 * r.ratio,
            ROUNDS,
            r.nvdisasm_runs,
            r.raw_runs
        );
        outln!(
            "  CPU seconds: nvdisasm raw {:.2}; campaign path {:.2} (its nvdisasm {:.2} + its own work {:.2}, {:.1}% of the raw batches' CPU)",
            r.raw_cpu_seconds,
            r.campaign_nvdisasm_cpu_seconds + r.campaign_own_cpu_seconds,
            r.campaign_nvdisasm_cpu_seconds,
            r.campaign_own_cpu_seconds,
            100.0 * r.campaign_own_cpu_seconds / r.raw_cpu_seconds.max(1e-9)
        );
    }
    let new = rep.root_causes.iter().filter(|c| !is_known(c)).count();
    outln!(
        "root causes: {}{}",
        rep.root_causes.len(),
        if known.is_some() {
            format!(" ({new} new)")
        } else {
            String::new()
        }
    );
    for (c, rc) in rep.root_causes.iter().zip(causes) {
        let word = oracle::parse_word_hex(&c.word).unwrap_or(0);
        outln!(
            "{} {} {} / {} / {}: {} words; minimal {}{}",
            if is_known(c) { " " } else { "*" },
            c.table,
            c.key,
            c.field,
            c.kind,
            c.count,
            c.word,
            if rc.minimal.is_some() {
                ""
            } else {
                " (not minimised)"
            }
        );
        outln!("    nvdisasm: {}", c.nvdisasm);
        outln!(
            "    ours:     {}",
            if c.ours.is_empty() {
                "(rejected)"
            } else {
                &c.ours
            }
        );
        if let Ok(arch) = c.table.split(' ').next().unwrap_or("").parse::<Arch>() {
            outln!("    reproduce: {}", decode_command(arch, &c.word));
            outln!("               {}", nvdisasm_command(arch, word));
        }
    }
    Ok(())
}

/// Exit status: 1 when a table's legal agreement fell more than `tolerance` below the known
/// run's or a root cause the known report lists as fixed came back; 3 when there are root
/// causes the known report lacks; else 0 (also without `--known`).
fn verdict(rep: &CampaignReport, known: Option<&CampaignReport>, tolerance: f64) -> ExitCode {
    let Some(k) = known else {
        return ExitCode::SUCCESS;
    };
    let fell = rep.tables.iter().any(|(t, f)| {
        k.tables
            .get(t)
            .is_some_and(|b| f.legal_agreement + tolerance < b.legal_agreement)
    });
    let back = rep
        .root_causes
        .iter()
        .any(|c| k.fixed.iter().any(|x| x.key() == c.key()));
    if fell || back {
        eprintln!(
            "campaign: regression ({})",
            if fell {
                "agreement fell"
            } else {
                "a fixed root cause came back"
            }
        );
        return ExitCode::from(1);
    }
    let new = rep
        .root_causes
        .iter()
        .any(|c| !k.root_causes.iter().any(|x| x.key() == c.key()));
    if new {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}

/// Writes each shard file (merged with the same shard's earlier recording, check-split words
/// left out) through the oracle writer, listed in MANIFEST.json.
fn record(
    a: &CampaignArgs,
    nv: &Nvdisasm,
    files: BTreeMap<String, (Arch, Vec<Entry>)>,
) -> Result<()> {
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let check = check_words(&a.oracle)?;
    let mut writer = oracle::OracleWriter::open(&a.oracle)?;
    for (rel, (arch, entries)) in files {
        let mut shards = vec![(rel.clone(), entries)];
        let old = writer.committed_path(&rel);
        if old.is_file() {
            shards.push((old.display().to_string(), oracle::read_entries(&old)?));
        }
        let merged = merge_shards(&shards)?;
        let mut entries = learnable_entries(merged, &check);
        let rec = writer.stage_entries(&rel, arch, &mut entries, nv.version(), &command)?;
        eprintln!("{}: {} words (staged)", rec.path, rec.entries);
    }
    writer.commit()?;
    eprintln!("{}: committed with MANIFEST.json", a.oracle.display());
    Ok(())
}

/// (arch, word) of every check-split recording under the oracle root.
fn check_words(dir: &Path) -> Result<HashSet<(Arch, u128)>> {
    let mut out = HashSet::new();
    if dir.is_dir() {
        oracle::for_each_entry_where(
            dir,
            |p| split_of(p) == Some(Split::Check),
            |e| {
                out.insert((e.arch, e.word));
            },
        )?;
    }
    Ok(out)
}

/// Runs `corpus coverage`: per table, the triples and modifier-group pairs the corpus reaches.
pub(super) fn coverage_cmd(a: &CorpusCoverageArgs) -> Result<ExitCode> {
    let codec = load_codec(&a.specs)?;
    let map = CoverageMap::new(&codec);
    let mut reached = Reached::new(&map);
    let inputs = for_each_input(&a.dirs, |target, data| {
        add_input(&codec, &map, &mut reached, target, data)
    })?;
    let tables = map.tables(&codec, &reached.hit);
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&tables)?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "table coverage of {} inputs in {}",
        inputs,
        a.dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    outln!("table          triples (variant, field, value class)   modifier-group pairs");
    let mut total = TableCoverage::default();
    for t in &tables {
        outln!(
            "{:<14} {:>6}/{:<6} {:>6.1}%                  {:>6}/{:<6} {:>6.1}%",
            format!("{} {}", t.arch, t.mnemonic),
            t.triples_hit,
            t.triples,
            100.0 * t.triple_share(),
            t.pairs_hit,
            t.pairs,
            100.0 * t.pair_share()
        );
        total.triples += t.triples;
        total.triples_hit += t.triples_hit;
        total.pairs += t.pairs;
        total.pairs_hit += t.pairs_hit;
    }
    outln!(
        "{:<14} {:>6}/{:<6} {:>6.1}%                  {:>6}/{:<6} {:>6.1}%",
        "all",
        total.triples_hit,
        total.triples,
        100.0 * total.triple_share(),
        total.pairs_hit,
        total.pairs,
        100.0 * total.pair_share()
    );
    Ok(ExitCode::SUCCESS)
}

/// The features one fuzz input reaches: a `roundtrip` input's word (decoded) and its
/// variant + values (property b); a `decode_render` input's word on every arch.
pub(crate) fn add_input(
    codec: &Codec,
    map: &CoverageMap,
    reached: &mut Reached,
    target: &str,
    data: &[u8],
) {
    match target {
        "roundtrip" => {
            if let Some(case) = FuzzCase::from_bytes(codec, data) {
                reached.add_word(codec, map, case.arch, case.word.0);
                reached.add_values(map, case.variant, case.values());
            }
        }
        _ => {
            for (arch, w) in sass_conform::report::words::input_words(codec, target, data) {
                reached.add_word(codec, map, arch, w);
            }
        }
    }
}

/// Runs `corpus dict`: a libFuzzer dictionary for the roundtrip input layout from the tables.
pub(super) fn dict_cmd(a: &CorpusDictArgs) -> Result<ExitCode> {
    let codec = load_codec(&a.specs)?;
    let mut lines = BTreeSet::new();
    for (pos, id) in codec.ids().enumerate() {
        let v = codec.variant(id);
        let arch = codec.table(id).arch.map_or("-".into(), |a| a.to_string());
        // The variant's fixed bytes (low half, as they lie in the word's 16 LE bytes): the
        // opcode bit pattern, up to the last byte with a fixed bit.
        let bytes = v.fixed_value.to_le_bytes();
        let mask = v.fixed_mask.to_le_bytes();
        if let Some(last) = mask[..8].iter().rposition(|&m| m != 0) {
            lines.insert(format!(
                "opcode_{arch}_{}=\"{}\"",
                v.key,
                escape(&bytes[..=last])
            ));
        }
        if let Some(first) = mask[8..].iter().position(|&m| m != 0) {
            let last = 8 + mask[8..].iter().rposition(|&m| m != 0).unwrap_or(first);
            lines.insert(format!(
                "fixed_hi_{arch}_{}=\"{}\"",
                v.key,
                escape(&bytes[8 + first..=last])
            ));
        }
        // The variant selector (u16 LE at offset 17).
        lines.insert(format!(
            "variant_{arch}_{}=\"{}\"",
            v.key,
            escape(&(pos as u16).to_le_bytes())
        ));
        // Modifier values as `arbitrary` reads one Vec<u64> element: a continue byte, 8 LE bytes.
        for f in &v.fields {
            if let Some(g) = field_group(v, f) {
                for row in &g.values {
                    let mut b = vec![1u8];
                    b.extend_from_slice(&(row.value as u64).to_le_bytes());
                    lines.insert(format!(
                        "modi_{}_{}=\"{}\"",
                        f.label.replace(' ', ""),
                        row.value,
                        escape(&b)
                    ));
                }
            }
        }
    }
    let mut text = format!(
        "# libFuzzer dictionary for the roundtrip target, written by `sass-conform corpus dict` from {}.\n",
        a.specs.display()
    );
    for l in &lines {
        text.push_str(l);
        text.push('\n');
    }
    match &a.out {
        Some(p) => {
            std::fs::write(p, &text).with_context(|| format!("writing {}", p.display()))?;
            eprintln!("{}: {} entries", p.display(), lines.len());
        }
        None => {
            write!(std::io::stdout().lock(), "{text}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Bytes as a libFuzzer dictionary string body (`\xNN` for every byte).
fn escape(b: &[u8]) -> String {
    b.iter().map(|x| format!("\\x{x:02X}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cause(table: &str, field: &str) -> CauseLine {
        CauseLine {
            table: table.into(),
            key: "K".into(),
            field: field.into(),
            kind: "text".into(),
            count: 1,
            word: String::new(),
            nvdisasm: String::new(),
            ours: String::new(),
        }
    }

    fn report(tables: &[(&str, f64)], causes: Vec<CauseLine>, words: u64) -> CampaignReport {
        CampaignReport {
            seed: 7,
            words,
            seconds: 1.5,
            tables: tables
                .iter()
                .map(|(t, a)| {
                    (
                        t.to_string(),
                        TableFigure {
                            legal_agreement: *a,
                            ..TableFigure::default()
                        },
                    )
                })
                .collect(),
            root_causes: causes,
            ..CampaignReport::default()
        }
    }

    #[test]
    fn shard_reports_merge_into_the_unsharded_one() {
        // Unsharded: tables in (arch, mnemonic) order, causes sorted by table.
        let all = report(
            &[("SM100 TLD", 0.5), ("SM80 LD", 1.0), ("SM90 TMML", 0.9)],
            vec![
                cause("SM100 TLD", "op 1"),
                cause("SM100 TLD", "op 0"),
                cause("SM90 TMML", "modi 2"),
            ],
            30,
        );
        let s1 = report(
            &[("SM100 TLD", 0.5), ("SM90 TMML", 0.9)],
            vec![
                cause("SM100 TLD", "op 1"),
                cause("SM100 TLD", "op 0"),
                cause("SM90 TMML", "modi 2"),
            ],
            20,
        );
        let s2 = report(&[("SM80 LD", 1.0)], vec![], 10);
        let m = merge_reports(&[("s2.json".into(), s2), ("s1.json".into(), s1.clone())]).unwrap();
        assert_eq!(
            serde_json::to_value(&m.tables).unwrap(),
            serde_json::to_value(&all.tables).unwrap()
        );
        assert_eq!(m.root_causes, all.root_causes);
        assert_eq!((m.words, m.seed, m.seconds), (30, 7, 3.0));

        let mut other = s1.clone();
        other.seed = 8;
        let e = merge_reports(&[("a.json".into(), s1.clone()), ("b.json".into(), other)])
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "b.json: seed 8 differs from a.json's 7: not shards of one campaign"
        );
        let mut worse = s1.clone();
        worse.tables.get_mut("SM90 TMML").unwrap().legal_agreement = 0.1;
        let e = merge_reports(&[("a.json".into(), s1), ("b.json".into(), worse)])
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "SM90 TMML: shards disagree (b.json and an earlier report give different figures)"
        );
    }
}
