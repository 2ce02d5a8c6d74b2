//! Resolution findings: where the single-bit flip reading (`reading::flips`) disagrees with
//! what the table says each bit is, one finding per (variant, kind, table label) with evidence.

use super::finding::{Evidence, Finding};
use super::text::{Line, align_by, atom_class};
use crate::codec::{Codec, VariantId, Word};
use crate::reading::flips::{BitReading, Effect, TableBit, VariantReading};
use crate::spec::{FieldKind, OperandKind, Variant};
use std::collections::BTreeMap;
/// (kind, table label, what nvdisasm reads instead): one finding each.
type GroupKey = (&'static str, String, String);

/// A modifier bit nvdisasm places in a group: (reading, its text, table index, value bit).
type Placed<'a> = (&'a BitReading, String, u8, u8);

/// A `fixed-word-unrecorded` finding for every variant (with an arch) that `readings` lacks.
fn unrecorded_findings(codec: &Codec, readings: &[(VariantId, VariantReading)]) -> Vec<Finding> {
    let read: std::collections::HashSet<VariantId> = readings.iter().map(|r| r.0).collect();
    codec
        .ids()
        .filter(|id| !read.contains(id))
        .filter_map(|id| {
            let (t, v) = (codec.table(id), codec.variant(id));
            let arch = t.arch?;
            let word = Word(v.fixed_value);
            Some(Finding {
                file: t.path.clone(),
                line: v.line,
                key: v.key.clone(),
                kind: "fixed-word-unrecorded".into(),
                bits: vec![],
                message: format!(
                    "the table's fixed word {word} ({arch}) is not in the recordings, so \
                     nothing of this variant is checked; record it with `sass-conform oracle record`"
                ),
                evidence: vec![],
                reading: None,
            })
        })
        .collect()
}

/// Does nvdisasm's effect agree with the table's claim? `None` when it agrees (or there is
/// nothing to compare); else the finding kind.
pub fn disagreement(v: &Variant, r: &BitReading) -> Option<&'static str> {
    use Effect as E;
    use TableBit as T;
    let sched = |k: &FieldKind| matches!(k, FieldKind::Sched(_));
    match (&r.table, &r.effect) {
        (_, E::Unseen) => None,
        (T::Fixed(_), E::Illegal(_) | E::Mnemonic(_)) => None,
        (T::Fixed(_), E::Same) => Some("fixed-bit-ignored"),
        (T::Fixed(_), _) => Some("fixed-bit-is-field"),
        (T::Undescribed, E::Same) => None,
        (T::Undescribed, E::Illegal(_) | E::Mnemonic(_)) => Some("undescribed-bit-is-fixed"),
        (T::Undescribed, _) => Some("undescribed-bit-matters"),
        (T::Field { kind, .. }, E::Same) if sched(kind) => None,
        (T::Field { kind, .. }, E::Illegal(_)) if sched(kind) => Some("sched-value-rejected"),
        (T::Field { .. }, E::Illegal(_)) => Some("field-value-rejected"),
        (T::Field { .. }, E::Same) => Some("field-bit-ignored"),
        (T::Field { .. }, E::Mnemonic(_)) => Some("field-bit-selects-instruction"),
        (T::Field { kind, index, .. }, E::Guard { bit }) => {
            (*kind != FieldKind::Guard || index != bit).then_some("field-boundary")
        }
        (T::Field { kind, index, .. }, E::Operand { atom, bit }) => match kind {
            FieldKind::Operand(n) => {
                let m = text_atom_to_signature(v, *atom);
                if m != Some(*n as usize) {
                    Some("field-wrong-operand")
                } else if index != bit {
                    Some("field-bit-order")
                } else {
                    None
                }
            }
            _ => Some("field-boundary"),
        },
        (
            T::Field { kind, index, label },
            E::Modifier {
                group, bit, added, ..
            },
        ) => match kind {
            FieldKind::Modifier(n) => match (group, bit) {
                (Some(g), Some(b)) if g == n && b == index => None,
                (Some(g), Some(_)) if g != n => Some("label-wrong-group"),
                (Some(_), Some(_)) => Some("field-boundary"),
                _ => Some("modifier-name-differs"),
            },
            FieldKind::Flag(_) if group.is_none() && added == label => None,
            FieldKind::Flag(_) => Some("flag-differs"),
            _ => Some("field-boundary"),
        },
        (T::Field { .. }, E::Other(_) | E::Added { .. }) => Some("field-effect-unexplained"),
    }
}

