//! Comparison of a report with a baseline (a previous report.json): new and fixed
//! mismatches, texts that changed, new and gone findings, agreement per variant up or down,
//! bits whose status changed, variants added or removed, new and gone fuzz crashes, and the
//! regressions among them.
//!
//! Regressions (any makes `sass-conform report` exit 1): a new mismatching word; a variant's
//! agreement down; a new finding; a bit nvdisasm confirmed that it now contradicts or that is
//! no longer seen; a variant gone; a new fuzz crash.

use super::{
    CONFIRMED, Crash, FindingRow, MismatchRow, Report, Summary, VariantRow, cut, pct, variant_name,
};
use crate::arch::Arch;
use crate::conform::inline_diff;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};

/// A text that differs between the baseline and now for the same word.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TextChange {
    /// Arch.
    pub arch: Option<Arch>,
    /// Word.
    pub word: String,
    /// Variant key.
    pub key: String,
    /// `ours` or `nvdisasm`.
    pub side: String,
    /// Baseline text.
    pub before: String,
    /// Current text.
    pub after: String,
    /// `similar` word diff before -> after, `[-old-]{+new+}`.
    pub diff: String,
}

/// A variant's agreement before and after.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgreementChange {
    /// Arch.
    pub arch: Option<Arch>,
    /// Key.
    pub key: String,
    /// Baseline agreement.
    pub before: Option<f64>,
    /// Current agreement.
    pub after: Option<f64>,
    /// Baseline words checked.
    pub words_before: usize,
    /// Current words checked.
    pub words_after: usize,
}

/// Bits of a variant whose status letter changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BitsChange {
    /// Arch.
    pub arch: Option<Arch>,
    /// Key.
    pub key: String,
    /// Bits that changed.
    pub bits: Vec<u8>,
    /// Their baseline letters (`c`/`x`/`u`, one per bit).
    pub before: String,
    /// Their current letters.
    pub after: String,
}

/// The comparison with a baseline.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Comparison {
    /// Baseline file.
    pub baseline: String,
    /// When the baseline was made.
    pub baseline_generated: String,
    /// The baseline's summary.
    pub summary_before: Summary,
    /// Mismatching words the baseline did not list.
    pub new_mismatches: Vec<MismatchRow>,
    /// Baseline mismatches that are gone (the word now agrees, or is no longer checked).
    pub fixed_mismatches: Vec<MismatchRow>,
    /// Mismatches in both whose texts changed.
    pub changed_texts: Vec<TextChange>,
    /// Findings the baseline did not have (by file, key, kind, bits).
    pub new_findings: Vec<FindingRow>,
    /// Baseline findings that are gone.
    pub gone_findings: Vec<FindingRow>,
    /// Variants whose agreement went up.
    pub agreement_up: Vec<AgreementChange>,
    /// Variants whose agreement went down.
    pub agreement_down: Vec<AgreementChange>,
    /// Variants whose bit statuses changed.
    pub bits_changed: Vec<BitsChange>,
    /// Variants new since the baseline (`SM100 KEY`).
    pub variants_added: Vec<String>,
    /// Variants gone since the baseline.
    pub variants_removed: Vec<String>,
    /// Crashes the baseline did not list (by target and bytes).
    pub new_crashes: Vec<Crash>,
    /// Baseline crashes no longer kept.
    pub gone_crashes: Vec<Crash>,
    /// One line per kind of regression, naming the variants.
    pub regressions: Vec<String>,
}

type WordId = (Option<Arch>, String);

