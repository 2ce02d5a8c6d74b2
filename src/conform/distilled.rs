//! The distilled-line check, in three parts: mnemonic and modifiers, the operand list, and the
//! operand values. A distilled line's operand values are examples: a value the table's own
//! operand field gives (nvdisasm prints exactly that atom for the fixed word with one bit of
//! that field flipped, a recorded answer) is no finding. A value only a fixed bit gives, an
//! operand nvdisasm never prints there, or other modifiers are.

use super::explain::text_change;
use super::finding::{Evidence, Finding};
use crate::codec::{Codec, VariantId};
use crate::oracle::text::{Line, atom_class, atom_value};
use crate::reading::flips::{Effect, TableBit, VariantReading};
use crate::spec::FieldKind;

/// Findings for variant `id`'s distilled line against nvdisasm's text for its fixed word
/// (`vr.base`, which nvdisasm accepts): `distilled-modifiers`, `distilled-operands`,
/// `distilled-values`, or `distilled-vs-nvdisasm` when a line does not parse.
pub fn distilled_findings(codec: &Codec, id: VariantId, vr: &VariantReading) -> Vec<Finding> {
    let (t, v) = (codec.table(id), codec.variant(id));
    let base = &vr.base.nvdisasm;
    if v.distilled == *base {
        return vec![];
    }
    let finding = |kind: &str, message: String, evidence: Vec<Evidence>, reading: String| Finding {
        file: t.path.clone(),
        line: v.line,
        key: v.key.clone(),
        kind: kind.into(),
        bits: vec![],
        message,
        evidence,
        reading: Some(reading),
    };
    let (Some(d), Some(n)) = (Line::parse(&v.distilled), Line::parse(base)) else {
        return vec![finding(
            "distilled-vs-nvdisasm",
            format!(
                "distilled line `{}` differs from nvdisasm's text for the fixed word",
                v.distilled
            ),
            vec![vr.base.clone()],
            base.clone(),
        )];
    };
    let mut out = Vec::new();
    if d.guard != n.guard || d.mnemonic != n.mnemonic || d.mods != n.mods {
        let op = |l: &Line| {
            let mut s = format!("{}{}", if l.guard.is_empty() { "" } else { "@" }, l.guard);
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(l.mnemonic);
            for m in &l.mods {
                s.push('.');
                s.push_str(m);
            }
            s
        };
        out.push(finding(
            "distilled-modifiers",
            format!(
                "distilled line `{}` writes `{}`; nvdisasm prints `{}` for the fixed word",
                v.distilled,
                op(&d),
                op(&n)
            ),
            vec![vr.base.clone()],
            base.clone(),
        ));
    }
    // Operands: the distilled line with nvdisasm's guard and modifiers, compared atom by atom
    // after the example values the table's operand fields give.
    let ops = |l: &Line| {
        l.operands
            .iter()
            .map(|o| o.join("+"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let same_ops = |a: &Line, b: &Line| a.atoms() == b.atoms();
    if same_ops(&d, &n) {
        return out;
    }
    let da = d.atoms();
    // Every single flip that makes one atom appear or change: (atom index in its text, the
    // atom, from an operand field of the table?, the flip's evidence).
    let mut examples: Vec<(String, bool, Evidence, u8)> = Vec::new();
    for r in &vr.bits {
        let text_effect = matches!(r.effect, Effect::Operand { .. } | Effect::Other(_));
        if !text_effect {
            continue;
        }
        let Some(c) = text_change(base, &r.nvdisasm) else {
            continue;
        };
        if !c.mods_added.is_empty() || !c.mods_removed.is_empty() || c.atoms_added.len() != 1 {
            continue;
        }
        let own = matches!(
            &r.table,
            TableBit::Field {
                kind: FieldKind::Operand(_),
                ..
            }
        );
        examples.push((
            c.atoms_added[0].clone(),
            own,
            Evidence {
                word: r.word.to_string(),
                arch: vr.arch,
                nvdisasm: r.nvdisasm.clone(),
            },
            r.bit,
        ));
    }
    let na = n.atoms();
    // Per atom place of nvdisasm's text: the value bits the table's own operand fields move
    // there (single flips; several together give any value made of them).
    let mut movable: std::collections::HashMap<usize, u64> = Default::default();
    for r in &vr.bits {
        if let (
            Effect::Operand { atom, bit },
            TableBit::Field {
                kind: FieldKind::Operand(_),
                ..
            },
        ) = (&r.effect, &r.table)
            && *bit < 64
        {
            *movable.entry(*atom).or_default() |= 1 << bit;
        }
    }
    let composed = |i: usize, a: &str| -> bool {
        let (Some(x), Some(b)) = (atom_value(a), na.get(i)) else {
            return false;
        };
        da.len() == na.len()
            && atom_class(a) == atom_class(b)
            && atom_value(b).is_some_and(|y| {
                let m = movable.get(&i).copied().unwrap_or(0);
                (x ^ y) & !m == 0
            })
    };
    let mut unexplained: Vec<String> = Vec::new();
    let mut fixed: Vec<(String, u8, Evidence)> = Vec::new();
    let mut shown: Vec<Evidence> = vec![vr.base.clone()];
    for (i, a) in da.iter().enumerate().filter(|(_, a)| !na.contains(a)) {
        if composed(i, a) {
            continue;
        }
        match examples.iter().find(|e| e.0 == *a && e.1) {
            Some(e) => shown.push(e.2.clone()),
            None => match examples.iter().find(|e| e.0 == *a) {
                Some(e) => fixed.push((a.to_string(), e.3, e.2.clone())),
                None => unexplained.push(a.to_string()),
            },
        }
    }
    // nvdisasm atoms the distilled line leaves out, other than ones a value replaced.
    let missing: Vec<&str> = na
        .iter()
        .filter(|a| !da.contains(a))
        .filter(|a| {
            !da.iter()
                .any(|x| atom_class(x) == atom_class(a) && !na.contains(x))
        })
        .copied()
        .collect();
    if !unexplained.is_empty() || !missing.is_empty() {
        let classes = |l: &[&str]| l.iter().map(|a| atom_class(a)).collect::<Vec<_>>();
        let kind = if classes(&da) != classes(&na) || !missing.is_empty() {
            "distilled-operands"
        } else {
            "distilled-values"
        };
        out.push(finding(
            kind,
            format!(
                "distilled operands `{}`; nvdisasm prints `{}` for the fixed word, and no single \
                 flip of an operand field prints {}",
                ops(&d),
                ops(&n),
                unexplained
                    .iter()
                    .chain(
                        missing
                            .iter()
                            .map(|m| m.to_string())
                            .collect::<Vec<_>>()
                            .iter()
                    )
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            shown.clone(),
            base.clone(),
        ));
    }
    for (a, bit, e) in fixed {
        out.push(Finding {
            bits: vec![bit],
            ..finding(
                "distilled-values",
                format!(
                    "distilled value `{a}` needs bit {bit} flipped, which the table fixes: the \
                     line is not a word of this variant"
                ),
                vec![vr.base.clone(), e],
                base.clone(),
            )
        });
    }
    out
}
