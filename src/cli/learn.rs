//! `sass-conform learn`: one command from any table file or folder to a learned reading and its
//! check-split figure (record, resolve, forms, learn split, sweeps, resolve, relearn split,
//! resolve, check split, diff).

use super::*;
use sass_conform::conform::rootcause::counted;

/// Arguments of `learn`.
#[derive(Args, Debug)]
pub(super) struct LearnArgs {
    /// Table files or folders (dialect A, dialect B, nv_isa_solver HTML pages).
    #[arg(default_value = "specs")]
    paths: Vec<PathBuf>,
    /// Arch for tables without an arch line (dialect B, HTML pages), where no
    /// ARCH_MANIFEST.tsv beside them names one.
    #[arg(long)]
    arch: Option<Arch>,
    /// Where the tables' nvdisasm answers are recorded (default: oracle/ for the bundled
    /// tables, else WORKSPACE/oracle).
    #[arg(long)]
    oracle: Option<PathBuf>,
    /// Where the learned reading is written (default: resolved/tables.json for the bundled
    /// tables, else WORKSPACE/resolved/tables.json).
    #[arg(long)]
    resolved: Option<PathBuf>,
    /// The workspace for tables outside specs/ (default: `<first path>.learn` beside it): it
    /// holds a copy of every table that loads (specs/), oracle/ and resolved/.
    #[arg(long)]
    workspace: Option<PathBuf>,
    /// Threads for learning and nvdisasm processes at once (default: every core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Combination words per variant of the learn split (the check split takes half).
    #[arg(long, default_value_t = 2000)]
    per_variant: usize,
    /// nvdisasm binary (else $NVDISASM, PATH, .tools/nvdisasm).
    #[arg(long)]
    nvdisasm: Option<PathBuf>,
    /// Only shard I of N (1 <= I <= N) of the tables, sorted by (arch, mnemonic): each shard
    /// in a workspace of its own; `sass-conform shards merge` joins their recorded answers.
    #[arg(long, value_name = "I/N")]
    shard: Option<sass_conform::shard::Shard>,
}

/// Most rounds of sweeps around forms: each round sweeps around the forms and bases the last
/// one showed (a form within a form within a form needs three; a table whose fixed words are
/// illegal on the arch needs more, SM75 LD: 16% of the check split with one round, 37% with
/// three).
const SWEEP_ROUNDS: usize = 5;

/// Where one run of `learn` reads and writes.
struct Workspace {
    specs: PathBuf,
    oracle: PathBuf,
    resolved: PathBuf,
    /// What the tables, the recorded answers and the reading held when this run last wrote the
    /// reading ([`inputs_digest`]), and what that step learned: a learning step whose inputs
    /// have not changed since is skipped ([`resolve_write`]) unless it learns more.
    learned: std::cell::Cell<Option<([u8; 32], Learns)>>,
    /// The printers the run's last learning step ended with: the next step keeps each one
    /// that prints its variant's added answers right instead of learning it again.
    carried: CarriedPrinters,
    /// The workspace's lock (`WORKSPACE/.lock`), held for the whole run: a second `learn`
    /// into the same workspace stops before it replaces the tables the first is learning.
    _lock: Option<std::fs::File>,
}

