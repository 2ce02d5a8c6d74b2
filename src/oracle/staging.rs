//! Writing an oracle folder as a set: [`OracleWriter`].
//!
//! A writer holds the folder's advisory lock (`DIR/.lock`, `flock` through std's
//! `File::try_lock`) for its whole life, so
//! a second writer is refused with [`OracleError::Locked`]. New files are written into a
//! staging folder inside `DIR` (`DIR/.staging-XXXX`, removed when the writer is dropped), and
//! [`OracleWriter::commit`] moves them in with `MANIFEST.json` last. Before the first move it
//! writes a journal (`DIR/.journal`) naming the staged files; if the process dies mid-move
//! (only `kill -9` can: SIGINT and SIGTERM are held off until the moves are done), the next
//! writer finishes the moves, and readers refuse the folder until then (its MANIFEST.json
//! checksums do not match). Until `commit`, the folder is exactly as it was.

use super::files::{FileRecord, Manifest, write_entries};
use super::{Entry, OracleError, interrupt};
use crate::arch::Arch;
use std::fs;
use std::path::{Path, PathBuf};

/// The journal of a commit in progress: one staged file per line (relative to the staging
/// folder, which is named on the first line), `MANIFEST.json` last.
const JOURNAL: &str = ".journal";
/// The lock file.
const LOCK: &str = ".lock";
/// Staging folders start with this.
pub(crate) const STAGING_PREFIX: &str = ".staging-";

/// Opens (creating it if missing) and locks the advisory lock file `path` (`flock` through
/// std's `File::try_lock`), held until the file is dropped: `None` when another process holds
/// it. Shared by [`OracleWriter::open`] (`DIR/.lock`) and `learn`'s workspace lock.
pub fn try_lock_file(path: &Path) -> std::io::Result<Option<fs::File>> {
    let lock = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    match lock.try_lock() {
        Ok(()) => Ok(Some(lock)),
        Err(fs::TryLockError::WouldBlock) => Ok(None),
        Err(fs::TryLockError::Error(e)) => Err(e),
    }
}

/// A locked, staged set of changes to one oracle folder (module notes).
#[derive(Debug)]
pub struct OracleWriter {
    dir: PathBuf,
    _lock: fs::File,
    stage: tempfile::TempDir,
    manifest: Manifest,
    staged: Vec<String>,
}

impl OracleWriter {
    /// Lock `dir` (created if missing) for writing, finish a commit an earlier process left
    /// half done, remove stale staging folders, and read `dir/MANIFEST.json` (missing: empty).
    ///
    /// Errors: [`OracleError::Locked`] when another process holds the lock;
    /// [`OracleError::Io`]; those of [`Manifest::read`].
    pub fn open(dir: impl AsRef<Path>) -> Result<OracleWriter, OracleError> {
        let dir = dir.as_ref().to_path_buf();
        fs::create_dir_all(&dir).map_err(|e| OracleError::io(&dir, e))?;
        let lock_path = dir.join(LOCK);
        let Some(lock) = try_lock_file(&lock_path).map_err(|e| OracleError::io(&lock_path, e))?
        else {
            return Err(OracleError::Locked {
                dir,
                lock: lock_path,
            });
        };
        finish_journal(&dir)?;
        remove_stale_staging(&dir);
        let manifest = Manifest::read_or_default(dir.join("MANIFEST.json"))?;
        let stage = tempfile::Builder::new()
            .prefix(STAGING_PREFIX)
            .tempdir_in(&dir)
            .map_err(|e| OracleError::io(&dir, e))?;
        Ok(OracleWriter {
            dir,
            _lock: lock,
            stage,
            manifest,
            staged: Vec::new(),
        })
    }

