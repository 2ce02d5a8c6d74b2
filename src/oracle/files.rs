//! Oracle files: recorded nvdisasm answers as TSV, and `oracle/MANIFEST.json`.
//!
//! TSV format (one file per table, e.g. `oracle/sm100/TLD.tsv`):
//! ```text
//! word<TAB>arch<TAB>status<TAB>text
//! 000fea0003800000000000000000794d<TAB>SM100<TAB>ok<TAB>EXIT ;
//! 0000000000000000000000000000f5ff<TAB>SM100<TAB>illegal<TAB>Opclass 'x', undefined value ...
//! ```
//! `word` is 32 lowercase hex digits (most significant first), `arch` is `SM100`, `status` is
//! `ok` or `illegal`, `text` is [`Answer`]'s text or reason (may be empty for `ok`). No quoting:
//! a field may hold commas, quotes, brackets, backticks; it may not hold a tab, CR or LF
//! (normalised texts never do). Rows are sorted by (word, arch) with no duplicate key when
//! written by [`write_entries`]; `sass-conform oracle run` ([`super::run_words`]) writes them
//! in its input order instead (unsorted, repeats kept). [`read_entries`] accepts either.

use super::{Answer, Entry, OracleError, parse_word_hex, word_to_hex};
use crate::arch::Arch;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const HEADER: [&str; 4] = ["word", "arch", "status", "text"];

fn bad(path: &Path, line: u64, message: impl Into<String>) -> OracleError {
    OracleError::BadFile {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
}

/// Read one oracle TSV file whole (see [`open_entries`] for row-at-a-time reading).
///
/// Errors: [`OracleError::Io`] when it cannot be read; [`OracleError::BadFile`] naming
/// `file:line` for a wrong header, a row without exactly 4 fields, a bad word, arch or status.
/// Rows are returned in file order (sorted if the file was written by [`write_entries`]).
pub fn read_entries(path: impl AsRef<Path>) -> Result<Vec<Entry>, OracleError> {
    open_entries(path)?.collect()
}

/// Open one oracle TSV file for reading row by row: memory stays flat however long the file
/// is (a buffered reader and one row at a time). The header is checked on the first call to
/// `next`.
///
/// Errors: [`OracleError::Io`] when the file cannot be opened; each item is an error of
/// [`read_entries`]'s kinds for a bad row, after which the iterator ends.
pub fn open_entries(path: impl AsRef<Path>) -> Result<EntryReader, OracleError> {
    let path = path.as_ref().to_path_buf();
    let file = fs::File::open(&path).map_err(|e| OracleError::io(&path, e))?;
    let tap = Arc::new(Mutex::new(TapState::default()));
    let rdr = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .quoting(false)
        .has_headers(false)
        .flexible(true)
        .from_reader(std::io::BufReader::with_capacity(
            1 << 16,
            Tap {
                inner: file,
                state: Arc::clone(&tap),
            },
        ));
    Ok(EntryReader {
        path,
        rdr,
        record: csv::StringRecord::new(),
        seen_header: false,
        done: false,
        tap,
        rows: 0,
        expect: None,
        last_line: 0,
    })
}

/// What a reader has seen of a file's bytes: their SHA-256, and the last byte.
#[derive(Default)]
struct TapState {
    hasher: Sha256,
    last: Option<u8>,
}

/// A file read through a [`TapState`].
struct Tap {
    inner: fs::File,
    state: Arc<Mutex<TapState>>,
}

impl Read for Tap {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0
            && let Ok(mut st) = self.state.lock()
        {
            st.hasher.update(&buf[..n]);
            st.last = Some(buf[n - 1]);
        }
        Ok(n)
    }
}