/// The signature atom a text atom index stands for, read off the distilled line: one to one
/// when it writes every signature atom; else its atoms paired with the signature's in order
/// by kind ([`kind_fits`]), as where the line is nvdisasm's text for the fixed word and
/// leaves operands out at their defaults (SM80 LD `R0, [R0]` for `R,[R+I],P`).
pub(super) fn text_atom_to_signature(v: &Variant, atom: usize) -> Option<usize> {
    let l = Line::parse(&v.distilled)?;
    let (atoms, sig) = (l.atoms(), &v.signature.atoms);
    if atoms.len() == sig.len() {
        return (atom < sig.len()).then_some(atom);
    }
    let pairs = align_by(atoms.len(), sig.len(), |i, k| {
        u32::from(kind_fits(&sig[k], atom_class(atoms[i])))
    });
    pairs.get(atom).copied().flatten()
}

/// Whether a printed atom of class `class` ([`atom_class`]) can stand for a signature atom
/// of `kind`.
fn kind_fits(kind: &OperandKind, class: &str) -> bool {
    match kind {
        OperandKind::Pred => class == "P",
        OperandKind::Reg => class == "R",
        OperandKind::UniformReg => class == "UR",
        OperandKind::Imm => class == "imm",
        OperandKind::Dim | OperandKind::ArrayDim | OperandKind::Snowflake => {
            matches!(class, "dim" | "other")
        }
        OperandKind::Other(_) => class == "other",
    }
}

/// nvdisasm's reading of a bit, in words.
pub fn reading_text(v: &Variant, e: &Effect) -> String {
    match e {
        Effect::Unseen => "not recorded".into(),
        Effect::Same => "nvdisasm ignores it (text unchanged)".into(),
        Effect::Illegal(r) => format!("nvdisasm rejects the word: {r}"),
        Effect::Mnemonic(m) => format!("selects another instruction ({m})"),
        Effect::Guard { bit } => format!("guard predicate bit {bit}"),
        Effect::Operand { atom, bit } => match text_atom_to_signature(v, *atom) {
            Some(n) => format!("operand {n}, bit {bit}"),
            None => format!("printed operand atom {atom}, bit {bit}"),
        },
        Effect::Added { atom, part, bit } => format!(
            "a part no operand of the signature holds (printed operand atom {atom}, part {part}), bit {bit}: left out at 0 or at its zero register"
        ),
        Effect::Modifier {
            removed,
            added,
            group,
            bit,
        } => match (group, bit) {
            (Some(g), Some(b)) => {
                format!("Modifier Group {g}, value bit {b} (`{removed}` -> `{added}`)")
            }
            _ => format!(
                "modifier `{removed}` -> `{added}`, which no modifier table of the variant explains"
            ),
        },
        Effect::Other(s) => match s
            .strip_prefix('`')
            .and_then(|s| s.strip_suffix('`'))
            .and_then(|s| s.split_once("` -> `"))
            .and_then(|(a, b)| super::explain::text_change(a, b))
        {
            Some(c) => format!("{} ({s})", super::explain::describe_change(&c)),
            None => format!("the text changes: {s}"),
        },
    }
}

/// Findings from the bit readings: one per (variant, kind, table label), with the bits, the
/// evidence (fixed word and each flipped word with nvdisasm's answer) and nvdisasm's reading.
///
/// A variant with no reading (its fixed word was never recorded, e.g. a table whose opcode
/// bits changed since the recording) gets a `fixed-word-unrecorded` finding: nothing about
/// it is checked until `sass-conform oracle record` asks nvdisasm.
pub fn bit_findings(codec: &Codec, readings: &[(VariantId, VariantReading)]) -> Vec<Finding> {
    bit_findings_read(codec, readings, None)
}

