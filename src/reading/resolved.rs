//! Resolved tables: the tables as nvdisasm reads them. Built from the bit readings (which bit
//! is which field, fixed or ignored) and then from every recorded answer (how each field value
//! prints, which values nvdisasm rejects, the modifier print order). The originals stay
//! untouched; the result is kept as data (resolved/) with its provenance.

use super::flips::{Effect, VariantReading};
use crate::codec::{Codec, VariantId, Word};
use crate::oracle::text::Line;
use crate::oracle::{Answer, Entry};
use crate::render::Renderer;
use crate::spec::{BitRange, Field, FieldKind, Table, Variant};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;

/// What a bit is in the resolved layout.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Role {
    Fixed(bool),
    Field(String, FieldKind, u8),
    DontCare,
}

/// The resolved copies of the codec's tables: variants whose fixed word nvdisasm accepts get
/// the layout their bit readings give, as do those read around another legal word
/// ([`super::flips::rebase_centre`]: its fixed bits take that word's values); the others are
/// kept as the table has them.
pub fn resolve_layouts(codec: &Codec, readings: &[(VariantId, VariantReading)]) -> Vec<Table> {
    let mut tables = codec.tables.clone();
    for (id, vr) in readings {
        if !vr.base_legal {
            continue;
        }
        let taken = sibling_bits(codec, *id, vr);
        let v = &mut tables[id.table as usize].variants[id.variant as usize];
        // Read around another legal word: its fixed bits are the table's but (at most) one.
        if let Some(c) = vr.centre {
            v.fixed_value ^= (c ^ v.fixed_value) & v.fixed_mask;
        }
        *v = resolve_variant(v, vr, taken);
    }
    tables
}

/// The bits whose flipped word another variant's fixed bits also match: unfixing one of
/// them would make two variants read the same word.
fn sibling_bits(codec: &Codec, id: VariantId, vr: &VariantReading) -> u128 {
    vr.bits
        .iter()
        .filter(|r| {
            codec
                .decode(vr.arch, r.word)
                .is_some_and(|d| d.id != id || d.others().iter().any(|&o| o != id))
        })
        .fold(0u128, |m, r| m | 1 << r.bit)
}

fn table_roles(v: &Variant) -> Vec<Role> {
    let mut roles: Vec<Role> = (0..128u32)
        .map(|b| match v.fixed_mask >> b & 1 {
            1 => Role::Fixed(v.fixed_value >> b & 1 == 1),
            _ => Role::DontCare,
        })
        .collect();
    for f in &v.fields {
        let mut j = 0u8;
        for r in &f.ranges {
            for b in r.lo..=r.hi() {
                roles[b as usize] = Role::Field(f.label.clone(), f.kind.clone(), j);
                j += 1;
            }
        }
    }
    roles
}