/// The SHA-256 of a file's bytes, as 64 lowercase hex digits.
pub fn file_sha256(path: impl AsRef<Path>) -> Result<String, OracleError> {
    let path = path.as_ref();
    let mut f = fs::File::open(path).map_err(|e| OracleError::io(path, e))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).map_err(|e| OracleError::io(path, e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex(&h.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The rows of one oracle TSV file, one [`Entry`] per `next` (see [`open_entries`]).
pub struct EntryReader {
    path: PathBuf,
    rdr: csv::Reader<std::io::BufReader<Tap>>,
    record: csv::StringRecord,
    seen_header: bool,
    done: bool,
    tap: Arc<Mutex<TapState>>,
    rows: usize,
    expect: Option<FileRecord>,
    /// The 1-based line of the row last returned.
    pub last_line: u64,
}

impl EntryReader {
    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Check, at the end of the file, its row count and SHA-256 against `record` (its
    /// MANIFEST.json record): a mismatch is an error naming the file.
    pub fn verify_against(mut self, record: &FileRecord) -> EntryReader {
        self.expect = Some(record.clone());
        self
    }

    /// The end-of-file checks: the last row ends with a line break (else the file was cut
    /// mid-row) and, with [`EntryReader::verify_against`], the counts and checksum agree.
    fn at_end(&self, line: u64) -> Result<(), OracleError> {
        let Ok(st) = self.tap.lock() else {
            return Ok(());
        };
        if st.last.is_some_and(|b| b != b'\n') {
            return Err(bad(
                &self.path,
                line,
                "the last row has no line break: the file was cut short (mid-row)",
            ));
        }
        let Some(rec) = &self.expect else {
            return Ok(());
        };
        if rec.entries != self.rows {
            return Err(bad(
                &self.path,
                0,
                format!(
                    "{} rows, but MANIFEST.json records {} (file changed or cut short since it \
                     was recorded)",
                    self.rows, rec.entries
                ),
            ));
        }
        let sum = hex(&st.hasher.clone().finalize());
        match &rec.sha256 {
            Some(want) if *want == sum => Ok(()),
            Some(want) => Err(bad(
                &self.path,
                0,
                format!(
                    "sha256 {sum} differs from MANIFEST.json's {want} (file changed since it \
                     was recorded; record it again, or run `sass-conform oracle manifest \
                     --update` if the change is intended)"
                ),
            )),
            None => Err(bad(
                &self.path,
                0,
                "MANIFEST.json records no sha256 for it (run `sass-conform oracle manifest \
                 --update`)",
            )),
        }
    }

    /// `e` (a bad row at `line`), or, when that row is the file's last and has no line
    /// break, the cut-short error [`EntryReader::at_end`] gives: a file cut mid-row is said to
    /// be cut, not to have a row of too few fields.
    fn cut_short_or(&mut self, e: OracleError, line: u64) -> OracleError {
        let mut next = csv::StringRecord::new();
        let last = matches!(self.rdr.read_record(&mut next), Ok(false));
        let unbroken = self
            .tap
            .lock()
            .is_ok_and(|st| st.last.is_some_and(|b| b != b'\n'));
        if last && unbroken {
            return bad(
                &self.path,
                line,
                "the last row has no line break: the file was cut short (mid-row)",
            );
        }
        e
    }

    /// The next row, `Ok(None)` at the end of the file.
    fn read_row(&mut self) -> Result<Option<Entry>, OracleError> {
        loop {
            let more = self.rdr.read_record(&mut self.record).map_err(|e| {
                let line = e.position().map(|p| p.line()).unwrap_or(0);
                bad(&self.path, line, format!("unreadable row: {e}"))
            })?;
            if !more {
                if !self.seen_header {
                    return Err(bad(&self.path, 1, "empty file: no header line"));
                }
                self.at_end(self.rows as u64 + 1)?;
                return Ok(None);
            }
            let line = self.record.position().map(|p| p.line()).unwrap_or(0);
            if self.seen_header {
                self.rows += 1;
                self.last_line = line;
                return parse_row(&self.path, line, &self.record)
                    .map(Some)
                    .map_err(|e| self.cut_short_or(e, line));
            }
            self.seen_header = true;
            check_header(&self.path, line, &self.record)?;
        }
    }
}

impl Iterator for EntryReader {
    type Item = Result<Entry, OracleError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let row = self.read_row();
        if !matches!(row, Ok(Some(_))) {
            self.done = true;
        }
        row.transpose()
    }
}

fn check_header(path: &Path, line: u64, record: &csv::StringRecord) -> Result<(), OracleError> {
    let fields: Vec<&str> = record.iter().collect();
    if fields == HEADER {
        return Ok(());
    }
    Err(bad(
        path,
        line,
        format!(
            "header is `{}`, expected `{}`",
            fields.join("\\t"),
            HEADER.join("\\t")
        ),
    ))
}

fn parse_row(path: &Path, line: u64, record: &csv::StringRecord) -> Result<Entry, OracleError> {
    if record.len() != 4 {
        return Err(bad(
            path,
            line,
            format!("{} tab-separated fields, expected 4", record.len()),
        ));
    }
    let word = parse_word_hex(&record[0])
        .filter(|_| record[0].len() == 32)
        .ok_or_else(|| {
            bad(
                path,
                line,
                format!("word `{}` is not 32 hex digits", &record[0]),
            )
        })?;
    let arch: Arch = record[1]
        .parse()
        .map_err(|e| bad(path, line, format!("{e}")))?;
    let text = record[3].to_string();
    let answer = match &record[2] {
        "ok" if !text.is_empty() && !text.ends_with(';') => {
            return Err(bad(
                path,
                line,
                format!(
                    "`ok` text `{}` is not an instruction line (nvdisasm ends every one with `;`)",
                    crate::oracle::nvdisasm::listing::quote80(&text)
                ),
            ));
        }
        "ok" => Answer::Text(text),
        "illegal" => Answer::Illegal(text),
        other => {
            return Err(bad(
                path,
                line,
                format!("status `{other}`, expected `ok` or `illegal`"),
            ));
        }
    };
    Ok(Entry { arch, word, answer })
}

/// Sort `entries` by (word, arch) and drop duplicates: a later entry for the same (word, arch)
/// replaces an earlier one.
pub fn sort_dedup(entries: &mut Vec<Entry>) {
    let mut map: BTreeMap<(u128, Arch), Answer> = BTreeMap::new();
    for e in entries.drain(..) {
        map.insert((e.word, e.arch), e.answer);
    }
    entries.extend(
        map.into_iter()
            .map(|((word, arch), answer)| Entry { arch, word, answer }),
    );
}

/// Write `entries` to the TSV file `path` (format in the module docs), after sorting and
/// deduplicating them in place (see [`sort_dedup`]). Parent folders are created. The file is
/// written to a temporary file in the same folder and renamed into place.
///
/// Errors: [`OracleError::Input`] when a text holds a tab, CR or LF (it could not be read
/// back); [`OracleError::Io`] on any file-system error.
pub fn write_entries(path: impl AsRef<Path>, entries: &mut Vec<Entry>) -> Result<(), OracleError> {
    let path = path.as_ref();
    sort_dedup(entries);
    let mut buf = Vec::with_capacity(64 + entries.len() * 80);
    {
        let mut w = csv::WriterBuilder::new()
            .delimiter(b'\t')
            .quote_style(csv::QuoteStyle::Never)
            .has_headers(false)
            .from_writer(&mut buf);
        let io = |e: csv::Error| OracleError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(e),
        };
        w.write_record(HEADER).map_err(io)?;
        for e in entries.iter() {
            let text = e.answer.text();
            if text.contains(['\t', '\n', '\r']) {
                return Err(OracleError::Input {
                    message: format!(
                        "{}: text for word {} holds a tab or line break: {text:?}",
                        path.display(),
                        word_to_hex(e.word)
                    ),
                });
            }
            let word = word_to_hex(e.word);
            let arch = e.arch.to_string();
            w.write_record([&word, &arch, e.answer.status(), text])
                .map_err(io)?;
        }
        w.flush().map_err(|e| OracleError::io(path, e))?;
    }
    write_atomic(path, &buf)
}

/// Write `data` to `path` through a temporary file in the same folder, renamed into place.
/// Parent folders are created.
pub(crate) fn write_atomic(path: &Path, data: &[u8]) -> Result<(), OracleError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir).map_err(|e| OracleError::io(&dir, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "oracle".into());
    let tmp = dir.join(format!(
        ".{name}.tmp.{}.{}",
        std::process::id(),
        unique_counter()
    ));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(data)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(OracleError::io(path, e));
    }
    Ok(())
}