/// A variant whose fixed word nvdisasm refuses, read around `centre` (a legal word of the
/// table's mnemonic: [`crate::reading::flips::rebase_centre`]): the bits the two words differ
/// in, as the table words them (fixed bits with the value nvdisasm reads, fields by label).
fn refused_word_finding(
    t: &crate::spec::Table,
    v: &crate::spec::Variant,
    centre: u128,
    refused: &Evidence,
    near: &Evidence,
) -> Finding {
    let apart = centre ^ v.fixed_value;
    let bits: Vec<u8> = (0..128u8).filter(|&b| apart >> b & 1 == 1).collect();
    let what: Vec<String> = bits
        .iter()
        .map(
            |&b| match v.fields.iter().find(|f| f.mask() >> b & 1 == 1) {
                Some(f) => format!("bit {b} (`{}`) = {}", f.label, centre >> b & 1),
                None => format!(
                    "bit {b} (fixed {}) = {}",
                    v.fixed_value >> b & 1,
                    centre >> b & 1
                ),
            },
        )
        .collect();
    let first = bits.first().copied().unwrap_or(0);
    Finding {
        file: t.path.clone(),
        line: v.layout_lines[if first < 64 { 1 } else { 3 }],
        key: v.key.clone(),
        kind: "fixed-word-illegal".into(),
        bits,
        message: format!(
            "nvdisasm rejects the table's fixed word {}; with {} it reads `{}` (read around that \
             word)",
            refused.word,
            what.join(", "),
            near.nvdisasm
        ),
        evidence: vec![refused.clone(), near.clone()],
        reading: Some(what.join("; ")),
    }
}

