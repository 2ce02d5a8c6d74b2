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
use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

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
    let rdr = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .quoting(false)
        .has_headers(false)
        .flexible(true)
        .from_reader(std::io::BufReader::with_capacity(1 << 16, file));
    Ok(EntryReader {
        path,
        rdr,
        record: csv::StringRecord::new(),
        seen_header: false,
        done: false,
    })
}

/// The rows of one oracle TSV file, one [`Entry`] per `next` (see [`open_entries`]).
pub struct EntryReader {
    path: PathBuf,
    rdr: csv::Reader<std::io::BufReader<fs::File>>,
    record: csv::StringRecord,
    seen_header: bool,
    done: bool,
}

impl EntryReader {
    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
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
                return Ok(None);
            }
            let line = self.record.position().map(|p| p.line()).unwrap_or(0);
            if self.seen_header {
                return parse_row(&self.path, line, &self.record).map(Some);
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

pub(crate) fn unique_counter() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// Read every `*.tsv` file under `dir`, recursively, in sorted path order.
///
/// Returns `(path, entries)` per file, paths as found under `dir`. A missing `dir` gives an
/// empty list. Errors: the first unreadable folder or bad file ([`read_entries`]).
pub fn load_dir(dir: impl AsRef<Path>) -> Result<Vec<(PathBuf, Vec<Entry>)>, OracleError> {
    list_files(dir)?
        .into_iter()
        .map(|p| {
            let entries = read_entries(&p)?;
            Ok((p, entries))
        })
        .collect()
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
/// time in [`load_dir`] order (memory flat however large the files); returns how many there
/// were. Errors: the first unreadable folder, file or bad row ([`open_entries`]).
pub fn for_each_entry_where(
    dir: impl AsRef<Path>,
    keep: impl Fn(&Path) -> bool,
    mut f: impl FnMut(Entry),
) -> Result<usize, OracleError> {
    let mut n = 0;
    for path in list_files(dir)?.iter().filter(|p| keep(p)) {
        for e in open_entries(path)? {
            f(e?);
            n += 1;
        }
    }
    Ok(n)
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
                answer: Answer::Text("\"".into()),
            },
            Entry {
                arch: a,
                word: u128::MAX,
                answer: Answer::Text("  leading and trailing  ".into()),
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
                format!("word\tarch\tstatus\ttext\n{w}\tSM100\tok\tX\nzz\tSM100\tok\tY\n"),
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
        for name in ["sm90/B.tsv", "sm100/A.tsv", "sm100/sub/C.tsv"] {
            let mut e = vec![Entry {
                arch: Arch(90),
                word: 7,
                answer: Answer::Text(name.into()),
            }];
            write_entries(root.join(name), &mut e).unwrap();
        }
        fs::write(root.join("MANIFEST.json"), "{}").unwrap();
        let got = load_dir(root).unwrap();
        let names: Vec<_> = got
            .iter()
            .map(|(p, _)| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["sm100/A.tsv", "sm100/sub/C.tsv", "sm90/B.tsv"]);
        assert_eq!(got[0].1[0].answer, Answer::Text("sm100/A.tsv".into()));
        assert!(load_dir(root.join("missing")).unwrap().is_empty());
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
