//! Shards: `--shard I/N` splits a run's work units (tables, sorted by (arch, mnemonic)) into N
//! disjoint parts, so that N machines (a CI job matrix) run one each, and [`merge_rows`] joins
//! the row files they write (VARIANTS.tsv, SKIPPED.tsv, MATRIX.tsv) into what one unsharded run
//! writes.
//!
//! The rule: sort the units by their key; unit k (0-based) goes to shard `k mod N + 1`. So
//! shards partition the work, every shard's share is known without running the others, and
//! the same units always land in the same shard.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Errors of shards: a bad `--shard` text, row files that cannot be merged.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ShardError {
    /// `--shard` is not `I/N` with 1 <= I <= N.
    #[error("bad shard `{text}`: {why} (expected I/N with 1 <= I <= N, e.g. 1/4)")]
    BadShard {
        /// The text given.
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// Two row files have different header lines.
    #[error("{file}:1: header `{found}` differs from `{expected}` in {first}")]
    Header {
        /// The file whose header differs.
        file: String,
        /// Its header.
        found: String,
        /// The first file's header.
        expected: String,
        /// The first file.
        first: String,
    },
    /// A row file without a header line, or a row with fewer than two columns.
    #[error("{file}:{line}: {why}")]
    BadRow {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// Two shards wrote different rows for one (arch, mnemonic).
    #[error(
        "{arch} {mnemonic}: shards disagree: {file_a}:{line_a} and {file_b}:{line_b} give different rows"
    )]
    Conflict {
        /// The arch column.
        arch: String,
        /// The mnemonic column.
        mnemonic: String,
        /// One file.
        file_a: String,
        /// Its first row of that unit.
        line_a: usize,
        /// The other.
        file_b: String,
        /// Its first row of that unit.
        line_b: usize,
    },
}

/// One shard of N: `index` in 1..=`count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which shard, 1-based.
    pub index: usize,
    /// How many shards.
    pub count: usize,
}

impl Shard {
    /// The whole run as one shard (1/1).
    pub const ALL: Shard = Shard { index: 1, count: 1 };

    /// Whether unit `k` (0-based, in key order) belongs to this shard.
    pub fn picks(&self, k: usize) -> bool {
        k % self.count == self.index - 1
    }

    /// This shard's units of `units`: sorted by `key`, then every N-th from the I-th.
    pub fn select<T, K: Ord>(&self, mut units: Vec<T>, key: impl Fn(&T) -> K) -> Vec<T> {
        units.sort_by_key(|u| key(u));
        units
            .into_iter()
            .enumerate()
            .filter(|(k, _)| self.picks(*k))
            .map(|(_, u)| u)
            .collect()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let bad = |why: &str| ShardError::BadShard {
            text: s.to_string(),
            why: why.to_string(),
        };
        let (i, n) = s.trim().split_once('/').ok_or_else(|| bad("no `/`"))?;
        let i: usize = i.trim().parse().map_err(|_| bad("I is not a number"))?;
        let n: usize = n.trim().parse().map_err(|_| bad("N is not a number"))?;
        if n == 0 {
            return Err(bad("N is 0"));
        }
        if i == 0 || i > n {
            return Err(bad("I is out of 1..=N"));
        }
        Ok(Shard { index: i, count: n })
    }
}