pub(super) fn learn_cmd(a: &LearnArgs) -> Result<ExitCode> {
    oracle::interrupt::install()?;
    if let Some(n) = a.jobs {
        // The nvdisasm runner starts as many processes as the pool has threads. Only the first
        // call in a process can set the pool; a second is harmless. More than 4 per core only
        // costs memory.
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let n = n.clamp(1, 4 * cores);
        if Some(n) != a.jobs {
            eprintln!(
                "learn: --jobs {} taken as {n} ({cores} cores)",
                a.jobs.unwrap_or(0)
            );
        }
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
    let started = std::time::Instant::now();
    // The bundled tables: `learn` alone (or `learn specs` with no option that says otherwise)
    // keeps oracle/ and resolved/ as every other command reads them.
    let bundled = a.paths.len() == 1
        && a.paths[0] == Path::new("specs")
        && a.workspace.is_none()
        && a.arch.is_none();
    if bundled && a.shard.is_some() {
        bail!(
            "--shard needs a workspace of its own per shard (--workspace DIR): the bundled tables' oracle/ and resolved/ are shared"
        );
    }
    let (ws, skipped) = if bundled {
        let ws = Workspace {
            specs: PathBuf::from("specs"),
            oracle: a.oracle.clone().unwrap_or_else(|| "oracle".into()),
            resolved: a
                .resolved
                .clone()
                .unwrap_or_else(|| "resolved/tables.json".into()),
            learned: Default::default(),
            carried: Default::default(),
            _lock: None,
        };
        (ws, Vec::new())
    } else {
        prepare_workspace(a)?
    };
    let tables = load_some_tables(std::slice::from_ref(&ws.specs), None)?;
    if tables.is_empty() {
        bail!("no table to learn (every table was skipped)");
    }
    eprintln!(
        "learn: {}, {}; oracle {}, reading {}",
        counted(tables.len(), "table"),
        counted(
            tables.iter().map(|t| t.variants.len()).sum::<usize>(),
            "variant"
        ),
        ws.oracle.display(),
        ws.resolved.display()
    );
    let missing = |rel: &dyn Fn(&spec::Table) -> String| {
        tables.iter().any(|t| !ws.oracle.join(rel(t)).is_file())
    };
    let arch_of = |t: &spec::Table| t.arch.map(|a| a.to_string()).unwrap_or_default();
    let view = ViewArgs {
        resolved: ws.resolved.clone(),
        as_written: false,
        quiet_missing: true,
    };
    // One split of combination words (`oracle combos`), `per_variant` words per variant.
    let combos = |split: Split, per_variant: usize| {
        record_combos(&CombosArgs {
            view: view.clone(),
            specs: ws.specs.clone(),
            out: ws.oracle.clone(),
            split,
            per_variant,
            nvdisasm: a.nvdisasm.clone(),
        })
    };
    // 1. Sweeps of every variant (fixed word, every field value, every fixed bit flipped).
    if missing(&|t| format!("{}/{}.tsv", arch_of(t).to_lowercase(), t.mnemonic)) {
        step("sweeps (oracle record)");
        record(&RecordArgs {
            specs: ws.specs.clone(),
            out: ws.oracle.clone(),
            nvdisasm: a.nvdisasm.clone(),
            per_variant: 200,
            seed: 1,
            timeout: None,
        })?;
    }
    // The next experiments (form bits, the learn split) read only the layouts.
    resolve_write(&ws, Learns::Layouts)?;
    oracle::interrupt::check()?;
    // 2. The form-bit and quiet-word experiments (every run: `oracle forms` asks only the
    // words a recorded file lacks, so a workspace recorded before an experiment was added
    // gets it), then the learn split.
    step("form bits and the quiet word (oracle forms)");
    record_forms(&FormsArgs {
        view: view.clone(),
        specs: ws.specs.clone(),
        out: ws.oracle.clone(),
        nvdisasm: a.nvdisasm.clone(),
    })?;
    if missing(&|t| format!("combos/learn/{}-{}.tsv", arch_of(t), t.mnemonic)) {
        step("learn split (oracle combos --split learn)");
        combos(Split::Learn, a.per_variant)?;
    }
    resolve_write(&ws, Learns::Everything)?;
    oracle::interrupt::check()?;
    // 3. Sweeps around each form the answers show, then learn again.
    // After a fifth round, the relearn split (layouts only) comes next when it is missing.
    let relearn = missing(&|t| format!("combos/relearn/{}-{}.tsv", arch_of(t), t.mnemonic));
    let after_last = match relearn {
        true => Learns::Layouts,
        false => Learns::Everything,
    };
    sweep_rounds(&ws, &view, &a.nvdisasm, "", after_last)?;
    // 4. A second learn split from the layout the learning ended with (fields found since the
    // first was drawn vary in it, as in the check split), then learn again.
    if relearn {
        step("learn split again from the learned layout (oracle combos --split relearn)");
        combos(Split::Relearn, (a.per_variant / 2).max(1))?;
        resolve_write(&ws, Learns::Everything)?;
        oracle::interrupt::check()?;
    }
    // The reading learned from the relearn split can show forms the sweeps have not been
    // around yet; without these rounds a second `learn` recorded them and read differently
    // (SM100 ATOMS 74.9% -> 99.7% on the check split between two runs of 37be888's reading).
    sweep_rounds(
        &ws,
        &view,
        &a.nvdisasm,
        " learned from the relearn split",
        Learns::Everything,
    )?;
    // 5. The check split, never learned from, and the figures.
    if missing(&|t| format!("combos/check/{}-{}.tsv", arch_of(t), t.mnemonic)) {
        step("check split (oracle combos --split check)");
        combos(Split::Check, (a.per_variant / 2).max(1))?;
    }
    step("figures (diff)");
    // From here on nothing is recorded: a signal ends the process at once.
    let _at_once = oracle::interrupt::AtOnce::enter();
    // Every disagreeing word, beside the reading: the evidence behind each figure.
    let words = ws.resolved.with_file_name("disagreements.csv");
    diff_cmd(&DiffArgs {
        view,
        oracle: ws.oracle.clone(),
        specs: ws.specs.clone(),
        json: false,
        top: 5,
        words: Some(words.clone()),
        learned_here: true,
    })?;
    step("what nvdisasm proves about the tables (resolve)");
    resolve_cmd(&ResolveArgs {
        paths: vec![ws.specs.clone()],
        arch: None,
        oracle: ws.oracle.clone(),
        json: false,
        write: None,
        emit_tables: None,
        patch: false,
        resolved: ws.resolved.clone(),
        quiet: false,
        skip_printers: false,
        carried: None,
    })?;
    eprintln!(
        "learn: done in {:.0} s; tables {}, oracle {}, reading {}, disagreeing words {}",
        started.elapsed().as_secs_f64(),
        ws.specs.display(),
        ws.oracle.display(),
        ws.resolved.display(),
        words.display()
    );
    let (ours, theirs) = sass_conform::bench::cpu_seconds();
    eprintln!(
        "learn: CPU: ours {ours:.2} s, nvdisasm {theirs:.2} s (the processes it ran){}",
        if theirs > 0.0 {
            format!("; ours / nvdisasm {:.3}", ours / theirs)
        } else {
            String::new()
        }
    );
    eprintln!(
        "learn: next: {3} diff --specs {0} --oracle {1} --resolved {2}; {3} resolve {0} --oracle {1} --resolved {2}",
        ws.specs.display(),
        ws.oracle.display(),
        ws.resolved.display(),
        invoked_as()
    );
    if skipped.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("learn: {} table(s) skipped:", skipped.len());
        for (path, why) in &skipped {
            eprintln!("  {}: {why}", path.display());
        }
        Ok(ExitCode::from(1))
    }
}

