//! Side-by-side benchmark (issue 6): the product's decode, decode + render, oracle recording,
//! table parsing and diff, timed against nvdisasm on the same words in one run.
//!
//! Every goal is a ratio measured in the same run (never an absolute time), except parsing
//! (< 5 ms) and the offline diff over `oracle/` (< 1 s):
//! - decode to the structured form (variant + field values), one core: >= 1000x the words/s
//!   of one `nvdisasm -b ARCH raw.bin` process over the same (nvdisasm-legal) words;
//! - decode + render to nvdisasm's text into a reused buffer, one core: >= 100x;
//! - [`Nvdisasm::disassemble_with_stats`] (what `oracle record` runs, every core) on the legal
//!   words with 5% and 40% nvdisasm-illegal words mixed in: >= 90% of the raw batch's words/s.
//!
//! The words come from the tables: a variant drawn uniformly, every field a random value
//! ([`generate_words`]). nvdisasm's raw batch stops at the first illegal word, so the
//! comparison set is the generated words nvdisasm calls legal (found by recording them
//! first); illegal words for the mixes are the generated words nvdisasm rejects.

use crate::arch::Arch;
use crate::codec::{Codec, CodecError, EncodeOptions, SplitMix64, Word};
use crate::conform::Differ;
use crate::oracle::{self, Answer, Nvdisasm, OracleError};
use crate::render::Renderer;
use crate::spec::{SpecError, Table, bits_mask, parse_table};
use serde::Serialize;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The one error type of the bench layer.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// Reading or parsing a table.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// Building the codec or encoding a generated word.
    #[error(transparent)]
    Codec(#[from] CodecError),
    /// Running nvdisasm or reading oracle files.
    #[error(transparent)]
    Oracle(#[from] OracleError),
    /// A scratch file could not be written or nvdisasm's raw batch failed.
    #[error("{path}: {message}")]
    Run {
        /// The file or program involved.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// What to measure.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Words to generate from the tables (split over the archs by variant count).
    pub words: usize,
    /// Seed of the word generator.
    pub seed: u64,
    /// Shares of illegal words (percent) for the recording goal.
    pub mixes: Vec<u32>,
    /// Table files (as read from disk) for the parse goal, with their text.
    pub table_texts: Vec<(String, String)>,
    /// Oracle folder for the diff goal.
    pub oracle_dir: PathBuf,
    /// Scratch folder for nvdisasm's raw files.
    pub scratch: PathBuf,
}

/// Items done in some seconds.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Rate {
    /// Items (words, or runs for parse / diff).
    pub items: usize,
    /// Wall seconds.
    pub seconds: f64,
}

impl Rate {
    /// Items per second (0 when no time passed).
    pub fn per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.items as f64 / self.seconds
        } else {
            0.0
        }
    }
    fn add(&mut self, o: Rate) {
        self.items += o.items;
        self.seconds += o.seconds;
    }
}

/// One goal's measurement.
#[derive(Debug, Clone, Serialize)]
pub struct Measurement {
    /// The goal, e.g. `decode >= 1000x nvdisasm`.
    pub goal: String,
    /// The product's side.
    pub ours: Rate,
    /// nvdisasm's side (None for parse and diff).
    pub nvdisasm: Option<Rate>,
    /// `ours / nvdisasm` in words/s, or seconds per run for parse and diff.
    pub value: f64,
    /// The threshold `value` is held to.
    pub target: f64,
    /// `>=` (a ratio) or `<` (seconds).
    pub at_least: bool,
    /// Whether the goal is met.
    pub met: bool,
}

impl Measurement {
    fn ratio(goal: &str, ours: Rate, theirs: Rate, target: f64) -> Measurement {
        let value = if theirs.per_second() > 0.0 {
            ours.per_second() / theirs.per_second()
        } else {
            0.0
        };
        Measurement {
            goal: goal.into(),
            ours,
            nvdisasm: Some(theirs),
            value,
            target,
            at_least: true,
            met: value >= target,
        }
    }
    fn seconds(goal: &str, ours: Rate, target: f64) -> Measurement {
        let value = if ours.items > 0 {
            ours.seconds / ours.items as f64
        } else {
            0.0
        };
        Measurement {
            goal: goal.into(),
            ours,
            nvdisasm: None,
            value,
            target,
            at_least: false,
            met: value < target,
        }
    }
}

