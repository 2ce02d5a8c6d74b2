//! `sass-conform synth`: write one table per mnemonic from real words and nvdisasm
//! (src/synth/), then optionally learn each written table from scratch in its own workspace
//! (`sass-conform learn`, run as a child process) and record its figures in MATRIX.tsv.

use super::*;
use sass_conform::synth::{self, Answers, Options};

/// Arguments of `synth`.
#[derive(Args, Debug)]
pub(super) struct SynthArgs {
    /// The arch (SM90, sm_90...).
    #[arg(long)]
    arch: Arch,
    /// Cubins or folders of cubins (default: corpus/synth/<arch>, e.g. corpus/synth/sm90).
    #[arg(long)]
    cubins: Vec<PathBuf>,
    /// Real words as hex lists (one word per line, `#` comments; repeatable), instead of or
    /// beside the cubins: the default cubins are read only when neither is given.
    #[arg(long = "words", value_name = "FILE")]
    word_files: Vec<PathBuf>,
    /// Only these mnemonics (repeatable; default: every mnemonic in the cubins).
    #[arg(long = "mnemonic")]
    mnemonics: Vec<String>,
    /// Only shard I of N (1 <= I <= N): the run's mnemonics sorted, every N-th from the
    /// I-th. Shards write disjoint tables; `sass-conform shards merge` joins their folders.
    #[arg(long, value_name = "I/N")]
    shard: Option<sass_conform::shard::Shard>,
    /// Where the tables go: OUT/<MNEMONIC>.txt, OUT/VARIANTS.tsv (evidence per variant),
    /// with --learn OUT/MATRIX.tsv.
    #[arg(long)]
    out: PathBuf,
    /// Oracle folder for the synthesis answers (DIR/synth/<ARCH>.tsv; default OUT/oracle).
    #[arg(long)]
    oracle: Option<PathBuf>,
    /// Never run nvdisasm: every answer must be recorded.
    #[arg(long)]
    offline: bool,
    /// Base words flipped per variant.
    #[arg(long, default_value_t = 4)]
    bases: usize,
    /// Widest modifier group enumerated (2^N words each).
    #[arg(long, default_value_t = 6)]
    group_bits: usize,
    /// Learn the tables already in OUT (--mnemonic ones, else all; with --shard, this
    /// shard's) without synthesising them again: for a corpus that changed since they were
    /// written, or to learn more of a committed matrix. Implies --learn.
    #[arg(long)]
    learn_only: bool,
    /// Then learn each written table from scratch (`sass-conform learn OUT/X.txt --workspace
    /// OUT/.learn/X`) and write OUT/MATRIX.tsv.
    #[arg(long)]
    learn: bool,
    /// With --learn: the matrix file (default OUT/MATRIX.tsv); rows of other tables already
    /// there are kept, so several archs can share one (synth/MATRIX.tsv).
    #[arg(long)]
    matrix: Option<PathBuf>,
    /// With --learn: threads and nvdisasm processes of each learn.
    #[arg(long)]
    jobs: Option<usize>,
    /// Write the answers this run used (an oracle TSV) to FILE, e.g. a test's recording.
    #[arg(long)]
    record_used: Option<PathBuf>,
    /// Also write OUT/trace/<MNEMONIC>.tsv: per variant and bit, its role and each base's
    /// flip (the evidence of each layout).
    #[arg(long)]
    trace: bool,
    /// nvdisasm binary (else $NVDISASM, PATH, .tools/nvdisasm).
    #[arg(long)]
    nvdisasm: Option<PathBuf>,
}