/// Sweeps around each form the answers show (`oracle sweeps`), then learn again; each round's
/// answers can show forms within forms, so again until a round adds nothing (at most
/// `SWEEP_ROUNDS`). Only what is missing is recorded, so on a finished workspace this records
/// nothing and learns nothing. Each round says how many of its words the reading before it
/// read otherwise than nvdisasm; a round none of whose words is misread is no reason to stop:
/// synthesised SM89 LDS read 0 of round 4's 2,054 words wrong, and stopping there left
/// 59.046% of its check split, against 100% with round 5 (whose sweeps follow the reading
/// learned from round 4). `pass` tells the two passes apart in the step lines
/// (`sweeps around forms learned from the relearn split, round 1`). The learning step after
/// the last round allowed learns `after_last` ([`Learns`]: what the step after the rounds
/// reads); after every other round, everything (the next round sweeps around the printers'
/// misses).
fn sweep_rounds(
    ws: &Workspace,
    view: &ViewArgs,
    nvdisasm: &Option<PathBuf>,
    pass: &str,
    after_last: Learns,
) -> Result<()> {
    for round_no in 1..=SWEEP_ROUNDS {
        step(&format!(
            "sweeps around forms{pass}, round {round_no} (oracle sweeps)"
        ));
        let round = record_sweeps(&FormsArgs {
            view: view.clone(),
            specs: ws.specs.clone(),
            out: ws.oracle.clone(),
            nvdisasm: nvdisasm.clone(),
        })?;
        if round.added == 0 {
            break;
        }
        eprintln!(
            "learn: the reading before this round read {} of its {} words otherwise than \
             nvdisasm",
            round.misread, round.added
        );
        resolve_write(
            ws,
            match round_no {
                SWEEP_ROUNDS => after_last,
                _ => Learns::Everything,
            },
        )?;
        oracle::interrupt::check()?;
    }
    Ok(())
}