/// The label for a field of `kind`, reusing the table's label where it has one.
fn label_for(v: &Variant, kind: &FieldKind) -> String {
    if let Some(f) = v.fields.iter().find(|f| &f.kind == kind) {
        return f.label.clone();
    }
    match kind {
        FieldKind::Operand(n) => format!("operand {n}"),
        FieldKind::Modifier(n) => format!("modi {n}"),
        FieldKind::Guard => "pred".into(),
        FieldKind::Flag(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

/// `taken`: bits whose flip lands on another variant's fixed word ([`sibling_bits`]).
fn resolve_variant(v: &Variant, vr: &VariantReading, taken: u128) -> Variant {
    let mut roles = table_roles(v);
    let identity =
        Line::parse(&vr.base.nvdisasm).is_some_and(|l| l.atoms().len() == v.signature.atoms.len());
    // Bits whose flip adds a part to an operand (nvdisasm leaves it out at 0), per (atom,
    // place of the part): (value bit, word bit).
    let mut added: BTreeMap<(usize, usize), Vec<(u8, usize)>> = BTreeMap::new();
    for r in &vr.bits {
        let b = r.bit as usize;
        let base_bit = vr.centre.unwrap_or(v.fixed_value) >> b & 1 == 1;
        let sched = matches!(&roles[b], Role::Field(_, FieldKind::Sched(_), _));
        let kind = match &r.effect {
            // A part nvdisasm leaves out at its default (0, the zero register): gathered per
            // part, a field of its own where the flips give each value bit once; not where
            // the flip lands on another variant, whose field it is (SM80 LD: `[R0+0x2]` is
            // LD_R_R_I's word with its offset, not LD_R_R's).
            Effect::Added { atom, part, bit } if identity && taken >> b & 1 == 0 => {
                added.entry((*atom, *part)).or_default().push((*bit, b));
                continue;
            }
            // A bit the table fixes whose flip changes the operands in a way no single field
            // explains, the mnemonic kept (an operand nvdisasm prints only away from its
            // default: SM90 UFLO, synthesised, fixes bits 81-83 at 7, `UPT`, left out; any
            // other value prints `UP6, ` before the source), is a field the table lacks: left
            // free, so the learn words vary it and the printer learns what it prints, as for a
            // fixed bit that changes modifiers (below).
            Effect::Other(_) | Effect::Added { .. }
                if matches!(roles[b], Role::Fixed(_))
                    && taken >> b & 1 == 0
                    && same_mnemonic(&vr.base.nvdisasm, &r.nvdisasm) =>
            {
                roles[b] = Role::DontCare;
                continue;
            }
            Effect::Unseen | Effect::Other(_) => continue,
            Effect::Same if sched => continue,
            Effect::Same => {
                roles[b] = Role::DontCare;
                continue;
            }
            // A scheduling bit nvdisasm refuses alone may be fine with other scheduling bits
            // (compiled words set it): keep the field; its refused values are learned later.
            Effect::Illegal(_) if sched => continue,
            // Read around another legal word (the fixed word refused, [`super::flips::
            // rebase_centre`]): that word already sets a field away from the table's value,
            // and a flip refused there is a pair of values nvdisasm refuses together, not a
            // fixed bit; the table's field is kept (SM80 I2F, synthesised: its modi 1, bits
            // 74-76, holds the destination type in bits 75-76; ptxas writes them at 0b10
            // with a 64-bit source, refused around the 8-bit source the centre has).
            Effect::Illegal(_) if vr.centre.is_some() && matches!(roles[b], Role::Field(..)) => {
                continue;
            }
            Effect::Illegal(_) | Effect::Mnemonic(_) => {
                roles[b] = Role::Fixed(base_bit);
                continue;
            }
            Effect::Guard { bit } => (FieldKind::Guard, *bit),
            Effect::Operand { atom, bit } if identity => (FieldKind::Operand(*atom as u8), *bit),
            Effect::Operand { .. } => continue,
            Effect::Added { .. } => continue,
            Effect::Modifier {
                group: Some(g),
                bit: Some(j),
                ..
            } => (FieldKind::Modifier(*g), *j),
            Effect::Modifier { removed, added, .. }
                if removed.is_empty() && !added.is_empty() && !added.contains('.') =>
            {
                (FieldKind::Flag(added.clone()), 0)
            }
            // A bit the table fixes whose flip changes modifiers no field explains (ATOM on
            // SM103, nv_isa_solver's page: bit 84 takes `.EF` away; ptxas sets it in every
            // ATOM) is part of a modifier: left free, so the learn words vary it and the
            // printer learns what it prints with the fields around it.
            Effect::Modifier { .. }
                if matches!(roles[b], Role::Fixed(_)) && taken >> b & 1 == 0 =>
            {
                roles[b] = Role::DontCare;
                continue;
            }
            Effect::Modifier { .. } => continue,
        };
        roles[b] = Role::Field(label_for(v, &kind.0), kind.0, kind.1);
    }
    // A part whose flips do not give each value bit once is still an operand the table
    // lacks: its fixed bits are left free, as for [`Effect::Other`] above.
    for b in added_operands(v, added, &mut roles) {
        if matches!(roles[b], Role::Fixed(_)) && taken >> b & 1 == 0 {
            roles[b] = Role::DontCare;
        }
    }
    let mut out = v.clone();
    build_fields(&mut out, &roles);
    out.distilled = vr.base.nvdisasm.clone();
    out
}

/// Whether two nvdisasm texts both parse as instruction lines of one mnemonic.
fn same_mnemonic(a: &str, b: &str) -> bool {
    matches!((Line::parse(a), Line::parse(b)), (Some(x), Some(y)) if x.mnemonic == y.mnemonic)
}

/// One new operand field per part that flips add to an operand ([`Effect::Added`]),
/// numbered after every operand `v` has: taken where its flips give each value bit from 0 up
/// once (SM80 ALD's synthesised `ALD.P` variant: bits 40-50, the offset in `a[R0+0x1]`,
/// which the table fixes at 0; SM80 ATOMS's synthesised `ATOMS_R_UR`: bits 24-31, the
/// register in `[R254+UR0]`, fixed at 255, and bits 40-63, the offset, fixed at 0). Returns
/// the word bits of the parts not taken.
fn added_operands(
    v: &Variant,
    added: BTreeMap<(usize, usize), Vec<(u8, usize)>>,
    roles: &mut [Role],
) -> Vec<usize> {
    let mut next = super::hidden::next_operand(v);
    let mut left = Vec::new();
    for (_, mut bits) in added {
        let Ok(n) = u8::try_from(next) else {
            left.extend(bits.iter().map(|&(_, b)| b));
            continue;
        };
        if !super::hidden::value_bits_in_order(&mut bits) {
            left.extend(bits.iter().map(|&(_, b)| b));
            continue;
        }
        next += 1;
        let kind = FieldKind::Operand(n);
        for (j, b) in bits {
            roles[b] = Role::Field(label_for(v, &kind), kind.clone(), j);
        }
    }
    left
}

/// A field's kind and its (value bit, word bit) pairs.
type FieldBits = (FieldKind, Vec<(u8, u8)>);

/// Rebuilds fields, fixed bits and undescribed bits of `v` from per-bit roles.
fn build_fields(v: &mut Variant, roles: &[Role]) {
    let old: Vec<Field> = std::mem::take(&mut v.fields);
    let mut bits: BTreeMap<(usize, String), FieldBits> = BTreeMap::new();
    let mut first_bit: HashMap<String, usize> = HashMap::default();
    v.fixed_mask = 0;
    v.fixed_value = 0;
    let mut described = 0u128;
    for (b, role) in roles.iter().enumerate() {
        match role {
            Role::Fixed(x) => {
                v.fixed_mask |= 1 << b;
                if *x {
                    v.fixed_value |= 1 << b;
                }
                described |= 1 << b;
            }
            Role::Field(label, kind, j) => {
                let first = *first_bit.entry(label.clone()).or_insert(b);
                bits.entry((first, label.clone()))
                    .or_insert((kind.clone(), vec![]))
                    .1
                    .push((*j, b as u8));
                described |= 1 << b;
            }
            Role::DontCare => {}
        }
    }
    v.undescribed = !described;
    for ((_, label), (kind, mut js)) in bits {
        js.sort();
        let mut ranges: Vec<BitRange> = Vec::new();
        for (_, b) in js {
            match ranges.last_mut() {
                Some(r) if r.lo as u16 + r.len as u16 == b as u16 => r.len += 1,
                _ => ranges.push(BitRange { lo: b, len: 1 }),
            }
        }
        let line = old.iter().find(|f| f.label == label).map_or(0, |f| f.line);
        v.fields.push(Field {
            label,
            kind,
            ranges,
            line,
            names: Default::default(),
            rejected: Vec::new(),
            signed: false,
            context: Vec::new(),
        });
    }
}

/// Tally of what nvdisasm printed for one (variant, field, value).
type Tally = HashMap<(VariantId, usize, u64), HashMap<String, usize>>;

/// Learns from every legal recorded answer how each field value prints (operand atoms,
/// modifier runs, left-out operands) and which values nvdisasm rejects, and the print order of
/// the modifiers; writes them into the tables' fields (`names`, `rejected`) and variants
/// (`print_order`). A value's name is nvdisasm's most frequent text for it, kept only where
/// it differs from what the table-driven renderer prints.
pub fn learn_printing(tables: Vec<Table>, entries: &[Entry]) -> Vec<Table> {
    let Ok(codec) = Codec::new(tables.clone()) else {
        return tables;
    };
    let order = learn_order(&codec, entries);
    let mut tables = tables;
    for (id, o) in &order {
        tables[id.table as usize].variants[id.variant as usize].print_order = o.clone();
    }
    let Ok(codec) = Codec::new(tables.clone()) else {
        return tables;
    };
    let r = Renderer::new(&codec);
    let mut tally: Tally = HashMap::default();
    let mut ours: HashMap<(VariantId, usize, u64), String> = HashMap::default();
    let mut seen: HashMap<(VariantId, usize, u64), (usize, usize)> = HashMap::default();
    let mut text = String::new();
    for e in entries {
        let Some(d) = codec.decode(e.arch, Word(e.word)) else {
            continue;
        };
        let v = codec.variant(d.id);
        for (i, val) in d.values().iter().enumerate() {
            let s = seen.entry((d.id, i, *val)).or_default();
            if e.answer.is_legal() {
                s.0 += 1;
            } else {
                s.1 += 1;
            }
        }
        let Answer::Text(t) = &e.answer else { continue };
        text.clear();
        r.render_into(&codec, &d, &mut text);
        tally_operands(v, &d, &text, t, &mut tally, &mut ours);
        tally_modifiers(v, &d, &text, t, &mut tally, &mut ours);
        // The other variants whose fixed bits match read the word too: a wide field's value 0
        // left out shows only there (SM80 LD `[R0]` is LD_R_R's word and LD_R_R_I's with 0).
        for &o in d.others().iter().filter(|o| o.table == d.id.table) {
            let Some(od) = codec.decode_as(o, d.word) else {
                continue;
            };
            let ov = codec.variant(o);
            let wide_zero = ov
                .fields
                .iter()
                .zip(od.values())
                .any(|(f, &x)| x == 0 && f.width() > WIDE_BITS);
            if wide_zero {
                text.clear();
                r.render_into(&codec, &od, &mut text);
                tally_left_out_zero(ov, &od, &text, t, &mut tally);
            }
        }
    }
    let mut wide: HashMap<(VariantId, usize), Vec<(u64, String)>> = HashMap::default();
    for (key @ (id, fi, val), texts) in tally {
        let (best, _) = texts
            .into_iter()
            .max_by_key(|(t, n)| (*n, t.clone()))
            .expect("non-empty");
        let f = &tables[id.table as usize].variants[id.variant as usize].fields[fi];
        if f.width() > WIDE_BITS {
            // A wide field gets a rule (signed or not, left out at 0), not a name per value.
            wide.entry((id, fi)).or_default().push((val, best));
            continue;
        }
        if ours.get(&key) != Some(&best) {
            let f = &mut tables[id.table as usize].variants[id.variant as usize].fields[fi];
            f.names.insert(val, best);
        }
    }
    for ((id, fi), seen_texts) in wide {
        let f = &mut tables[id.table as usize].variants[id.variant as usize].fields[fi];
        apply_wide_rule(f, &seen_texts);
    }
    for ((id, fi, val), (legal, illegal)) in seen {
        if legal == 0 && illegal >= 2 {
            let f = &mut tables[id.table as usize].variants[id.variant as usize].fields[fi];
            if !f.rejected.contains(&val) {
                f.rejected.push(val);
            }
        }
    }
    for t in &mut tables {
        for v in &mut t.variants {
            for f in &mut v.fields {
                f.rejected.sort_unstable();
                f.rejected.dedup();
            }
        }
    }
    tables
}

/// Fields wider than this get a printing rule instead of a name per value.
const WIDE_BITS: u32 = 8;

/// `0x...` of `v`, or `-0x...` when `signed` and the top bit of `width` is set.
fn hex_text(v: u64, width: u32, signed: bool) -> String {
    if signed && width < 64 && v >> (width - 1) & 1 == 1 {
        format!("-{:#x}", (1u64 << width) - v)
    } else {
        format!("{v:#x}")
    }
}

/// Learns a wide field's printing rule from (value, nvdisasm's atom text) pairs: signed when
/// more of the texts read as the two's complement than as the plain value; left out at 0
/// (`names[0] = ""`) when nvdisasm's text for 0 is empty. Drops per-value names.
fn apply_wide_rule(f: &mut Field, seen: &[(u64, String)]) {
    let w = f.width();
    let score = |signed: bool| {
        seen.iter()
            .filter(|(v, t)| *v != 0 && *t == hex_text(*v, w, signed))
            .count()
    };
    f.signed = score(true) > score(false);
    f.names.clear();
    if seen.iter().any(|(v, t)| *v == 0 && t.is_empty()) {
        f.names.insert(0, String::new());
    }
}

/// A wide field at 0 whose atom nvdisasm leaves out (our text has that one atom more):
/// a vote for "" at value 0, the only vote this reading gives.
fn tally_left_out_zero(
    v: &Variant,
    d: &crate::codec::Decoded,
    ours: &str,
    theirs: &str,
    tally: &mut Tally,
) {
    let (Some(a), Some(b)) = (Line::parse(ours), Line::parse(theirs)) else {
        return;
    };
    if a.guard != b.guard || a.mods != b.mods {
        return;
    }
    let (xa, xb) = (a.atoms(), b.atoms());
    if xa.len() != v.signature.atoms.len() || xa.len() != xb.len() + 1 {
        return;
    }
    let k = (0..xb.len()).find(|&k| xa[k] != xb[k]).unwrap_or(xb.len());
    if xa[k + 1..] != xb[k..] {
        return;
    }
    let Some(fi) = v
        .fields
        .iter()
        .position(|f| f.kind == FieldKind::Operand(k as u8))
    else {
        return;
    };
    if v.fields[fi].width() > WIDE_BITS && d.values()[fi] == 0 {
        *tally
            .entry((d.id, fi, 0))
            .or_default()
            .entry(String::new())
            .or_default() += 1;
    }
}

/// Operand differences: same written shape, atoms that differ, each mapped to its field.
fn tally_operands(
    v: &Variant,
    d: &crate::codec::Decoded,
    ours: &str,
    theirs: &str,
    tally: &mut Tally,
    mine: &mut HashMap<(VariantId, usize, u64), String>,
) {
    let (Some(a), Some(b)) = (Line::parse(ours), Line::parse(theirs)) else {
        return;
    };
    if a.guard != b.guard || a.mods != b.mods {
        return;
    }
    let (xa, xb) = (a.atoms(), b.atoms());
    let atom_field = |k: usize| {
        v.fields
            .iter()
            .position(|f| f.kind == FieldKind::Operand(k as u8))
    };
    // Atoms of our text map to signature atoms only when we print every one of them.
    if xa.len() != v.signature.atoms.len() {
        return;
    }
    let base = |a: &str| a.split('.').next().unwrap_or(a).to_string();
    let mut vote = |k: usize, text: String| {
        if let Some(fi) = atom_field(k) {
            let key = (d.id, fi, d.values()[fi]);
            mine.entry(key).or_insert_with(|| base(xa[k]));
            *tally.entry(key).or_default().entry(text).or_default() += 1;
        }
    };
    if xa.len() == xb.len() {
        for (k, b) in xb.iter().enumerate() {
            vote(k, base(b));
        }
    } else if xa.len() == xb.len() + 1 {
        let k = (0..xb.len()).find(|&k| xa[k] != xb[k]).unwrap_or(xb.len());
        if xa[k + 1..] == xb[k..] {
            vote(k, String::new());
        }
    }
}

/// Modifier differences confined to one field's run: that field's value prints nvdisasm's run.
fn tally_modifiers(
    v: &Variant,
    d: &crate::codec::Decoded,
    ours: &str,
    theirs: &str,
    tally: &mut Tally,
    mine: &mut HashMap<(VariantId, usize, u64), String>,
) {
    let (Some(a), Some(b)) = (Line::parse(ours), Line::parse(theirs)) else {
        return;
    };
    if a.guard != b.guard || a.operands != b.operands {
        return;
    }
    let runs = mod_runs(v, d);
    // Our run of each field, and a vote for it where nvdisasm prints the same modifiers.
    let mut pos = 0;
    for (fi, n) in &runs {
        let run = a
            .mods
            .get(pos..pos + n)
            .map(|r| r.join("."))
            .unwrap_or_default();
        pos += n;
        if *fi == usize::MAX {
            continue;
        }
        let key = (d.id, *fi, d.values()[*fi]);
        mine.entry(key).or_insert_with(|| run.clone());
        if a.mods == b.mods {
            *tally.entry(key).or_default().entry(run).or_default() += 1;
        }
    }
    if a.mods == b.mods {
        return;
    }
    let ours_tokens: Vec<&str> = a.mods.clone();
    let pre = ours_tokens
        .iter()
        .zip(&b.mods)
        .take_while(|(x, y)| x == y)
        .count();
    let max_suf = ours_tokens.len().min(b.mods.len()) - pre;
    let suf = (0..max_suf)
        .take_while(|&i| ours_tokens[ours_tokens.len() - 1 - i] == b.mods[b.mods.len() - 1 - i])
        .count();
    let (o_lo, o_hi) = (pre, ours_tokens.len() - suf);
    let theirs_run = b.mods[pre..b.mods.len() - suf].join(".");
    // Find the single field whose run covers exactly [o_lo, o_hi) (an empty run at o_lo when
    // nvdisasm adds tokens).
    let mut pos = 0;
    let mut hit = None;
    let mut hits = 0;
    for (fi, run_len) in &runs {
        let (lo, hi) = (pos, pos + run_len);
        if (lo, hi) == (o_lo, o_hi) {
            hit = Some(*fi);
            hits += 1;
        }
        pos = hi;
    }
    // A run of a title piece or of a label no field carries has no field value to tally
    // (nv_isa_solver pages: a modifier label without a field of its own).
    if hits == 1
        && let Some(fi) = hit
        && let Some(&value) = d.values().get(fi)
    {
        *tally
            .entry((d.id, fi, value))
            .or_default()
            .entry(theirs_run)
            .or_default() += 1;
    }
}

/// (field index, number of tokens it prints) for every modifier or flag field in print order.
fn mod_runs(v: &Variant, d: &crate::codec::Decoded) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for e in &v.print_order {
        if let Some(tok) = e.strip_prefix('=') {
            let _ = tok;
            out.push((usize::MAX, 1));
            continue;
        }
        let Some(fi) = v.fields.iter().position(|f| &f.label == e) else {
            continue;
        };
        let val = d.values()[fi];
        let f = &v.fields[fi];
        let printed = if let Some(n) = f.names.get(&val) {
            n.clone()
        } else {
            match &f.kind {
                FieldKind::Flag(l) => {
                    if val != 0 {
                        l.clone()
                    } else {
                        String::new()
                    }
                }
                _ => crate::codec::modifier_name(v, f, val)
                    .map(|n| match n {
                        crate::spec::ModifierName::Default => String::new(),
                        crate::spec::ModifierName::Named(s) => s.clone(),
                        crate::spec::ModifierName::Invalid(k) => format!("INVALID{k}"),
                        crate::spec::ModifierName::Unknown(k) => format!("???{k}"),
                    })
                    .unwrap_or_else(|| format!("???{val}")),
            }
        };
        let n = if printed.is_empty() {
            0
        } else {
            printed.split('.').count()
        };
        out.push((fi, n));
    }
    out
}

/// Print order of each variant's modifier and flag fields, learned from nvdisasm's texts:
/// for every pair of fields that print together, which comes first; then a stable
/// topological order (ties by first bit). Title tokens (`=LOD`) take their place from the
/// fixed word's text.
fn learn_order(codec: &Codec, entries: &[Entry]) -> HashMap<VariantId, Vec<String>> {
    // Which token runs each field prints, from the tables (names of its group) and flags.
    let mut before: HashMap<VariantId, HashMap<(String, String), usize>> = HashMap::default();
    for e in entries {
        let Answer::Text(t) = &e.answer else { continue };
        let Some(d) = codec.decode(e.arch, Word(e.word)) else {
            continue;
        };
        let v = codec.variant(d.id);
        let Some(l) = Line::parse(t) else { continue };
        let owners = attribute(v, &d, &l.mods);
        let pairs = before.entry(d.id).or_default();
        for i in 0..owners.len() {
            for j in i + 1..owners.len() {
                if owners[i] != owners[j] {
                    *pairs
                        .entry((owners[i].clone(), owners[j].clone()))
                        .or_default() += 1;
                }
            }
        }
    }
    let mut out = HashMap::default();
    for id in codec.ids() {
        let v = codec.variant(id);
        let mut items: Vec<String> = Vec::new();
        if let Some(l) = Line::parse(&v.distilled) {
            let (_, title) = v.title.split_once('.').unwrap_or(("", ""));
            for tok in title.split('.').filter(|t| !t.is_empty()) {
                if l.mods.contains(&tok) {
                    items.push(format!("={tok}"));
                }
            }
        }
        items.extend(
            v.fields
                .iter()
                .filter(|f| matches!(f.kind, FieldKind::Modifier(_) | FieldKind::Flag(_)))
                .map(|f| f.label.clone()),
        );
        let pairs = before.get(&id).cloned().unwrap_or_default();
        out.insert(id, order_items(items, &pairs));
    }
    out
}

/// Stable insertion order: each item goes after every placed item seen before it more often
/// than after it.
fn order_items(items: Vec<String>, pairs: &HashMap<(String, String), usize>) -> Vec<String> {
    let mut placed: Vec<String> = Vec::new();
    for it in items {
        let n = |a: &String, b: &String| pairs.get(&(a.clone(), b.clone())).copied().unwrap_or(0);
        let pos = (0..=placed.len())
            .max_by_key(|&p| {
                let ok_before: usize = placed[..p].iter().map(|x| n(x, &it)).sum();
                let ok_after: usize = placed[p..].iter().map(|x| n(&it, x)).sum();
                let bad_before: usize = placed[..p].iter().map(|x| n(&it, x)).sum();
                let bad_after: usize = placed[p..].iter().map(|x| n(x, &it)).sum();
                (ok_before + ok_after) as i64 - (bad_before + bad_after) as i64
            })
            .unwrap_or(placed.len());
        placed.insert(pos, it);
    }
    placed
}

/// Which field (label, or `=TOKEN` for a title token) prints each modifier token of a text,
/// as far as the variant's modifier tables and flag labels tell; unknown tokens get "".
fn attribute(v: &Variant, d: &crate::codec::Decoded, mods: &[&str]) -> Vec<String> {
    let mut out = Vec::with_capacity(mods.len());
    let mut i = 0;
    let (_, title) = v.title.split_once('.').unwrap_or(("", ""));
    'tokens: while i < mods.len() {
        if title.split('.').any(|t| t == mods[i]) {
            out.push(format!("={}", mods[i]));
            i += 1;
            continue;
        }
        for (fi, f) in v.fields.iter().enumerate() {
            let printed = match &f.kind {
                FieldKind::Flag(l) => l.clone(),
                FieldKind::Modifier(_) => match crate::codec::modifier_name(v, f, d.values()[fi]) {
                    Some(crate::spec::ModifierName::Named(s)) => s.clone(),
                    Some(crate::spec::ModifierName::Invalid(k)) => format!("INVALID{k}"),
                    Some(crate::spec::ModifierName::Unknown(k)) => format!("???{k}"),
                    _ => continue,
                },
                _ => continue,
            };
            let toks: Vec<&str> = printed.split('.').collect();
            if mods[i..].starts_with(&toks) {
                for _ in 0..toks.len() {
                    out.push(f.label.clone());
                }
                i += toks.len();
                continue 'tokens;
            }
        }
        out.push(String::new());
        i += 1;
    }
    out.retain(|o| !o.is_empty());
    out.dedup();
    out
}

/// Where resolved tables came from (kept in resolved/tables.json beside them).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Provenance {
    /// The command that wrote the file.
    pub command: String,
    /// UTC date, `YYYY-MM-DD`.
    pub date: String,
    /// nvdisasm versions of the recordings used (from oracle/MANIFEST.json).
    pub nvdisasm_versions: Vec<String>,
    /// Recorded answers the readings were taken from.
    pub oracle_entries: usize,
    /// How the readings were made.
    pub method: String,
}

