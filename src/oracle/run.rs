//! Streaming words through nvdisasm into an oracle TSV (`sass-conform oracle run`).
//!
//! Input: one word per line, 32 hex digits (an `0x` prefix and `_` separators are allowed);
//! blank lines and lines starting with `#` are skipped. Output: the TSV format of
//! [`super::write_entries`] (header `word\tarch\tstatus\ttext`), but with the rows in **input
//! order**: unsorted, and a word given twice appears twice. [`super::read_entries`] and the
//! other readers do not require sorted rows.

use super::{Answer, DisassembleStats, Nvdisasm, OracleError, parse_word_hex, word_to_hex};
use crate::arch::Arch;
use std::fs;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What [`run_words`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSummary {
    /// The arch asked about.
    pub arch: Option<Arch>,
    /// Counters of the passes (words, illegal, nvdisasm processes, ...).
    pub stats: DisassembleStats,
    /// Wall-clock time, seconds, from the first word read to the last row written.
    pub seconds: f64,
}

impl RunSummary {
    /// Words per second of wall-clock time (0 when no time passed).
    pub fn words_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.stats.words as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// One line for stderr: `SM90: 200000 words, 9998 illegal, 12 address-dependent, 6.1 s,
    /// 32787 words/s, 4 nvdisasm processes (2 chunks)`.
    pub fn line(&self) -> String {
        let s = &self.stats;
        format!(
            "{}: {} words, {} illegal, {} address-dependent, {:.1} s, {:.0} words/s, \
             {} nvdisasm processes ({} chunks){}",
            self.arch.map(|a| a.to_string()).unwrap_or_default(),
            s.words,
            s.illegal,
            s.address_dependent,
            self.seconds,
            self.words_per_second(),
            s.runs,
            s.chunks,
            if s.hinted + s.hint_misses > 0 {
                format!(
                    ", {} words hinted legal, {} hint misses",
                    s.hinted, s.hint_misses
                )
            } else {
                String::new()
            }
        )
    }
}

/// The words of `input`, one per line (format in the module docs), read lazily. A bad line
/// yields [`OracleError::BadFile`] naming `name` and the 1-based line, and ends the words; an
/// unreadable input yields [`OracleError::Io`].
pub fn read_words<R: BufRead>(
    input: R,
    name: &Path,
) -> impl Iterator<Item = Result<u128, OracleError>> {
    let name = name.to_path_buf();
    // Lines are bounded (crate::words::MAX_LINE): a huge line is an error, not a huge buffer.
    let mut lines = crate::words::WordLines::new(input, name.display().to_string());
    let mut failed = false;
    std::iter::from_fn(move || {
        while !failed {
            let (line_no, line) = match lines.next()? {
                Ok(l) => l,
                Err(crate::words::WordError::Io { source, .. }) => {
                    failed = true;
                    return Some(Err(OracleError::io(&name, source)));
                }
                Err(e) => {
                    failed = true;
                    let (line, message) = match &e {
                        crate::words::WordError::LineTooLong { line, head, .. } => (
                            *line,
                            format!(
                                "line longer than {} bytes, starting `{head}`",
                                crate::words::MAX_LINE
                            ),
                        ),
                        crate::words::WordError::NotUtf8 {
                            line, byte, column, ..
                        } => (
                            *line,
                            format!("not UTF-8 (byte 0x{byte:02x} at byte {column} of the line)"),
                        ),
                        _ => (0, e.to_string()),
                    };
                    return Some(Err(OracleError::BadFile {
                        path: name.clone(),
                        line: line as u64,
                        message,
                    }));
                }
            };
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let digits = t
                .strip_prefix("0x")
                .or_else(|| t.strip_prefix("0X"))
                .unwrap_or(t)
                .bytes()
                .filter(|&b| b != b'_')
                .count();
            return Some(match parse_word_hex(t).filter(|_| digits == 32) {
                Some(w) => Ok(w),
                None => {
                    failed = true;
                    Err(OracleError::BadFile {
                        path: name.clone(),
                        line: line_no as u64,
                        message: format!(
                            "`{}` is not a word (32 hex digits)",
                            crate::words::quote(t)
                        ),
                    })
                }
            });
        }
        None
    })
}

/// Write one TSV row `word\tarch\tstatus\ttext\n`. Errors: [`OracleError::Input`] when the text
/// holds a tab, CR or LF (it could not be read back), [`OracleError::Io`] (naming `name`)
/// when writing fails.
pub fn write_row<W: Write>(
    out: &mut W,
    name: &Path,
    word: u128,
    arch: Arch,
    answer: &Answer,
) -> Result<(), OracleError> {
    let text = answer.text();
    if text.contains(['\t', '\n', '\r']) {
        return Err(OracleError::Input {
            message: format!(
                "{}: text for word {} holds a tab or line break: {text:?}",
                name.display(),
                word_to_hex(word)
            ),
        });
    }
    writeln!(
        out,
        "{}\t{arch}\t{}\t{text}",
        word_to_hex(word),
        answer.status()
    )
    .map_err(|e| OracleError::io(name, e))
}

/// Disassemble the words of `words` (a file, or stdin for `None` or `-`) for `arch` with
/// [`Nvdisasm::disassemble_stream`], writing the TSV (module docs) to `out` (a file, or stdout
/// for `None` or `-`) as the answers come. A file is written under a temporary name in the
/// same folder and renamed into place at the end, so a failed run leaves no partial file (a
/// symlink is followed: its target is replaced, the link kept).
/// With `progress`, a bar on stderr counts the words (hidden when stderr is not a terminal).
///
/// Errors: [`OracleError::Io`] for unreadable input or unwritable output,
/// [`OracleError::BadFile`] for a bad input line, and those of
/// [`Nvdisasm::disassemble_stream`].
pub fn run_words(
    nv: &Nvdisasm,
    arch: Arch,
    words: Option<&Path>,
    out: Option<&Path>,
    likely_legal: &(dyn Fn(u128) -> bool + Sync),
    progress: bool,
) -> Result<RunSummary, OracleError> {
    let (words, out) = (not_dash(words), not_dash(out));
    // A symlinked output is written through to its target (the rename must not replace the
    // link itself).
    let resolved_out = out.and_then(|p| {
        let is_link = fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
        is_link.then(|| fs::canonicalize(p).ok()).flatten()
    });
    let out = resolved_out.as_deref().or(out);
    let in_name = words.map_or_else(|| PathBuf::from("<stdin>"), Path::to_path_buf);
    let input: Box<dyn BufRead> = match words {
        Some(p) => Box::new(BufReader::with_capacity(
            1 << 16,
            fs::File::open(p).map_err(|e| OracleError::io(p, e))?,
        )),
        None => Box::new(BufReader::new(std::io::stdin())),
    };
    let pb = if progress {
        let len = match words {
            Some(p) => count_lines(p)?,
            None => 0,
        };
        let pb = indicatif::ProgressBar::new(len);
        let template = if len > 0 {
            "{msg} [{bar:40}] {pos}/{len} words {per_sec} eta {eta}"
        } else {
            "{msg} {spinner} {pos} words {per_sec}"
        };
        if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
            pb.set_style(style.progress_chars("=> "));
        }
        pb.set_message(arch.to_string());
        Some(pb)
    } else {
        None
    };

    let out_name = out.map_or_else(|| PathBuf::from("<stdout>"), Path::to_path_buf);
    // Special files (`/dev/null`, a pipe) are written in place, never replaced by a rename.
    let in_place = out.is_some_and(|p| fs::metadata(p).is_ok_and(|m| !m.is_file()));
    let tmp = out.filter(|_| !in_place).map(|p| {
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "oracle.tsv".into());
        dir.join(format!(
            ".{name}.tmp.{}.{}",
            std::process::id(),
            super::files::unique_counter()
        ))
    });
    if let Some(dir) = out
        .and_then(Path::parent)
        .filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(OracleError::Input {
            message: format!(
                "{}: the output folder {} does not exist",
                out_name.display(),
                dir.display()
            ),
        });
    }
    if let (Some(t), Some(o)) = (&tmp, out) {
        sweep_stale_tmp(t.parent().unwrap_or(Path::new(".")), o);
    }
    let sink: Box<dyn Write> = match (&tmp, out) {
        (Some(t), _) => Box::new(fs::File::create(t).map_err(|e| OracleError::io(t, e))?),
        (None, Some(o)) => Box::new(
            fs::OpenOptions::new()
                .write(true)
                .open(o)
                .map_err(|e| OracleError::io(o, e))?,
        ),
        (None, None) => Box::new(std::io::stdout().lock()),
    };
    let mut w = BufWriter::with_capacity(1 << 16, sink);
    let start = Instant::now();
    let result = (|| {
        writeln!(w, "word\tarch\tstatus\ttext").map_err(|e| OracleError::io(&out_name, e))?;
        let mut n = 0u64;
        let words = read_words(input, &in_name);
        let stats = nv.disassemble_stream_hinted(arch, words, likely_legal, |word, answer| {
            write_row(&mut w, &out_name, word, arch, &answer)?;
            n += 1;
            if let Some(pb) = &pb
                && n.is_multiple_of(1024)
            {
                pb.set_position(n);
            }
            Ok(())
        })?;
        w.flush().map_err(|e| OracleError::io(&out_name, e))?;
        Ok(stats)
    })();
    drop(w);
    if let Some(pb) = &pb {
        pb.finish_and_clear();
    }
    let stats = match (result, &tmp, out) {
        (Ok(st), Some(t), Some(o)) => {
            fs::rename(t, o).map_err(|e| OracleError::io(o, e))?;
            st
        }
        (Ok(st), _, _) => st,
        (Err(e), t, _) => {
            if let Some(t) = t {
                let _ = fs::remove_file(t);
            }
            return Err(e);
        }
    };
    Ok(RunSummary {
        arch: Some(arch),
        stats,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Remove `.NAME.tmp.PID.N` files next to `out` whose process `PID` is gone (left by a
/// `kill -9` of an earlier run; SIGINT/SIGTERM remove their own).
fn sweep_stale_tmp(dir: &Path, out: &Path) {
    let Some(name) = out.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    let prefix = format!(".{name}.tmp.");
    let Ok(rd) = fs::read_dir(dir) else { return };
    for ent in rd.flatten() {
        let file = ent.file_name().to_string_lossy().into_owned();
        let pid = Some(file.as_str())
            .filter(|f| f.starts_with(&prefix))
            .and_then(super::files::tmp_pid);
        if pid.is_some_and(|p| !super::nvdisasm::process::process_exists(p)) {
            let _ = fs::remove_file(ent.path());
        }
    }
}

/// `None` for `None` and `-` (stdin or stdout).
fn not_dash(p: Option<&Path>) -> Option<&Path> {
    p.filter(|p| p.as_os_str() != "-")
}

/// Lines in a file (newline bytes, plus one for a last line without one).
fn count_lines(path: &Path) -> Result<u64, OracleError> {
    let mut f = fs::File::open(path).map_err(|e| OracleError::io(path, e))?;
    let mut buf = vec![0u8; 1 << 16];
    let (mut n, mut last) = (0u64, b'\n');
    loop {
        let k = f.read(&mut buf).map_err(|e| OracleError::io(path, e))?;
        if k == 0 {
            break;
        }
        n += buf[..k].iter().filter(|&&b| b == b'\n').count() as u64;
        last = buf[k - 1];
    }
    Ok(n + u64::from(last != b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_read_with_comments_and_blank_lines() {
        let text = "# SM90 words\n\n000fea0003800000000000000000794d\n  0x000fc00000000000_0000000000007918  \n";
        let got: Vec<u128> = read_words(text.as_bytes(), Path::new("w.txt"))
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            got,
            [
                0x000fea0003800000_000000000000794d,
                0x000fc00000000000_0000000000007918
            ]
        );
    }

    #[test]
    fn a_bad_word_line_names_file_and_line() {
        let text = "000fea0003800000000000000000794d\n# c\n794d\nffff\n";
        let got: Vec<Result<u128, OracleError>> =
            read_words(text.as_bytes(), Path::new("w.txt")).collect();
        assert_eq!(got.len(), 2, "stops after the first bad line");
        let err = got[1].as_ref().unwrap_err().to_string();
        assert_eq!(err, "w.txt:3: `794d` is not a word (32 hex digits)");
    }

    #[test]
    fn a_word_list_line_is_bounded_and_quoted_short() {
        // An endless line: an error after 4 KiB, quoting 80 characters.
        let endless = std::io::BufReader::new(std::io::repeat(b'f'));
        let got: Vec<Result<u128, OracleError>> = read_words(endless, Path::new("w.txt")).collect();
        assert_eq!(got.len(), 1);
        assert_eq!(
            got[0].as_ref().unwrap_err().to_string(),
            format!(
                "w.txt:1: line longer than 4096 bytes, starting `{}…`",
                "f".repeat(80)
            )
        );
        let text = format!("{}\n", "g".repeat(1000));
        let got: Vec<_> = read_words(text.as_bytes(), Path::new("w.txt")).collect();
        assert_eq!(
            got[0].as_ref().unwrap_err().to_string(),
            format!(
                "w.txt:1: `{}…` is not a word (32 hex digits)",
                "g".repeat(80)
            )
        );
        let got: Vec<_> = read_words(&b"\xc3(\n"[..], Path::new("w.txt")).collect();
        assert_eq!(
            got[0].as_ref().unwrap_err().to_string(),
            "w.txt:1: not UTF-8 (byte 0xc3 at byte 1 of the line)"
        );
    }

    #[test]
    fn rows_are_tsv_and_reject_tabs() {
        let mut out = Vec::new();
        let name = Path::new("o.tsv");
        let w = 0x000fea0003800000_000000000000794du128;
        write_row(&mut out, name, w, Arch(90), &Answer::Text("EXIT ;".into())).unwrap();
        write_row(
            &mut out,
            name,
            0,
            Arch(90),
            &Answer::Illegal("Illegal instruction found".into()),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "000fea0003800000000000000000794d\tSM90\tok\tEXIT ;\n\
             00000000000000000000000000000000\tSM90\tillegal\tIllegal instruction found\n"
        );
        let bad = write_row(
            &mut Vec::new(),
            name,
            0,
            Arch(90),
            &Answer::Text("a\tb".into()),
        );
        assert!(matches!(bad, Err(OracleError::Input { .. })));
    }

    #[test]
    fn lines_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("w.txt");
        fs::write(&p, "a\nb\nc").unwrap();
        assert_eq!(count_lines(&p).unwrap(), 3);
        fs::write(&p, "a\nb\n").unwrap();
        assert_eq!(count_lines(&p).unwrap(), 2);
        fs::write(&p, "").unwrap();
        assert_eq!(count_lines(&p).unwrap(), 0);
    }

    #[test]
    fn summary_line() {
        let s = RunSummary {
            arch: Some(Arch(90)),
            stats: DisassembleStats {
                words: 200_000,
                illegal: 9998,
                address_dependent: 12,
                runs: 4,
                chunks: 2,
                ..Default::default()
            },
            seconds: 8.0,
        };
        assert_eq!(s.words_per_second(), 25_000.0);
        assert_eq!(
            s.line(),
            "SM90: 200000 words, 9998 illegal, 12 address-dependent, 8.0 s, 25000 words/s, \
             4 nvdisasm processes (2 chunks)"
        );
    }
}