/// The program as the user ran it (`./target/release/sass-conform`, or `sass-conform` when
/// it came from `PATH`), for the commands `learn` suggests next.
fn invoked_as() -> String {
    std::env::args()
        .next()
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| "sass-conform".into())
}

/// Prints a step line, with the seconds since the first step line of the process (the start of
/// `learn`'s work): `== learn: sweeps (oracle record), at 0 s`.
fn step(what: &str) {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let at = START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs();
    eprintln!("== learn: {what}, at {at} s");
}

/// The learning step (`resolve --write`), skipped when its inputs are what they were when this
/// run last wrote the reading: the tables, the recorded answers (and MANIFEST.json) and the
/// reading file itself byte for byte ([`inputs_digest`]). What it writes depends on nothing
/// else (the command line and the date aside, the same within a run), so the reading it would
/// write again is the one on disk.
fn resolve_write(ws: &Workspace, what: Learns) -> Result<()> {
    step(match what {
        Learns::Layouts => "learning the layouts (resolve --write, no printers)",
        Learns::Everything => "learning (resolve --write)",
    });
    let before = inputs_digest(ws)?;
    if ws
        .learned
        .get()
        .is_some_and(|(d, done)| d == before && done >= what)
    {
        eprintln!(
            "{}: kept: the tables and recorded answers are those it was learned from in this run",
            ws.resolved.display()
        );
        return Ok(());
    }
    let _at_once = oracle::interrupt::AtOnce::enter();
    resolve_cmd(&ResolveArgs {
        paths: vec![ws.specs.clone()],
        arch: None,
        oracle: ws.oracle.clone(),
        json: false,
        write: Some(ws.resolved.clone()),
        emit_tables: None,
        patch: false,
        resolved: ws.resolved.clone(),
        quiet: true,
        skip_printers: what == Learns::Layouts,
        carried: Some(ws.carried.clone()),
    })?;
    ws.learned.set(Some((inputs_digest(ws)?, what)));
    Ok(())
}

/// What a learning step ([`resolve_write`]) learns. The printers are most of its CPU (SM121
/// IMAD: every hot function of a `resolve --write` is the printer's) and only the sweeps
/// read them (around where a learned printer misses); a step whose next experiments read
/// only the layouts (the form-bit experiment and the learn splits: after the first sweeps, and
/// after the last sweep round allowed when the relearn split comes next) leaves them out. The reading it ends with is the same: the next step learns the printers
/// from the same answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Learns {
    /// Layouts, forms, legality and the operand and modifier readings; no printers.
    Layouts,
    /// Everything, printers included.
    Everything,
}

