//! Arch inference: which archs nvdisasm agrees with, for a table (such as TLD4) whose file
//! names no arch.
//!
//! For every candidate arch, each variant's fixed word (the table's fixed bits, every field 0)
//! is disassembled, and nvdisasm's text is compared with the variant's `distilled:` line
//! (exactly, after collapsing whitespace). Per arch the variants fall into three counts:
//! `agree` (same text), `differ` (legal, other text) and `illegal` (nvdisasm rejects the word),
//! plus `unseen` when no answer is recorded. Archs are ranked by agreements, then by legal
//! words; the best are those with the most agreements (all of them on a tie).
//!
//! The answers come from a lookup (recorded files, see [`load_recorded`]) or from nvdisasm
//! ([`record`]). Recordings live in `oracle/arch-infer/<ARCH>.tsv`, one file per arch (the
//! fixed words of every table ranked), each with its `oracle/MANIFEST.json` record; they are
//! kept out of `oracle/sm*/`, whose per-table sweeps other tests pin, and `diff`/`resolve`
//! leave them out (they are answers for archs the tables do not claim).

use crate::arch::Arch;
use crate::oracle::{self, Answer, Entry, Nvdisasm, OracleError, word_to_hex};
use crate::spec::Table;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Every arch nvdisasm 13.5.37 takes for `-b` (its `a`/`f` suffixes dropped: the tables do not
/// distinguish them), in ascending order.
pub const CANDIDATE_ARCHS: [Arch; 14] = [
    Arch(75),
    Arch(80),
    Arch(86),
    Arch(87),
    Arch(88),
    Arch(89),
    Arch(90),
    Arch(100),
    Arch(101),
    Arch(103),
    Arch(107),
    Arch(110),
    Arch(120),
    Arch(121),
];

/// Folder under the oracle root that holds the arch-inference recordings.
pub const ORACLE_SUBDIR: &str = "arch-infer";

/// What nvdisasm says about one variant's fixed word on one arch, against the distilled line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", content = "nvdisasm", rename_all = "kebab-case")]
pub enum Outcome {
    /// Legal, and the text is the distilled line.
    Agree,
    /// Legal, with this other text.
    Differ(String),
    /// Rejected, with this reason.
    Illegal(String),
    /// No recorded answer.
    Unseen,
}

/// One variant's outcome on one arch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VariantOutcome {
    /// Variant key.
    pub key: String,
    /// 1-based line of the variant.
    pub line: usize,
    /// The fixed word, 32 hex digits.
    pub word: String,
    /// The outcome.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// The counts of one arch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchScore {
    /// The arch.
    pub arch: Arch,
    /// Variants whose fixed word nvdisasm prints as the distilled line.
    pub agree: usize,
    /// Variants whose fixed word is legal but printed otherwise.
    pub differ: usize,
    /// Variants whose fixed word nvdisasm rejects.
    pub illegal: usize,
    /// Variants with no recorded answer.
    pub unseen: usize,
    /// Per variant, in table order.
    pub variants: Vec<VariantOutcome>,
}

impl ArchScore {
    /// Variants with an answer.
    pub fn seen(&self) -> usize {
        self.agree + self.differ + self.illegal
    }
}

/// The ranking of every candidate arch for one table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchRanking {
    /// Table file.
    pub file: String,
    /// Mnemonic.
    pub mnemonic: String,
    /// Variants in the table.
    pub variants: usize,
    /// The arch the table is used with today (header, manifest or option), if any.
    pub declared: Option<Arch>,
    /// Where `declared` came from (`header`, `manifest`, `option`, `none`).
    pub declared_source: String,
    /// Every candidate, best first: most agreements, then most legal words, then fewest
    /// illegal, then fewest unseen, then ascending arch.
    pub ranking: Vec<ArchScore>,
    /// The archs with the most agreements (several on a tie; empty when no arch agrees on any
    /// variant).
    pub best: Vec<Arch>,
}

/// How the inference relates to the declared arch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The declared arch is the only best arch.
    Confirms,
    /// The declared arch is among several equally good archs.
    Tied,
    /// The best archs do not include the declared arch (or none is declared).
    Differs,
    /// No arch agrees on any variant (or nothing is recorded).
    Undecided,
}

impl ArchRanking {
    /// The verdict on the declared arch.
    pub fn verdict(&self) -> Verdict {
        match (self.best.as_slice(), self.declared) {
            ([], _) => Verdict::Undecided,
            ([b], Some(d)) if *b == d => Verdict::Confirms,
            (best, Some(d)) if best.contains(&d) => Verdict::Tied,
            _ => Verdict::Differs,
        }
    }

    /// The score of `arch`, if it is a candidate.
    pub fn score(&self, arch: Arch) -> Option<&ArchScore> {
        self.ranking.iter().find(|s| s.arch == arch)
    }

