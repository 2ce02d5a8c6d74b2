//! One field printed as several numbers in one slot: nvdisasm writes a register pair from one
//! field as two registers, the second one above the first (nv_isa_solver's SM103 UTCOMMA page:
//! bits 40-47 print `tmem[UR252], idesc[UR253]`, no field of the page for the second). The
//! slot's texts share one shape with two or more numbers; each number becomes a part of its
//! own (a number rule with its offset and the text before it), the parts printed one after the
//! other ([`crate::spec::printer::Joined`] with an empty separator).

use super::{Joined, PlainFits, Slot, shape};
use rustc_hash::FxHashMap as HashMap;

/// Least number of distinct texts a slot must hold as a table before its numbers are tried
/// apart: fewer are learned as well by heart.
pub(super) const MIN_TABLE_TEXTS: usize = 8;

/// The slot over `mask` as one part per number of its texts' commonest shape ([`shape`]):
/// part `i` prints the text from the end of number `i - 1` to the end of number `i` (the
/// last part the rest too), each fitted as a plain slot ([`PlainFits::fit`]) on its piece of
/// every answer. An answer of another shape is given whole to the first part (the others
/// print nothing for it). `None` when the commonest shape has fewer than two numbers or holds
/// fewer than half of the texts.
pub(super) fn fit_numbered(
    mask: u128,
    texts: &[(u128, &str)],
    groups: &[u128],
    base: u128,
    fits: &mut PlainFits,
) -> Option<Slot> {
    let shapes: Vec<String> = texts.iter().map(|(_, t)| shape(t)).collect();
    let mut count: HashMap<&str, usize> = HashMap::default();
    for s in &shapes {
        *count.entry(s.as_str()).or_default() += 1;
    }
    let (common, n) = count
        .into_iter()
        .max_by_key(|&(s, n)| (n, std::cmp::Reverse(s)))?;
    let numbers = common.matches('#').count();
    if numbers < 2 || n * 2 < texts.len() {
        return None;
    }
    let mut parts: Vec<Vec<(u128, &str)>> = vec![Vec::with_capacity(texts.len()); numbers];
    for ((w, t), s) in texts.iter().zip(&shapes) {
        let cuts = if s == common {
            number_ends(t)
        } else {
            Vec::new()
        };
        if cuts.len() != numbers {
            parts[0].push((*w, t));
            for p in &mut parts[1..] {
                p.push((*w, ""));
            }
            continue;
        }
        let mut from = 0;
        for (i, &end) in cuts.iter().enumerate() {
            let to = if i + 1 == numbers { t.len() } else { end };
            parts[i].push((*w, &t[from..to]));
            from = to;
        }
    }
    let parts: Vec<Slot> = parts
        .iter()
        .map(|p| fits.fit(mask, p, groups, base))
        .collect();
    Some(Slot {
        mask: parts.iter().fold(mask, |m, p| m | p.mask),
        texts: Vec::new(),
        number: None,
        otherwise: None,
        guess: None,
        product: None,
        joined: Some(Box::new(Joined {
            sep: String::new(),
            parts,
            empty: String::new(),
            alone: Vec::new(),
        })),
    })
}

/// The byte offsets where each number of `t` ends, numbers as [`shape`] reads them (`0x` and
/// hex digits, or a run of decimal digits).
fn number_ends(t: &str) -> Vec<usize> {
    let b = t.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'0' && i + 2 < b.len() && b[i + 1] == b'x' && b[i + 2].is_ascii_hexdigit() {
            i += 2;
            while i < b.len() && b[i].is_ascii_hexdigit() {
                i += 1;
            }
            out.push(i);
        } else if b[i].is_ascii_digit() {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            out.push(i);
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fit_slot;
    use super::*;

    /// nvdisasm's text for the UTCOMMA register pair (bits 40-47 of the word here): the
    /// register and the one after it.
    fn pair(v: u128) -> String {
        format!("UR{v}], idesc[UR{}", v + 1)
    }

    #[test]
    fn number_ends_are_after_each_number() {
        assert_eq!(number_ends("UR252], idesc[UR253"), vec![5, 19]);
        assert_eq!(number_ends("c[0x3][R2+0x10]"), vec![5, 9, 14]);
        assert_eq!(number_ends("PT"), Vec::<usize>::new());
    }

    #[test]
    fn a_register_pair_from_one_field_prints_both_numbers_for_unseen_values() {
        // Even values only learned from: every odd value is unseen.
        let words: Vec<u128> = (0..200u128).step_by(2).map(|v| v << 40).collect();
        let texts: Vec<String> = words.iter().map(|w| pair(w >> 40)).collect();
        let samples: Vec<(u128, &str)> = words
            .iter()
            .zip(&texts)
            .map(|(w, t)| (*w, t.as_str()))
            .collect();
        let mut fits = PlainFits::default();
        let slot = fit_slot(0xff << 40, &samples, &[0xff << 40], 0, &mut fits);
        let j = slot.joined.as_ref().expect("the numbers apart");
        assert_eq!(j.parts.len(), 2);
        for v in [1u128, 99, 151, 237] {
            let mut out = String::new();
            slot.print_into(v << 40, &mut out);
            assert_eq!(out, pair(v), "value {v}");
        }
    }

    #[test]
    fn one_number_per_text_is_left_to_the_plain_fit() {
        let texts: Vec<(u128, String)> = (0..40u128).map(|v| (v, format!("UR{v}"))).collect();
        let samples: Vec<(u128, &str)> = texts.iter().map(|(w, t)| (*w, t.as_str())).collect();
        let mut fits = PlainFits::default();
        assert!(fit_numbered(0xff, &samples, &[0xff], 0, &mut fits).is_none());
    }
}