/// The process id in the name [`write_atomic`] gives its temporary file, `.NAME.tmp.PID.N`;
/// `None` for any other name.
pub(crate) fn tmp_pid(name: &str) -> Option<i32> {
    let rest = name.strip_prefix('.')?;
    let (_, tail) = rest.rsplit_once(".tmp.")?;
    let (pid, n) = tail.split_once('.')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

pub(crate) fn unique_counter() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// Read every `*.tsv` file under `dir`, recursively, in sorted path order, each checked
/// against its MANIFEST.json record ([`ListedFiles`]), with no word answered two ways.
///
/// Returns `(path, entries)` per file, paths as found under `dir`. A missing `dir` gives an
/// empty list. Errors: those of [`ListedFiles::open`] and [`for_each_entry_where`].
pub fn load_dir(dir: impl AsRef<Path>) -> Result<Vec<(PathBuf, Vec<Entry>)>, OracleError> {
    let mut out: Vec<(PathBuf, Vec<Entry>)> = Vec::new();
    for_each_entry_in_files(
        dir.as_ref(),
        |_| true,
        |path, e| match out.last_mut() {
            Some((p, v)) if p.as_path() == path => v.push(e),
            _ => out.push((path.to_path_buf(), vec![e])),
        },
    )?;
    Ok(out)
}

/// The oracle files under a folder with the MANIFEST.json records that list them: the
/// source of truth for what the folder holds.
#[derive(Debug)]
pub struct ListedFiles {
    /// The manifest file used (`dir/MANIFEST.json`, `dir/../MANIFEST.json` or
    /// `dir/../../MANIFEST.json`).
    pub manifest_path: PathBuf,
    /// Every `*.tsv` under the folder, sorted, with its record.
    pub files: Vec<(PathBuf, FileRecord)>,
}

impl ListedFiles {
    /// List the `*.tsv` files under `dir` (none: an empty list, no manifest needed) and find
    /// each one's record in `dir/MANIFEST.json`, or else `dir/../MANIFEST.json` (for
    /// `oracle/cubins/`, `oracle/arch-infer/`), or else `dir/../../MANIFEST.json` (for
    /// `oracle/combos/check/`).
    ///
    /// Errors ([`OracleError::BadFile`], naming the manifest or the file): no MANIFEST.json
    /// in either place; a manifest that is not `{"files": [...]}`; a TSV file the manifest
    /// does not list.
    pub fn open(dir: &Path) -> Result<ListedFiles, OracleError> {
        let tsvs = list_files(dir)?;
        if tsvs.is_empty() {
            return Ok(ListedFiles {
                manifest_path: dir.join("MANIFEST.json"),
                files: Vec::new(),
            });
        }
        let (mdir, manifest_path) = [dir.to_path_buf(), dir.join(".."), dir.join("../..")]
            .into_iter()
            .map(|d| (d.clone(), d.join("MANIFEST.json")))
            .find(|(_, m)| m.is_file())
            .ok_or_else(|| {
                let version = likely_version(&[]);
                bad(
                    &dir.join("MANIFEST.json"),
                    0,
                    format!(
                        "missing: every oracle file must be listed in MANIFEST.json (with its \
                         row count and sha256); record with `sass-conform oracle record`, or \
                         list the files here, if nvdisasm {version} made them (else give its \
                         version), with `{}`",
                        manifest_add_command(dir, &tsvs, &version)
                    ),
                )
            })?;
        let manifest = Manifest::read(&manifest_path)?;
        let mdir_abs = fs::canonicalize(&mdir).map_err(|e| OracleError::io(&mdir, e))?;
        let mdir_name = mdir_abs
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut files = Vec::with_capacity(tsvs.len());
        for f in tsvs {
            let abs = fs::canonicalize(&f).map_err(|e| OracleError::io(&f, e))?;
            let rel = abs
                .strip_prefix(&mdir_abs)
                .map(|r| r.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            let rec = manifest
                .files
                .iter()
                .find(|r| r.lists(&mdir_name, &rel))
                .or_else(|| only_record_ending(&manifest.files, &rel))
                .ok_or_else(|| {
                    let version = likely_version(&manifest.files);
                    let folder = shortest_name(&mdir, &mdir_abs);
                    bad(
                        &f,
                        0,
                        format!(
                            "not listed in {} (an oracle file must be recorded with its row \
                             count and sha256; move it away, or list it, if nvdisasm {version} \
                             made it (else give its version), with `{}`)",
                            manifest_path.display(),
                            manifest_add_command(&folder, std::slice::from_ref(&f), &version)
                        ),
                    )
                })?;
            files.push((f, rec.clone()));
        }
        Ok(ListedFiles {
            manifest_path,
            files,
        })
    }
}

/// The `sass-conform oracle manifest` command line that lists `files` in the MANIFEST.json of
/// the oracle folder `folder` as made by nvdisasm `version`: every argument the command
/// needs, each quoted for a POSIX shell where it has to be, so it can be pasted as it is.
fn manifest_add_command(folder: &Path, files: &[PathBuf], version: &str) -> String {
    let mut cmd = format!(
        "sass-conform oracle manifest --oracle {} --update",
        shell_word(&folder.to_string_lossy())
    );
    for f in files {
        cmd.push_str(" --add ");
        cmd.push_str(&shell_word(&f.to_string_lossy()));
    }
    cmd.push_str(" --nvdisasm-version ");
    cmd.push_str(&shell_word(version));
    cmd
}

/// The nvdisasm version a file added to a manifest whose records are `records` most likely
/// comes from: the one most of them name (the newest of a tie), else the one that recorded
/// the project's oracle ([`crate::locate::oracle_nvdisasm_versions`], its newest).
fn likely_version(records: &[FileRecord]) -> String {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for r in records {
        *count.entry(r.nvdisasm_version.as_str()).or_default() += 1;
    }
    let most = count
        .iter()
        .max_by_key(|&(v, n)| (*n, *v))
        .map(|(v, _)| v.to_string());
    most.or_else(|| crate::locate::oracle_nvdisasm_versions().pop())
        .unwrap_or_else(|| "VERSION".into())
}

/// `dir` (a folder named `d`, `d/..` or `d/../..`) with each `..` taken out with the name
/// before it, when that shorter name is the same folder (`abs`, its canonical path; a
/// symbolic link makes it another), else `dir` as it is.
fn shortest_name(dir: &Path, abs: &Path) -> PathBuf {
    use std::path::Component;
    let mut parts: Vec<Component> = Vec::new();
    for c in dir.components() {
        match (c, parts.last()) {
            (Component::ParentDir, Some(Component::Normal(_))) => {
                parts.pop();
            }
            (Component::CurDir, _) => {}
            _ => parts.push(c),
        }
    }
    let short: PathBuf = match parts.is_empty() {
        true => PathBuf::from("."),
        false => parts.iter().collect(),
    };
    match fs::canonicalize(&short) {
        Ok(c) if c == abs => short,
        _ => dir.to_path_buf(),
    }
}

/// `s` as one word of a POSIX shell command line: as it is when it holds only characters
/// the shell takes literally, else in single quotes (a `'` in it written `'\''`).
fn shell_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./+,:=@%".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Every `*.tsv` file under `dir`, recursively, in sorted path order (a missing `dir` gives
/// an empty list). Errors: the first unreadable folder.
pub fn list_files(dir: impl AsRef<Path>) -> Result<Vec<PathBuf>, OracleError> {
    let dir = dir.as_ref();
    let mut files = Vec::new();
    if dir.exists() {
        collect_tsv(dir, &mut files)?;
    }
    files.sort();
    Ok(files)
}

fn collect_tsv(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), OracleError> {
    let rd = fs::read_dir(dir).map_err(|e| OracleError::io(dir, e))?;
    for ent in rd {
        let ent = ent.map_err(|e| OracleError::io(dir, e))?;
        let p = ent.path();
        let ft = ent.file_type().map_err(|e| OracleError::io(&p, e))?;
        if ft.is_dir() {
            // A killed writer's staging folder is no part of the oracle (the next writer
            // removes it under the lock); its files were never committed.
            if ent
                .file_name()
                .to_string_lossy()
                .starts_with(super::staging::STAGING_PREFIX)
            {
                continue;
            }
            collect_tsv(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "tsv") {
            out.push(p);
        }
    }
    Ok(())
}

/// One oracle file's record in `oracle/MANIFEST.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// The TSV file's path, relative to the project root, `/`-separated (e.g.
    /// `oracle/sm100/TLD.tsv`).
    pub path: String,
    /// The arch of its entries (`SM100`).
    pub arch: Arch,
    /// Number of entries (rows after the header).
    pub entries: usize,
    /// nvdisasm's version as [`crate::oracle::Nvdisasm::version`] gives it (`13.5.37`).
    pub nvdisasm_version: String,
    /// When it was made, UTC, `YYYY-MM-DD` (see [`today_utc`]).
    pub date: String,
    /// The command line that made it.
    pub command: String,
    /// SHA-256 of the file's bytes, 64 lowercase hex digits: checked on every load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

impl FileRecord {
    /// A record for the TSV file at `file`, listed as `path` (see [`FileRecord::path`]), with
    /// its rows counted (every row read and checked) and its SHA-256 taken now, dated today.
    /// Errors: those of [`read_entries`].
    pub fn for_file(
        file: &Path,
        path: String,
        arch: Arch,
        nvdisasm_version: &str,
        command: &str,
    ) -> Result<FileRecord, OracleError> {
        let mut entries = 0;
        for e in open_entries(file)? {
            e?;
            entries += 1;
        }
        Ok(FileRecord {
            path,
            arch,
            entries,
            nvdisasm_version: nvdisasm_version.to_string(),
            date: today_utc(),
            command: command.to_string(),
            sha256: Some(file_sha256(file)?),
        })
    }

    /// The file's path relative to the manifest's folder, named `mdir_name`: the record's
    /// path after its last `mdir_name/` component (`oracle/sm100/TLD.tsv` -> `sm100/TLD.tsv`),
    /// or the whole path.
    pub fn rel_in(&self, mdir_name: &str) -> String {
        let parts: Vec<&str> = self.path.split('/').collect();
        match parts.iter().rposition(|p| *p == mdir_name) {
            Some(i) => parts[i + 1..].join("/"),
            None => self.path.clone(),
        }
    }

    /// Whether this record lists the file `rel` (relative to the manifest's folder `mdir`):
    /// its path is `rel`, or `P/rel` where P's last component is `mdir`'s name (records say
    /// `oracle/sm100/TLD.tsv` for `sm100/TLD.tsv` in `oracle/`).
    fn lists(&self, mdir_name: &str, rel: &str) -> bool {
        if self.path == rel {
            return true;
        }
        self.path
            .strip_suffix(rel)
            .and_then(|p| p.strip_suffix('/'))
            .is_some_and(|p| p.rsplit('/').next() == Some(mdir_name))
    }
}

/// The one record whose path is `P/rel` for some folder P, if exactly one is: an oracle folder
/// copied or renamed (`oracle/` to `ocopy/`) keeps the records its recorder wrote
/// (`oracle/sm80/LD.tsv`); the file's row count and sha256 are still checked against it.
fn only_record_ending<'a>(records: &'a [FileRecord], rel: &str) -> Option<&'a FileRecord> {
    let mut found = records.iter().filter(|r| {
        r.path
            .strip_suffix(rel)
            .is_some_and(|p| p.ends_with('/') && p.len() > 1)
    });
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// `oracle/MANIFEST.json`: what made each oracle file. Serialised as pretty JSON
/// `{"files": [FileRecord...]}` with the records sorted by path (fields in declaration order),
/// so the same content always gives the same bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// One record per oracle file, sorted by `path`, paths unique.
    pub files: Vec<FileRecord>,
}

impl Manifest {
    /// Read a manifest. Errors: [`OracleError::Io`] if unreadable (including missing),
    /// [`OracleError::BadFile`] with the JSON error's line if malformed.
    pub fn read(path: impl AsRef<Path>) -> Result<Manifest, OracleError> {
        let path = path.as_ref();
        let data = fs::read(path).map_err(|e| OracleError::io(path, e))?;
        let mut m: Manifest =
            serde_json::from_slice(&data).map_err(|e| bad(path, e.line() as u64, e.to_string()))?;
        m.normalise();
        Ok(m)
    }

    /// Like [`Manifest::read`], but a missing file gives an empty manifest.
    pub fn read_or_default(path: impl AsRef<Path>) -> Result<Manifest, OracleError> {
        let path = path.as_ref();
        if !path.exists() {
            return Ok(Manifest::default());
        }
        Manifest::read(path)
    }

    /// Insert `record`, replacing any record with the same `path`.
    pub fn upsert(&mut self, record: FileRecord) {
        match self.files.binary_search_by(|r| r.path.cmp(&record.path)) {
            Ok(i) => self.files[i] = record,
            Err(i) => self.files.insert(i, record),
        }
    }

    /// The record for `path`, if any.
    pub fn get(&self, path: &str) -> Option<&FileRecord> {
        self.files.iter().find(|r| r.path == path)
    }

    /// Write as pretty JSON with a final newline, atomically (temp file + rename).
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), OracleError> {
        let path = path.as_ref();
        let mut m = self.clone();
        m.normalise();
        let mut data = serde_json::to_vec_pretty(&m).map_err(|e| OracleError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(e),
        })?;
        data.push(b'\n');
        write_atomic(path, &data)
    }

    fn normalise(&mut self) {
        let mut map = BTreeMap::new();
        for r in self.files.drain(..) {
            map.insert(r.path.clone(), r);
        }
        self.files = map.into_values().collect();
    }
}