/// Compares `now` with `base`.
pub fn compare(base: &Report, now: &Report, baseline_path: &str) -> Comparison {
    let mut c = Comparison {
        baseline: baseline_path.into(),
        baseline_generated: base.generated.clone(),
        summary_before: base.summary.clone(),
        ..Default::default()
    };
    let bm: HashMap<WordId, &MismatchRow> = base
        .mismatches
        .iter()
        .map(|m| ((m.arch, m.word.clone()), m))
        .collect();
    let nm: HashMap<WordId, &MismatchRow> = now
        .mismatches
        .iter()
        .map(|m| ((m.arch, m.word.clone()), m))
        .collect();
    for m in &now.mismatches {
        match bm.get(&(m.arch, m.word.clone())) {
            None => c.new_mismatches.push(m.clone()),
            Some(b) => {
                let ours = |m: &MismatchRow| m.ours.clone().unwrap_or_else(|| "(rejected)".into());
                for (side, before, after) in [
                    ("nvdisasm", b.nvdisasm.clone(), m.nvdisasm.clone()),
                    ("ours", ours(b), ours(m)),
                ] {
                    if before != after {
                        c.changed_texts.push(TextChange {
                            arch: m.arch,
                            word: m.word.clone(),
                            key: m.key.clone(),
                            side: side.into(),
                            diff: inline_diff(&before, &after),
                            before,
                            after,
                        });
                    }
                }
            }
        }
    }
    c.fixed_mismatches = base
        .mismatches
        .iter()
        .filter(|m| !nm.contains_key(&(m.arch, m.word.clone())))
        .cloned()
        .collect();

    let bf: HashSet<_> = base.findings.iter().map(|f| f.id()).collect();
    let nf: HashSet<_> = now.findings.iter().map(|f| f.id()).collect();
    c.new_findings = now
        .findings
        .iter()
        .filter(|f| !bf.contains(&f.id()))
        .cloned()
        .collect();
    c.gone_findings = base
        .findings
        .iter()
        .filter(|f| !nf.contains(&f.id()))
        .cloned()
        .collect();

    let bv: HashMap<(Option<Arch>, &str), &VariantRow> = base
        .variants
        .iter()
        .map(|v| ((v.arch, v.key.as_str()), v))
        .collect();
    let nv: HashSet<(Option<Arch>, &str)> = now
        .variants
        .iter()
        .map(|v| (v.arch, v.key.as_str()))
        .collect();
    for v in &now.variants {
        let Some(b) = bv.get(&(v.arch, v.key.as_str())) else {
            c.variants_added.push(v.name());
            continue;
        };
        let ch = AgreementChange {
            arch: v.arch,
            key: v.key.clone(),
            before: b.agreement,
            after: v.agreement,
            words_before: b.words_checked,
            words_after: v.words_checked,
        };
        const EPS: f64 = 1e-9;
        match (b.agreement, v.agreement) {
            (Some(x), Some(y)) if y < x - EPS => c.agreement_down.push(ch),
            (Some(x), Some(y)) if y > x + EPS => c.agreement_up.push(ch),
            (Some(_), None) => c.agreement_down.push(ch),
            (None, Some(_)) => c.agreement_up.push(ch),
            _ => {}
        }
        if b.bits.len() == v.bits.len() && b.bits != v.bits {
            let (mut bits, mut before, mut after) = (Vec::new(), String::new(), String::new());
            for (i, (x, y)) in b.bits.chars().zip(v.bits.chars()).enumerate() {
                if x != y {
                    bits.push(i as u8);
                    before.push(x);
                    after.push(y);
                }
            }
            c.bits_changed.push(BitsChange {
                arch: v.arch,
                key: v.key.clone(),
                bits,
                before,
                after,
            });
        }
    }
    c.variants_removed = base
        .variants
        .iter()
        .filter(|v| !nv.contains(&(v.arch, v.key.as_str())))
        .map(|v| v.name())
        .collect();

    let bc: HashSet<(&str, &str)> = base
        .crashes
        .iter()
        .map(|x| (x.target.as_str(), x.hash.as_str()))
        .collect();
    let nc: HashSet<(&str, &str)> = now
        .crashes
        .iter()
        .map(|x| (x.target.as_str(), x.hash.as_str()))
        .collect();
    c.new_crashes = now
        .crashes
        .iter()
        .filter(|x| !bc.contains(&(x.target.as_str(), x.hash.as_str())))
        .cloned()
        .collect();
    c.gone_crashes = base
        .crashes
        .iter()
        .filter(|x| !nc.contains(&(x.target.as_str(), x.hash.as_str())))
        .cloned()
        .collect();
    c.regressions = regressions(&c);
    c
}

/// `A (3), B (1), ... and N more`: names with their counts, most first, at most 4.
fn names(counts: BTreeMap<String, usize>) -> String {
    let mut v: Vec<(String, usize)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let shown: Vec<String> = v
        .iter()
        .take(4)
        .map(|(n, k)| {
            if *k > 1 {
                format!("{n} ({k})")
            } else {
                n.clone()
            }
        })
        .collect();
    let mut s = shown.join(", ");
    if v.len() > 4 {
        s.push_str(&format!(" and {} more", v.len() - 4));
    }
    s
}