    /// Archs with no recorded answer for some variant.
    pub fn incomplete(&self) -> Vec<Arch> {
        self.ranking
            .iter()
            .filter(|s| s.unseen > 0)
            .map(|s| s.arch)
            .collect()
    }

    /// A human-readable report: one line per arch, the best archs, and the verdict on the
    /// declared arch; with `examples`, up to that many differing texts per arch.
    pub fn render_text(&self, examples: usize) -> String {
        let mut s = String::new();
        let declared = match self.declared {
            Some(a) => format!("{a} (from {})", self.declared_source),
            None => "none".into(),
        };
        let _ = writeln!(
            s,
            "{}: {} ({} variants), arch in use: {declared}",
            self.file, self.mnemonic, self.variants
        );
        let _ = writeln!(
            s,
            "  {:6} {:>6} {:>7} {:>8} {:>7}",
            "arch", "agree", "differ", "illegal", "unseen"
        );
        for r in &self.ranking {
            let mark = if self.best.contains(&r.arch) {
                " *"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "  {:6} {:>6} {:>7} {:>8} {:>7}{mark}",
                r.arch.to_string(),
                r.agree,
                r.differ,
                r.illegal,
                r.unseen
            );
            for v in r
                .variants
                .iter()
                .filter(|v| matches!(v.outcome, Outcome::Differ(_)))
                .take(examples)
            {
                if let Outcome::Differ(t) = &v.outcome {
                    let _ = writeln!(s, "         {} {}: nvdisasm `{t}`", v.word, v.key);
                }
            }
        }
        let best: Vec<String> = self.best.iter().map(Arch::to_string).collect();
        let line = match (self.verdict(), self.declared) {
            (Verdict::Undecided, _) => {
                "inferred: none (no arch prints any distilled line)".to_string()
            }
            (Verdict::Confirms, Some(d)) => {
                format!(
                    "inferred: {d}; agrees with the arch in use ({})",
                    self.declared_source
                )
            }
            (Verdict::Tied, Some(d)) => format!(
                "inferred: tie between {}; the arch in use ({d}, from {}) is among them",
                best.join(", "),
                self.declared_source
            ),
            (_, Some(d)) => format!(
                "inferred: {}; DIFFERS from the arch in use ({d}, from {})",
                best.join(", "),
                self.declared_source
            ),
            (_, None) => format!(
                "inferred: {}; the table has no arch in use",
                best.join(", ")
            ),
        };
        let _ = writeln!(s, "  {line}");
        let missing = self.incomplete();
        if !missing.is_empty() {
            let m: Vec<String> = missing.iter().map(Arch::to_string).collect();
            let _ = writeln!(
                s,
                "  not recorded for every variant on {} (run `sass-conform arch-infer --record`)",
                m.join(", ")
            );
        }
        s
    }
}

/// Collapses every run of whitespace to one space and trims both ends.
pub fn normalize_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Ranks `archs` for `table`: each variant's fixed word on each arch, looked up in `answers`,
/// against the variant's distilled line (whitespace-normalised, otherwise exact).
pub fn infer_arch<'a>(
    table: &Table,
    archs: &[Arch],
    answers: impl Fn(Arch, u128) -> Option<&'a Answer>,
) -> ArchRanking {
    let mut ranking: Vec<ArchScore> = archs
        .iter()
        .map(|&arch| {
            let mut s = ArchScore {
                arch,
                agree: 0,
                differ: 0,
                illegal: 0,
                unseen: 0,
                variants: Vec::with_capacity(table.variants.len()),
            };
            for v in &table.variants {
                let outcome = match answers(arch, v.fixed_value) {
                    None => {
                        s.unseen += 1;
                        Outcome::Unseen
                    }
                    Some(Answer::Illegal(r)) => {
                        s.illegal += 1;
                        Outcome::Illegal(r.clone())
                    }
                    Some(Answer::Text(t)) if normalize_ws(t) == normalize_ws(&v.distilled) => {
                        s.agree += 1;
                        Outcome::Agree
                    }
                    Some(Answer::Text(t)) => {
                        s.differ += 1;
                        Outcome::Differ(t.clone())
                    }
                };
                s.variants.push(VariantOutcome {
                    key: v.key.clone(),
                    line: v.line,
                    word: word_to_hex(v.fixed_value),
                    outcome,
                });
            }
            s
        })
        .collect();
    ranking.sort_by(|a, b| {
        b.agree
            .cmp(&a.agree)
            .then(b.differ.cmp(&a.differ))
            .then(a.illegal.cmp(&b.illegal))
            .then(a.unseen.cmp(&b.unseen))
            .then(a.arch.cmp(&b.arch))
    });
    let top = ranking.first().map_or(0, |s| s.agree);
    let best = if top == 0 {
        vec![]
    } else {
        let mut b: Vec<Arch> = ranking
            .iter()
            .filter(|s| s.agree == top)
            .map(|s| s.arch)
            .collect();
        b.sort();
        b
    };
    ArchRanking {
        file: table.path.clone(),
        mnemonic: table.mnemonic.clone(),
        variants: table.variants.len(),
        declared: table.arch,
        declared_source: table.arch_source.clone(),
        ranking,
        best,
    }
}