/// Today's date in UTC as `YYYY-MM-DD`, from the system clock.
pub fn today_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    date_from_unix_days((secs / 86_400) as i64)
}

/// Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
fn date_from_unix_days(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}-{m:02}-{d:02}")
}

/// Folder under oracle/ holding answers for archs the tables do not claim (arch inference):
/// not evidence about the tables' own archs.
pub const ARCH_INFER_DIR: &str = "arch-infer";

/// Whether an oracle file holds evidence about the tables on their own archs (every file but
/// those under [`ARCH_INFER_DIR`]).
pub fn is_evidence_file(path: &Path) -> bool {
    !path.components().any(|c| c.as_os_str() == ARCH_INFER_DIR)
}

/// Whether an oracle file is a per-table sweep recording (`oracle/sm*/<MNEMONIC>.tsv`, made
/// by `sass-conform oracle record`).
pub fn is_sweep_file(path: &Path) -> bool {
    path.parent()
        .and_then(|d| d.file_name())
        .is_some_and(|d| d.to_string_lossy().starts_with("sm"))
}

/// Every entry of the files under `dir` that `keep` accepts, in [`load_dir`] order (files
/// `keep` refuses are not read).
pub fn load_entries_where(
    dir: impl AsRef<Path>,
    keep: impl Fn(&Path) -> bool,
) -> Result<Vec<Entry>, OracleError> {
    let mut out = Vec::new();
    for_each_entry_where(dir, keep, |e| out.push(e))?;
    Ok(out)
}