/// The resolved view of the tables, as stored in resolved/tables.json.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ResolvedSet {
    /// Provenance.
    pub provenance: Provenance,
    /// The tables as nvdisasm reads them (same files, variants and keys as specs/): what
    /// decode, diff, scan and report use ([`read_tables`]).
    pub tables: Vec<Table>,
    /// The resolved layouts the table text format can hold ([`resolve_tables`]): what
    /// `resolve --emit-tables` writes. Empty in files written before it.
    #[serde(default)]
    pub layouts: Vec<Table>,
    /// The learned reading (legality), parallel to `tables`; empty in files written before it.
    #[serde(default)]
    pub model: crate::reading::model::Model,
}

/// How [`resolve_tables`] reads the tables (for provenance).
pub const METHOD: &str = "per variant: nvdisasm's answers for the fixed word with each bit outside its opcode bits (the lowest run of bits it fixes and the free bits below it: 0-11 in the seeds) flipped give each bit's role (fixed, ignored, guard/operand/modifier bit, flag); then every recorded legal answer gives each field value's printed text, the values nvdisasm rejects and the modifier print order";

/// Bit readings -> resolved layouts -> learned printing, from recorded answers.
pub fn resolve_tables(codec: &Codec, entries: &[Entry]) -> Vec<Table> {
    let answers = super::flips::Answers::new(entries);
    let readings = super::flips::read_bits(codec, &answers);
    let mut tables = resolve_layouts(codec, &readings);
    // A name learned in one pass (a dimension, say) lets the next pass line up the operands
    // of texts it could not before (an operand left out after it).
    for _ in 0..3 {
        let next = learn_printing(tables.clone(), entries);
        let same = serde_json::to_string(&next).ok() == serde_json::to_string(&tables).ok();
        tables = next;
        if same {
            break;
        }
    }
    tables
}