    /// The manifest as it will be written (the folder's, plus what was staged).
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The path a file `rel` (relative to the oracle folder, `/`-separated) would have in the
    /// folder once committed (for reading the current version, if any).
    pub fn committed_path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }

    /// Stage `entries` as the file `rel` (e.g. `sm80/combo-LD.tsv`; sorted and deduplicated
    /// as [`write_entries`] does) and its manifest record: path `<folder name>/rel`, the row
    /// count and sha256 of the staged file, `nvdisasm_version`, today, `command`.
    /// Returns the record. Errors: those of [`write_entries`] and [`FileRecord::for_file`].
    pub fn stage_entries(
        &mut self,
        rel: &str,
        arch: Arch,
        entries: &mut Vec<Entry>,
        nvdisasm_version: &str,
        command: &str,
    ) -> Result<FileRecord, OracleError> {
        let staged = self.stage.path().join(rel);
        write_entries(&staged, entries)?;
        let name = fs::canonicalize(&self.dir)
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "oracle".into());
        let rec = FileRecord::for_file(
            &staged,
            format!("{name}/{rel}"),
            arch,
            nvdisasm_version,
            command,
        )?;
        self.manifest.upsert(rec.clone());
        if !self.staged.iter().any(|r| r == rel) {
            self.staged.push(rel.to_string());
        }
        Ok(rec)
    }

    /// Recompute the row count and sha256 of every file the manifest lists (keeping its
    /// arch, nvdisasm version, date and command), and add a record for each file of `add`
    /// (TSV files inside the folder, made by nvdisasm `version`; their arch is their first
    /// row's; the date today, the command `command`). Only the manifest changes (at
    /// [`OracleWriter::commit`]). Returns how many records were written.
    ///
    /// Errors: a listed file that is missing or unreadable, an `add` file outside the folder
    /// or empty, `add` without `version` ([`OracleError::Input`]).
    pub fn rehash(
        &mut self,
        add: &[PathBuf],
        version: Option<&str>,
        command: &str,
    ) -> Result<usize, OracleError> {
        let dir_abs = fs::canonicalize(&self.dir).map_err(|e| OracleError::io(&self.dir, e))?;
        let name = dir_abs
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut records = Vec::new();
        for rec in &self.manifest.files {
            let file = self.dir.join(rec.rel_in(&name));
            // A renamed or copied folder keeps the records its recorder wrote (`oracle/...`).
            let file = match (file.exists(), rec.path.split_once('/')) {
                (false, Some((_, rest))) if self.dir.join(rest).exists() => self.dir.join(rest),
                _ => file,
            };
            let fresh = FileRecord::for_file(&file, rec.path.clone(), rec.arch, "", "")?;
            records.push(FileRecord {
                entries: fresh.entries,
                sha256: fresh.sha256,
                ..rec.clone()
            });
        }
        for f in add {
            let version = version.ok_or_else(|| OracleError::Input {
                message: "--add needs --nvdisasm-version (the nvdisasm that made the file)".into(),
            })?;
            let abs = fs::canonicalize(f).map_err(|e| OracleError::io(f, e))?;
            let rel = abs.strip_prefix(&dir_abs).map_err(|_| OracleError::Input {
                message: format!("{}: not inside {}", f.display(), self.dir.display()),
            })?;
            let rel = rel.to_string_lossy().replace('\\', "/");
            let arch = match super::open_entries(&abs)?.next() {
                Some(e) => e?.arch,
                None => {
                    return Err(OracleError::Input {
                        message: format!("{}: no rows to take the arch from", f.display()),
                    });
                }
            };
            records.push(FileRecord::for_file(
                &abs,
                format!("{name}/{rel}"),
                arch,
                version,
                command,
            )?);
        }
        let n = records.len();
        for r in records {
            self.manifest.upsert(r);
        }
        Ok(n)
    }

    /// Move the staged files into the folder, `MANIFEST.json` last, under a journal (module
    /// notes). A SIGINT/SIGTERM received before this call makes it fail with
    /// [`OracleError::Interrupted`] and change nothing; one received during the moves is
    /// acted on after them. Errors: [`OracleError::Io`].
    pub fn commit(self) -> Result<(), OracleError> {
        interrupt::check()?;
        let mpath = self.stage.path().join("MANIFEST.json");
        self.manifest.write(&mpath)?;
        let stage_name = self
            .stage
            .path()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut journal = format!("{stage_name}\n");
        for rel in &self.staged {
            journal.push_str(rel);
            journal.push('\n');
        }
        journal.push_str("MANIFEST.json\n");
        super::files::write_atomic(&self.dir.join(JOURNAL), journal.as_bytes())?;
        finish_journal(&self.dir)
    }
}

/// Finish a commit whose journal is in `dir`: move each staged file that is still in the
/// staging folder into place (in journal order, `MANIFEST.json` last), then remove the
/// journal and the staging folder.
fn finish_journal(dir: &Path) -> Result<(), OracleError> {
    let jpath = dir.join(JOURNAL);
    let Ok(text) = fs::read_to_string(&jpath) else {
        return Ok(());
    };
    let mut lines = text.lines();
    let Some(stage) = lines.next().map(|s| dir.join(s)) else {
        return fs::remove_file(&jpath).map_err(|e| OracleError::io(&jpath, e));
    };
    for rel in lines {
        let from = stage.join(rel);
        if !from.exists() {
            continue;
        }
        let to = dir.join(rel);
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent).map_err(|e| OracleError::io(parent, e))?;
        }
        fs::rename(&from, &to).map_err(|e| OracleError::io(&to, e))?;
    }
    fs::remove_file(&jpath).map_err(|e| OracleError::io(&jpath, e))?;
    let _ = fs::remove_dir_all(&stage);
    Ok(())
}

