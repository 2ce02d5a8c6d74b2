//! Modifier groups: cutting a run of modifier bits into independent fields, from the answers of
//! its full enumeration (every value of the run on one base word).
//!
//! The rule: the bit positions `[s, e)` of a run split at `k` into `[s, k)` and `[k, e)` when,
//! for every pair of values `lo` of the first part and `hi` of the second (the run's other bits
//! at 0), the modifiers nvdisasm prints are those of `lo` alone and of `hi` alone: with `D` the
//! modifiers at both 0, `A` at `lo` alone, `B` at `hi` alone, the pair prints
//! `(A - D) + (B - D) + (D & A & B)` (as sets). Values nvdisasm refuses say nothing either way.
//! The smallest such `k` is taken and both parts are cut again. ISETP on SM90, bits 73-78, is
//! cut into 73 (`.U32`), 74-75 (`.AND`/`.OR`/`.XOR`) and 76-78 (`.F`/`.LT`/...).

use super::text;
use crate::oracle::Answer;
use std::collections::BTreeSet;

/// The modifiers of each value (None: refused or no parsable text).
fn mods(answers: &[Answer]) -> Vec<Option<BTreeSet<String>>> {
    answers
        .iter()
        .map(|a| match a {
            Answer::Text(t) => text::parse(t).map(|p| p.mods.into_iter().collect()),
            Answer::Illegal(_) => None,
        })
        .collect()
}

/// The value of the run with the bits of `[s, e)` (positions in the run) at `x`, others 0.
fn at(s: usize, x: usize) -> usize {
    x << s
}

/// Whether `[s, k)` and `[k, e)` are independent (module notes). False when the value with
/// both at 0 is refused or no pair could be checked.
fn independent(m: &[Option<BTreeSet<String>>], s: usize, k: usize, e: usize) -> bool {
    let Some(d) = &m[0] else { return false };
    let mut checked = 0;
    for lo in 1..1usize << (k - s) {
        for hi in 1..1usize << (e - k) {
            let (Some(a), Some(b), Some(t)) =
                (&m[at(s, lo)], &m[at(k, hi)], &m[at(s, lo) | at(k, hi)])
            else {
                continue;
            };
            let mut want: BTreeSet<String> = a.difference(d).cloned().collect();
            want.extend(b.difference(d).cloned());
            want.extend(
                d.iter()
                    .filter(|x| a.contains(*x) && b.contains(*x))
                    .cloned(),
            );
            if want != *t {
                return false;
            }
            checked += 1;
        }
    }
    checked > 0
}

/// The pieces `[s, e)` (bit positions of the run, ascending) a run of `width` bits cuts into,
/// given its enumeration `answers` (value v: bit i of v at the run's i-th bit).
pub fn pieces(width: usize, answers: &[Answer]) -> Vec<(usize, usize)> {
    let m = mods(answers);
    let mut out = Vec::new();
    cut(&m, 0, width, &mut out);
    out
}

fn cut(m: &[Option<BTreeSet<String>>], s: usize, e: usize, out: &mut Vec<(usize, usize)>) {
    match (s + 1..e).find(|&k| independent(m, s, k, e)) {
        Some(k) => {
            cut(m, s, k, out);
            cut(m, k, e, out);
        }
        None => out.push((s, e)),
    }
}

/// The answers of piece `[s, e)`'s values, the run's other bits at 0.
pub fn row(answers: &[Answer], s: usize, e: usize) -> Vec<Answer> {
    (0..1usize << (e - s))
        .map(|x| answers[at(s, x)].clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn independent_fields_are_cut() {
        // Bit 0: U32 printed at 0; bit 1: AND/OR. Four values.
        let t = |m: &str| Answer::Text(format!("ISETP.{m} P0, P0, R0, R0, P0 ;"));
        let a = vec![t("F.U32.AND"), t("F.AND"), t("F.U32.OR"), t("F.OR")];
        assert_eq!(pieces(2, &a), vec![(0, 1), (1, 2)]);
        assert_eq!(row(&a, 1, 2), vec![t("F.U32.AND"), t("F.U32.OR")]);
        // A joint field: value 3 prints a token of its own.
        let b = vec![t("A"), t("B"), t("C"), t("E")];
        assert_eq!(pieces(2, &b), vec![(0, 2)]);
        // Value 0 refused: no evidence, no cut.
        let c = vec![Answer::Illegal("x".into()), t("B"), t("C"), t("B.C")];
        assert_eq!(pieces(2, &c), vec![(0, 2)]);
    }
}