/// Streams every entry of the files under `dir` that `keep` accepts into `f`, one row at a
/// time in [`load_dir`] order (memory flat in the rows, but for one small key per distinct
/// word); returns how many there were.
///
/// Every file is checked as it is read: it must be listed in MANIFEST.json with its row
/// count and sha256 ([`ListedFiles::open`], [`EntryReader::verify_against`]), and a word
/// answered differently by two rows (in one file or two) is an error naming both rows.
/// Errors: the first unreadable folder, unlisted or changed file, bad row or conflict.
pub fn for_each_entry_where(
    dir: impl AsRef<Path>,
    keep: impl Fn(&Path) -> bool,
    mut f: impl FnMut(Entry),
) -> Result<usize, OracleError> {
    for_each_entry_in_files(dir.as_ref(), keep, |_, e| f(e))
}

/// [`for_each_entry_where`] with each entry's file (same checks, same order).
pub fn for_each_entry_in_files(
    dir: &Path,
    keep: impl Fn(&Path) -> bool,
    mut f: impl FnMut(&Path, Entry),
) -> Result<usize, OracleError> {
    let listed = ListedFiles::open(dir)?;
    let mut seen = Conflicts::default();
    let mut n = 0;
    for (fi, (path, rec)) in listed
        .files
        .iter()
        .enumerate()
        .filter(|(_, (p, _))| keep(p))
    {
        let mut rows = open_entries(path)?.verify_against(rec);
        while let Some(e) = rows.next() {
            let e = e?;
            seen.check(&listed.files, fi, rows.last_line, &e)?;
            f(path, e);
            n += 1;
        }
    }
    Ok(n)
}