/// Remove `dir/.staging-*` folders (only called with the lock held: none is in use).
/// Removes what a writer killed with `kill -9` left in `dir`: its staging folders, and the
/// temporary files of [`super::files::write_atomic`] (`.NAME.tmp.PID.N`) whose process `PID`
/// is gone (a reader lists the folder; a stray file shifts what it sees).
fn remove_stale_staging(dir: &Path) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    for ent in rd.flatten() {
        let name = ent.file_name().to_string_lossy().into_owned();
        if name.starts_with(STAGING_PREFIX) {
            let _ = fs::remove_dir_all(ent.path());
        } else if super::files::tmp_pid(&name)
            .is_some_and(|p| !super::nvdisasm::process::process_exists(p))
        {
            let _ = fs::remove_file(ent.path());
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn temp_file_names_give_their_process_id() {
        use super::super::files::tmp_pid;
        assert_eq!(tmp_pid(".MANIFEST.json.tmp.4242.7"), Some(4242));
        assert_eq!(tmp_pid(".LD.tsv.tmp.17.0"), Some(17));
        assert_eq!(tmp_pid("MANIFEST.json"), None);
        assert_eq!(tmp_pid(".lock"), None);
        assert_eq!(tmp_pid(".x.tmp.12"), None);
    }

    use super::*;
    use crate::oracle::{Answer, load_dir};

    fn entries(text: &str) -> Vec<Entry> {
        vec![Entry {
            arch: Arch(80),
            word: 7,
            answer: Answer::Text(text.into()),
        }]
    }

    fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        for ent in fs::read_dir(dir).unwrap().flatten() {
            let p = ent.path();
            if p.is_dir() {
                for (n, b) in snapshot(&p) {
                    out.push((format!("{}/{n}", ent.file_name().to_string_lossy()), b));
                }
            } else {
                out.push((
                    ent.file_name().to_string_lossy().into_owned(),
                    fs::read(&p).unwrap(),
                ));
            }
        }
        out.sort();
        out
    }

    #[test]
    fn a_commit_writes_files_and_manifest_and_loads_back() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("oracle");
        let mut w = OracleWriter::open(&dir).unwrap();
        let rec = w
            .stage_entries(
                "sm80/combo-LD.tsv",
                Arch(80),
                &mut entries("NOP ;"),
                "13.5.37",
                "t",
            )
            .unwrap();
        assert_eq!(rec.path, "oracle/sm80/combo-LD.tsv");
        assert_eq!(rec.entries, 1);
        assert_eq!(rec.sha256.as_ref().map(String::len), Some(64));
        assert!(
            !dir.join("sm80/combo-LD.tsv").exists(),
            "nothing before commit"
        );
        w.commit().unwrap();
        let got = load_dir(&dir).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].1, entries("NOP ;"));
        let names: Vec<String> = snapshot(&dir).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, [".lock", "MANIFEST.json", "sm80/combo-LD.tsv"]);
    }

    #[test]
    fn a_dropped_writer_changes_nothing() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("oracle");
        let mut w = OracleWriter::open(&dir).unwrap();
        w.stage_entries("sm80/A.tsv", Arch(80), &mut entries("NOP ;"), "v", "t")
            .unwrap();
        w.commit().unwrap();
        let before = snapshot(&dir);
        let mut w = OracleWriter::open(&dir).unwrap();
        w.stage_entries("sm80/A.tsv", Arch(80), &mut entries("EXIT ;"), "v", "t")
            .unwrap();
        drop(w);
        assert_eq!(snapshot(&dir), before);
    }

    #[test]
    fn a_second_writer_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let w = OracleWriter::open(d.path()).unwrap();
        let err = OracleWriter::open(d.path()).unwrap_err();
        assert!(matches!(err, OracleError::Locked { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("another `sass-conform` is writing"),
            "{err}"
        );
        drop(w);
        OracleWriter::open(d.path()).unwrap();
    }

    #[test]
    fn a_half_done_commit_is_finished_by_the_next_writer() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("oracle");
        let mut w = OracleWriter::open(&dir).unwrap();
        w.stage_entries("sm80/A.tsv", Arch(80), &mut entries("NOP ;"), "v", "t")
            .unwrap();
        w.stage_entries("sm80/B.tsv", Arch(80), &mut entries("NOP ;"), "v", "t")
            .unwrap();
        // Simulate a death after the journal and the first move.
        let stage = w.stage.path().to_path_buf();
        w.manifest.write(stage.join("MANIFEST.json")).unwrap();
        let name = stage.file_name().unwrap().to_string_lossy().into_owned();
        fs::write(
            dir.join(JOURNAL),
            format!("{name}\nsm80/A.tsv\nsm80/B.tsv\nMANIFEST.json\n"),
        )
        .unwrap();
        fs::create_dir_all(dir.join("sm80")).unwrap();
        fs::rename(stage.join("sm80/A.tsv"), dir.join("sm80/A.tsv")).unwrap();
        std::mem::forget(w.stage);
        drop(w._lock);
        // Not loadable yet: B is there but not listed.
        assert!(load_dir(&dir).is_err() || !dir.join("MANIFEST.json").exists());
        let w2 = OracleWriter::open(&dir).unwrap();
        drop(w2);
        assert_eq!(load_dir(&dir).unwrap().len(), 2);
        assert!(!dir.join(JOURNAL).exists() && !stage.exists());
    }
}