/// The words inference needs for `table`: every variant's fixed word, sorted, deduplicated.
pub fn words_needed(table: &Table) -> Vec<u128> {
    let mut w: Vec<u128> = table.variants.iter().map(|v| v.fixed_value).collect();
    w.sort_unstable();
    w.dedup();
    w
}

/// Path of the recording for `arch`, relative to the oracle root: `arch-infer/<ARCH>.tsv`
/// (e.g. `arch-infer/SM90.tsv`). One file per arch holds the words of every table ranked.
pub fn recording_path(arch: Arch) -> PathBuf {
    Path::new(ORACLE_SUBDIR).join(format!("{arch}.tsv"))
}

/// Every entry recorded under `<oracle_root>/arch-infer/` (none when the folder is missing).
pub fn load_recorded(oracle_root: &Path) -> Result<Vec<Entry>, OracleError> {
    Ok(oracle::load_dir(oracle_root.join(ORACLE_SUBDIR))?
        .into_iter()
        .flat_map(|(_, e)| e)
        .collect())
}

/// Index of entries by (arch, word), for [`infer_arch`]'s lookup.
pub fn index(entries: &[Entry]) -> HashMap<(Arch, u128), &Answer> {
    entries
        .iter()
        .map(|e| ((e.arch, e.word), &e.answer))
        .collect()
}