/// Per-arch figures behind the totals.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ArchFigures {
    /// The arch.
    pub arch: String,
    /// Generated words.
    pub generated: usize,
    /// Of those, words nvdisasm calls illegal.
    pub illegal: usize,
    /// nvdisasm raw batch over the legal words (one process).
    pub raw: Rate,
    /// Our decode over the legal words (one thread).
    pub decode: Rate,
    /// Our decode + render over the legal words (one thread).
    pub render: Rate,
    /// Of the legal words, how many we decode and render exactly as nvdisasm does.
    pub same_text: usize,
    /// Recording per mix: (percent illegal, rate over all words of the mix).
    pub record: Vec<(u32, Rate)>,
}

/// Everything one bench run measured.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    /// nvdisasm's version.
    pub nvdisasm_version: String,
    /// Threads used for recording.
    pub threads: usize,
    /// Per arch.
    pub archs: Vec<ArchFigures>,
    /// One line per goal.
    pub goals: Vec<Measurement>,
}

/// `n` words drawn from `codec`'s tables, deterministic in `seed` (see [`WordGenerator`]), as
/// (arch, word) in generation order.
pub fn generate_words(codec: &Codec, n: usize, seed: u64) -> Result<Vec<(Arch, u128)>, BenchError> {
    let mut g = WordGenerator::new(codec, None, seed);
    (0..n).map(|_| g.next_word()).collect()
}

/// Words from the tables, one at a time (memory flat however many are drawn): per word a
/// variant chosen uniformly (among the variants of one arch when given), every field a
/// uniformly random value of its width (INVALIDn modifier values and scheduling values
/// nvdisasm refuses included; undescribed bits 0).
pub struct WordGenerator<'a> {
    codec: &'a Codec,
    ids: Vec<crate::codec::VariantId>,
    rng: SplitMix64,
    values: Vec<u64>,
}