/// The tables as nvdisasm reads every word, from the resolved layouts ([`resolve_tables`]):
/// modifier fields as nvdisasm's values with their print order
/// ([`crate::reading::modifiers`]), then operand names and context bits
/// ([`crate::reading::operands`]), the bits that decide the space before `;`
/// ([`crate::reading::semicolon`]) and the bits that make another instruction
/// ([`crate::reading::identity`]). What the table text format cannot hold (joint fields,
/// context bits) lives only here; `--emit-tables` writes the layouts.
pub fn read_tables(layouts: Vec<Table>, entries: &[Entry]) -> Vec<Table> {
    let answers = super::flips::Answers::new(entries);
    let forms = super::forms::find_forms(&layouts, &answers);
    let layouts = super::semicolon::learn_semicolons(layouts, &answers);
    let layouts = super::identity::learn_identities(layouts, &answers);
    let layouts = super::forms::unfix(layouts, &forms);
    let layouts = super::hidden::learn_hidden_operands(layouts, entries);
    let tables = crate::reading::modifiers::learn_modifiers(layouts, entries).0;
    crate::reading::operands::learn_operands(tables, entries, &forms)
}

/// Errors reading or writing resolved/tables.json.
#[derive(Debug, thiserror::Error)]
pub enum ResolvedError {
    /// I/O.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: std::path::PathBuf,
        /// OS error.
        source: std::io::Error,
    },
    /// Malformed JSON.
    #[error("{path}:{line}: {message}")]
    Json {
        /// File.
        path: std::path::PathBuf,
        /// 1-based line.
        line: usize,
        /// serde_json's message.
        message: String,
    },
    /// The file's indices disagree with each other (hand-edited or damaged).
    #[error("{path}: {message}; run `sass-conform resolve --write` again")]
    Invalid {
        /// File.
        path: std::path::PathBuf,
        /// Which index, in which table and variant.
        message: String,
    },
    /// The resolved file does not match the tables it claims to resolve.
    #[error("{path}: {message}; run `sass-conform resolve --write` again")]
    Stale {
        /// File.
        path: std::path::PathBuf,
        /// What differs.
        message: String,
    },
}

