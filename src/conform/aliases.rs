//! Alias findings: a modifier nvdisasm prints by the values of operand fields (learned as the
//! printer's aliases in [`crate::reading::printer`]), which no field or modifier value of the
//! table can hold: SM90 IMAD (synthesised table) prints `.MOV` where a factor is `RZ` and
//! `.IADD` where the immediate factor is 1. Evidence per rule: a recorded word where it holds
//! and nvdisasm prints the token, and the nearest recorded word of the variant (fewest bits
//! apart) where it does not hold and nvdisasm prints no token.

use super::finding::{Evidence, Finding};
use crate::arch::Arch;
use crate::codec::{Codec, VariantId, Word};
use crate::oracle::Entry;
use crate::reading::hidden::legal_texts;
use crate::spec::Table;
use crate::spec::printer::{Alias, prints_modifier};

/// One `modifier-by-value` finding per alias of each variant's learned printer in `reading`
/// (indexed like `written`'s tables), with two recorded words per rule (see the module). Empty
/// when the reading's layouts do not build a codec.
pub fn alias_findings(written: &Codec, reading: &[Table], entries: &[Entry]) -> Vec<Finding> {
    let Ok(rc) = Codec::new(reading.to_vec()) else {
        return Vec::new();
    };
    let texts = legal_texts(entries);
    let mut by_variant: std::collections::HashMap<VariantId, Vec<(Arch, u128, &str)>> =
        Default::default();
    for (&(arch, w), &t) in &texts {
        if let Some(d) = rc.decode(arch, Word(w)) {
            by_variant.entry(d.id).or_default().push((arch, w, t));
        }
    }
    let mut out = Vec::new();
    for id in rc.ids() {
        let Some(p) = rc.variant(id).printer.as_ref() else {
            continue;
        };
        let mut words = by_variant.remove(&id).unwrap_or_default();
        words.sort_unstable_by_key(|&(a, w, _)| (a, w));
        for a in &p.aliases {
            out.push(finding(written, id, a, &words));
        }
    }
    out
}

/// The finding of alias `a` of variant `id`, its evidence drawn from `words` (the variant's
/// legal recorded words, sorted).
fn finding(written: &Codec, id: VariantId, a: &Alias, words: &[(Arch, u128, &str)]) -> Finding {
    let (t, v) = (written.table(id), written.variant(id));
    let mut evidence: Vec<Evidence> = Vec::new();
    let mut push = |arch: Arch, w: u128, text: &str| {
        let word = Word(w).to_string();
        if !evidence.iter().any(|e| e.word == word && e.arch == arch) {
            evidence.push(Evidence {
                word,
                arch,
                nvdisasm: text.to_string(),
            });
        }
    };
    for rule in &a.rules {
        let holds = |w: u128| rule.iter().all(|t| t.holds(w));
        let Some(&(arch, w, text)) = words
            .iter()
            .find(|&&(_, w, text)| holds(w) && prints_modifier(text, &a.token))
        else {
            continue;
        };
        push(arch, w, text);
        if let Some(&(a2, w2, t2)) = words
            .iter()
            .filter(|&&(a2, w2, t2)| a2 == arch && !a.holds(w2) && !prints_modifier(t2, &a.token))
            .min_by_key(|&&(_, w2, _)| ((w ^ w2).count_ones(), w2))
        {
            push(a2, w2, t2);
        }
    }
    let mut bits: Vec<u8> = a
        .rules
        .iter()
        .flatten()
        .flat_map(|t| (0..128u8).filter(move |&b| t.mask >> b & 1 == 1))
        .collect();
    bits.sort_unstable();
    bits.dedup();
    let first = bits.first().copied().unwrap_or(0);
    Finding {
        file: t.path.clone(),
        line: v.layout_lines[if first < 64 { 1 } else { 3 }],
        key: v.key.clone(),
        kind: "modifier-by-value".into(),
        bits,
        message: format!(
            "nvdisasm prints `{}` by the values of these bits, which no field or modifier value \
             of the table holds",
            a.token
        ),
        evidence,
        reading: Some(format!("the reading prints {}", a.describe())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Answer;
    use crate::spec::printer::{FieldTest, Key, Printer, ValueTest};

    #[test]
    fn an_alias_is_a_finding_with_a_word_where_it_holds_and_the_nearest_where_not() {
        let text = include_str!("../../synth/SM90/IMAD.txt");
        let written = crate::spec::parse_table("synth/SM90/IMAD.txt", text).unwrap();
        let vi = written
            .variants
            .iter()
            .position(|v| v.key == "IMAD_R_R_I_R")
            .unwrap();
        let mut reading = written.clone();
        let v = &mut reading.variants[vi];
        let f0 = v.fixed_value;
        let alias = Alias {
            token: ".IADD".into(),
            after: "IMAD".into(),
            rules: vec![vec![FieldTest {
                mask: 0xffff_ffff << 32,
                test: ValueTest::Equals(Key(1)),
            }]],
        };
        v.printer = Some(Printer::of_aliases("IMAD", vec![alias]));
        let e = |w: u128, t: &str| Entry {
            arch: Arch(90),
            word: w,
            answer: Answer::Text(t.into()),
        };
        let entries = vec![
            e(f0 | 1 << 32 | 5 << 16, "IMAD.IADD R5, R0, 0x1, R0 ;"),
            e(f0 | 3 << 32 | 5 << 16, "IMAD R5, R0, 0x3, R0 ;"),
            e(f0 | 0x40 << 32 | 0xff << 16, "IMAD RZ, R0, 0x40, R0 ;"),
        ];
        let wc = Codec::new(vec![written]).unwrap();
        let fs = alias_findings(&wc, &[reading], &entries);
        assert_eq!(fs.len(), 1);
        let f = &fs[0];
        assert_eq!(f.kind, "modifier-by-value");
        assert_eq!(f.key, "IMAD_R_R_I_R");
        assert_eq!(f.bits, (32..64).collect::<Vec<u8>>());
        assert_eq!(f.evidence.len(), 2);
        assert_eq!(f.evidence[0].nvdisasm, "IMAD.IADD R5, R0, 0x1, R0 ;");
        // The nearest word without it: one bit apart (0x3), not the one of many (0x40, RZ).
        assert_eq!(f.evidence[1].nvdisasm, "IMAD R5, R0, 0x3, R0 ;");
        assert!(f.reading.as_ref().unwrap().contains("bits 32-63 = 0x1"));
    }
}
