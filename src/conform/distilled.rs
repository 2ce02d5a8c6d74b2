//! The distilled-line check: a variant's `distilled:` line against nvdisasm's text for the
//! variant's fixed word (every field 0), which is what the line should be. Three parts:
//!
//! - `distilled-modifiers`: the guard, mnemonic or modifiers differ;
//! - `distilled-operands`: the operand list differs (an atom nvdisasm prints that the line
//!   leaves out, or an atom the line writes where nvdisasm prints nothing and no single flip
//!   of the fixed word prints it);
//! - per operand value that differs (the atoms of both lines paired by position and class):
//!   `distilled-example-values` when the variant's own operand field gives the value (a
//!   recorded single flip of one of its bits prints exactly that atom there, or each bit that
//!   differs from nvdisasm's value is such a flip): the line is a word of this variant, not
//!   its fixed word, e.g. SM80 LD's `[R0+0x1], P6` where nvdisasm prints `[R0]`;
//!   `distilled-values` otherwise: only a bit that is no operand field of the table gives it
//!   (a fixed bit: the line is not a word of this variant), or no single flip prints it.
//!
//! The expected correction is the same for all of them: the line written as nvdisasm's text
//! for the fixed word, which `resolve --patch` and `--emit-tables` write
//! ([`super::patch::corrections`]).

use super::explain::text_change;
use super::finding::{Evidence, Finding, compact_bits};
use crate::codec::{Codec, VariantId};
use crate::oracle::text::{Line, align_by, atom_class, atom_value};
use crate::reading::flips::{BitReading, Effect, TableBit, VariantReading};
use crate::spec::{FieldKind, Variant};
use std::collections::BTreeMap;

/// Findings for variant `id`'s distilled line against nvdisasm's text for its fixed word
/// (`vr.base`, which nvdisasm accepts): `distilled-modifiers`, `distilled-operands`,
/// `distilled-values`, `distilled-example-values` (see the module doc), or
/// `distilled-vs-nvdisasm` when a line does not parse. Each carries the fixed word and
/// nvdisasm's text for it as its first evidence; a value finding adds the recorded single
/// flips that print the distilled value, and its `bits` are those flips' bits.
pub fn distilled_findings(codec: &Codec, id: VariantId, vr: &VariantReading) -> Vec<Finding> {
    let (t, v) = (codec.table(id), codec.variant(id));
    let base = &vr.base.nvdisasm;
    if !lines_differ(&v.distilled, base) {
        return vec![];
    }
    let mk = Maker {
        file: &t.path,
        variant: v,
        base: &vr.base,
    };
    let (Some(d), Some(n)) = (Line::parse(&v.distilled), Line::parse(base)) else {
        return vec![mk.finding(
            "distilled-vs-nvdisasm",
            format!(
                "distilled line `{}` differs from nvdisasm's text for the fixed word",
                v.distilled
            ),
        )];
    };
    let mut out: Vec<Finding> = modifier_finding(&mk, &d, &n).into_iter().collect();
    out.extend(operand_findings(&mk, vr, &d, &n));
    out
}

/// Whether a distilled line and nvdisasm's text differ as the check reads them: either does
/// not parse, or the guard, mnemonic, modifiers or operand atoms differ (spacing and where
/// brackets fall aside).
pub fn lines_differ(distilled: &str, nvdisasm: &str) -> bool {
    if distilled == nvdisasm {
        return false;
    }
    match (Line::parse(distilled), Line::parse(nvdisasm)) {
        (Some(d), Some(n)) => {
            (d.guard, d.mnemonic, &d.mods, d.atoms()) != (n.guard, n.mnemonic, &n.mods, n.atoms())
        }
        _ => true,
    }
}

/// What every finding of one variant shares: where, and the fixed word's evidence.
struct Maker<'a> {
    file: &'a str,
    variant: &'a Variant,
    base: &'a Evidence,
}

impl Maker<'_> {
    /// A finding with the fixed word as evidence and nvdisasm's text for it as the reading.
    fn finding(&self, kind: &str, message: String) -> Finding {
        Finding {
            file: self.file.to_string(),
            line: self.variant.line,
            key: self.variant.key.clone(),
            kind: kind.into(),
            bits: vec![],
            message,
            evidence: vec![self.base.clone()],
            reading: Some(self.base.nvdisasm.clone()),
        }
    }
}

