//! Static lint: what the tables say that is inconsistent or incomplete on its own terms
//! (no nvdisasm needed).

use super::finding::Finding;
use crate::codec::{Codec, VariantId, Word, bit_list};
use crate::render::Renderer;
use crate::spec::{FieldKind, Table, Variant};
use std::collections::HashMap;

/// Every static finding for the codec's tables, in file order: the parser's oddities, then
/// repeated keys and layouts, operand-count mismatches, overlapping fixed bits and distilled
/// lines that differ from the rendering of the table's own fixed word.
pub fn lint(codec: &Codec) -> Vec<Finding> {
    let r = Renderer::new(codec);
    let mut out = Vec::new();
    for (ti, t) in codec.tables.iter().enumerate() {
        out.extend(t.oddities.iter().map(|o| Finding {
            file: t.path.clone(),
            line: o.line,
            key: o.key.clone(),
            kind: o.kind.clone(),
            bits: o.bits.clone(),
            message: o.message.clone(),
            evidence: vec![],
            reading: None,
        }));
        repeats(t, &mut out);
        for (vi, v) in t.variants.iter().enumerate() {
            operand_counts(t, v, &mut out);
            let id = VariantId {
                table: ti as u16,
                variant: vi as u16,
            };
            distilled(codec, &r, id, &mut out);
        }
    }
    overlaps(codec, &mut out);
    out.sort_by(|a, b| (&a.file, a.line, &a.kind).cmp(&(&b.file, b.line, &b.kind)));
    out
}

fn finding(
    t: &Table,
    line: usize,
    v: &Variant,
    kind: &str,
    bits: Vec<u8>,
    message: String,
) -> Finding {
    Finding {
        file: t.path.clone(),
        line,
        key: v.key.clone(),
        kind: kind.into(),
        bits,
        message,
        evidence: vec![],
        reading: None,
    }
}

/// Keys that repeat, and layouts (fixed bits and fields) that repeat under another key.
fn repeats(t: &Table, out: &mut Vec<Finding>) {
    let mut keys: HashMap<&str, usize> = HashMap::new();
    let mut layouts: HashMap<String, &Variant> = HashMap::new();
    for v in &t.variants {
        if let Some(first) = keys.insert(&v.key, v.line) {
            out.push(finding(
                t,
                v.line,
                v,
                "repeated-key",
                vec![],
                format!("key also used by the variant at line {first}"),
            ));
        }
        let sig = format!(
            "{:x}/{:x}/{:?}",
            v.fixed_mask,
            v.fixed_value,
            v.fields
                .iter()
                .map(|f| (&f.label, &f.ranges))
                .collect::<Vec<_>>()
        );
        if let Some(prev) = layouts.insert(sig, v) {
            out.push(finding(
                t,
                v.layout_lines[0],
                v,
                "repeated-layout",
                vec![],
                format!(
                    "layout identical to {} (line {})",
                    prev.key, prev.layout_lines[0]
                ),
            ));
        }
    }
}

/// Signature atoms vs `operand N` labels vs the distilled line's operands.
fn operand_counts(t: &Table, v: &Variant, out: &mut Vec<Finding>) {
    let atoms = v.signature.atoms.len();
    let mut labels: Vec<u8> = v
        .fields
        .iter()
        .filter_map(|f| match f.kind {
            FieldKind::Operand(n) => Some(n),
            _ => None,
        })
        .collect();
    labels.sort_unstable();
    let missing: Vec<usize> = (0..atoms)
        .filter(|n| !labels.contains(&(*n as u8)))
        .collect();
    let extra: Vec<u8> = labels
        .iter()
        .copied()
        .filter(|&n| n as usize >= atoms)
        .collect();
    if !missing.is_empty() || !extra.is_empty() {
        out.push(finding(t, v.layout_lines[1], v, "operand-count", vec![], format!(
            "signature `{}` has {atoms} operands; layout has no `operand N` for {missing:?} and labels beyond it {extra:?}",
            v.signature.text
        )));
    }
    let written = distilled_operand_count(&v.distilled);
    if written != v.signature.operands.len() {
        out.push(finding(
            t,
            v.line,
            v,
            "distilled-operand-count",
            vec![],
            format!(
                "signature `{}` writes {} operands, distilled line `{}` {written}",
                v.signature.text,
                v.signature.operands.len(),
                v.distilled
            ),
        ));
    }
}

fn distilled_operand_count(d: &str) -> usize {
    let d = d.trim().trim_end_matches(';').trim();
    let d = if d.starts_with('@') {
        d.split_once(' ').map_or("", |x| x.1)
    } else {
        d
    };
    match d.split_once(' ') {
        Some((_, ops)) if !ops.trim().is_empty() => ops.split(',').count(),
        _ => 0,
    }
}

/// The table's own fixed word (every field 0) rendered, against the distilled line.
fn distilled(codec: &Codec, r: &Renderer, id: VariantId, out: &mut Vec<Finding>) {
    let (t, v) = (codec.table(id), codec.variant(id));
    let Some(d) = codec.decode_as(id, Word(v.fixed_value)) else {
        return;
    };
    let text = r.render(codec, &d);
    if text != v.distilled {
        out.push(finding(
            t,
            v.line,
            v,
            "distilled-differs",
            vec![],
            format!(
                "fixed word {} renders as `{text}`, distilled line says `{}`",
                Word(v.fixed_value),
                v.distilled
            ),
        ));
    }
}

/// Variants of one arch whose fixed bits can match the same word: one finding per variant,
/// naming every earlier variant it overlaps.
fn overlaps(codec: &Codec, out: &mut Vec<Finding>) {
    let ids: Vec<VariantId> = codec.ids().collect();
    for (i, &b) in ids.iter().enumerate() {
        let (tb, vb) = (codec.table(b), codec.variant(b));
        let mut with = Vec::new();
        let mut free = 0u128;
        let mut example = None;
        for &a in &ids[..i] {
            let (ta, va) = (codec.table(a), codec.variant(a));
            let both = va.fixed_mask & vb.fixed_mask;
            if ta.arch != tb.arch || (va.fixed_value ^ vb.fixed_value) & both != 0 {
                continue;
            }
            with.push(va.key.as_str());
            free |= va.fixed_mask ^ vb.fixed_mask;
            example.get_or_insert(Word(va.fixed_value | vb.fixed_value));
        }
        if let Some(word) = example {
            let n = with.len();
            let names = if n > 4 {
                format!("{}, ... ({n} in all)", with[..4].join(", "))
            } else {
                with.join(", ")
            };
            out.push(finding(tb, vb.line, vb, "fixed-overlap", bit_list(free & vb.fixed_mask), format!(
                "fixed bits can match the same words as {names}; e.g. {word} matches both; listed: bits fixed here that are a field in the other"
            )));
        }
    }
}