/// The first row seen for each (word, arch): file index, line, and a hash of the answer.
#[derive(Default)]
struct Conflicts {
    first: HashMap<(u128, Arch), (usize, u64, u64)>,
}

impl Conflicts {
    /// Remember `e` (row `line` of file `fi`), or fail if an earlier row answered its word
    /// otherwise.
    fn check(
        &mut self,
        files: &[(PathBuf, FileRecord)],
        fi: usize,
        line: u64,
        e: &Entry,
    ) -> Result<(), OracleError> {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        e.answer.hash(&mut h);
        let hash = h.finish();
        let (f0, l0, h0) = *self
            .first
            .entry((e.word, e.arch))
            .or_insert((fi, line, hash));
        if h0 == hash {
            return Ok(());
        }
        Err(bad(
            &files[fi].0,
            line,
            format!(
                "word {} on {} is answered `{} {}` here but otherwise at {}:{l0}: one word, \
                 one answer",
                word_to_hex(e.word),
                e.arch,
                e.answer.status(),
                crate::oracle::nvdisasm::listing::quote80(e.answer.text()),
                files[f0].0.display()
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tricky() -> Vec<Entry> {
        let a = Arch(100);
        vec![
            Entry {
                arch: a,
                word: 0x000fea0003800000_000000000000794d,
                answer: Answer::Text("EXIT ;".into()),
            },
            Entry {
                arch: a,
                word: 1,
                answer: Answer::Illegal(
                    "Opclass 'tld_scr_urc_', undefined value 0xf5 for table 'TABLES_opex_0'".into(),
                ),
            },
            Entry {
                arch: a,
                word: 2,
                answer: Answer::Text(
                    "@!P0 BRA `(.L_x_0), \"q\" \"\", desc[UR4][R2.64] {a,b} #x ;".into(),
                ),
            },
            Entry {
                arch: a,
                word: 3,
                answer: Answer::Text(String::new()),
            },
            Entry {
                arch: Arch(80),
                word: 3,
                answer: Answer::Text("\" ;".into()),
            },
            Entry {
                arch: a,
                word: u128::MAX,
                answer: Answer::Text("  leading and trailing ;".into()),
            },
        ]
    }

    #[test]
    fn tsv_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sm100/T.tsv");
        let mut entries = tricky();
        // A duplicate that replaces the earlier one.
        entries.push(Entry {
            arch: Arch(100),
            word: 1,
            answer: Answer::Illegal("newer".into()),
        });
        write_entries(&path, &mut entries).unwrap();
        let back = read_entries(&path).unwrap();
        assert_eq!(back, entries);
        assert_eq!(back.len(), 6);
        assert_eq!(back[0].answer, Answer::Illegal("newer".into()));
        // Sorted by (word, arch).
        let keys: Vec<_> = back.iter().map(|e| (e.word, e.arch)).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("word\tarch\tstatus\ttext\n"));
        assert!(
            text.contains(
                "0000000000000000000000000000000{}\tSM100"
                    .replace("{}", "1")
                    .as_str()
            )
        );
        // Writing again gives the same bytes.
        let mut again = back.clone();
        write_entries(&path, &mut again).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
        // No temp files left.
        let names: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn rows_stream_in_file_order_and_stop_at_the_first_bad_row() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.tsv");
        let (a, b) = (word_to_hex(9), word_to_hex(3));
        let body = format!(
            "word\tarch\tstatus\ttext\n{a}\tSM90\tok\tNOP ;\n{b}\tSM90\tillegal\tbad\nzz\tSM90\tok\tX\n{a}\tSM90\tok\tY\n"
        );
        fs::write(&p, body).unwrap();
        let rows: Vec<_> = open_entries(&p).unwrap().collect();
        assert_eq!(rows.len(), 3, "two rows, the error, then the end");
        let first = rows[0].as_ref().unwrap();
        assert_eq!((first.word, first.answer.text()), (9, "NOP ;"));
        assert_eq!(
            rows[1].as_ref().unwrap().answer,
            Answer::Illegal("bad".into())
        );
        let err = rows[2].as_ref().unwrap_err().to_string();
        assert!(err.contains("s.tsv") && err.contains(":4"), "{err}");
    }

    #[test]
    fn tsv_rejects_tabs_in_text() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = vec![Entry {
            arch: Arch(90),
            word: 0,
            answer: Answer::Text("a\tb".into()),
        }];
        assert!(write_entries(dir.path().join("x.tsv"), &mut e).is_err());
    }

    #[test]
    fn tsv_errors_name_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.tsv");
        let w = word_to_hex(5);
        for (body, line, what) in [
            ("word\tarch\tstatus\n".to_string(), 1, "header"),
            (
                format!("word\tarch\tstatus\ttext\n{w}\tSM100\tok\tX ;\nzz\tSM100\tok\tY ;\n"),
                3,
                "word",
            ),
            (
                format!("word\tarch\tstatus\ttext\n{w}\tSMX\tok\tX\n"),
                2,
                "arch",
            ),
            (
                format!("word\tarch\tstatus\ttext\n{w}\tSM100\tmaybe\tX\n"),
                2,
                "status",
            ),
            (
                format!("word\tarch\tstatus\ttext\n{w}\tSM100\tok\n"),
                2,
                "fields",
            ),
            (String::new(), 1, "empty"),
        ] {
            fs::write(&p, body).unwrap();
            let err = read_entries(&p).unwrap_err();
            match &err {
                OracleError::BadFile { line: l, .. } => assert_eq!(*l, line, "{what}: {err}"),
                other => panic!("{what}: {other}"),
            }
            assert!(
                err.to_string().contains(&format!("bad.tsv:{line}:")),
                "{err}"
            );
        }
    }

