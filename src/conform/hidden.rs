//! Hidden-operand findings: an operand nvdisasm prints only in some form, over bits the table
//! fixes or leaves undescribed (learned in [`crate::reading::hidden`]), with a pair of recorded
//! words per bit that shows it. SM80 RED (synthesised table): bits 64-69 are fixed to 0 or 1
//! in the table; with bit 91 set nvdisasm prints them as the `UR` of `[R0.U32+UR0]`.

use super::finding::{Evidence, Finding};
use crate::codec::{Codec, VariantId, Word};
use crate::oracle::Entry;
use crate::reading::hidden::{PairEffect, Texts, legal_texts, pair_effect};
use crate::spec::{FieldKind, Table};

/// One `hidden-operand` finding per operand field of the learned `reading` (indexed like
/// `written`'s tables) that the signature does not have and no field of the written table
/// covers; evidence: for each bit, a legal recorded word with it clear and the same word with
/// it set, read as the same variant, whose texts differ in that operand alone (each word once).
/// Empty when the reading's layouts do not build a codec.
pub fn hidden_findings(written: &Codec, reading: &[Table], entries: &[Entry]) -> Vec<Finding> {
    let Ok(rc) = Codec::new(reading.to_vec()) else {
        return Vec::new();
    };
    let texts = legal_texts(entries);
    let mut out = Vec::new();
    for id in rc.ids() {
        let (t, rv) = (written.table(id), rc.variant(id));
        let wv = written.variant(id);
        for f in &rv.fields {
            let FieldKind::Operand(n) = f.kind else {
                continue;
            };
            if (n as usize) < rv.signature.atoms.len() || wv.field_mask() & f.mask() != 0 {
                continue;
            }
            let bits: Vec<u8> = (0..128u8).filter(|&b| f.mask() >> b & 1 == 1).collect();
            let mut words: Vec<(crate::arch::Arch, u128)> = Vec::new();
            for (arch, w, b) in bits
                .iter()
                .filter_map(|&b| pair_for(&rc, id, b, &texts).map(|(a, w)| (a, w, b)))
            {
                for k in [(arch, w), (arch, w | 1 << b)] {
                    if !words.contains(&k) {
                        words.push(k);
                    }
                }
            }
            let evidence: Vec<Evidence> = words
                .into_iter()
                .map(|(arch, w)| Evidence {
                    word: Word(w).to_string(),
                    arch,
                    nvdisasm: texts[&(arch, w)].to_string(),
                })
                .collect();
            out.push(Finding {
                file: t.path.clone(),
                line: wv.layout_lines[if bits[0] < 64 { 1 } else { 3 }],
                key: wv.key.clone(),
                kind: "hidden-operand".into(),
                bits: bits.clone(),
                message: format!(
                    "table: no operand over these bits ({}); nvdisasm prints them as an operand \
                     in some forms only",
                    table_says(wv, f.mask())
                ),
                evidence,
                reading: Some(format!(
                    "the reading adds `{}` (bits as its value bits, lowest first)",
                    f.label
                )),
            });
        }
    }
    out
}

/// What the written table says the bits of `mask` are: fixed, undescribed, or both.
fn table_says(v: &crate::spec::Variant, mask: u128) -> &'static str {
    match (v.fixed_mask & mask != 0, !v.fixed_mask & mask != 0) {
        (true, false) => "fixed",
        (false, _) => "undescribed",
        (true, true) => "fixed and undescribed",
    }
}

/// The lowest legal recorded word read as variant `id` with bit `b` clear whose word with `b`
/// set is recorded, read as `id` too, and differs in one operand atom.
fn pair_for(rc: &Codec, id: VariantId, b: u8, texts: &Texts) -> Option<(crate::arch::Arch, u128)> {
    let mut found: Vec<(crate::arch::Arch, u128)> = texts
        .iter()
        .filter(|((arch, w), t)| {
            w >> b & 1 == 0
                && rc.decode(*arch, Word(*w)).map(|d| d.id) == Some(id)
                && texts.get(&(*arch, w | 1 << b)).is_some_and(|t1| {
                    matches!(pair_effect(t, t1), PairEffect::Operand { .. })
                        && rc.decode(*arch, Word(w | 1 << b)).map(|d| d.id) == Some(id)
                })
        })
        .map(|(k, _)| *k)
        .collect();
    found.sort_unstable();
    found.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reading::hidden::tests::{entries, red};

    #[test]
    fn a_hidden_operand_is_a_finding_with_a_pair_of_words_per_bit() {
        let t = red();
        let es = entries(&t.variants[0], &[35, 40]);
        let reading = crate::reading::hidden::learn_hidden_operands(vec![t.clone()], &es);
        let written = Codec::new(vec![t]).unwrap();
        let fs = hidden_findings(&written, &reading, &es);
        assert_eq!(fs.len(), 1);
        let f = &fs[0];
        assert_eq!(f.kind, "hidden-operand");
        assert_eq!(f.key, "RED_R_I_R");
        assert_eq!(f.bits, vec![64, 65, 66, 67, 68, 69]);
        assert_eq!(f.line, written.tables[0].variants[0].layout_lines[3]);
        // Bit 64: the lowest word with it clear whose pair is recorded is UR32 (40 with bit 67
        // flipped), beside UR33 (35 with bit 65 flipped).
        assert_eq!(f.evidence[0].nvdisasm, "@P0 RED.ADD.EF [R0.U32+UR32], R0 ;");
        assert_eq!(f.evidence[1].nvdisasm, "@P0 RED.ADD.EF [R0.U32+UR33], R0 ;");
        let words: std::collections::HashSet<&str> =
            f.evidence.iter().map(|e| e.word.as_str()).collect();
        assert_eq!(words.len(), f.evidence.len());
        assert!(f.evidence.len() >= 7, "{:?}", f.evidence);
    }
}