/// Joins row files (TSV, a header line, then rows whose first two columns are arch and
/// mnemonic) that shards wrote: `(file name, text)` each. The rows of one (arch, mnemonic)
/// are kept together in the order of the file that has them, the units sorted by (arch,
/// mnemonic); a unit found in several files must have the same rows in each (rows a shard
/// keeps from an earlier run), else [`ShardError::Conflict`] names both places. Lines starting
/// with `#` after the header are kept once, in first-seen order, before the rows.
///
/// Errors: a file with no header or another header than the first's, a row with fewer than
/// two columns, a conflict.
pub fn merge_rows(files: &[(String, String)]) -> Result<String, ShardError> {
    type Unit = (String, String);
    let mut header: Option<(String, String)> = None;
    let mut comments: Vec<String> = Vec::new();
    // unit -> (rows, file, first line)
    let mut units: BTreeMap<Unit, (Vec<String>, String, usize)> = BTreeMap::new();
    for (file, text) in files {
        let mut lines = text.lines().enumerate();
        let Some((_, h)) = lines.next() else {
            return Err(ShardError::BadRow {
                file: file.clone(),
                line: 1,
                why: "empty file: no header line".into(),
            });
        };
        match &header {
            None => header = Some((h.to_string(), file.clone())),
            Some((first_h, first_f)) if first_h != h => {
                return Err(ShardError::Header {
                    file: file.clone(),
                    found: h.to_string(),
                    expected: first_h.clone(),
                    first: first_f.clone(),
                });
            }
            Some(_) => {}
        }
        let mut mine: BTreeMap<Unit, (Vec<String>, usize)> = BTreeMap::new();
        for (i, l) in lines {
            if l.trim().is_empty() {
                continue;
            }
            if l.starts_with('#') {
                if !comments.iter().any(|c| c == l) {
                    comments.push(l.to_string());
                }
                continue;
            }
            let mut c = l.split('\t');
            let (Some(arch), Some(mn)) = (c.next(), c.next()) else {
                return Err(ShardError::BadRow {
                    file: file.clone(),
                    line: i + 1,
                    why: format!("`{l}`: fewer than two tab-separated columns (arch, mnemonic)"),
                });
            };
            mine.entry((arch.to_string(), mn.to_string()))
                .or_insert_with(|| (Vec::new(), i + 1))
                .0
                .push(l.to_string());
        }
        for (unit, (rows, line)) in mine {
            match units.get(&unit) {
                Some((other, f, l)) if *other != rows => {
                    return Err(ShardError::Conflict {
                        arch: unit.0,
                        mnemonic: unit.1,
                        file_a: f.clone(),
                        line_a: *l,
                        file_b: file.clone(),
                        line_b: line,
                    });
                }
                Some(_) => {}
                None => {
                    units.insert(unit, (rows, file.clone(), line));
                }
            }
        }
    }
    let Some((h, _)) = header else {
        return Ok(String::new());
    };
    let mut out = h;
    out.push('\n');
    for c in comments {
        out.push_str(&c);
        out.push('\n');
    }
    for (rows, _, _) in units.into_values() {
        for r in rows {
            out.push_str(&r);
            out.push('\n');
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_refuses_shards() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!("1/1".parse::<Shard>(), Ok(Shard::ALL));
        for (bad, why) in [
            ("0/4", "I is out of 1..=N"),
            ("5/4", "I is out of 1..=N"),
            ("1/0", "N is 0"),
            ("x/2", "I is not a number"),
            ("3", "no `/`"),
        ] {
            let e = bad.parse::<Shard>().unwrap_err().to_string();
            assert!(e.contains(why) && e.contains(&format!("`{bad}`")), "{e}");
        }
    }

    #[test]
    fn shards_partition_the_units_in_key_order() {
        let units = vec!["LDG", "BRA", "S2R", "MOV", "EXIT", "IADD3", "FFMA"];
        let parts: Vec<Vec<&str>> = (1..=3)
            .map(|i| Shard { index: i, count: 3 }.select(units.clone(), |u| *u))
            .collect();
        assert_eq!(parts[0], ["BRA", "IADD3", "S2R"]);
        assert_eq!(parts[1], ["EXIT", "LDG"]);
        assert_eq!(parts[2], ["FFMA", "MOV"]);
        let mut all: Vec<&str> = parts.concat();
        all.sort();
        let mut want = units.clone();
        want.sort();
        assert_eq!(all, want);
    }

    #[test]
    fn rows_merge_by_unit_and_conflicts_name_both_places() {
        let h = "arch\tmnemonic\tvariants\n";
        let a = (
            "a/MATRIX.tsv".to_string(),
            format!("{h}SM80\tS2R\t1\nSM90\tBRA\t4\n"),
        );
        let b = (
            "b/MATRIX.tsv".to_string(),
            format!("{h}SM80\tMOV\t2\nSM80\tMOV\t3\nSM90\tBRA\t4\n"),
        );
        assert_eq!(
            merge_rows(&[a.clone(), b.clone()]).unwrap(),
            format!("{h}SM80\tMOV\t2\nSM80\tMOV\t3\nSM80\tS2R\t1\nSM90\tBRA\t4\n")
        );
        let c = ("c/MATRIX.tsv".to_string(), format!("{h}SM90\tBRA\t5\n"));
        assert_eq!(
            merge_rows(&[a.clone(), c]).unwrap_err().to_string(),
            "SM90 BRA: shards disagree: a/MATRIX.tsv:3 and c/MATRIX.tsv:2 give different rows"
        );
        let d = ("d/MATRIX.tsv".to_string(), "arch\tmnemonic\n".to_string());
        assert_eq!(
            merge_rows(&[a.clone(), d]).unwrap_err().to_string(),
            "d/MATRIX.tsv:1: header `arch\tmnemonic` differs from `arch\tmnemonic\tvariants` in a/MATRIX.tsv"
        );
        let e = ("e/MATRIX.tsv".to_string(), format!("{h}SM80\n"));
        assert_eq!(
            merge_rows(&[a, e]).unwrap_err().to_string(),
            "e/MATRIX.tsv:2: `SM80`: fewer than two tab-separated columns (arch, mnemonic)"
        );
    }
}