/// A digest of what the learning step reads: every file under the tables' folder and the
/// oracle folder (as the commands find them, [`sass_conform::locate::data_path`]; the bundled
/// tables when there is no such folder are the build's, the same within a run), each with its
/// path and length, and the reading file (absent: nothing).
fn inputs_digest(ws: &Workspace) -> Result<[u8; 32]> {
    use sha2::{Digest, Sha256};
    fn files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
        if dir.is_file() {
            out.push(dir.to_path_buf());
            return Ok(());
        }
        let Ok(read) = std::fs::read_dir(dir) else {
            return Ok(());
        };
        for e in read {
            let path = e
                .with_context(|| format!("reading {}", dir.display()))?
                .path();
            if path.is_dir() {
                files(&path, out)?;
            } else {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut h = Sha256::new();
    for root in [&ws.specs, &ws.oracle] {
        let mut list = Vec::new();
        files(&sass_conform::locate::data_path(root), &mut list)?;
        list.sort();
        h.update((list.len() as u64).to_le_bytes());
        for path in list {
            let bytes =
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            let name = path.as_os_str().as_encoded_bytes();
            h.update((name.len() as u64).to_le_bytes());
            h.update(name);
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(&bytes);
        }
    }
    match std::fs::read(&ws.resolved) {
        Ok(bytes) => {
            h.update([1]);
            h.update(&bytes);
        }
        Err(_) => h.update([0]),
    }
    Ok(h.finalize().into())
}

/// Copies every table of `a.paths` that loads into WORKSPACE/specs (byte-identical, with an
/// ARCH_MANIFEST.tsv for the ones whose arch comes from `--arch` or a manifest; tables left
/// there by an earlier run and no longer given are removed), and returns the workspace and
/// the tables skipped, each with why. Skipped: a table that does not load, has no arch, is
/// of an arch nvdisasm refuses, or repeats a mnemonic already in the run on its arch (their
/// answers would share one oracle file); anything under a `*.learn` folder (a workspace).
fn prepare_workspace(a: &LearnArgs) -> Result<(Workspace, Vec<(PathBuf, String)>)> {
    let first = &a.paths[0];
    let (tables, lenient_skips) = spec::load_tables_lenient(&a.paths, a.arch);
    let mut skipped: Vec<(PathBuf, String)> = lenient_skips
        .into_iter()
        .map(|s| (s.path, s.error.to_string()))
        .collect();
    let in_workspace = |p: &Path| {
        p.components()
            .any(|c| c.as_os_str().to_string_lossy().ends_with(".learn"))
    };
    let tables: Vec<spec::Table> = tables
        .into_iter()
        .filter(|t| !in_workspace(Path::new(&t.path)))
        .collect();
    let tables = match a.shard {
        Some(sh) => {
            let n = tables.len();
            let mine = sh.select(tables, |t| (t.arch, t.mnemonic.clone(), t.path.clone()));
            eprintln!("learn: shard {sh}: {} of {n} tables", mine.len());
            if mine.is_empty() {
                bail!("shard {sh} has no table: only {n} tables loaded (give fewer shards)");
            }
            mine
        }
        None => tables,
    };
    if tables.is_empty() {
        for (p, why) in &skipped {
            eprintln!("learn: skipped {}", skip_line(p, why));
        }
        bail!(
            "no table loaded from {} (table files: *.txt in either dialect, nv_isa_solver *.html)",
            a.paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let root = match &a.workspace {
        Some(w) => w.clone(),
        None => {
            let canon = first.canonicalize().unwrap_or_else(|_| first.clone());
            let name = canon
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "tables".into());
            let parent = canon
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from("."));
            parent.join(format!("{name}.learn"))
        }
    };
    let accepted = archs_nvdisasm_takes(a, &tables);
    let specs = root.join("specs");
    let mut manifest =
        String::from("# written by sass-conform learn: the arch of tables without an arch line\n");
    let mut names = std::collections::HashSet::new();
    let mut seen: std::collections::HashMap<(Arch, String), String> = Default::default();
    // (file name in the workspace, source): decided before anything is written, so a run
    // whose every table is skipped leaves no workspace behind.
    let mut copies: Vec<(String, &Path)> = Vec::new();
    for t in &tables {
        let src = Path::new(&t.path);
        let Some(name) = src.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        let Some(arch) = t.arch else {
            skipped.push((src.to_path_buf(), "no arch: give --arch".into()));
            continue;
        };
        if let Some(Err(why)) = accepted.get(&arch) {
            skipped.push((src.to_path_buf(), format!("nvdisasm refuses {arch}: {why}")));
            continue;
        }
        if let Some(other) = seen.get(&(arch, t.mnemonic.clone())) {
            skipped.push((
                src.to_path_buf(),
                format!(
                    "a table of {} on {arch} is already in this run ({other}); learn it in a workspace of its own (--workspace)",
                    t.mnemonic
                ),
            ));
            continue;
        }
        seen.insert((arch, t.mnemonic.clone()), t.path.clone());
        // Two tables of one file name from different folders: the second gets its arch in
        // its name (one arch and mnemonic twice was refused above).
        let name = if names.insert(name.clone()) {
            name
        } else {
            format!("{arch}-{name}")
        };
        names.insert(name.clone());
        if t.arch_source != "header" {
            manifest.push_str(&format!(
                "{name}\t{arch}\tsass-conform learn ({})\t{}\n",
                t.arch_source,
                t.variants.len()
            ));
        }
        copies.push((name, src));
    }
    for (p, why) in &skipped {
        eprintln!("learn: skipped {}", skip_line(p, why));
    }
    if copies.is_empty() {
        bail!("no table left to learn (every table was skipped, above)");
    }
    std::fs::create_dir_all(&specs).with_context(|| format!("creating {}", specs.display()))?;
    let lock = lock_workspace(&root)?;
    for (name, src) in &copies {
        let dst = specs.join(name);
        let text = std::fs::read(src).with_context(|| format!("reading {}", src.display()))?;
        if std::fs::read(&dst).ok().as_deref() != Some(&text[..]) {
            std::fs::write(&dst, &text).with_context(|| format!("writing {}", dst.display()))?;
        }
    }
    // Tables an earlier run copied and this one did not: not part of this run any more.
    for e in std::fs::read_dir(&specs).with_context(|| format!("listing {}", specs.display()))? {
        let p = e?.path();
        let n = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if p.is_file() && n != "ARCH_MANIFEST.tsv" && !names.contains(&n) {
            std::fs::remove_file(&p).with_context(|| format!("removing {}", p.display()))?;
        }
    }
    let mpath = specs.join("ARCH_MANIFEST.tsv");
    if std::fs::read_to_string(&mpath).ok().as_deref() != Some(manifest.as_str()) {
        std::fs::write(&mpath, &manifest)
            .with_context(|| format!("writing {}", mpath.display()))?;
    }
    let ws = Workspace {
        specs,
        oracle: a.oracle.clone().unwrap_or_else(|| root.join("oracle")),
        resolved: a
            .resolved
            .clone()
            .unwrap_or_else(|| root.join("resolved/tables.json")),
        learned: Default::default(),
        carried: Default::default(),
        _lock: Some(lock),
    };
    Ok((ws, skipped))
}

/// Locks the workspace `root` for this run (`root/.lock`, an advisory file lock released
/// when the process ends). Errors when another `learn` holds it.
fn lock_workspace(root: &Path) -> Result<std::fs::File> {
    let path = root.join(".lock");
    sass_conform::oracle::try_lock_file(&path)
        .with_context(|| format!("locking {}", path.display()))?
        .with_context(|| {
            format!(
                "{}: another `sass-conform learn` is using this workspace (lock {} held); wait for it to finish, or stop it",
                root.display(),
                path.display()
            )
        })
}

/// For each arch of `tables`: whether nvdisasm disassembles the first variant's fixed word
/// for it (an arch it does not know is refused with its message).
fn archs_nvdisasm_takes(
    a: &LearnArgs,
    tables: &[spec::Table],
) -> std::collections::HashMap<Arch, std::result::Result<(), String>> {
    let mut out = std::collections::HashMap::new();
    let nv = match Nvdisasm::locate(a.nvdisasm.as_deref()) {
        Ok(nv) => nv,
        Err(_) => return out, // the first recording step names the missing nvdisasm
    };
    eprintln!("learn: nvdisasm {} ({})", nv.path().display(), nv.version());
    for t in tables {
        let (Some(arch), Some(v)) = (t.arch, t.variants.first()) else {
            continue;
        };
        out.entry(arch).or_insert_with(|| {
            nv.disassemble(arch, &[v.fixed_value], None)
                .map(|_| ())
                .map_err(|e| format!("{e:#}").lines().next().unwrap_or("").to_string())
        });
    }
    out
}

/// `PATH: why`, or `why` alone when it names the path already (a parse error's
/// `PATH:LINE: ...`): `learn: skipped own/BIN.txt:1: not UTF-8 ...`, not the path twice.
fn skip_line(path: &Path, why: &str) -> String {
    let shown = path.display().to_string();
    match why.starts_with(&shown) {
        true => why.to_string(),
        false => format!("{shown}: {why}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skip_names_its_path_once() {
        let p = Path::new("own/BIN.txt");
        assert_eq!(
            skip_line(p, "own/BIN.txt:1: not UTF-8"),
            "own/BIN.txt:1: not UTF-8"
        );
        assert_eq!(
            skip_line(p, "no arch line; give --arch"),
            "own/BIN.txt: no arch line; give --arch"
        );
    }
}