pub(super) fn synth_cmd(a: &SynthArgs) -> Result<ExitCode> {
    oracle::interrupt::install()?;
    if a.learn_only {
        return learn_only(a);
    }
    let started = std::time::Instant::now();
    let cubins = if a.cubins.is_empty() && !a.word_files.is_empty() {
        Vec::new()
    } else if a.cubins.is_empty() {
        // The project's corpus from any directory, as the other inputs are found.
        let dir = sass_conform::locate::data_path(&PathBuf::from(format!(
            "corpus/synth/{}",
            a.arch.to_string().to_lowercase()
        )));
        if !dir.is_dir() {
            bail!(
                "{}: no cubins for {} (scripts/build-cubins compiled the PTX corpus into \
                 corpus/synth/ for: {}); compile ptx/synth/*.ptx with ptxas --gpu-name for this \
                 arch and give the folder with --cubins DIR, or give words with --words FILE",
                dir.display(),
                a.arch,
                corpus_archs(&sass_conform::locate::data_path(Path::new("corpus/synth")))
            );
        }
        vec![dir]
    } else {
        a.cubins.clone()
    };
    let oracle_dir = a.oracle.clone().unwrap_or_else(|| a.out.join("oracle"));
    let nv = if a.offline {
        None
    } else {
        Some(Nvdisasm::locate(a.nvdisasm.as_deref())?)
    };
    let version = nv
        .as_ref()
        .map_or("recorded".to_string(), |n| n.version().to_string());
    // Each word's source (the first `--cubins` or `--words` argument that holds it), named
    // in the description line of the tables its words make.
    let mut sources: Vec<String> = Vec::new();
    let mut word_source: std::collections::HashMap<u128, usize> = Default::default();
    let mut words = if cubins.is_empty() {
        Vec::new()
    } else {
        synth::corpus_words(&cubins, a.arch)?
    };
    if let [one] = cubins.as_slice() {
        sources.push(one.display().to_string());
        word_source.extend(words.iter().map(|&w| (w, 0)));
    } else {
        for c in &cubins {
            sources.push(c.display().to_string());
            for w in synth::corpus_words(std::slice::from_ref(c), a.arch)? {
                word_source.entry(w).or_insert(sources.len() - 1);
            }
        }
    }
    for f in &a.word_files {
        sources.push(f.display().to_string());
        let file = std::fs::File::open(f).with_context(|| f.display().to_string())?;
        for w in
            sass_conform::words::read_words(std::io::BufReader::new(file), &f.display().to_string())
        {
            let w = w?;
            if let std::collections::hash_map::Entry::Vacant(e) = word_source.entry(w) {
                e.insert(sources.len() - 1);
                words.push(w);
            }
        }
    }
    eprintln!(
        "synth: {} distinct {} words in {}{}",
        words.len(),
        a.arch,
        cubins
            .iter()
            .chain(&a.word_files)
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        a.shard.map_or(String::new(), |s| format!("; shard {s}"))
    );
    let recorded = Answers::load(&oracle_dir, a.arch)?;
    let live: Option<&(dyn oracle::ask::Ask + Sync)> = nv.as_ref().map(|n| n as _);
    let mut answers = Answers::new(a.arch, recorded, live);
    let mut opts = Options::new(a.arch);
    opts.mnemonics = a.mnemonics.clone();
    opts.sources = sources;
    opts.word_source = word_source;
    opts.shard = a.shard.unwrap_or(sass_conform::shard::Shard::ALL);
    opts.max_bases = a.bases.max(1);
    opts.max_group_bits = a.group_bits.clamp(1, 12);
    let tables = synth::synthesize(&words, &mut answers, &opts);
    // Keep what was asked even when synthesis stopped.
    let added = answers.save(&oracle_dir, &version)?;
    let outcome = tables?;
    let tables = outcome.tables;
    if let Some(f) = &a.record_used {
        // Every experiment word, and the real words of the tables made (the real words of
        // other mnemonics were asked only to be grouped).
        let real: std::collections::HashSet<u128> = words.iter().copied().collect();
        let made: Vec<&str> = tables.iter().map(|t| t.mnemonic.as_str()).collect();
        let mut e: Vec<oracle::Entry> = answers
            .used_entries()
            .into_iter()
            .filter(|e| {
                !real.contains(&e.word)
                    || synth::mnemonic_of(e.answer.text())
                        .is_some_and(|m| e.answer.is_legal() && made.contains(&m.as_str()))
            })
            .collect();
        oracle::write_entries(f, &mut e)?;
    }
    std::fs::create_dir_all(&a.out).with_context(|| a.out.display().to_string())?;
    let mut variants_tsv = String::from(
        "arch\tmnemonic\tkey\twords\tbases\topclass\tfixed_word\tfixed_legal\tnotes\n",
    );
    for t in &tables {
        let path = a.out.join(format!("{}.txt", t.mnemonic));
        write_atomic(&path, &t.text)?;
        if a.trace {
            let dir = a.out.join("trace");
            std::fs::create_dir_all(&dir).with_context(|| dir.display().to_string())?;
            let mut tsv = String::from("key\tbit\trole\tflips (one per base)\n");
            for v in &t.variants {
                for (b, (role, flips)) in v.trace.iter().enumerate() {
                    let f: Vec<String> = flips.iter().map(|f| format!("{f:?}")).collect();
                    tsv.push_str(&format!("{}\t{b}\t{role:?}\t{}\n", v.text.key, f.join(" ")));
                }
            }
            write_atomic(&dir.join(format!("{}.tsv", t.mnemonic)), &tsv)?;
        }
        for v in &t.variants {
            variants_tsv.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                t.arch,
                t.mnemonic,
                v.text.key,
                v.words.len(),
                v.bases.len(),
                v.opclass.as_deref().unwrap_or("-"),
                oracle::word_to_hex(v.text.layout.fixed_word()),
                v.fixed_legal,
                v.notes.join("; ")
            ));
        }
        outln!(
            "{}\t{}\t{} variants\t{} words\t{}",
            t.arch,
            t.mnemonic,
            t.variants.len(),
            t.variants.iter().map(|v| v.words.len()).sum::<usize>(),
            path.display()
        );
    }
    write_atomic(&a.out.join("VARIANTS.tsv"), &variants_tsv)?;
    let mut skipped_tsv = String::from("arch\tmnemonic\twhy\n");
    for e in &outcome.skipped {
        eprintln!("synth: skipped: {e}");
        match e {
            synth::SynthError::Unparsable {
                arch,
                mnemonic,
                message,
            } => skipped_tsv.push_str(&format!("{arch}\t{mnemonic}\t{message}\n")),
            synth::SynthError::NotFound { arch, mnemonic, .. } => skipped_tsv.push_str(&format!(
                "{arch}\t{mnemonic}\tno word of the input disassembles as it\n"
            )),
            _ => {}
        }
    }
    write_atomic(&a.out.join("SKIPPED.tsv"), &skipped_tsv)?;
    eprintln!(
        "synth: {} tables, {} variants; {} words asked ({} new to nvdisasm, oracle {}), {:.0} s",
        tables.len(),
        tables.iter().map(|t| t.variants.len()).sum::<usize>(),
        answers.used(),
        added,
        oracle_dir.display(),
        started.elapsed().as_secs_f64()
    );
    let mut failed = 0;
    if a.learn {
        let learnt: Vec<Learnt> = tables
            .iter()
            .map(|t| Learnt {
                arch: t.arch,
                mnemonic: t.mnemonic.clone(),
                variants: t.variants.len(),
            })
            .collect();
        failed = learn_all(a, &learnt, &outcome.run_mnemonics)?;
    }
    Ok(if outcome.skipped.is_empty() && failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The folders of `corpus` (corpus/synth) named for an arch (`sm90`: one per arch the corpus
/// was compiled for), sorted and joined by `, `; `none` when there are none.
fn corpus_archs(corpus: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(corpus)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.to_uppercase().parse::<Arch>().is_ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// Writes `text` to `path` through a temp file renamed into place.
fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    std::fs::write(&tmp, text).with_context(|| tmp.display().to_string())?;
    std::fs::rename(&tmp, path).with_context(|| path.display().to_string())?;
    Ok(())
}

/// A table to learn: its arch, mnemonic and variant count.
struct Learnt {
    arch: Arch,
    mnemonic: String,
    variants: usize,
}

/// `--learn-only`: the tables already in OUT (those of --mnemonic, else every OUT/*.txt, of
/// this shard), learned without synthesising them again.
fn learn_only(a: &SynthArgs) -> Result<ExitCode> {
    let mut names: Vec<String> = if a.mnemonics.is_empty() {
        let rd = std::fs::read_dir(&a.out).with_context(|| a.out.display().to_string())?;
        let mut v = Vec::new();
        for e in rd {
            let p = e.with_context(|| a.out.display().to_string())?.path();
            if let Some(n) = p
                .file_stem()
                .filter(|_| p.extension().is_some_and(|x| x == "txt"))
            {
                v.push(n.to_string_lossy().into_owned());
            }
        }
        v
    } else {
        a.mnemonics.clone()
    };
    names.sort();
    names.dedup();
    let run = names.clone();
    let names = a
        .shard
        .unwrap_or(sass_conform::shard::Shard::ALL)
        .select(names, |n| n.clone());
    let mut tables = Vec::new();
    for n in names {
        let path = a.out.join(format!("{n}.txt"));
        let text = std::fs::read_to_string(&path).with_context(|| path.display().to_string())?;
        let t = spec::parse_table(&path.display().to_string(), &text)?;
        if t.arch != Some(a.arch) {
            bail!(
                "{}: the table is for {}, not --arch {}",
                path.display(),
                t.arch.map_or("no arch".into(), |x| x.to_string()),
                a.arch
            );
        }
        tables.push(Learnt {
            arch: a.arch,
            mnemonic: n,
            variants: t.variants.len(),
        });
    }
    eprintln!(
        "synth: learning {} tables of {}",
        tables.len(),
        a.out.display()
    );
    Ok(match learn_all(a, &tables, &run)? {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    })
}

/// One row of MATRIX.tsv.
struct Row {
    arch: String,
    mnemonic: String,
    variants: usize,
    legal_text: String,
    verdict: String,
    findings: String,
    root_causes: String,
    seconds: f64,
}

/// Learns each table alone from scratch (`learn OUT/X.txt --workspace OUT/.learn/X`, in a
/// child process of this binary) and writes OUT/MATRIX.tsv, updated after each table. A
/// learn that fails (its recorded answers unreadable, nvdisasm missing...) stops no other:
/// its row has `-` for figures, and it is named at the end with its log. Returns how many
/// failed (the caller's exit status says so).
fn learn_all(a: &SynthArgs, tables: &[Learnt], run: &[String]) -> Result<usize> {
    let exe = std::env::current_exe().context("the sass-conform binary")?;
    let matrix = a.matrix.clone().unwrap_or_else(|| a.out.join("MATRIX.tsv"));
    // Rows of an earlier run for tables this run does not learn are kept; with --shard, the
    // rows of tables other shards of this run learn are left to them (so the shards' matrices
    // merge into the unsharded run's).
    let arch = a.arch.to_string();
    let earlier: Vec<String> = std::fs::read_to_string(&matrix)
        .unwrap_or_default()
        .lines()
        .skip(1)
        .filter(|l| {
            let mut c = l.split('\t');
            let (ar, mn) = (c.next().unwrap_or(""), c.next().unwrap_or(""));
            let learned_here = tables
                .iter()
                .any(|t| t.arch.to_string() == ar && t.mnemonic == mn);
            let other_shard = a.shard.is_some() && ar == arch && run.iter().any(|m| m == mn);
            !learned_here && !other_shard
        })
        .map(str::to_string)
        .collect();
    let mut rows: Vec<Row> = Vec::new();
    let mut failed: Vec<String> = Vec::new();
    for t in tables {
        let table = a.out.join(format!("{}.txt", t.mnemonic));
        let ws = a.out.join(".learn").join(&t.mnemonic);
        let mut cmd = std::process::Command::new(&exe);
        cmd.arg("learn").arg(&table).arg("--workspace").arg(&ws);
        if let Some(j) = a.jobs {
            cmd.arg("--jobs").arg(j.to_string());
        }
        if let Some(n) = &a.nvdisasm {
            cmd.arg("--nvdisasm").arg(n);
        }
        oracle::interrupt::check()?;
        let t0 = std::time::Instant::now();
        let out = cmd.output().context("running sass-conform learn")?;
        let seconds = t0.elapsed().as_secs_f64();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let log = ws.join("learn.log");
        std::fs::create_dir_all(&ws).ok();
        std::fs::write(&log, &all).ok();
        let (legal_text, verdict) = check_figures(&all, &t.arch.to_string(), &t.mnemonic)
            .unwrap_or_else(|| ("-".into(), "-".into()));
        let (root_causes, findings) = findings_count(&all)
            .map_or(("-".into(), "-".into()), |(r, f)| {
                (r.to_string(), f.to_string())
            });
        eprintln!(
            "synth: learn {} {}: legal text {legal_text}, verdict {verdict}, findings {findings} ({seconds:.0} s{})",
            t.arch,
            t.mnemonic,
            match exit_text(out.status) {
                None => String::new(),
                Some(e) => format!(", {e}"),
            }
        );
        if let Some(e) = exit_text(out.status) {
            // The child's own last line says why (its error, or what it skipped).
            let why = all
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            failed.push(format!(
                "{} {}: learn {e}: {} (all of it in {})",
                t.arch,
                t.mnemonic,
                why.trim(),
                log.display()
            ));
        }
        rows.push(Row {
            arch: t.arch.to_string(),
            mnemonic: t.mnemonic.clone(),
            variants: t.variants,
            legal_text,
            verdict,
            findings,
            root_causes,
            seconds,
        });
        let mut tsv = String::from(
            "arch\tmnemonic\tvariants\tcheck_legal_text\tcheck_verdict\tfindings\troot_causes\tlearn_seconds\n",
        );
        let mut lines: Vec<String> = earlier.clone();
        for r in &rows {
            lines.push(format!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.0}",
                r.arch,
                r.mnemonic,
                r.variants,
                r.legal_text,
                r.verdict,
                r.findings,
                r.root_causes,
                r.seconds
            ));
        }
        lines.sort();
        for l in lines {
            tsv.push_str(l.trim_end());
            tsv.push('\n');
        }
        write_atomic(&matrix, &tsv)?;
    }
    if !failed.is_empty() {
        eprintln!(
            "synth: {} of {} learns failed (their rows in {} have no figures):",
            failed.len(),
            tables.len(),
            matrix.display()
        );
        for f in &failed {
            eprintln!("  {f}");
        }
    }
    Ok(failed.len())
}

