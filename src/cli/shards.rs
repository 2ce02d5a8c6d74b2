//! `sass-conform shards merge`: joins the output folders of a run's shards (`synth`,
//! `learn`, `campaign` with `--shard I/N`) into the folder one unsharded run writes.

use super::*;
use sass_conform::shard::merge_rows;
use std::collections::BTreeMap;

/// Arguments of `shards merge`.
#[derive(Args, Debug)]
pub(super) struct MergeArgs {
    /// The shards' output folders (e.g. the `--out` of each `synth --shard I/N`).
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Where the merged folder is written (created; files of the same name are replaced).
    #[arg(long)]
    out: PathBuf,
}

/// Every file under `dir` (hidden folders such as `.learn/` included), relative to it, sorted.
fn files_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let rd = std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))?;
        for e in rd {
            let e = e.with_context(|| format!("reading {}", d.display()))?;
            let p = e.path();
            let ty = e
                .file_type()
                .with_context(|| format!("reading {}", p.display()))?;
            if ty.is_dir() {
                stack.push(p);
            } else if ty.is_file() {
                out.push(p.strip_prefix(dir).unwrap_or(&p).to_path_buf());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// How `shards merge` joins one file that several shards hold with different bytes.
enum Kind {
    /// TSV rows keyed by (arch, mnemonic): VARIANTS.tsv, SKIPPED.tsv, MATRIX.tsv.
    Rows,
    /// An oracle file (`word arch status text`): the union of the answers.
    Oracle,
    /// An oracle folder's MANIFEST.json: rebuilt after its files.
    Manifest,
    /// A campaign's `--json` report.
    Campaign,
}

fn kind_of(rel: &Path, first: &str) -> Option<Kind> {
    let name = rel.file_name()?.to_string_lossy();
    let header = first.lines().next().unwrap_or("");
    if name.ends_with(".tsv") && header.starts_with("arch\tmnemonic\t") {
        Some(Kind::Rows)
    } else if name.ends_with(".tsv") && header.starts_with("word\tarch\t") {
        Some(Kind::Oracle)
    } else if name == "MANIFEST.json" {
        Some(Kind::Manifest)
    } else if name.ends_with(".json") && first.contains("\"root_causes\"") {
        Some(Kind::Campaign)
    } else {
        None
    }
}

pub(super) fn merge_cmd(a: &MergeArgs) -> Result<ExitCode> {
    let out_canon = a.out.canonicalize().ok();
    for d in &a.dirs {
        if !d.is_dir() {
            bail!(
                "{}: not a folder (give the shards' output folders)",
                d.display()
            );
        }
        if out_canon.is_some() && d.canonicalize().ok() == out_canon {
            bail!(
                "--out {} is one of the shards: write the merge elsewhere",
                a.out.display()
            );
        }
    }
    // Relative path -> the shards' copies.
    let mut by_rel: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for d in &a.dirs {
        for rel in files_under(d)? {
            by_rel.entry(rel.clone()).or_default().push(d.join(rel));
        }
    }
    std::fs::create_dir_all(&a.out).with_context(|| a.out.display().to_string())?;
    let (mut copied, mut merged) = (0usize, 0usize);
    let mut manifests: Vec<(PathBuf, Vec<PathBuf>)> = Vec::new();
    for (rel, srcs) in &by_rel {
        let dst = a.out.join(rel);
        if let Some(p) = dst.parent() {
            std::fs::create_dir_all(p).with_context(|| p.display().to_string())?;
        }
        let bytes: Vec<Vec<u8>> = srcs
            .iter()
            .map(|s| std::fs::read(s).with_context(|| s.display().to_string()))
            .collect::<Result<_>>()?;
        if bytes.iter().all(|b| *b == bytes[0]) {
            write_file(&dst, &bytes[0])?;
            copied += 1;
            continue;
        }
        let text0 = String::from_utf8_lossy(&bytes[0]).into_owned();
        let names: Vec<String> = srcs.iter().map(|s| s.display().to_string()).collect();
        match kind_of(rel, &text0) {
            Some(Kind::Rows) => {
                let files: Vec<(String, String)> = names
                    .iter()
                    .zip(&bytes)
                    .map(|(n, b)| (n.clone(), String::from_utf8_lossy(b).into_owned()))
                    .collect();
                write_file(&dst, merge_rows(&files)?.as_bytes())?;
            }
            Some(Kind::Oracle) => {
                let mut shards = Vec::new();
                for (n, s) in names.iter().zip(srcs) {
                    shards.push((n.clone(), oracle::read_entries(s)?));
                }
                let mut entries = sass_conform::conform::campaign::merge_shards(&shards)?;
                oracle::write_entries(&dst, &mut entries)?;
            }
            Some(Kind::Manifest) => {
                manifests.push((rel.clone(), srcs.clone()));
                continue;
            }
            Some(Kind::Campaign) => {
                let mut reports = Vec::new();
                for (n, s) in names.iter().zip(srcs) {
                    reports.push((n.clone(), campaign::read_report(s)?));
                }
                let m = campaign::merge_reports(&reports)?;
                write_file(&dst, (serde_json::to_string_pretty(&m)? + "\n").as_bytes())?;
            }
            None => bail!(
                "{}: the shards hold different files ({}): only row tables (arch, mnemonic, ...), oracle files, MANIFEST.json and campaign reports are merged; a table or log of one unit must come from one shard",
                rel.display(),
                names.join(", ")
            ),
        }
        merged += 1;
    }
    // Each oracle folder's manifest: the shards' records, recounted where the file was merged.
    for (rel, srcs) in manifests {
        let dst = a.out.join(&rel);
        let dir = dst.parent().unwrap_or(Path::new("."));
        let mdir = dir
            .file_name()
            .map_or("oracle".into(), |n| n.to_string_lossy().into_owned());
        let mut m = Manifest::default();
        for s in &srcs {
            for r in Manifest::read(s)?.files {
                if m.get(&r.path).is_none() {
                    m.upsert(r);
                }
            }
        }
        let records = m.files.clone();
        for r in records {
            let file = dir.join(r.rel_in(&mdir));
            if !file.is_file() {
                continue;
            }
            let sha = oracle::file_sha256(&file)?;
            if r.sha256.as_deref() != Some(sha.as_str()) {
                m.upsert(oracle::FileRecord::for_file(
                    &file,
                    r.path.clone(),
                    r.arch,
                    &r.nvdisasm_version,
                    &r.command,
                )?);
            }
        }
        m.write(&dst)?;
        merged += 1;
    }
    outln!(
        "shards merge: {} shards -> {}: {copied} files copied, {merged} merged",
        a.dirs.len(),
        a.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes `bytes` to `path` through a temp file renamed into place.
fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| tmp.display().to_string())?;
    std::fs::rename(&tmp, path).with_context(|| path.display().to_string())?;
    Ok(())
}