    #[test]
    fn load_dir_sorted_recursive() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (i, name) in ["sm90/B.tsv", "sm100/A.tsv", "sm100/sub/C.tsv"]
            .iter()
            .enumerate()
        {
            let mut e = vec![Entry {
                arch: Arch(90),
                word: i as u128,
                answer: Answer::Text(format!("{name} ;")),
            }];
            write_entries(root.join(name), &mut e).unwrap();
        }
        fs::write(root.join("MANIFEST.json"), "{}").unwrap();
        let err = load_dir(root).unwrap_err().to_string();
        assert!(
            err.contains("MANIFEST.json:1:") && err.contains("missing field `files`"),
            "{err}"
        );
        let mut m = Manifest::default();
        for name in ["sm90/B.tsv", "sm100/A.tsv", "sm100/sub/C.tsv"] {
            let path = format!("x/{name}");
            let rec = FileRecord::for_file(&root.join(name), path, Arch(90), "v", "c").unwrap();
            m.upsert(FileRecord {
                path: rec.path.replacen("x/", "", 1),
                ..rec
            });
        }
        m.write(root.join("MANIFEST.json")).unwrap();
        let got = load_dir(root).unwrap();
        let names: Vec<_> = got
            .iter()
            .map(|(p, _)| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["sm100/A.tsv", "sm100/sub/C.tsv", "sm90/B.tsv"]);
        assert_eq!(got[0].1[0].answer, Answer::Text("sm100/A.tsv ;".into()));
        assert!(load_dir(root.join("missing")).unwrap().is_empty());
    }

    /// An oracle folder `root` with files `(rel, rows)` listed in its MANIFEST.json.
    fn listed(root: &Path, files: &[(&str, &[(u128, &str)])]) {
        let mut m = Manifest::default();
        for (rel, rows) in files {
            let mut e: Vec<Entry> = rows
                .iter()
                .map(|&(word, t)| Entry {
                    arch: Arch(80),
                    word,
                    answer: Answer::Text(t.into()),
                })
                .collect();
            write_entries(root.join(rel), &mut e).unwrap();
            let p = format!("oracle/{rel}");
            m.upsert(FileRecord::for_file(&root.join(rel), p, Arch(80), "v", "c").unwrap());
        }
        m.write(root.join("MANIFEST.json")).unwrap();
    }

    fn load_err(root: &Path) -> String {
        load_dir(root).unwrap_err().to_string()
    }

    /// A copied or renamed oracle folder reads as the original: its records name `oracle/`.
    #[test]
    fn a_renamed_oracle_folder_reads_its_records() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("oracle");
        listed(&root, &[("sm80/A.tsv", &[(1, "NOP ;"), (2, "EXIT ;")])]);
        let copy = d.path().join("ocopy");
        std::fs::rename(&root, &copy).unwrap();
        let got = load_dir(&copy).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].1.len(), 2);
        assert_eq!(got[0].1[1].answer, Answer::Text("EXIT ;".into()));
        // The content is still checked against the record.
        std::fs::write(copy.join("sm80/A.tsv"), "0x1\tSM80\tok\tNOP ;\n").unwrap();
        assert!(
            load_err(&copy).contains("sm80/A.tsv"),
            "{}",
            load_err(&copy)
        );
        std::fs::write(
            copy.join("sm80/A.tsv"),
            "word\tarch\tstatus\ttext\n00000000000000000000000000000001\tSM80\tok\tNOP ;\n",
        )
        .unwrap();
        // After an intended edit, `oracle manifest --update` finds the file under the new name
        // and records its new row count; the record keeps the path its recorder wrote.
        let mut w = crate::oracle::OracleWriter::open(&copy).unwrap();
        assert_eq!(w.rehash(&[], None, "test").unwrap(), 1);
        w.commit().unwrap();
        let got = load_dir(&copy).unwrap();
        assert_eq!(got[0].1.len(), 1);
        assert_eq!(got[0].1[0].answer, Answer::Text("NOP ;".into()));
        let m = Manifest::read(copy.join("MANIFEST.json")).unwrap();
        assert_eq!(m.files[0].path, "oracle/sm80/A.tsv");
        assert_eq!(m.files[0].entries, 1);
    }

    #[test]
    fn manifest_is_the_source_of_truth() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("oracle");
        listed(&root, &[("sm80/A.tsv", &[(1, "NOP ;"), (2, "EXIT ;")])]);
        assert_eq!(load_dir(&root).unwrap()[0].1.len(), 2);
        let a = root.join("sm80/A.tsv");
        let good = fs::read_to_string(&a).unwrap();
        // An unlisted file is refused.
        fs::write(root.join("sm80/B.tsv"), "word\tarch\tstatus\ttext\n").unwrap();
        let err = load_err(&root);
        assert!(err.contains("sm80/B.tsv:0: not listed in"), "{err}");
        fs::remove_file(root.join("sm80/B.tsv")).unwrap();
        // A killed writer's staging folder is not read (tests/faults.rs, SIGKILL mid-record).
        fs::create_dir_all(root.join(".staging-Vh5E5X/sm80")).unwrap();
        fs::write(
            root.join(".staging-Vh5E5X/sm80/A.tsv"),
            "word\tarch\tstatus\ttext\n",
        )
        .unwrap();
        assert_eq!(load_dir(&root).unwrap()[0].1.len(), 2);
        fs::remove_dir_all(root.join(".staging-Vh5E5X")).unwrap();
        // A row removed: the count differs.
        let one_row: String = good.lines().take(2).map(|l| format!("{l}\n")).collect();
        fs::write(&a, &one_row).unwrap();
        let err = load_err(&root);
        assert!(err.ends_with("A.tsv:0: 1 rows, but MANIFEST.json records 2 (file changed or cut short since it was recorded)"), "{err}");
        // Same count, one text changed: the checksum differs.
        fs::write(&a, good.replace("EXIT ;", "EXIT;")).unwrap();
        let err = load_err(&root);
        assert!(
            err.contains("A.tsv:0: sha256 ") && err.contains("differs from MANIFEST.json's"),
            "{err}"
        );
        // Cut mid-row.
        fs::write(&a, &good[..good.len() - 1]).unwrap();
        let err = load_err(&root);
        assert!(
            err.ends_with(
                "A.tsv:3: the last row has no line break: the file was cut short (mid-row)"
            ),
            "{err}"
        );
        // Cut inside the last row's text or between its fields: cut short too (it said `ok`
        // text `EXIT` is not an instruction line, and `2 tab-separated fields`).
        for cut in [3, "SM80\tok\tEXIT ;\n".len()] {
            fs::write(&a, &good[..good.len() - cut]).unwrap();
            let err = load_err(&root);
            assert!(
                err.ends_with(
                    "A.tsv:3: the last row has no line break: the file was cut short (mid-row)"
                ),
                "{cut}: {err}"
            );
        }
        // A bad last row that ends with its line break keeps its own message.
        fs::write(&a, good.replace("EXIT ;", "EXIT")).unwrap();
        let err = load_err(&root);
        assert!(err.ends_with("A.tsv:3: `ok` text `EXIT` is not an instruction line (nvdisasm ends every one with `;`)"), "{err}");
        // Missing or garbage manifest.
        fs::write(&a, &good).unwrap();
        fs::write(root.join("MANIFEST.json"), "garbage").unwrap();
        assert!(load_err(&root).contains("MANIFEST.json:1: expected value"));
        fs::remove_file(root.join("MANIFEST.json")).unwrap();
        assert!(
            load_err(&root).contains("MANIFEST.json:0: missing: every oracle file must be listed")
        );
    }

    #[test]
    fn a_word_answered_twice_differently_names_both_rows() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("oracle");
        listed(
            &root,
            &[
                ("sm80/A.tsv", &[(1, "NOP ;"), (2, "EXIT ;")]),
                ("sm80/B.tsv", &[(2, "EXIT ;"), (3, "NOP ;")]),
                ("sm80/C.tsv", &[(5, "NOP ;"), (2, "BRA ;")]),
            ],
        );
        let err = load_err(&root);
        let a = root.join("sm80/A.tsv");
        let c = root.join("sm80/C.tsv");
        assert_eq!(
            err,
            format!(
                "{}:2: word 00000000000000000000000000000002 on SM80 is answered `ok BRA ;` here \
                 but otherwise at {}:3: one word, one answer",
                c.display(),
                a.display()
            )
        );
    }

    #[test]
    fn manifest_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oracle/MANIFEST.json");
        let mut m = Manifest::read_or_default(&path).unwrap();
        assert!(m.files.is_empty());
        let rec = |p: &str, n| FileRecord {
            path: p.into(),
            arch: Arch(100),
            entries: n,
            nvdisasm_version: "13.5.37".into(),
            date: "2026-11-30".into(),
            command: "sass-conform record --arch SM100 specs/sm100/TLD.txt".into(),
            sha256: None,
        };
        m.upsert(rec("oracle/sm100/TLD.tsv", 3));
        m.upsert(rec("oracle/sm100/TEX.tsv", 4));
        m.upsert(rec("oracle/sm100/TLD.tsv", 5));
        assert_eq!(m.files.len(), 2);
        assert_eq!(m.files[0].path, "oracle/sm100/TEX.tsv");
        assert_eq!(m.get("oracle/sm100/TLD.tsv").unwrap().entries, 5);
        m.write(&path).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"arch\": \"SM100\""), "{text}");
        assert!(text.ends_with("}\n"));
        let back = Manifest::read(&path).unwrap();
        assert_eq!(back, m);
        back.write(&path).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
        fs::write(&path, "{\n  \"files\": [\n  oops").unwrap();
        let err = Manifest::read(&path).unwrap_err();
        assert!(err.to_string().contains("MANIFEST.json:3:"), "{err}");
    }

    #[test]
    fn dates() {
        assert_eq!(date_from_unix_days(0), "1970-01-01");
        assert_eq!(date_from_unix_days(19_723), "2024-01-01");
        assert_eq!(date_from_unix_days(19_782), "2024-02-29");
        assert_eq!(today_utc().len(), 10);
    }
}