/// How a child process ended when not with success: `exit 2`, `killed by signal 9`; `None`
/// on success.
fn exit_text(status: std::process::ExitStatus) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    if status.success() {
        return None;
    }
    Some(match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit {c}"),
        (None, Some(s)) => format!("killed by signal {s}"),
        (None, None) => status.to_string(),
    })
}

/// From `learn`'s output (diff's headline), the check-split row of (arch, mnemonic):
/// `  SM90 S2R   1000 words  legal text 100.000% (605/605)  verdict 100.000%` ->
/// ("100.000% (605/605)", "100.000%").
fn check_figures(out: &str, arch: &str, mn: &str) -> Option<(String, String)> {
    let start = out.find("check split (never learned from)")?;
    out[start..].lines().skip(1).find_map(|l| {
        let mut w = l.split_whitespace();
        if w.next()? != arch || w.next()? != mn {
            return None;
        }
        let (_, rest) = l.split_once("legal text ")?;
        let (text, verdict) = rest.split_once("verdict ")?;
        Some((
            text.trim().to_string(),
            verdict.split_whitespace().next()?.to_string(),
        ))
    })
}

/// From `learn`'s output (resolve's summary), the root causes and findings nvdisasm proves:
/// the `N root causes behind M findings` line's (N, M).
fn findings_count(out: &str) -> Option<(usize, usize)> {
    out.lines().find_map(|l| {
        let (n, rest) = l
            .split_once(" root causes behind ")
            .or_else(|| l.split_once(" root cause behind "))?;
        Some((
            n.trim().parse().ok()?,
            rest.split_whitespace().next()?.parse().ok()?,
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_learn_figures() {
        let out = "check split (never learned from)\n  SM90 S2R                  1000 words  legal text 100.000% (605/605)  verdict 100.000%\n  all   1000 words  legal text 100.000% (605/605)  verdict 100.000%\n4 root causes behind 7 findings, in 1 table\n";
        assert_eq!(
            check_figures(out, "SM90", "S2R"),
            Some(("100.000% (605/605)".into(), "100.000%".into()))
        );
        assert_eq!(check_figures(out, "SM90", "MOV"), None);
        assert_eq!(findings_count(out), Some((4, 7)));
        let one = "1 root cause behind 1 finding, in 1 table\n";
        assert_eq!(findings_count(one), Some((1, 1)));
    }
}