/// `n` and the noun in its number: `1 new finding`, `2 new findings`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn regressions(c: &Comparison) -> Vec<String> {
    let mut out = Vec::new();
    // Words nvdisasm prints as another instruction (cause `no-variant`, e.g. SM80 LDG beside
    // LD) are listed, but no table describes them: new ones are not a regression.
    let new: Vec<&MismatchRow> = c
        .new_mismatches
        .iter()
        .filter(|m| m.cause != "no-variant")
        .collect();
    if let Some(first) = new.first() {
        let mut by: BTreeMap<String, usize> = BTreeMap::new();
        for m in &new {
            *by.entry(variant_name(m.arch, &m.key)).or_default() += 1;
        }
        out.push(format!(
            "{} in {} (e.g. word {}: {})",
            plural(new.len(), "new mismatch", "new mismatches"),
            names(by),
            first.word,
            cut(&first.diff, 120)
        ));
    }
    if !c.agreement_down.is_empty() {
        let parts: Vec<String> = c
            .agreement_down
            .iter()
            .take(4)
            .map(|a| {
                format!(
                    "{} {} -> {}",
                    variant_name(a.arch, &a.key),
                    pct(a.before),
                    pct(a.after)
                )
            })
            .collect();
        let more = c.agreement_down.len().saturating_sub(4);
        out.push(format!(
            "agreement down in {}{}",
            parts.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    if !c.new_findings.is_empty() {
        let mut by: BTreeMap<String, usize> = BTreeMap::new();
        for f in &c.new_findings {
            let who = if f.key.is_empty() { &f.file } else { &f.key };
            *by.entry(format!("{who} [{}]", f.kind)).or_default() += 1;
        }
        out.push(format!(
            "{}: {}",
            plural(c.new_findings.len(), "new finding", "new findings"),
            names(by)
        ));
    }
    let worse: BTreeMap<String, usize> = c
        .bits_changed
        .iter()
        .filter_map(|b| {
            let n = b
                .before
                .chars()
                .zip(b.after.chars())
                .filter(|(x, y)| *x == CONFIRMED && y != x)
                .count();
            (n > 0).then(|| (variant_name(b.arch, &b.key), n))
        })
        .collect();
    if !worse.is_empty() {
        out.push(format!(
            "bits no longer confirmed by nvdisasm in {}",
            names(worse)
        ));
    }
    if !c.variants_removed.is_empty() {
        let by = c.variants_removed.iter().map(|v| (v.clone(), 1)).collect();
        out.push(format!(
            "{}: {}",
            plural(c.variants_removed.len(), "variant gone", "variants gone"),
            names(by)
        ));
    }
    if !c.new_crashes.is_empty() {
        let by = c
            .new_crashes
            .iter()
            .map(|x| {
                let v = if x.variants.is_empty() {
                    String::new()
                } else {
                    format!(" on {}", x.variants.join(", "))
                };
                (format!("{} {}{v}", x.target, x.file), 1)
            })
            .collect();
        out.push(format!(
            "{}: {}",
            plural(c.new_crashes.len(), "new fuzz crash", "new fuzz crashes"),
            names(by)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(key: &str, agreement: f64, bits: &str) -> VariantRow {
        VariantRow {
            arch: Some(Arch(100)),
            key: key.into(),
            agreement: Some(agreement),
            bits: bits.into(),
            ..Default::default()
        }
    }

    #[test]
    fn finds_each_kind_of_change() {
        let base = Report {
            variants: vec![
                row("A", 1.0, "ccu"),
                row("B", 0.5, "ccc"),
                row("GONE", 1.0, "c"),
            ],
            mismatches: vec![
                MismatchRow {
                    arch: Some(Arch(100)),
                    word: "01".into(),
                    key: "B".into(),
                    nvdisasm: "X R1 ;".into(),
                    ours: Some("X R2 ;".into()),
                    ..Default::default()
                },
                MismatchRow {
                    arch: Some(Arch(100)),
                    word: "02".into(),
                    key: "B".into(),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let mut now = base.clone();
        now.variants = vec![
            row("A", 0.9, "cxc"),
            row("B", 0.75, "ccc"),
            row("NEW", 1.0, "c"),
        ];
        now.mismatches[0].nvdisasm = "X R3 ;".into();
        now.mismatches[1].word = "03".into();
        now.mismatches[1].key = "A".into();
        now.mismatches[1].diff = "X [-R1-]{+R2+} ;".into();
        let c = compare(&base, &now, "b.json");
        assert_eq!(c.new_mismatches.len(), 1);
        assert_eq!(c.fixed_mismatches[0].word, "02");
        assert_eq!(c.changed_texts.len(), 1);
        assert_eq!(c.changed_texts[0].diff, "X [-R1-]{+R3+} ;");
        assert_eq!(c.agreement_down[0].key, "A");
        assert_eq!(c.agreement_up[0].key, "B");
        assert_eq!(c.bits_changed[0].bits, vec![1, 2]);
        assert_eq!(c.variants_added, vec!["SM100 NEW"]);
        assert_eq!(c.variants_removed, vec!["SM100 GONE"]);
        let r = c.regressions.join("\n");
        assert!(r.contains("1 new mismatch in SM100 A"), "{r}");
        assert!(
            r.contains("agreement down in SM100 A 100.00% -> 90.00%"),
            "{r}"
        );
        assert!(
            r.contains("bits no longer confirmed by nvdisasm in SM100 A"),
            "{r}"
        );
        assert!(r.contains("1 variant gone: SM100 GONE"), "{r}");
        assert_eq!(c.regressions.len(), 4, "{r}");
        assert!(compare(&base, &base, "b").regressions.is_empty());
        // A new word nvdisasm prints as another instruction is listed, not a regression.
        let mut other = base.clone();
        other.mismatches.push(MismatchRow {
            arch: Some(Arch(80)),
            word: "000000000800800000000013ff087981".into(),
            key: "LD_R_R_UR_I".into(),
            cause: "no-variant".into(),
            nvdisasm: "LDG.EF.U8.CONSTANT P0, R8, [UR19] ;".into(),
            ..Default::default()
        });
        let c = compare(&base, &other, "b");
        assert_eq!(c.new_mismatches.len(), 1);
        assert!(c.regressions.is_empty(), "{:?}", c.regressions);
    }
}