impl ResolvedSet {
    /// Reads a resolved set and checks that it covers exactly the variant keys of `tables`.
    pub fn read(path: &std::path::Path, tables: &[Table]) -> Result<ResolvedSet, ResolvedError> {
        let data = std::fs::read(path).map_err(|source| ResolvedError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_slice(&data, path, tables)
    }

    /// [`ResolvedSet::read`] over bytes already read (the bundled view,
    /// [`crate::locate::BUNDLED_RESOLVED`]); `path` names them in errors.
    pub fn from_slice(
        data: &[u8],
        path: &std::path::Path,
        tables: &[Table],
    ) -> Result<ResolvedSet, ResolvedError> {
        let set: ResolvedSet = serde_json::from_slice(data).map_err(|e| ResolvedError::Json {
            path: path.to_path_buf(),
            line: e.line(),
            message: e.to_string(),
        })?;
        // Tables are matched by the last two components of their path (`sm100/TLD.txt`), so
        // a reading written with `--specs /abs/ws/specs` is found again as `--specs specs`.
        let tail = |p: &str| -> String {
            let parts: Vec<&str> = p.rsplit(['/', '\\']).take(2).collect();
            parts.into_iter().rev().collect::<Vec<_>>().join("/")
        };
        let keys = |ts: &[Table]| -> Vec<(String, String)> {
            ts.iter()
                .flat_map(|t| {
                    let path = tail(&t.path);
                    t.variants
                        .iter()
                        .map(move |v| (path.clone(), v.key.clone()))
                })
                .collect()
        };
        let mut set = set;
        if keys(&set.tables) != keys(tables) {
            // A file that covers more tables than were loaded (one left out because it did
            // not load, or a sub-folder given) reads the ones loaded.
            let loaded: std::collections::HashSet<String> =
                tables.iter().map(|t| tail(&t.path)).collect();
            set.tables.retain(|t| loaded.contains(&tail(&t.path)));
            set.layouts.retain(|t| loaded.contains(&tail(&t.path)));
            set.model.tables.retain(|t| loaded.contains(&tail(&t.path)));
        }
        if keys(&set.tables) != keys(tables) {
            return Err(ResolvedError::Stale {
                path: path.to_path_buf(),
                message: "its variants differ from the tables loaded".into(),
            });
        }
        // The learned reading is matched to the tables by place: its paths must follow them
        // (an entry deleted or two swapped by hand gave other tables' figures).
        if !set.model.tables.is_empty() {
            let ours: Vec<String> = set.model.tables.iter().map(|t| tail(&t.path)).collect();
            let theirs: Vec<String> = tables.iter().map(|t| tail(&t.path)).collect();
            if ours != theirs {
                return Err(ResolvedError::Invalid {
                    path: path.to_path_buf(),
                    message: format!(
                        "its learned reading (model.tables) names the tables {ours:?}, not \
                         {theirs:?} in that order"
                    ),
                });
            }
        }
        set.check_indices()
            .map_err(|message| ResolvedError::Invalid {
                path: path.to_path_buf(),
                message,
            })?;
        Ok(set)
    }

    /// That the indices inside the file agree with each other (a hand-edited or damaged file
    /// must give an error, not a panic when a word is read): every signature operand names
    /// an atom of its signature, every field's bit ranges lie within bits 0-127 (1-64 bits
    /// each), every recognizer has a class and its trees' leaves index its class list.
    fn check_indices(&self) -> Result<(), String> {
        for t in self.tables.iter().chain(&self.layouts) {
            for v in &t.variants {
                let atoms = v.signature.atoms.len();
                for op in &v.signature.operands {
                    if let Some(i) = op.atoms().into_iter().find(|&i| i >= atoms) {
                        return Err(format!(
                            "{} variant {}: a signature operand names atom {i} of {atoms}",
                            t.path, v.key
                        ));
                    }
                }
                for f in &v.fields {
                    for r in &f.ranges {
                        if r.len == 0 || r.len > 64 || u16::from(r.lo) + u16::from(r.len) > 128 {
                            return Err(format!(
                                "{} variant {} field `{}`: bit range {}+{} outside bits 0-127",
                                t.path, v.key, f.label, r.lo, r.len
                            ));
                        }
                    }
                }
            }
        }
        for tm in &self.model.tables {
            for r in tm.variants.iter().flatten() {
                let n = r.classes.len();
                let leaf = [&r.tree, &r.printing]
                    .into_iter()
                    .flatten()
                    .map(|t| usize::from(t.max_class()))
                    .max();
                if n == 0 || leaf.is_some_and(|c| c >= n) {
                    return Err(format!(
                        "{}: a variant's legality tree names class {} of {n}",
                        tm.path,
                        leaf.unwrap_or(0)
                    ));
                }
            }
        }
        Ok(())
    }

    /// Writes pretty JSON atomically (temp file + rename).
    pub fn write(&self, path: &std::path::Path) -> Result<(), ResolvedError> {
        let io = |source| ResolvedError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d).map_err(io)?;
        }
        let mut data = serde_json::to_vec_pretty(self).map_err(|e| io(std::io::Error::other(e)))?;
        data.push(b'\n');
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, data).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    /// Hand-edited resolved files that panicked `decode` (found by trying bad input): a
    /// signature operand naming an atom past the signature's, a recognizer with no class,
    /// a field past bit 127. Each is now an error naming the table and variant.
    #[test]
    fn a_resolved_file_whose_indices_disagree_is_refused() {
        let set: ResolvedSet = serde_json::from_slice(crate::locate::BUNDLED_RESOLVED).unwrap();
        assert_eq!(set.check_indices(), Ok(()));
        let mut bad = set.clone();
        bad.tables[0].variants[0].signature.operands[1] = crate::spec::SigOperand::Plain(57);
        let e = bad.check_indices().unwrap_err();
        assert!(e.contains("a signature operand names atom 57 of"), "{e}");
        let mut bad = set.clone();
        let r = bad.model.tables[0]
            .variants
            .iter_mut()
            .flatten()
            .next()
            .unwrap();
        r.classes.clear();
        let e = bad.check_indices().unwrap_err();
        assert!(e.contains("legality tree names class"), "{e}");
        let mut bad = set;
        bad.tables[0].variants[0].fields[0].ranges[0].lo = 124;
        bad.tables[0].variants[0].fields[0].ranges[0].len = 8;
        let e = bad.check_indices().unwrap_err();
        assert!(e.contains("bit range 124+8 outside bits 0-127"), "{e}");
    }

    use super::*;
    use crate::arch::Arch;
    use crate::oracle::Answer;

    /// nvdisasm 13.5.37's text for a word of SM80 ALD_R_A_R_N (synthesised table, which fixes
    /// bits 40-50 at 0): the 11-bit signed offset in bits 40-50 is printed after the address
    /// register, left out at 0 (`a[R0]`, `a[R0+0x1]`, `a[R0+-0x400]`).
    fn ald_text(w: u128) -> String {
        let off = (w >> 40 & 0x7ff) as i64;
        let off = if off >> 10 == 1 { off - (1 << 11) } else { off };
        let off = match off {
            0 => String::new(),
            o if o < 0 => format!("+-{:#x}", -o),
            o => format!("+{o:#x}"),
        };
        format!("@P0 ALD.P R0, a[R0{off}], ???0 ;")
    }

    /// The synthesised SM80 ALD table and the index of its variant ALD_R_A_R_N.
    pub(crate) fn ald_table() -> (Table, usize) {
        let text = include_str!("../../synth/SM80/ALD.txt");
        let t = crate::spec::parse_table("synth/SM80/ALD.txt", text).unwrap();
        let id = t
            .variants
            .iter()
            .position(|v| v.key == "ALD_R_A_R_N")
            .unwrap();
        (t, id)
    }

    /// The reading of variant `id` of the first table.
    fn reading_of(
        readings: &[(VariantId, super::super::flips::VariantReading)],
        id: usize,
    ) -> &super::super::flips::VariantReading {
        &readings
            .iter()
            .find(|(i, _)| i.variant as usize == id)
            .unwrap()
            .1
    }

    /// An SM80 answer for word `w`.
    fn entry(w: u128, answer: Answer) -> Entry {
        Entry {
            arch: Arch(80),
            word: w,
            answer,
        }
    }

    #[test]
    fn bits_whose_flip_adds_a_part_to_an_operand_become_an_operand_field() {
        let (t, id) = ald_table();
        let v = &t.variants[id];
        assert_eq!(
            v.fixed_mask >> 40 & 0x7ff,
            0x7ff,
            "the table fixes bits 40-50"
        );
        let fixed = v.fixed_value;
        let entries: Vec<Entry> = std::iter::once(fixed)
            .chain((40..=50).map(|b| fixed ^ 1 << b))
            .map(|w| Entry {
                arch: Arch(80),
                word: w,
                answer: Answer::Text(ald_text(w)),
            })
            .collect();
        let codec = Codec::new(vec![t]).unwrap();
        let answers = super::super::flips::Answers::new(&entries);
        let readings = super::super::flips::read_bits(&codec, &answers);
        let out = resolve_layouts(&codec, &readings);
        let v = &out[0].variants[id];
        let f = v.fields.iter().find(|f| f.mask() >> 40 & 1 == 1).unwrap();
        // Three signature operands (R, a[R], N): the offset is operand 3, bits 40-50 in order.
        assert_eq!(f.kind, FieldKind::Operand(3));
        assert_eq!(f.label, "operand 3");
        assert_eq!(f.mask(), 0x7ff << 40);
        assert_eq!(v.fixed_mask >> 40 & 0x7ff, 0);
        // A flip that prints a value of more than one bit (`+0x3`) adds no field; the bit is
        // left free, for the printer to learn what it prints (it prints another operand).
        let odd: Vec<Entry> = entries
            .iter()
            .map(|e| match e.word >> 41 & 1 {
                1 => Entry {
                    answer: Answer::Text("@P0 ALD.P R0, a[R0+0x3], ???0 ;".into()),
                    ..e.clone()
                },
                _ => e.clone(),
            })
            .collect();
        let answers = super::super::flips::Answers::new(&odd);
        let out = resolve_layouts(&codec, &super::super::flips::read_bits(&codec, &answers));
        let v = &out[0].variants[id];
        assert!(v.fields.iter().all(|f| f.mask() >> 40 & 0x7ff == 0));
        assert_eq!(v.fixed_mask >> 41 & 1, 0, "bit 41 is not fixed");
        assert_eq!(v.undescribed >> 41 & 1, 1, "bit 41 is left to the reading");
    }

    /// A fixed bit whose flip takes a modifier away (no field of the table prints it) is left
    /// free; a fixed bit nvdisasm refuses flipped stays fixed.
    #[test]
    fn a_fixed_bit_whose_flip_takes_a_modifier_away_is_left_free() {
        let (t, id) = ald_table();
        let fixed = t.variants[id].fixed_value;
        assert_eq!(
            t.variants[id].fixed_mask >> 60 & 3,
            3,
            "the table fixes bits 60-61"
        );
        let entries = vec![
            entry(fixed, Answer::Text(ald_text(fixed))),
            entry(
                fixed ^ 1 << 60,
                Answer::Text("@P0 ALD R0, a[R0], ???0 ;".into()),
            ),
            entry(
                fixed ^ 1 << 61,
                Answer::Illegal("Unrecognized operation".into()),
            ),
        ];
        let codec = Codec::new(vec![t]).unwrap();
        let answers = super::super::flips::Answers::new(&entries);
        let out = resolve_layouts(&codec, &super::super::flips::read_bits(&codec, &answers));
        let v = &out[0].variants[id];
        assert_eq!(v.fixed_mask >> 60 & 1, 0, "bit 60 is no longer fixed");
        assert_eq!(v.undescribed >> 60 & 1, 1, "bit 60 is left to the reading");
        assert_eq!(v.fixed_mask >> 61 & 1, 1, "bit 61 stays fixed");
    }

    /// A fixed bit whose flip prints an operand no field describes, the mnemonic kept, is left
    /// free (nvdisasm 13.5.37 on the synthesised SM90 UFLO: bits 81-83, fixed at 7 (`UPT`,
    /// left out), print `UP6, ` before the source flipped one at a time); one whose flip names
    /// another instruction stays fixed.
    #[test]
    fn a_fixed_bit_whose_flip_prints_another_operand_is_left_free() {
        let text = include_str!("../../synth/SM90/UFLO.txt");
        let t = crate::spec::parse_table("synth/SM90/UFLO.txt", text).unwrap();
        let v = &t.variants[0];
        let fixed = v.fixed_value;
        assert_eq!(v.fixed_mask >> 81 & 7, 7, "the table fixes bits 81-83");
        assert_eq!(fixed >> 81 & 7, 7, "at 7");
        let sm90 = |w: u128, answer: Answer| Entry {
            arch: Arch(90),
            word: w,
            answer,
        };
        let entries = vec![
            sm90(fixed, Answer::Text("@UP0 UFLO.U32 UR0, UR0;".into())),
            sm90(
                fixed ^ 1 << 81,
                Answer::Text("@UP0 UFLO.U32 UR0, UP6, UR0;".into()),
            ),
            sm90(
                fixed ^ 1 << 82,
                Answer::Text("@UP0 UFLO.U32 UR0, UP5, UR0;".into()),
            ),
            sm90(fixed ^ 1 << 83, Answer::Text("@UP0 UBREV UR0, UR0;".into())),
        ];
        let codec = Codec::new(vec![t.clone()]).unwrap();
        let answers = super::super::flips::Answers::new(&entries);
        let out = resolve_layouts(&codec, &super::super::flips::read_bits(&codec, &answers));
        let r = &out[0].variants[0];
        assert_eq!(r.fixed_mask >> 81 & 3, 0, "bits 81-82 are no longer fixed");
        assert_eq!(
            r.undescribed >> 81 & 3,
            3,
            "bits 81-82 are left to the reading"
        );
        assert_eq!(
            r.fixed_mask >> 83 & 1,
            1,
            "bit 83 (another mnemonic) stays fixed"
        );
    }

    /// Parts that nvdisasm leaves out of a bracketed operand at their defaults become fields:
    /// a register fixed at its zero register (flipping one bit prints the register without
    /// that bit) and an offset fixed at 0 (nvdisasm 13.5.37 on the synthesised SM80 ATOMS,
    /// `ATOMS_R_UR`: bits 24-31 fixed at 255, bits 40-63 at 0, `[UR0]`). Before, both were
    /// left free bit by bit and the printer learned the operand as one table of values.
    #[test]
    fn parts_left_out_of_a_bracketed_operand_become_fields() {
        let text = include_str!("../../synth/SM80/ATOMS.txt");
        let t = crate::spec::parse_table("synth/SM80/ATOMS.txt", text).unwrap();
        let id = t
            .variants
            .iter()
            .position(|v| v.key == "ATOMS_R_UR")
            .unwrap();
        let fixed = t.variants[id].fixed_value;
        assert_eq!(
            fixed >> 24 & 0xff,
            0xff,
            "the table fixes bits 24-31 at 255"
        );
        assert_eq!(t.variants[id].fixed_mask >> 40 & 0xff_ffff, 0xff_ffff);
        let line = |op: &str| Answer::Text(format!("@P0 ATOMS.ARRIVE.???0 R0, [{op}] ;"));
        let sm80 = |w: u128, answer: Answer| Entry {
            arch: Arch(80),
            word: w,
            answer,
        };
        let mut entries = vec![sm80(fixed, line("UR0"))];
        for j in 0..8 {
            let r = 255 ^ 1 << j;
            entries.push(sm80(fixed ^ 1 << (24 + j), line(&format!("R{r}+UR0"))));
        }
        for j in 0..24 {
            let off = if j == 23 {
                "-0x800000".to_string()
            } else {
                format!("{:#x}", 1u32 << j)
            };
            entries.push(sm80(fixed ^ 1 << (40 + j), line(&format!("UR0+{off}"))));
        }
        let codec = Codec::new(vec![t.clone()]).unwrap();
        let answers = super::super::flips::Answers::new(&entries);
        let out = resolve_layouts(&codec, &super::super::flips::read_bits(&codec, &answers));
        let v = &out[0].variants[id];
        let field = |lo: u8| v.fields.iter().find(|f| f.ranges[0].lo == lo).unwrap();
        assert_eq!(field(24).mask(), 0xff << 24, "the register, bits 24-31");
        assert_eq!(field(40).mask(), 0xff_ffff << 40, "the offset, bits 40-63");
        assert!(matches!(field(24).kind, FieldKind::Operand(_)));
        assert!(matches!(field(40).kind, FieldKind::Operand(_)));
        assert_ne!(field(24).kind, field(40).kind);
        assert_eq!(v.fixed_mask >> 24 & 0xff, 0);
        assert_eq!(v.fixed_mask >> 40 & 0xff_ffff, 0);
    }

    /// A variant whose fixed word nvdisasm refuses is read around the fixed bit whose flip
    /// alone nvdisasm prints with the table's mnemonic (not one that names another
    /// instruction): that bit takes the neighbour's value and the bits around it are read.
    #[test]
    fn a_refused_fixed_word_is_read_around_its_legal_neighbour() {
        let (t, id) = ald_table();
        let fixed = t.variants[id].fixed_value;
        assert_eq!(t.variants[id].fixed_mask >> 60 & 3, 3);
        let refused = fixed ^ 1 << 61;
        let mut entries = vec![
            entry(refused, Answer::Illegal("Unrecognized operation".into())),
            // Another instruction, and ALD with fewer of the distilled line's tokens.
            entry(
                refused ^ 1 << 60,
                Answer::Text("@P0 AST a[R0], R0 ;".into()),
            ),
            entry(refused ^ 1 << 62, Answer::Text("@P0 ALD R9, [R1] ;".into())),
            // The neighbour: the word as the synthesised table has it.
            entry(fixed, Answer::Text(ald_text(fixed))),
        ];
        // Around the neighbour: bits 40-50 add an offset, as the table's own fixed word.
        entries.extend(
            (40..=50).map(|b| entry(fixed ^ 1 << b, Answer::Text(ald_text(fixed ^ 1 << b)))),
        );
        let mut broken = t.clone();
        broken.variants[id].fixed_value = refused;
        let codec = Codec::new(vec![broken]).unwrap();
        let answers = super::super::flips::Answers::new(&entries);
        let v = codec.variant(VariantId {
            table: 0,
            variant: id as u16,
        });
        assert_eq!(
            super::super::flips::rebase_centre(v, "ALD", Arch(80), &answers).map(|c| c.0),
            Some(fixed)
        );
        let readings = super::super::flips::read_bits(&codec, &answers);
        let vr = reading_of(&readings, id);
        assert!(vr.base_legal);
        assert_eq!(vr.centre, Some(fixed));
        assert_eq!(vr.base.nvdisasm, "@P0 ALD.P R0, a[R0], ???0 ;");
        assert_eq!(vr.refused.as_ref().unwrap().word, Word(refused).to_string());
        let out = resolve_layouts(&codec, &readings);
        let v = &out[0].variants[id];
        assert_eq!(
            v.fixed_value >> 61 & 1,
            fixed >> 61 & 1,
            "bit 61 takes the neighbour's value"
        );
        assert_eq!(v.fixed_mask >> 61 & 1, 1);
        let f = v.fields.iter().find(|f| f.mask() >> 40 & 1 == 1).unwrap();
        assert_eq!(
            f.kind,
            FieldKind::Operand(3),
            "bits 40-50 read around the neighbour"
        );
        // No flip of a fixed bit prints ALD: kept as the table has it, unread.
        let alone = &entries[..2];
        assert_eq!(alone[1].word, refused ^ 1 << 60);
        let answers = super::super::flips::Answers::new(alone);
        let readings = super::super::flips::read_bits(&codec, &answers);
        assert!(!readings[0].1.base_legal);
        assert_eq!(
            resolve_layouts(&codec, &readings)[0].variants[id].fixed_value,
            refused
        );
    }

    /// A fixed word nvdisasm refuses for its zero fields (nv_isa_solver's SM103 BPT page: both
    /// scoreboard barriers 0) is read around its quiet word when nvdisasm prints that with the
    /// table's mnemonic; the fixed bits stay the table's and the barrier fields stay fields.
    #[test]
    fn a_fixed_word_refused_for_its_zero_fields_is_read_around_its_quiet_word() {
        let (t, id) = ald_table();
        let v = &t.variants[id];
        let fixed = v.fixed_value;
        let quiet = crate::reading::semicolon::quiet_word(v).unwrap();
        assert_ne!(quiet, fixed, "the quiet word sets the barrier fields");
        let mut entries = vec![
            entry(fixed, Answer::Illegal("Unrecognized operation".into())),
            entry(quiet, Answer::Text("@P0 ALD.P R0, a[R0], ???0;".into())),
        ];
        entries.extend(
            (40..=50).map(|b| entry(quiet ^ 1 << b, Answer::Text(ald_text(quiet ^ 1 << b)))),
        );
        let codec = Codec::new(vec![t.clone()]).unwrap();
        let answers = super::super::flips::Answers::new(&entries);
        let want = super::super::flips::rebase_words(v, "ALD", Arch(80), &answers);
        assert_eq!(
            want.len(),
            128 - 11,
            "the quiet word's flips not yet recorded"
        );
        let readings = super::super::flips::read_bits(&codec, &answers);
        let vr = reading_of(&readings, id);
        assert_eq!(vr.centre, Some(quiet));
        let out = resolve_layouts(&codec, &readings);
        let r = &out[0].variants[id];
        assert_eq!(r.fixed_value & r.fixed_mask & !v.fixed_mask, 0);
        let f = r.fields.iter().find(|f| f.mask() >> 40 & 1 == 1).unwrap();
        assert_eq!(
            f.kind,
            FieldKind::Operand(3),
            "bits 40-50 read around the quiet word"
        );
        assert_eq!(
            r.fixed_mask & (quiet ^ fixed),
            0,
            "the barrier fields stay fields"
        );
        assert_eq!(r.fixed_mask, v.fixed_mask & !(0x7ff << 40));
    }

    /// A bit whose flip changes only the space before `;` (nv_isa_solver's SM103 UPRMT page,
    /// bit 102: `@UP0 UPRMT UR0, UR0, UR0, UR0 ;` for `...UR0;`) reads as the same text: the
    /// table's fixed bit is left free (the `;` learner reads it), not kept fixed, so the reading
    /// no longer refuses the words that set it.
    #[test]
    fn a_bit_that_only_spaces_the_semicolon_is_not_fixed() {
        let (t, id) = ald_table();
        let fixed = t.variants[id].fixed_value;
        let entry = |w: u128, text: &str| Entry {
            arch: Arch(80),
            word: w,
            answer: Answer::Text(text.into()),
        };
        let entries = vec![
            entry(fixed, "@P0 ALD.P R0, a[R0], ???0;"),
            entry(fixed ^ 1 << 62, "@P0 ALD.P R0, a[R0], ???0 ;"),
        ];
        let codec = Codec::new(vec![t]).unwrap();
        let answers = super::super::flips::Answers::new(&entries);
        let readings = super::super::flips::read_bits(&codec, &answers);
        let vr = reading_of(&readings, id);
        let r = vr.bits.iter().find(|r| r.bit == 62).unwrap();
        assert_eq!(r.effect, super::super::flips::Effect::Same);
        let out = resolve_layouts(&codec, &readings);
        assert_eq!(
            out[0].variants[id].fixed_mask >> 62 & 1,
            0,
            "bit 62 left free"
        );
    }
}