impl<'a> WordGenerator<'a> {
    /// A generator over every variant of `codec`, or of `arch`'s tables only.
    pub fn new(codec: &'a Codec, arch: Option<Arch>, seed: u64) -> WordGenerator<'a> {
        let ids = codec
            .ids()
            .filter(|&id| arch.is_none_or(|a| codec.table(id).arch == Some(a)))
            .collect();
        WordGenerator {
            codec,
            ids,
            rng: SplitMix64(seed),
            values: Vec::new(),
        }
    }

    /// Whether there is any variant to draw from.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The next word with its arch. Errors: [`BenchError::Codec`] when no variant is left to
    /// draw from or a table has no arch.
    pub fn next_word(&mut self) -> Result<(Arch, u128), BenchError> {
        if self.ids.is_empty() {
            return Err(BenchError::Run {
                path: PathBuf::from("specs"),
                message: "no variant to generate words from".into(),
            });
        }
        let id = self.ids[(self.rng.next_u64() % self.ids.len() as u64) as usize];
        let v = self.codec.variant(id);
        let rng = &mut self.rng;
        self.values.clear();
        self.values.extend(
            v.fields
                .iter()
                .map(|f| rng.next_u64() & bits_mask(f.width()) as u64),
        );
        let opts = EncodeOptions {
            allow_invalid: true,
        };
        let w = self.codec.encode(id, &self.values, opts)?;
        let t = self.codec.table(id);
        let arch = t.arch.ok_or_else(|| CodecError::NoArch(t.path.clone()))?;
        Ok((arch, w.0))
    }
}

/// Best (shortest) time of `reps` runs of `f` over `items` items.
fn best_of(reps: usize, items: usize, mut f: impl FnMut() -> usize) -> Rate {
    let mut best = f64::INFINITY;
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    Rate {
        items,
        seconds: best,
    }
}

/// CPU seconds used so far, user + system: (this process, all its threads; its children
/// that have ended and been waited for, e.g. nvdisasm processes), from `getrusage(2)`. Two
/// readings' difference splits a stretch of work into ours and nvdisasm's, whatever else
/// the machine runs (wall time does not).
pub fn cpu_seconds() -> (f64, f64) {
    fn of(who: libc::c_int) -> f64 {
        // SAFETY: `u` is a plain C struct the kernel fills; zeroed is a valid value.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage with a valid `who` and out-pointer.
        if unsafe { libc::getrusage(who, &mut u) } != 0 {
            return 0.0;
        }
        let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
        t(u.ru_utime) + t(u.ru_stime)
    }
    (of(libc::RUSAGE_SELF), of(libc::RUSAGE_CHILDREN))
}

/// Our decode of `words` on `arch`, one thread.
pub fn time_decode(codec: &Codec, arch: Arch, words: &[u128]) -> Rate {
    best_of(5, words.len(), || {
        let mut n = 0;
        for &w in words {
            if let Some(d) = codec.decode(arch, Word(black_box(w))) {
                n += d.n_fields;
            }
        }
        n
    })
}

/// Our decode + render of `words` on `arch` into one reused buffer, one thread.
pub fn time_render(codec: &Codec, r: &Renderer, arch: Arch, words: &[u128]) -> Rate {
    let mut buf = String::with_capacity(160);
    best_of(3, words.len(), || {
        let mut n = 0;
        for &w in words {
            if let Some(d) = codec.decode(arch, Word(black_box(w))) {
                buf.clear();
                r.render_into(codec, &d, &mut buf);
                n += buf.len();
            }
        }
        n
    })
}

/// One `nvdisasm -b ARCH raw.bin` process over `words` (all nvdisasm-legal), timed from start
/// to exit. Errors: [`BenchError::Run`] when it does not exit 0 (an illegal word stops it).
pub fn time_raw_batch(
    nv: &Nvdisasm,
    arch: Arch,
    words: &[u128],
    scratch: &Path,
) -> Result<Rate, BenchError> {
    let path = scratch.join(format!("bench-{arch}.bin"));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).map_err(|e| BenchError::Run {
        path: path.clone(),
        message: e.to_string(),
    })?;
    let t = Instant::now();
    let out = Command::new(nv.path())
        .args(["-b", &arch.to_string()])
        .arg(&path)
        .output()
        .map_err(|e| BenchError::Run {
            path: nv.path().to_path_buf(),
            message: e.to_string(),
        })?;
    let seconds = t.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(&path);
    if !out.status.success() {
        return Err(BenchError::Run {
            path: nv.path().to_path_buf(),
            message: format!(
                "raw batch of {} {arch} words failed ({}): {}",
                words.len(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
            ),
        });
    }
    Ok(Rate {
        items: words.len(),
        seconds,
    })
}

/// `legal` with illegal words from `pool` mixed in so that `percent`% of the result is
/// illegal (drawn with replacement, placed at random positions; deterministic in `seed`).
pub fn mix_words(legal: &[u128], pool: &[u128], percent: u32, seed: u64) -> Vec<u128> {
    let mut rng = SplitMix64(seed ^ u64::from(percent));
    if pool.is_empty() || percent == 0 {
        return legal.to_vec();
    }
    let p = f64::from(percent.min(99)) / 100.0;
    let n_illegal = ((legal.len() as f64) * p / (1.0 - p)).round() as usize;
    let total = legal.len() + n_illegal;
    let mut out = Vec::with_capacity(total);
    let (mut li, mut left_illegal) = (0, n_illegal);
    while out.len() < total {
        let left = total - out.len();
        let pick_illegal = (rng.next_u64() % left as u64) < left_illegal as u64;
        if pick_illegal {
            out.push(pool[(rng.next_u64() % pool.len() as u64) as usize]);
            left_illegal -= 1;
        } else {
            out.push(legal[li]);
            li += 1;
        }
    }
    out
}

/// Parsing every table text once; the best of 20 runs. Errors: the first parse error.
pub fn time_parse(texts: &[(String, String)]) -> Result<Rate, BenchError> {
    for (file, text) in texts {
        parse_table(file, text)?;
    }
    Ok(best_of(20, 1, || {
        texts
            .iter()
            .filter_map(|(f, t)| parse_table(f, t).ok())
            .map(|t: Table| t.variants.len())
            .sum()
    }))
}

/// `sass-conform diff` over the evidence files of `dir` (read row by row, decoded, rendered,
/// compared): one run. Returns the rate (1 run) and the number of entries compared.
pub fn time_diff(codec: &Codec, r: &Renderer, dir: &Path) -> Result<(Rate, usize), BenchError> {
    let t = Instant::now();
    let mut differ = Differ::new(codec, r);
    oracle::for_each_entry_where(dir, oracle::is_evidence_file, |e| {
        differ.add(&e);
    })?;
    let res = differ.finish();
    let rate = Rate {
        items: 1,
        seconds: t.elapsed().as_secs_f64(),
    };
    Ok((rate, res.counts.total))
}

/// Runs every measurement (see the module docs); `progress` gets one line per step.
pub fn run(
    codec: &Codec,
    nv: &Nvdisasm,
    opts: &BenchOptions,
    mut progress: impl FnMut(&str),
) -> Result<BenchReport, BenchError> {
    let r = Renderer::new(codec);
    let words = generate_words(codec, opts.words, opts.seed)?;
    let mut archs: Vec<Arch> = words.iter().map(|w| w.0).collect();
    archs.sort();
    archs.dedup();
    let mut figures = Vec::new();
    for arch in archs {
        let ws: Vec<u128> = words.iter().filter(|w| w.0 == arch).map(|w| w.1).collect();
        figures.push(measure_arch(codec, &r, nv, arch, &ws, opts, &mut progress)?);
    }
    progress("parse: all tables");
    let parse = time_parse(&opts.table_texts)?;
    progress("diff: oracle folder");
    let (diff, _) = time_diff(codec, &r, &opts.oracle_dir)?;
    let goals = goals(&figures, &opts.mixes, parse, diff);
    Ok(BenchReport {
        nvdisasm_version: nv.version().to_string(),
        threads: rayon::current_num_threads(),
        archs: figures,
        goals,
    })
}

fn measure_arch(
    codec: &Codec,
    r: &Renderer,
    nv: &Nvdisasm,
    arch: Arch,
    ws: &[u128],
    opts: &BenchOptions,
    progress: &mut impl FnMut(&str),
) -> Result<ArchFigures, BenchError> {
    progress(&format!(
        "{arch}: asking nvdisasm about {} generated words",
        ws.len()
    ));
    let answers = nv.disassemble(arch, ws, None)?;
    let mut legal = Vec::new();
    let mut texts = Vec::new();
    let mut pool = Vec::new();
    for (&w, a) in ws.iter().zip(&answers) {
        match a {
            Answer::Text(t) => {
                legal.push(w);
                texts.push(t.as_str());
            }
            Answer::Illegal(_) => pool.push(w),
        }
    }
    let mut f = ArchFigures {
        arch: arch.to_string(),
        generated: ws.len(),
        illegal: pool.len(),
        ..Default::default()
    };
    if legal.is_empty() {
        return Ok(f);
    }
    progress(&format!(
        "{arch}: nvdisasm raw batch, {} legal words",
        legal.len()
    ));
    f.raw = time_raw_batch(nv, arch, &legal, &opts.scratch)?;
    progress(&format!("{arch}: our decode and decode + render"));
    f.decode = time_decode(codec, arch, &legal);
    f.render = time_render(codec, r, arch, &legal);
    f.same_text = same_text(codec, r, arch, &legal, &texts);
    if pool.is_empty() {
        progress(&format!(
            "{arch}: no illegal word to mix in; no recording measured"
        ));
        return Ok(f);
    }
    for &p in &opts.mixes {
        let mix = mix_words(&legal, &pool, p, opts.seed);
        progress(&format!(
            "{arch}: recording {} words, {p}% illegal",
            mix.len()
        ));
        let t = Instant::now();
        nv.disassemble_with_stats(arch, &mix, None)?;
        let rate = Rate {
            items: mix.len(),
            seconds: t.elapsed().as_secs_f64(),
        };
        f.record.push((p, rate));
    }
    Ok(f)
}

/// How many of `words` we render exactly as nvdisasm's `texts`.
fn same_text(codec: &Codec, r: &Renderer, arch: Arch, words: &[u128], texts: &[&str]) -> usize {
    let mut buf = String::new();
    words
        .iter()
        .zip(texts)
        .filter(|&(&w, t)| {
            codec.decode(arch, Word(w)).is_some_and(|d| {
                buf.clear();
                r.render_into(codec, &d, &mut buf);
                buf == *t
            })
        })
        .count()
}

/// The goal lines from the per-arch figures (totals over the archs: words summed, seconds
/// summed).
fn goals(figures: &[ArchFigures], mixes: &[u32], parse: Rate, diff: Rate) -> Vec<Measurement> {
    let total = |pick: &dyn Fn(&ArchFigures) -> Rate| {
        let mut t = Rate::default();
        figures.iter().for_each(|f| t.add(pick(f)));
        t
    };
    let raw = total(&|f| f.raw);
    let mut out = vec![
        Measurement::ratio(
            "decode >= 1000x nvdisasm (one core)",
            total(&|f| f.decode),
            raw,
            1000.0,
        ),
        Measurement::ratio(
            "decode + render >= 100x nvdisasm (one core)",
            total(&|f| f.render),
            raw,
            100.0,
        ),
    ];
    for &p in mixes {
        let rec = total(&|f| {
            f.record
                .iter()
                .find(|(q, _)| *q == p)
                .map(|x| x.1)
                .unwrap_or_default()
        });
        out.push(Measurement::ratio(
            &format!("oracle record, {p}% illegal >= 0.9x nvdisasm raw batch"),
            rec,
            raw,
            0.9,
        ));
    }
    out.push(Measurement::seconds(
        "parse all tables < 5 ms",
        parse,
        0.005,
    ));
    out.push(Measurement::seconds("diff over oracle/ < 1 s", diff, 1.0));
    out
}

/// The report as a text table: one line per goal (measured value, target, words/s behind
/// it), then one line per arch.
pub fn render_report(rep: &BenchReport) -> String {
    let mut s = format!(
        "nvdisasm {}, {} recording threads\n\n{:<58} {:>10} {:>8}  {:<4} {}\n",
        rep.nvdisasm_version, rep.threads, "goal", "measured", "target", "met", "behind it"
    );
    for g in &rep.goals {
        let (value, target) = if g.at_least {
            (format!("{:.2}x", g.value), format!("{}x", g.target))
        } else {
            (
                format!("{:.2} ms", g.value * 1e3),
                format!("{} ms", g.target * 1e3),
            )
        };
        let behind = match g.nvdisasm {
            Some(n) => format!(
                "ours {:.0} words/s ({} in {:.3} s); nvdisasm {:.0} words/s ({} in {:.3} s)",
                g.ours.per_second(),
                g.ours.items,
                g.ours.seconds,
                n.per_second(),
                n.items,
                n.seconds
            ),
            None => format!(
                "{:.3} ms per run ({})",
                g.ours.seconds * 1e3,
                if g.goal.starts_with("parse") {
                    "best of 20"
                } else {
                    "one run"
                }
            ),
        };
        s += &format!(
            "{:<58} {:>10} {:>8}  {:<4} {}\n",
            g.goal,
            value,
            target,
            if g.met { "yes" } else { "NO" },
            behind
        );
    }
    s += "\narch   generated  illegal  same text   raw words/s  decode words/s  render words/s\n";
    for f in &rep.archs {
        s += &format!(
            "{:<6} {:>9} {:>8} {:>10} {:>13.0} {:>15.0} {:>15.0}\n",
            f.arch,
            f.generated,
            f.illegal,
            f.same_text,
            f.raw.per_second(),
            f.decode.per_second(),
            f.render.per_second()
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codec() -> Codec {
        Codec::new(crate::spec::bundled_tables().unwrap()).unwrap()
    }

    #[test]
    fn generated_words_decode_as_some_variant_of_their_arch() {
        let c = codec();
        let ws = generate_words(&c, 2000, 7).unwrap();
        assert_eq!(ws.len(), 2000);
        assert!(ws.iter().all(|&(a, w)| c.decode(a, Word(w)).is_some()));
        // Deterministic in the seed.
        assert_eq!(ws, generate_words(&c, 2000, 7).unwrap());
        assert_ne!(ws, generate_words(&c, 2000, 8).unwrap());
        let sm90 = ws.iter().filter(|w| w.0 == Arch(90)).count();
        // 123 of the 143 variants are SM90 (TLD4 111 + TMML 12): about 86% of the words.
        assert!((1600..1850).contains(&sm90), "{sm90}");
    }

    #[test]
    fn mixes_hold_the_asked_share_of_illegal_words() {
        let legal: Vec<u128> = (1000..1950).collect();
        let pool = [1u128, 2, 3];
        let mix = mix_words(&legal, &pool, 5, 1);
        assert_eq!(mix.len(), 1000);
        assert_eq!(mix.iter().filter(|w| **w < 4).count(), 50);
        // The legal words keep their order.
        let kept: Vec<u128> = mix.iter().copied().filter(|w| *w >= 1000).collect();
        assert_eq!(kept, legal);
        let mix = mix_words(&legal[..600], &pool, 40, 1);
        assert_eq!(mix.len(), 1000);
        assert_eq!(mix.iter().filter(|w| **w < 4).count(), 400);
        assert_eq!(mix_words(&legal, &[], 40, 1), legal);
    }

    #[test]
    fn goals_compare_words_per_second() {
        let f = ArchFigures {
            raw: Rate {
                items: 1000,
                seconds: 1.0,
            },
            decode: Rate {
                items: 1000,
                seconds: 0.0005,
            },
            render: Rate {
                items: 1000,
                seconds: 0.02,
            },
            record: vec![(
                5,
                Rate {
                    items: 1050,
                    seconds: 1.0,
                },
            )],
            ..Default::default()
        };
        let parse = Rate {
            items: 1,
            seconds: 0.002,
        };
        let diff = Rate {
            items: 1,
            seconds: 1.5,
        };
        let g = goals(&[f], &[5], parse, diff);
        assert_eq!(g.len(), 5);
        assert_eq!(g[0].value, 2000.0);
        assert!(g[0].met);
        assert_eq!(g[1].value, 50.0);
        assert!(!g[1].met);
        assert!((g[2].value - 1.05).abs() < 1e-9 && g[2].met);
        assert!(g[3].met && (g[3].value - 0.002).abs() < 1e-12);
        assert!(!g[4].met);
        let text = render_report(&BenchReport {
            nvdisasm_version: "13.5.37".into(),
            threads: 2,
            archs: vec![],
            goals: g,
        });
        assert!(text.contains("decode + render >= 100x nvdisasm (one core)"));
        assert!(text.contains("50.00x"));
        assert!(text.contains("NO"));
    }

    #[test]
    fn parse_time_covers_every_table() {
        let texts: Vec<(String, String)> = crate::spec::BUNDLED
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect();
        let r = time_parse(&texts).unwrap();
        assert_eq!(r.items, 1);
        assert!(time_parse(&[("x.txt".into(), "nonsense".into())]).is_err());
    }
}
