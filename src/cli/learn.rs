//! `sass-conform learn`: one command from any table file or folder to a learned reading and its
//! check-split figure (record, resolve, forms, learn split, sweeps, resolve, check split, diff).

use super::*;

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
}

/// Where one run of `learn` reads and writes.
struct Workspace {
    specs: PathBuf,
    oracle: PathBuf,
    resolved: PathBuf,
}

pub(super) fn learn_cmd(a: &LearnArgs) -> Result<ExitCode> {
    if let Some(n) = a.jobs {
        // The nvdisasm runner starts as many processes as the pool has threads. Only the first
        // call in a process can set the pool; a second is harmless.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global();
    }
    let started = std::time::Instant::now();
    let bundled = a.paths.len() == 1 && a.paths[0] == Path::new("specs");
    let (ws, skipped) = if bundled {
        let ws = Workspace {
            specs: PathBuf::from("specs"),
            oracle: a.oracle.clone().unwrap_or_else(|| "oracle".into()),
            resolved: a
                .resolved
                .clone()
                .unwrap_or_else(|| "resolved/tables.json".into()),
        };
        (ws, Vec::new())
    } else {
        prepare_workspace(a)?
    };
    for s in &skipped {
        eprintln!("learn: skipped {}: {}", s.path.display(), s.error);
    }
    let tables = load_some_tables(std::slice::from_ref(&ws.specs), None)?;
    if tables.is_empty() {
        bail!("no table to learn (every table was skipped)");
    }
    eprintln!(
        "learn: {} tables, {} variants; oracle {}, reading {}",
        tables.len(),
        tables.iter().map(|t| t.variants.len()).sum::<usize>(),
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
    resolve_write(&ws)?;
    // 2. The form-bit experiment, then the learn split.
    if missing(&|t| format!("forms/{}-{}.tsv", arch_of(t), t.mnemonic)) {
        step("form bits (oracle forms)");
        record_forms(&FormsArgs {
            view: view.clone(),
            specs: ws.specs.clone(),
            out: ws.oracle.clone(),
            nvdisasm: a.nvdisasm.clone(),
        })?;
    }
    if missing(&|t| format!("combos/learn/{}-{}.tsv", arch_of(t), t.mnemonic)) {
        step("learn split (oracle combos --split learn)");
        record_combos(&CombosArgs {
            view: view.clone(),
            specs: ws.specs.clone(),
            out: ws.oracle.clone(),
            split: Split::Learn,
            per_variant: a.per_variant,
            nvdisasm: a.nvdisasm.clone(),
        })?;
    }
    resolve_write(&ws)?;
    // 3. Sweeps around each form the learn split showed, then learn again.
    if missing(&|t| format!("sweeps/{}-{}.tsv", arch_of(t), t.mnemonic)) {
        step("sweeps around forms (oracle sweeps)");
        record_sweeps(&FormsArgs {
            view: view.clone(),
            specs: ws.specs.clone(),
            out: ws.oracle.clone(),
            nvdisasm: a.nvdisasm.clone(),
        })?;
        resolve_write(&ws)?;
    }
    // 4. The check split, never learned from, and the figures.
    if missing(&|t| format!("combos/check/{}-{}.tsv", arch_of(t), t.mnemonic)) {
        step("check split (oracle combos --split check)");
        record_combos(&CombosArgs {
            view: view.clone(),
            specs: ws.specs.clone(),
            out: ws.oracle.clone(),
            split: Split::Check,
            per_variant: (a.per_variant / 2).max(1),
            nvdisasm: a.nvdisasm.clone(),
        })?;
    }
    step("figures (diff)");
    diff_cmd(&DiffArgs {
        view,
        oracle: ws.oracle.clone(),
        specs: ws.specs.clone(),
        json: false,
        top: 5,
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
    })?;
    eprintln!(
        "learn: done in {:.0} s; tables {}, oracle {}, reading {}",
        started.elapsed().as_secs_f64(),
        ws.specs.display(),
        ws.oracle.display(),
        ws.resolved.display()
    );
    eprintln!(
        "learn: next: sass-conform diff --specs {0} --oracle {1} --resolved {2}; sass-conform resolve {0} --oracle {1} --resolved {2}",
        ws.specs.display(),
        ws.oracle.display(),
        ws.resolved.display()
    );
    if skipped.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("learn: {} table(s) skipped (above)", skipped.len());
        Ok(ExitCode::from(1))
    }
}

fn step(what: &str) {
    eprintln!("== learn: {what}");
}

fn resolve_write(ws: &Workspace) -> Result<()> {
    step("learning (resolve --write)");
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
    })?;
    Ok(())
}

/// Copies every table of `a.paths` that loads into WORKSPACE/specs (byte-identical, with an
/// ARCH_MANIFEST.tsv for the ones whose arch comes from `--arch` or a manifest), and returns
/// the workspace and the tables skipped.
fn prepare_workspace(a: &LearnArgs) -> Result<(Workspace, Vec<spec::Skipped>)> {
    let first = &a.paths[0];
    let root = match &a.workspace {
        Some(w) => w.clone(),
        None => {
            let name = first
                .canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "tables".into());
            let parent = first
                .canonicalize()
                .ok()
                .and_then(|p| p.parent().map(Path::to_path_buf))
                .unwrap_or_else(|| PathBuf::from("."));
            parent.join(format!("{name}.learn"))
        }
    };
    let (tables, skipped) = spec::load_tables_lenient(&a.paths, a.arch);
    let specs = root.join("specs");
    std::fs::create_dir_all(&specs).with_context(|| format!("creating {}", specs.display()))?;
    let mut manifest =
        String::from("# written by sass-conform learn: the arch of tables without an arch line\n");
    let mut names = std::collections::HashSet::new();
    for t in &tables {
        let src = Path::new(&t.path);
        let Some(name) = src.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        let Some(arch) = t.arch else {
            eprintln!("learn: skipped {}: no arch (give --arch)", t.path);
            continue;
        };
        // Two tables of one name from different folders: the second gets the arch in its name.
        let name = if names.insert(name.clone()) {
            name
        } else {
            format!("{arch}-{name}")
        };
        names.insert(name.clone());
        let dst = specs.join(&name);
        let text = std::fs::read(src).with_context(|| format!("reading {}", src.display()))?;
        if std::fs::read(&dst).ok().as_deref() != Some(&text[..]) {
            std::fs::write(&dst, &text).with_context(|| format!("writing {}", dst.display()))?;
        }
        if t.arch_source != "header" {
            manifest.push_str(&format!(
                "{name}\t{arch}\tsass-conform learn ({})\t{}\n",
                t.arch_source,
                t.variants.len()
            ));
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
    };
    Ok((ws, skipped))
}