/// `distilled-modifiers` when the guard, mnemonic or modifiers differ.
fn modifier_finding(mk: &Maker, d: &Line, n: &Line) -> Option<Finding> {
    if d.guard == n.guard && d.mnemonic == n.mnemonic && d.mods == n.mods {
        return None;
    }
    Some(mk.finding(
        "distilled-modifiers",
        format!(
            "distilled line `{}` writes `{}`; nvdisasm prints `{}` for the fixed word",
            mk.variant.distilled,
            opcode_text(d),
            opcode_text(n)
        ),
    ))
}

/// `@P0 TLD.LZ.EF`: guard, mnemonic and modifiers of a line.
fn opcode_text(l: &Line) -> String {
    let mut s = if l.guard.is_empty() {
        String::new()
    } else {
        format!("@{} ", l.guard)
    };
    s.push_str(l.mnemonic);
    for m in &l.mods {
        s.push('.');
        s.push_str(m);
    }
    s
}

/// The operands of a line as written (`R0, R0+0x1`: brackets left out).
fn operands_text(l: &Line) -> String {
    l.operands
        .iter()
        .map(|o| o.join("+"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where a distilled atom stands in nvdisasm's text for the fixed word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// In place of nvdisasm's atom `j` (same class, another value).
    Replaces(usize),
    /// Where nvdisasm prints nothing, before its atom `j` (or at the end).
    Before(usize),
}

/// The value findings of every distilled atom nvdisasm prints otherwise, then one
/// `distilled-operands` finding for what no value explains.
fn operand_findings(mk: &Maker, vr: &VariantReading, d: &Line, n: &Line) -> Vec<Finding> {
    let (da, na) = (d.atoms(), n.atoms());
    if da == na {
        return vec![];
    }
    let pairs = align(&da, &na);
    let mut out = Vec::new();
    let mut extra: Vec<&str> = Vec::new();
    for (i, a) in da.iter().enumerate() {
        let Some(place) = place_of(&pairs, &da, &na, i) else {
            continue;
        };
        let pos = position(mk.variant, da.len(), i);
        match (source(vr, a, place, &na), place) {
            (Some(s), _) => out.push(value_finding(mk, &pos, a, place, &na, s)),
            (None, Place::Replaces(j)) => out.push(mk.finding(
                "distilled-values",
                format!(
                    "{pos}: distilled `{a}`, nvdisasm prints `{}` for the fixed word; no single \
                     flip of the fixed word prints `{a}` there",
                    na[j]
                ),
            )),
            (None, Place::Before(_)) => extra.push(a),
        }
    }
    let missing: Vec<&str> = (0..na.len())
        .filter(|j| !pairs.contains(&Some(*j)))
        .map(|j| na[j])
        .collect();
    if !extra.is_empty() || !missing.is_empty() {
        out.push(mk.finding(
            "distilled-operands",
            operands_message(&operands_text(d), &operands_text(n), &extra, &missing),
        ));
    }
    out
}

/// Where distilled atom `i` stands in nvdisasm's atoms `na` (`pairs` from [`align`]); `None`
/// when nvdisasm prints the same atom there.
fn place_of(pairs: &[Option<usize>], da: &[&str], na: &[&str], i: usize) -> Option<Place> {
    match pairs[i] {
        Some(j) if na[j] == da[i] => None,
        Some(j) => Some(Place::Replaces(j)),
        None => Some(Place::Before(
            pairs[i..]
                .iter()
                .flatten()
                .next()
                .copied()
                .unwrap_or(na.len()),
        )),
    }
}

/// The message of a `distilled-operands` finding.
fn operands_message(d: &str, n: &str, extra: &[&str], missing: &[&str]) -> String {
    let list = |l: &[&str]| {
        l.iter()
            .map(|a| format!("`{a}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    if !extra.is_empty() {
        parts.push(format!(
            "it writes {} where nvdisasm prints nothing and no single flip of the fixed word \
             prints it",
            list(extra)
        ));
    }
    if !missing.is_empty() {
        parts.push(format!("it leaves out {}", list(missing)));
    }
    format!(
        "distilled operands `{d}`; nvdisasm prints `{n}` for the fixed word: {}",
        parts.join("; ")
    )
}

/// How the distilled line names atom `i` of its `count` atoms: `operand i` (the table's
/// `operand N` labels index the signature's atoms) when it writes as many atoms as the
/// signature has, else `atom i of the distilled line`.
fn position(v: &Variant, count: usize, i: usize) -> String {
    if count == v.signature.atoms.len() {
        format!("operand {i}")
    } else {
        format!("atom {i} of the distilled line")
    }
}

/// For each distilled atom, the atom of nvdisasm's text it stands for: atoms of one class
/// ([`atom_class`]) pair, an equal pair weighing more ([`align_by`]); `None` where nvdisasm
/// prints nothing for it.
fn align(da: &[&str], na: &[&str]) -> Vec<Option<usize>> {
    align_by(da.len(), na.len(), |i, j| {
        if da[i] == na[j] {
            2
        } else {
            u32::from(atom_class(da[i]) == atom_class(na[j]))
        }
    })
}

/// The bits that give a distilled value.
enum Source<'a> {
    /// Bits of the variant's own operand fields (one recorded flip that prints the atom, or
    /// one per value bit that differs from nvdisasm's value).
    Own(Vec<&'a BitReading>),
    /// The one recorded flip that prints the atom is of a bit that is no operand field.
    Other(&'a BitReading),
}

/// Whether `r`'s table bit belongs to one of the variant's operand fields.
fn is_own_operand(r: &BitReading) -> bool {
    matches!(
        &r.table,
        TableBit::Field {
            kind: FieldKind::Operand(_),
            ..
        }
    )
}

/// Whether nvdisasm's text for `r`'s flipped word is the fixed word's with only the atom at
/// `place` changed to (or, where it prints nothing, written as) `atom`.
fn prints_at(base: &str, r: &BitReading, atom: &str, place: Place, na: &[&str]) -> bool {
    if !matches!(
        r.effect,
        Effect::Operand { .. } | Effect::Added { .. } | Effect::Other(_)
    ) {
        return false;
    }
    let Some(c) = text_change(base, &r.nvdisasm) else {
        return false;
    };
    let same_opcode = !c.guard && !c.mnemonic && c.mods_added.is_empty();
    let removed: Vec<&str> = c.atoms_removed.iter().map(String::as_str).collect();
    let (at, was): (usize, &[&str]) = match place {
        Place::Replaces(j) => (j, &na[j..=j]),
        Place::Before(j) => (j, &[]),
    };
    same_opcode
        && c.mods_removed.is_empty()
        && c.at == at
        && removed == was
        && c.atoms_added == [atom]
}

/// The recorded flips that give distilled `atom` at `place`: one own-field flip that prints
/// it; else, in place of nvdisasm's atom of the same class, own-field flips of each value
/// bit the two values differ in; else one flip of another bit that prints it.
fn source<'a>(vr: &'a VariantReading, atom: &str, place: Place, na: &[&str]) -> Option<Source<'a>> {
    let base = &vr.base.nvdisasm;
    let prints = |r: &&BitReading| prints_at(base, r, atom, place, na);
    if let Some(r) = vr.bits.iter().filter(|r| is_own_operand(r)).find(prints) {
        return Some(Source::Own(vec![r]));
    }
    if let Place::Replaces(j) = place
        && let Some(rs) = composed(vr, atom, j, na[j])
    {
        return Some(Source::Own(rs));
    }
    vr.bits.iter().find(prints).map(Source::Other)
}

/// Own operand-field flips, one per value bit `atom` differs from nvdisasm's `was` (atom `j`
/// of its text) in, each changing atom `j` by exactly that bit; `None` unless every bit has
/// one.
fn composed<'a>(
    vr: &'a VariantReading,
    atom: &str,
    j: usize,
    was: &str,
) -> Option<Vec<&'a BitReading>> {
    if atom_class(atom) != atom_class(was) {
        return None;
    }
    let diff = atom_value(atom)? ^ atom_value(was)?;
    if diff == 0 {
        return None;
    }
    (0..64u8)
        .filter(|k| diff >> k & 1 == 1)
        .map(|k| {
            vr.bits
                .iter()
                .find(|r| is_own_operand(r) && r.effect == Effect::Operand { atom: j, bit: k })
        })
        .collect()
}

/// A value finding: `distilled-example-values` from the variant's own operand fields,
/// `distilled-values` from another bit.
fn value_finding(
    mk: &Maker,
    pos: &str,
    atom: &str,
    place: Place,
    na: &[&str],
    s: Source,
) -> Finding {
    let nv = match place {
        Place::Replaces(j) => format!("nvdisasm prints `{}` for the fixed word", na[j]),
        Place::Before(_) => "nvdisasm prints nothing there for the fixed word".to_string(),
    };
    let was = match place {
        Place::Replaces(j) => na[j],
        Place::Before(_) => "",
    };
    let (kind, flips, why) = match s {
        Source::Own(rs) => {
            let why = format!(
                "{} gives it: an example value, not the fixed word's",
                own_bits_text(&rs)
            );
            ("distilled-example-values", rs, why)
        }
        Source::Other(r) => {
            let why = format!(
                "only bit {} set prints it, {}",
                r.bit,
                other_bit_text(&r.table)
            );
            ("distilled-values", vec![r], why)
        }
    };
    let mut f = mk.finding(kind, format!("{pos}: distilled `{atom}`, {nv}; {why}"));
    f.bits = flips.iter().map(|r| r.bit).collect();
    f.bits.sort_unstable();
    f.evidence.extend(flips.iter().map(|r| Evidence {
        word: r.word.to_string(),
        arch: mk.base.arch,
        nvdisasm: r.nvdisasm.clone(),
    }));
    f.reading = Some(
        flips
            .iter()
            .map(|r| {
                format!(
                    "bit {}: {} (`{was}` -> `{atom}`)",
                    r.bit,
                    table_bit_text(&r.table)
                )
            })
            .collect::<Vec<_>>()
            .join("; "),
    );
    f
}

/// `` the table's `operand 2` with value bits 0,2 set `` for own operand-field flips.
fn own_bits_text(rs: &[&BitReading]) -> String {
    let mut by: BTreeMap<&str, Vec<u8>> = BTreeMap::new();
    for r in rs {
        if let TableBit::Field { label, index, .. } = &r.table {
            by.entry(label).or_default().push(*index);
        }
    }
    let parts: Vec<String> = by
        .into_iter()
        .map(|(label, mut ix)| {
            ix.sort_unstable();
            let s = if ix.len() == 1 { "" } else { "s" };
            format!("`{label}` with value bit{s} {} set", compact_bits(&ix))
        })
        .collect();
    format!("the table's {}", parts.join(" and "))
}

/// What a bit that is no operand field is in the table, and what that means for the line.
fn other_bit_text(t: &TableBit) -> String {
    match t {
        TableBit::Fixed(b) => format!(
            "which the table fixes to {}: the line is not a word of this variant",
            u8::from(*b)
        ),
        TableBit::Field { label, index, .. } => {
            format!("bit {index} of the table's `{label}`, which is no operand field")
        }
        TableBit::Undescribed => "which no cell of the table describes".to_string(),
    }
}

/// A table bit in words: `` `operand 7` value bit 1 ``, `fixed 0 in the table`, `no cell`.
fn table_bit_text(t: &TableBit) -> String {
    match t {
        TableBit::Fixed(b) => format!("fixed {} in the table", u8::from(*b)),
        TableBit::Field { label, index, .. } => format!("`{label}` value bit {index}"),
        TableBit::Undescribed => "no cell in the table".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::align;

    #[test]
    fn atoms_pair_by_class_and_leave_out_what_nvdisasm_does_not_print() {
        // SM80 LD_R_R_I_P: `R0, [R0+0x1], P6` against nvdisasm's `R0, [R0]`.
        assert_eq!(
            align(&["R0", "R0", "0x1", "P6"], &["R0", "R0"]),
            vec![Some(0), Some(1), None, None]
        );
        // TLD4: `INVALID2` in place of `INVALID0`.
        assert_eq!(
            align(&["R0", "INVALID2", "0x0"], &["R0", "INVALID0", "0x0"]),
            vec![Some(0), Some(1), Some(2)]
        );
        // An equal atom is preferred to one of the same class: the second `0x0` pairs.
        assert_eq!(
            align(&["R0", "0x1", "0x0"], &["R0", "0x0"]),
            vec![Some(0), None, Some(1)]
        );
        // nvdisasm's atom the line leaves out.
        assert_eq!(align(&["R0"], &["R0", "UR4"]), vec![Some(0)]);
    }
}