/// [`bit_findings`], with the learned reading (`ResolvedSet::tables`, parallel to the
/// codec's tables) to explain bits whose flip changes the text in several places (field
/// width, signed, the value an operand is left out at, context bits; see
/// [`super::explain`]). A bit whose flip only makes the table's own operand appear at the
/// same bit of its value (nvdisasm leaves it out at its default) agrees with the table.
pub fn bit_findings_read(
    codec: &Codec,
    readings: &[(VariantId, VariantReading)],
    reading: Option<&[crate::spec::Table]>,
) -> Vec<Finding> {
    let ex = super::explain::Explainer::new(codec, reading);
    let mut out = unrecorded_findings(codec, readings);
    for (id, vr) in readings {
        let (t, v) = (codec.table(*id), codec.variant(*id));
        if !vr.base_legal {
            out.push(Finding {
                file: t.path.clone(),
                line: v.line,
                key: v.key.clone(),
                kind: "fixed-word-illegal".into(),
                bits: vec![],
                message: format!("nvdisasm rejects the table's fixed word {}", vr.base.word),
                evidence: vec![vr.base.clone()],
                reading: Some(vr.base.nvdisasm.clone()),
            });
            continue;
        }
        if let (Some(c), Some(refused)) = (vr.centre, &vr.refused) {
            out.push(refused_word_finding(t, v, c, refused, &vr.base));
        }
        out.extend(super::distilled::distilled_findings(codec, *id, vr));
        // (kind, label, what differs) -> bits with their readings: one defect, one finding.
        let mut groups: BTreeMap<GroupKey, Vec<(&BitReading, String)>> = BTreeMap::new();
        // Modifier bits nvdisasm places in a group: (label, group) -> (table index, value bit).
        let mut placed: BTreeMap<(String, u8), Vec<Placed>> = BTreeMap::new();
        for r in &vr.bits {
            let Some(kind) = disagreement(v, r) else {
                continue;
            };
            let explained = match &r.effect {
                Effect::Other(_) | Effect::Added { .. } => {
                    ex.explain(*id, r.bit, r.word.0, &vr.base.nvdisasm, &r.nvdisasm)
                }
                _ => None,
            };
            if explained.as_ref().is_some_and(|e| e.agrees) {
                continue;
            }
            let text = match explained {
                Some(e) => e.text,
                None => reading_text(v, &r.effect),
            };
            let label = match &r.table {
                TableBit::Field { label, .. } => label.clone(),
                TableBit::Fixed(b) => format!("fixed {}", *b as u8),
                TableBit::Undescribed => "undescribed".into(),
            };
            if let (
                TableBit::Field {
                    kind: FieldKind::Modifier(_),
                    index,
                    ..
                },
                Effect::Modifier {
                    group: Some(g),
                    bit: Some(nb),
                    ..
                },
            ) = (&r.table, &r.effect)
            {
                placed
                    .entry((label, *g))
                    .or_default()
                    .push((r, text, *index, *nb));
                continue;
            }
            let detail = match &r.effect {
                Effect::Operand { atom, .. } => match text_atom_to_signature(v, *atom) {
                    Some(n) => format!("nvdisasm: operand {n}"),
                    None => format!("nvdisasm: printed atom {atom}"),
                },
                Effect::Modifier { removed, added, .. } => {
                    format!("nvdisasm: `{removed}` -> `{added}`")
                }
                _ => String::new(),
            };
            groups
                .entry((kind, label, detail))
                .or_default()
                .push((r, text));
        }
        for ((label, g), bits) in placed {
            let own = bits.iter().all(|(r, ..)| {
                matches!(&r.table, TableBit::Field { kind: FieldKind::Modifier(n), .. } if *n == g)
            });
            let all: Vec<(&BitReading, String)> =
                bits.iter().map(|(r, t, ..)| (*r, t.clone())).collect();
            if !own {
                groups
                    .entry((
                        "label-wrong-group",
                        label.clone(),
                        format!("nvdisasm: Modifier Group {g}"),
                    ))
                    .or_default()
                    .extend(all);
            }
            let off: Vec<i16> = bits.iter().map(|b| b.3 as i16 - b.2 as i16).collect();
            let moved: Vec<(&BitReading, String)> = bits
                .iter()
                .filter(|b| b.2 != b.3)
                .map(|(r, t, ..)| (*r, t.clone()))
                .collect();
            if moved.is_empty() {
                continue;
            }
            if off.iter().all(|d| *d == off[0]) {
                let d = off[0];
                groups
                    .entry((
                        "field-boundary",
                        label,
                        format!("Modifier Group {g}'s value bits sit {d:+} from the label's"),
                    ))
                    .or_default()
                    .extend(moved);
            } else {
                groups
                    .entry((
                        "value-name-swap",
                        label,
                        format!(
                            "Modifier Group {g}: the names of values 2^j are swapped (or its \
                             bits are in another order)"
                        ),
                    ))
                    .or_default()
                    .extend(moved);
            }
        }
        for ((kind, label, detail), rs) in groups {
            let readings: Vec<String> = rs
                .iter()
                .map(|(r, text)| format!("bit {}: {text}", r.bit))
                .collect();
            let mut rs: Vec<&BitReading> = rs.iter().map(|(r, _)| *r).collect();
            rs.sort_by_key(|r| r.bit);
            let mut evidence = vec![vr.base.clone()];
            evidence.extend(rs.iter().map(|r| Evidence {
                word: r.word.to_string(),
                arch: vr.arch,
                nvdisasm: r.nvdisasm.clone(),
            }));
            let detail = if detail.is_empty() {
                String::new()
            } else {
                format!(" ({detail})")
            };
            out.push(Finding {
                file: t.path.clone(),
                line: v.layout_lines[if rs[0].bit < 64 { 1 } else { 3 }],
                key: v.key.clone(),
                kind: kind.into(),
                bits: rs.iter().map(|r| r.bit).collect(),
                message: format!(
                    "table: `{label}`; nvdisasm disagrees on {} bit(s){detail}",
                    rs.len()
                ),
                evidence,
                reading: Some(readings.join("; ")),
            });
        }
    }
    out
}