/// Asks nvdisasm, once per arch of `archs`, for every word the `tables` need; merges the
/// answers into `<oracle_root>/arch-infer/<ARCH>.tsv` (new answers replace recorded ones for
/// the same word) and upserts each file's record in `<oracle_root>/MANIFEST.json`, all as one
/// set ([`oracle::OracleWriter`]: locked, staged, committed at the end). Returns the number
/// of answers asked for.
pub fn record(
    nv: &Nvdisasm,
    tables: &[&Table],
    archs: &[Arch],
    oracle_root: &Path,
    command: &str,
) -> Result<usize, OracleError> {
    let mut words: Vec<u128> = tables.iter().flat_map(|t| words_needed(t)).collect();
    words.sort_unstable();
    words.dedup();
    let mut writer = oracle::OracleWriter::open(oracle_root)?;
    let mut asked = 0;
    for &arch in archs {
        let answers = nv.disassemble(arch, &words, None)?;
        asked += answers.len();
        let rel = recording_path(arch).to_string_lossy().replace('\\', "/");
        let path = writer.committed_path(&rel);
        let mut entries = if path.is_file() {
            oracle::read_entries(&path)?
        } else {
            vec![]
        };
        entries.extend(words.iter().zip(answers).map(|(&word, answer)| Entry {
            arch,
            word,
            answer,
        }));
        writer.stage_entries(&rel, arch, &mut entries, nv.version(), command)?;
    }
    writer.commit()?;
    Ok(asked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::load_table;

    #[test]
    fn whitespace_is_normalised() {
        assert_eq!(normalize_ws("  @P0  TLD4\tR0 ; "), "@P0 TLD4 R0 ;");
    }

    #[test]
    fn counts_and_ranks_from_a_lookup() {
        let t = load_table(Path::new("specs/unknown-arch/TLD4.txt"), None).unwrap();
        let good: Vec<Entry> = t
            .variants
            .iter()
            .map(|v| Entry {
                arch: Arch(90),
                word: v.fixed_value,
                answer: Answer::Text(format!(" {} ", v.distilled.replace(' ', "  "))),
            })
            .collect();
        let mut es = good.clone();
        for (i, e) in good.iter().enumerate() {
            es.push(Entry {
                arch: Arch(100),
                word: e.word,
                answer: if i % 2 == 0 {
                    Answer::Illegal("no".into())
                } else {
                    Answer::Text("X ;".into())
                },
            });
        }
        let idx = index(&es);
        let r = infer_arch(&t, &[Arch(100), Arch(90), Arch(80)], |a, w| {
            idx.get(&(a, w)).copied()
        });
        assert_eq!(r.best, vec![Arch(90)]);
        let n = t.variants.len();
        let s90 = r.score(Arch(90)).unwrap();
        assert_eq!(
            (s90.agree, s90.differ, s90.illegal, s90.unseen),
            (n, 0, 0, 0)
        );
        let s100 = r.score(Arch(100)).unwrap();
        assert_eq!(s100.agree, 0);
        assert_eq!(s100.illegal, n.div_ceil(2));
        assert_eq!(s100.differ, n / 2);
        assert_eq!(r.score(Arch(80)).unwrap().unseen, n);
        assert_eq!(r.ranking[0].arch, Arch(90));
        assert_eq!(r.ranking[1].arch, Arch(100), "fewer unseen ranks higher");
        assert_eq!(r.declared, Some(Arch(90)));
        assert_eq!(r.verdict(), Verdict::Confirms);
        assert_eq!(r.incomplete(), vec![Arch(80)]);
        let text = r.render_text(1);
        assert!(text.contains("inferred: SM90; agrees with the arch in use (manifest)"));
    }

    #[test]
    fn ties_and_no_agreement() {
        let mut t = load_table(Path::new("specs/unknown-arch/TLD4.txt"), None).unwrap();
        t.variants.truncate(1);
        t.arch = None;
        let w = t.variants[0].fixed_value;
        let ok = Answer::Text(t.variants[0].distilled.clone());
        let r = infer_arch(&t, &[Arch(80), Arch(86)], |_, x| (x == w).then_some(&ok));
        assert_eq!(r.best, vec![Arch(80), Arch(86)]);
        assert_eq!(r.verdict(), Verdict::Differs, "no arch declared");
        t.arch = Some(Arch(86));
        t.arch_source = "option".into();
        let r = infer_arch(&t, &[Arch(80), Arch(86)], |_, x| (x == w).then_some(&ok));
        assert_eq!(r.verdict(), Verdict::Tied);
        let r = infer_arch(&t, &[Arch(80)], |_, _| None);
        assert!(r.best.is_empty());
        assert_eq!(r.verdict(), Verdict::Undecided);
    }

    /// The committed recordings (oracle/arch-infer/, nvdisasm 13.5.37): TLD4's ranking, and
    /// the method checked on the four tables whose header names an arch.
    #[test]
    fn recorded_rankings() {
        let entries = load_recorded(Path::new("oracle")).unwrap();
        let idx = index(&entries);
        let look = |a: Arch, w: u128| idx.get(&(a, w)).copied();
        let t = load_table(Path::new("specs/unknown-arch/TLD4.txt"), None).unwrap();
        let r = infer_arch(&t, &CANDIDATE_ARCHS, look);
        let counts: Vec<(u16, usize, usize, usize, usize)> = r
            .ranking
            .iter()
            .map(|s| (s.arch.0, s.agree, s.differ, s.illegal, s.unseen))
            .collect();
        assert_eq!(
            counts,
            vec![
                (80, 103, 8, 0, 0),
                (86, 103, 8, 0, 0),
                (87, 103, 8, 0, 0),
                (88, 103, 8, 0, 0),
                (89, 103, 8, 0, 0),
                (90, 103, 8, 0, 0),
                (75, 59, 4, 48, 0),
                (100, 0, 30, 81, 0),
                (101, 0, 30, 81, 0),
                (103, 0, 30, 81, 0),
                (110, 0, 30, 81, 0),
                (120, 0, 30, 81, 0),
                (121, 0, 30, 81, 0),
                (107, 0, 0, 111, 0),
            ]
        );
        assert_eq!(r.best, [80, 86, 87, 88, 89, 90].map(Arch).to_vec());
        assert_eq!(r.declared, Some(Arch(90)));
        assert_eq!(r.declared_source, "manifest");
        assert_eq!(r.verdict(), Verdict::Tied);
        // Where the header names the arch, the method puts it among the best.
        for (path, arch, best) in [
            ("specs/sm100/TLD.txt", 100, vec![100, 101, 103, 110]),
            ("specs/sm100/TEX.txt", 100, vec![100, 101, 103, 110]),
            ("specs/sm90/TMML.txt", 90, vec![80, 86, 87, 88, 89, 90]),
            (
                "specs/sm80/LD.txt",
                80,
                vec![80, 86, 87, 88, 89, 90, 100, 101, 103, 107, 110, 120, 121],
            ),
        ] {
            let t = load_table(Path::new(path), None).unwrap();
            let r = infer_arch(&t, &CANDIDATE_ARCHS, look);
            assert_eq!(r.declared, Some(Arch(arch)), "{path}");
            assert_eq!(
                r.best,
                best.into_iter().map(Arch).collect::<Vec<_>>(),
                "{path}"
            );
            assert!(r.incomplete().is_empty(), "{path}");
            assert_eq!(r.verdict(), Verdict::Tied, "{path}");
        }
    }

    #[test]
    fn recording_paths_stay_out_of_sm_folders() {
        let p = recording_path(Arch(90));
        assert_eq!(p, Path::new("arch-infer/SM90.tsv"));
        let parent = p.parent().unwrap().file_name().unwrap().to_string_lossy();
        assert!(!parent.to_lowercase().starts_with("sm"));
    }
}
