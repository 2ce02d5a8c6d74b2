//! Render a decoded word as nvdisasm-syntax text: guard, mnemonic with modifiers, operands.
//!
//! Conventions checked against nvdisasm 13.5 on SM100 TLD words (oracle/): `@P0 ` guard, no
//! guard for PT, `@!PT` when negated; `RZ` for register 255; `URZ` for an all-ones uniform
//! register field; a destination predicate of PT is left out; immediates in lowercase hex
//! (`0x0`); texture dimensions `1D`, `2D`, `3D`, `ARRAY_1D`, ... by a 3-bit code; modifiers
//! joined with `.`; operands with `, `; the line ends ` ;`. The order in which modifiers print is
//! taken from the variant's distilled line where the table's fixed word shows it.

use crate::arch::Arch;
use crate::codec::{Codec, Decoded, VariantId, field_group};
use crate::spec::{Field, FieldKind, GroupKind, ModifierName, OperandKind, SigOperand, Variant};

/// One piece of the mnemonic, in print order.
#[derive(Debug, Clone)]
enum ModSource {
    /// A fixed suffix of the title (`LOD` of `TMML.LOD`).
    Title(String),
    /// A modifier field (index into the variant's fields).
    Group(usize),
    /// A one-bit flag field printed as its label when set.
    Flag(usize),
}

/// How one atomic operand prints.
#[derive(Debug, Clone)]
struct AtomPlan {
    kind: OperandKind,
    /// The `operand N` field, if the layout has one.
    field: Option<usize>,
    /// The distilled line's text for this operand (fallback when there is no field).
    distilled: Option<String>,
    /// Whether this is the first written operand (a PT destination predicate is left out).
    first: bool,
    /// Dimension code of value 0 (index into [`DIMS`]).
    dim_base: usize,
    /// The field's printed-name overrides (resolved readings).
    names: std::collections::BTreeMap<u64, String>,
    /// The field's width when nvdisasm prints it as a signed number.
    signed_width: Option<u32>,
}

/// Fields up to this wide get the text of every value worked out when the plan is built.
const TABLED_BITS: u32 = 8;

/// One piece of the mnemonic, in print order, its text worked out once where it can be.
#[derive(Debug, Clone)]
enum ModPiece {
    /// Text printed whatever the values (`.LOD` of `TMML.LOD`).
    Fixed(String),
    /// A modifier or flag field: `texts[value]`, each with its leading `.` (or empty when the
    /// value prints nothing); worked out from `source` per word for values past `texts`
    /// (every value of a field wider than [`TABLED_BITS`]).
    Field {
        source: ModSource,
        field: usize,
        texts: Vec<String>,
    },
}

/// Per-variant rendering plan, built once.
#[derive(Debug, Clone)]
struct Plan {
    base: String,
    guard: Option<usize>,
    mods: Vec<ModPiece>,
    atoms: Vec<AtomPlan>,
    operand_modifier: Option<OperandModifier>,
    /// Fields whose names also read context bits (see [`crate::spec::Field::context`]).
    context: Vec<usize>,
    /// Whether some atom has a learned `desc[...]` name (SM80 LD bits 76 and 101).
    desc: bool,
    /// Word bits of the operand modifier field (`.64`/`.U32` on the base register), or 0.
    opmod_mask: u128,
    /// The variant's quiet scheduling control, (mask, value): see [`quiet_control`].
    quiet: Option<(u128, u128)>,
}

/// The `modi` field printed on the first atom of a memory operand (`[R0.U32+UR0]`).
#[derive(Debug, Clone)]
struct OperandModifier {
    field: usize,
    /// Per value: the suffix, `.U32` or empty (worked out per word past the end, as for
    /// [`ModPiece::Field`]).
    suffixes: Vec<String>,
}

impl OperandModifier {
    /// The suffix the word's modifier value prints (`.U32`, `.64` or empty): tabled per
    /// value, or worked out for a value past the table.
    fn suffix(&self, v: &Variant, vals: &[u64]) -> std::borrow::Cow<'_, str> {
        match self.suffixes.get(vals[self.field] as usize) {
            Some(t) => std::borrow::Cow::Borrowed(t),
            None => std::borrow::Cow::Owned(operand_suffix(v, self.field, vals[self.field])),
        }
    }
}

/// Texture dimension names by 3-bit code (SM100 TLD/TEX: bit 2 selects ARRAY).
pub const DIMS: [&str; 8] = [
    "1D",
    "2D",
    "3D",
    "CUBE",
    "ARRAY_1D",
    "ARRAY_2D",
    "ARRAY_3D",
    "ARRAY_CUBE",
];

/// Renders decoded words of one [`Codec`]; plans are built once per variant.
#[derive(Debug)]
pub struct Renderer {
    plans: Vec<Vec<Plan>>,
}

impl Renderer {
    /// Builds a plan for every variant of `codec`.
    pub fn new(codec: &Codec) -> Renderer {
        let plans = codec
            .tables
            .iter()
            .map(|t| t.variants.iter().map(|v| plan(v, t.arch)).collect())
            .collect();
        Renderer { plans }
    }

    /// Text of a decoded word, e.g. `@P0 TLD.LZ.EF P0, R0, R0, R0, R0, UR0, 1D, 0x0 ;`.
    pub fn render(&self, codec: &Codec, d: &Decoded) -> String {
        let mut s = String::with_capacity(64);
        self.render_into(codec, d, &mut s);
        s
    }

    /// Appends the text of a decoded word to `out` (no allocation when `out` has room).
    pub fn render_into(&self, codec: &Codec, d: &Decoded, out: &mut String) {
        let v = codec.variant(d.id);
        if let Some(printer) = &v.printer {
            printer.print_into(d.word.0, out);
            return;
        }
        let p = &self.plans[d.id.table as usize][d.id.variant as usize];
        let mut keyed = [0u64; crate::spec::MAX_FIELDS];
        let vals = if p.context.is_empty() {
            d.values()
        } else {
            keyed[..d.n_fields].copy_from_slice(d.values());
            for &i in &p.context {
                keyed[i] = v.fields[i].name_key(keyed[i], d.word.0);
            }
            if p.opmod_mask != 0 && base_left_out(p, v, &keyed[..d.n_fields]) {
                // The base register is not written, nor its operand modifier: a modifier
                // that reads the modifier's bits as context reads them as 0 (SM80 LD bit 90:
                // `LD.EF.U8 R0, [UR0]`, not `LD.???0.EF.U8`; campaign seed 11).
                let word = d.word.0 & !p.opmod_mask;
                for &i in &p.context {
                    if v.fields[i]
                        .context
                        .iter()
                        .any(|r| r.mask() & p.opmod_mask != 0)
                    {
                        keyed[i] = v.fields[i].name_key(d.values()[i], word);
                    }
                }
            }
            &keyed[..d.n_fields]
        };
        if let Some(g) = p.guard {
            guard(vals[g], out);
        }
        out.push_str(&p.base);
        for m in &p.mods {
            match m {
                ModPiece::Fixed(t) => out.push_str(t),
                ModPiece::Field {
                    source,
                    field,
                    texts,
                } => match texts.get(vals[*field] as usize) {
                    // Most values of most fields print nothing: no copy call for them.
                    Some(t) if t.is_empty() => {}
                    Some(t) => out.push_str(t),
                    None => modifier(v, source, vals, out),
                },
            }
        }
        let mut first = true;
        for op in &v.signature.operands {
            let start = out.len();
            out.push_str(if first { " " } else { ", " });
            let printed = match op {
                SigOperand::Plain(i) => atom(&p.atoms[*i], vals, None, out),
                SigOperand::Memory(ids) => memory(p, v, ids, vals, out),
                // Constant-bank forms (`c[0x3][R2+0x10]`): bracket groups as written.
                SigOperand::Bracketed { prefix, groups } => {
                    out.push_str(prefix);
                    for g in groups {
                        out.push('[');
                        for (k, &i) in g.iter().enumerate() {
                            if k > 0 {
                                out.push('+');
                            }
                            atom(&p.atoms[i], vals, None, out);
                        }
                        out.push(']');
                    }
                    true
                }
            };
            if printed {
                first = false;
            } else {
                out.truncate(start);
            }
        }
        // nvdisasm writes `;` right after the text when the control is quiet.
        match p.quiet {
            Some((mask, value)) if d.word.0 & mask == value => out.push(';'),
            _ => out.push_str(" ;"),
        }
    }

    /// Renders the word of `id` with the given field values.
    pub fn render_values(&self, codec: &Codec, id: VariantId, values: &[u64]) -> String {
        let mut d = codec
            .decode_as(id, crate::codec::Word(codec.variant(id).fixed_value))
            .expect("fixed word matches its own variant");
        d.values[..values.len()].copy_from_slice(values);
        self.render(codec, &d)
    }
}

fn guard(v: u64, out: &mut String) {
    let (reg, neg) = (v & 7, v >> 3 & 1 == 1);
    match (reg, neg) {
        (7, false) => {}
        (7, true) => out.push_str("@!PT "),
        _ => {
            out.push_str(if neg { "@!P" } else { "@P" });
            push_decimal(out, reg);
            out.push(' ');
        }
    }
}

fn modifier(v: &Variant, m: &ModSource, vals: &[u64], out: &mut String) {
    match m {
        ModSource::Title(t) => {
            out.push('.');
            out.push_str(t);
        }
        ModSource::Flag(i) | ModSource::Group(i) if v.fields[*i].names.contains_key(&vals[*i]) => {
            let n = &v.fields[*i].names[&vals[*i]];
            if !n.is_empty() {
                out.push('.');
                out.push_str(n);
            }
        }
        ModSource::Flag(i) => {
            if vals[*i] != 0 {
                out.push('.');
                out.push_str(&v.fields[*i].label);
            }
        }
        ModSource::Group(i) => {
            let f = &v.fields[*i];
            let val = vals[*i];
            let Some(group) = field_group(v, f) else {
                return; // a `modi N` with no table: nothing to print
            };
            match group.lookup(val as u32).map(|r| &r.name) {
                Some(ModifierName::Default) => {}
                Some(ModifierName::Named(n)) => {
                    out.push('.');
                    out.push_str(n);
                }
                Some(ModifierName::Invalid(n)) => {
                    out.push_str(".INVALID");
                    push_decimal(out, *n as u64);
                }
                Some(ModifierName::Unknown(n)) => {
                    out.push_str(".???");
                    push_decimal(out, *n as u64);
                }
                None => {
                    out.push_str(".???");
                    push_decimal(out, val);
                }
            }
        }
    }
}

/// The modifier text field `fi` of `v` prints for `val`, tokens joined with `.` and no leading
/// dot ("" when it prints nothing), as [`Renderer`] prints it: the learned name, else the
/// modifier table's name (a flag field prints its label when set).
pub fn field_modifier_text(v: &Variant, fi: usize, val: u64) -> String {
    let m = match v.fields[fi].kind {
        FieldKind::Modifier(_) => ModSource::Group(fi),
        _ => ModSource::Flag(fi),
    };
    let mut vals = vec![0u64; v.fields.len()];
    vals[fi] = val;
    let mut s = String::new();
    modifier(v, &m, &vals, &mut s);
    s.strip_prefix('.').unwrap_or(&s).to_string()
}

/// Writes one atomic operand; returns false when nvdisasm leaves it out (PT destination).
fn atom(a: &AtomPlan, vals: &[u64], suffix: Option<&str>, out: &mut String) -> bool {
    let Some(fi) = a.field else {
        out.push_str(a.distilled.as_deref().unwrap_or("???"));
        return true;
    };
    let v = vals[fi];
    if let Some(name) = a.names.get(&v) {
        if name.is_empty() {
            return false;
        }
        out.push_str(name);
        if let Some(s) = suffix {
            out.push_str(s);
        }
        return true;
    }
    match &a.kind {
        OperandKind::Pred if v == 7 && a.first => return false,
        OperandKind::Pred if v == 7 => out.push_str("PT"),
        OperandKind::Pred => {
            out.push('P');
            push_decimal(out, v);
        }
        OperandKind::Reg if v == 255 => out.push_str("RZ"),
        OperandKind::Reg => {
            out.push('R');
            push_decimal(out, v);
        }
        OperandKind::UniformReg if v == 255 => out.push_str("URZ"),
        OperandKind::UniformReg => {
            out.push_str("UR");
            push_decimal(out, v);
        }
        OperandKind::Dim | OperandKind::ArrayDim | OperandKind::Snowflake => {
            let code = a.dim_base + v as usize;
            match DIMS.get(code) {
                Some(n) if code != 6 => out.push_str(n),
                _ => {
                    out.push_str("INVALID");
                    push_decimal(out, code as u64);
                }
            }
        }
        OperandKind::Imm | OperandKind::Other(_) => match a.signed_width {
            Some(w) if w < 64 && v >> (w - 1) & 1 == 1 => {
                out.push('-');
                push_hex(out, (1u64 << w) - v);
            }
            _ => push_hex(out, v),
        },
    }
    if let Some(s) = suffix {
        out.push_str(s);
    }
    true
}

/// Appends `v` in decimal (as `{v}` formats it). Up to three digits (every register number)
/// are pushed one by one: no copy call for a string of one to three bytes.
fn push_decimal(out: &mut String, v: u64) {
    let digit = |d: u64| char::from(b'0' + d as u8);
    match v {
        0..10 => out.push(digit(v)),
        10..100 => {
            out.push(digit(v / 10));
            out.push(digit(v % 10));
        }
        100..1000 => {
            out.push(digit(v / 100));
            out.push(digit(v / 10 % 10));
            out.push(digit(v % 10));
        }
        _ => {
            let mut digits = [0u8; 20];
            let (mut at, mut v) = (digits.len(), v);
            while v > 0 {
                at -= 1;
                digits[at] = b'0' + (v % 10) as u8;
                v /= 10;
            }
            out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
        }
    }
}

#[cfg(test)]
#[test]
fn decimals_print_as_format_does() {
    for v in [
        0,
        1,
        9,
        10,
        99,
        100,
        255,
        999,
        1000,
        4095,
        65_536,
        u64::MAX / 3,
        u64::MAX,
    ] {
        let mut s = String::from("R");
        push_decimal(&mut s, v);
        assert_eq!(s, format!("R{v}"));
    }
}

/// Appends `v` in lowercase hex with `0x` (as `{v:#x}` formats it).
fn push_hex(out: &mut String, v: u64) {
    out.push_str("0x");
    let digits = (64 - v.leading_zeros()).div_ceil(4).max(1);
    for i in (0..digits).rev() {
        let d = ((v >> (4 * i)) & 0xf) as u32;
        out.push(char::from_digit(d, 16).unwrap_or('?'));
    }
}

fn memory(p: &Plan, v: &Variant, ids: &[usize], vals: &[u64], out: &mut String) -> bool {
    let open = out.len();
    out.push('[');
    let mut printed = 0;
    // With a descriptor, nvdisasm writes the base register even at RZ, and the offset after it
    // signed (`desc[UR46][RZ.64+-0x6b075c]`; oracle/combos/learn/SM80-LD.tsv).
    let desc = p.desc
        && ids.iter().any(|&i| {
            let a = &p.atoms[i];
            a.field
                .and_then(|f| a.names.get(&vals[f]))
                .is_some_and(|n| n.starts_with("desc["))
        });
    let keep_base = desc || suffixed_base_alone(p, v, ids, vals);
    if keep_base {
        first_atom_plain(p, v, ids, vals, out);
        printed += 1;
    }
    for (k, &i) in ids.iter().enumerate() {
        if keep_base && k == 0 {
            continue;
        }
        let start = out.len();
        if printed > 0 {
            out.push('+');
        }
        let suffix = match &p.operand_modifier {
            Some(m) if k == 0 && ids.len() > 1 => Some(m.suffix(v, vals)),
            _ => None,
        };
        let a = &p.atoms[i];
        if printed == 0
            && a.signed_width.is_some()
            && k + 1 == ids.len()
            && let Some(fi) = a.field
            && !a.names.contains_key(&vals[fi])
        {
            // An offset alone in the brackets is an absolute address, printed unsigned
            // (SM80 LD `[0xa422eb98]`, not `[-0x5bdd1468]`; oracle/combos/check/SM80-LD.tsv).
            push_hex(out, vals[fi]);
            printed += 1;
            continue;
        }
        if atom(a, vals, suffix.as_deref(), out) {
            let at = start + usize::from(printed > 0);
            if out[at..].starts_with("desc[") {
                // A descriptor operand (SM80 LD bits 76 and 101, learned): nvdisasm writes it
                // before the brackets, `desc[UR4][R2.64+0x210]`.
                let desc = out.split_off(at);
                out.truncate(start);
                out.insert_str(open, &desc);
            } else {
                printed += 1;
            }
        } else {
            // Left out (a base register RZ, an offset 0): no `+` for it.
            out.truncate(start);
        }
    }
    if printed == 0 {
        first_atom_plain(p, v, ids, vals, out);
    }
    out.push(']');
    true
}

/// The learned names of field `f` that differ from what the plain rule prints for the key
/// (a resolved register field names every value `R0`..`RZ`; only the exceptions need a
/// lookup when rendering).
fn unplain_names(
    plan: &AtomPlan,
    f: usize,
    n_fields: usize,
    names: &std::collections::BTreeMap<u64, String>,
) -> std::collections::BTreeMap<u64, String> {
    let mut vals = vec![0u64; n_fields];
    let mut text = String::new();
    names
        .iter()
        .filter(|(k, name)| {
            vals[f] = **k;
            text.clear();
            !atom(plan, &vals, None, &mut text) || text != **name
        })
        .map(|(k, name)| (*k, name.clone()))
        .collect()
}

/// Whether the base register, learned as left out at this value (RZ), is written anyway: it
/// carries an operand modifier suffix (`.64`) and no uniform register is written after it
/// (SM80 LD with bit 76: `[RZ.64+0x1]`; with a uniform register `[UR0]`; campaign seed 11).
fn suffixed_base_alone(p: &Plan, v: &Variant, ids: &[usize], vals: &[u64]) -> bool {
    let (Some(&first), Some(m)) = (ids.first(), &p.operand_modifier) else {
        return false;
    };
    let a = &p.atoms[first];
    let left_out = a
        .field
        .and_then(|f| a.names.get(&vals[f]))
        .is_some_and(String::is_empty);
    let suffixed = !m.suffix(v, vals).is_empty();
    let ur_written = ids[1..].iter().any(|&i| {
        let b = &p.atoms[i];
        b.kind == OperandKind::UniformReg
            && b.field
                .is_some_and(|f| b.names.get(&vals[f]).is_none_or(|n| !n.is_empty()))
    });
    ids.len() > 1 && left_out && suffixed && !ur_written
}

/// Whether a memory operand's base register is left out while a uniform register is written
/// after it (`[UR0]`); `vals` keyed as the names are.
fn base_left_out(p: &Plan, v: &Variant, vals: &[u64]) -> bool {
    let name = |i: usize| {
        let a = &p.atoms[i];
        a.field.and_then(|f| a.names.get(&vals[f]))
    };
    v.signature.operands.iter().any(|op| match op {
        SigOperand::Memory(ids) if ids.len() > 1 => {
            name(ids[0]).is_some_and(String::is_empty)
                && ids[1..].iter().any(|&i| {
                    p.atoms[i].kind == OperandKind::UniformReg
                        && p.atoms[i].field.is_some()
                        && name(i).is_none_or(|n| !n.is_empty() && !n.starts_with("desc["))
                })
        }
        _ => false,
    })
}

/// nvdisasm never writes empty brackets: when every atom of a memory operand is left out it
/// writes the first one by the plain rule, with its operand modifier (SM80 LD `[RZ]`,
/// `desc[UR53][RZ.64]`; oracle/combos/check/SM80-LD.tsv).
fn first_atom_plain(p: &Plan, v: &Variant, ids: &[usize], vals: &[u64], out: &mut String) {
    let Some(a) = ids.first().map(|&i| &p.atoms[i]) else {
        return;
    };
    let Some(fi) = a.field else {
        return;
    };
    let plain = AtomPlan {
        names: std::collections::BTreeMap::new(),
        ..a.clone()
    };
    let mut raw = vals.to_vec();
    let w = v.fields[fi].width();
    if w < 64 {
        raw[fi] &= (1u64 << w) - 1;
    }
    let suffix = match &p.operand_modifier {
        Some(m) if ids.len() > 1 => m.suffix(v, vals),
        _ => std::borrow::Cow::Borrowed(""),
    };
    atom(&plain, &raw, Some(&suffix), out);
}

/// The suffix the operand modifier field `mi` prints for `value` (`.U32`, or empty).
fn operand_suffix(v: &Variant, mi: usize, value: u64) -> String {
    match field_group(v, &v.fields[mi])
        .and_then(|g| g.lookup(value as u32))
        .map(|r| &r.name)
    {
        Some(ModifierName::Named(n)) => format!(".{n}"),
        _ => String::new(),
    }
}

/// The texts of every value of field `i`, one per value (none when the field is wider than
/// [`TABLED_BITS`]).
fn value_texts(v: &Variant, i: usize, text: impl Fn(&[u64]) -> String) -> Vec<String> {
    let width = v.fields[i].width();
    if width > TABLED_BITS {
        return Vec::new();
    }
    let mut vals = vec![0u64; v.fields.len()];
    (0..1u64 << width)
        .map(|val| {
            vals[i] = val;
            text(&vals)
        })
        .collect()
}

/// A modifier source with its texts worked out where the field is narrow enough.
fn mod_piece(v: &Variant, m: ModSource) -> ModPiece {
    let (ModSource::Group(i) | ModSource::Flag(i)) = m else {
        let mut s = String::new();
        modifier(v, &m, &[], &mut s);
        return ModPiece::Fixed(s);
    };
    if !v.fields[i].context.is_empty() {
        // Names keyed with context bits: worked out per word.
        return ModPiece::Field {
            source: m,
            field: i,
            texts: Vec::new(),
        };
    }
    let texts = value_texts(v, i, |vals| {
        let mut s = String::new();
        modifier(v, &m, vals, &mut s);
        s
    });
    ModPiece::Field {
        source: m,
        field: i,
        texts,
    }
}

/// Builds the plan of one variant from its fields, signature and distilled line.
/// The scheduling control after which nvdisasm writes the `;` without a space before it, as
/// (mask, value) over the word: stall 0, yield 0, both scoreboard barriers at 7 (all ones:
/// none), wait mask 0 (the variant's `stall`, `y`, `r-bar`, `w-bar` and `b-mask` fields,
/// bits 105-121 = `0x7e0`), and on SM90 and later also bits 102-103 at 0 (no table field
/// covers them). Measured with nvdisasm 13.5.37 in raw mode, flipping every bit of a word
/// printed so: SM80 `LD ... [R69.U32+UR43+0x5514fe];` (`400fc1954bdca7905514feeb45230980`)
/// gets its space back from any of bits 105-108 and 110-121 (109 and 122-124 make it
/// illegal), not from 96-104 or 125-127; SM90 TMML and SM100 TEX and `EXIT` from bits 102
/// and 103 as well. `None` when the variant lacks one of the fields.
fn quiet_control(v: &Variant, arch: Option<Arch>) -> Option<(u128, u128)> {
    use crate::spec::SchedKind::*;
    let (mut mask, mut value) = (0u128, 0u128);
    for kind in [Stall, Yield, ReadBarrier, WriteBarrier, WaitMask] {
        let f = v.fields.iter().find(|f| f.kind == FieldKind::Sched(kind))?;
        mask |= f.mask();
        if matches!(kind, ReadBarrier | WriteBarrier) {
            value |= f.mask();
        }
    }
    if arch.is_some_and(|a| a >= Arch(90)) {
        mask |= 0b11 << 102;
    }
    Some((mask, value))
}

fn plan(v: &Variant, arch: Option<Arch>) -> Plan {
    let (base, title_mods) = split_title(&v.title);
    let dist_mods = distilled_modifiers(&v.distilled);
    let dist_ops = distilled_operands(&v.distilled);
    let mut keyed: Vec<(f64, ModSource)> = Vec::new();
    for t in title_mods {
        let pos = find_seq(&dist_mods, &t).map_or(-1.0, |p| p as f64);
        keyed.push((pos, ModSource::Title(t)));
    }
    let mut last = -0.5;
    for (i, f) in v.fields.iter().enumerate() {
        match &f.kind {
            FieldKind::Modifier(_) => {
                let shown = zero_name(v, f).and_then(|n| find_seq(&dist_mods, &n));
                let pos = match shown {
                    Some(p) => p as f64,
                    None => last + 0.01,
                };
                last = pos;
                keyed.push((pos, ModSource::Group(i)));
            }
            FieldKind::Flag(l) if f.width() == 1 => {
                let pos = if l == "SCR" { -0.9 } else { 1000.0 + i as f64 };
                keyed.push((pos, ModSource::Flag(i)));
            }
            _ => {}
        }
    }
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
    if !v.print_order.is_empty() {
        keyed = ordered_sources(v);
    }
    let atoms: Vec<AtomPlan> = v
        .signature
        .atoms
        .iter()
        .enumerate()
        .map(|(n, k)| {
            let field = v
                .fields
                .iter()
                .position(|f| f.kind == FieldKind::Operand(n as u8));
            let distilled = dist_ops.get(n).cloned();
            // The distilled line shows the fixed word, where the field holds its fixed-word
            // value (0 in a table; the whole dimension code in a resolved variant).
            let at_fixed = field.map_or(0, |f| {
                crate::codec::Word(v.fixed_value).get_field(&v.fields[f]) as usize
            });
            let dim_base = distilled
                .as_deref()
                .and_then(|d| {
                    DIMS.iter()
                        .position(|x| *x == d)
                        .or_else(|| d.strip_prefix("INVALID")?.parse().ok())
                })
                .unwrap_or(if *k == OperandKind::ArrayDim { 4 } else { 0 })
                .saturating_sub(at_fixed);
            let mut plan = AtomPlan {
                kind: k.clone(),
                names: Default::default(),
                field,
                distilled,
                first: matches!(v.signature.operands.first(), Some(SigOperand::Plain(0))) && n == 0,
                dim_base,
                signed_width: field
                    .filter(|&f| v.fields[f].signed)
                    .map(|f| v.fields[f].width()),
            };
            if let Some(f) = field {
                plan.names = unplain_names(&plan, f, v.fields.len(), &v.fields[f].names);
            }
            plan
        })
        .collect();
    Plan {
        base,
        quiet: quiet_control(v, arch),
        context: (0..v.fields.len())
            .filter(|&i| !v.fields[i].context.is_empty())
            .collect(),
        guard: v.fields.iter().position(|f| f.kind == FieldKind::Guard),
        mods: keyed.into_iter().map(|(_, m)| mod_piece(v, m)).collect(),
        opmod_mask: v
            .fields
            .iter()
            .find(|f| f.kind == FieldKind::OperandModifier)
            .map_or(0, |f| f.mask()),
        desc: atoms
            .iter()
            .any(|a| a.names.values().any(|n| n.starts_with("desc["))),
        atoms,
        operand_modifier: v
            .fields
            .iter()
            .position(|f| f.kind == FieldKind::OperandModifier)
            .map(|field| OperandModifier {
                field,
                suffixes: value_texts(v, field, |vals| operand_suffix(v, field, vals[field])),
            }),
    }
}

/// Modifier sources in the variant's resolved `print_order` (`=TOKEN` is a literal title
/// token; other entries are field labels).
fn ordered_sources(v: &Variant) -> Vec<(f64, ModSource)> {
    v.print_order
        .iter()
        .filter_map(|e| match e.strip_prefix('=') {
            Some(tok) => Some(ModSource::Title(tok.to_string())),
            None => {
                let i = v.fields.iter().position(|f| &f.label == e)?;
                Some(match v.fields[i].kind {
                    FieldKind::Modifier(_) => ModSource::Group(i),
                    _ => ModSource::Flag(i),
                })
            }
        })
        .map(|m| (0.0, m))
        .collect()
}

/// `TMML.LOD` -> ("TMML", ["LOD"]).
fn split_title(t: &str) -> (String, Vec<String>) {
    let mut parts = t.split('.');
    let base = parts.next().unwrap_or("").to_string();
    (base, parts.map(str::to_string).collect())
}

/// The printed name of a modifier field's value 0, if it prints anything.
fn zero_name(v: &Variant, f: &Field) -> Option<String> {
    let g = field_group(v, f)?;
    debug_assert!(g.kind == GroupKind::Mnemonic || g.kind == GroupKind::Operand);
    match &g.lookup(0)?.name {
        ModifierName::Named(n) => Some(n.clone()),
        ModifierName::Invalid(n) => Some(format!("INVALID{n}")),
        ModifierName::Unknown(n) => Some(format!("???{n}")),
        ModifierName::Default => None,
    }
}

/// The dot-separated modifiers of a distilled line's mnemonic (`@P0 TLD.LZ.EF ...` -> LZ, EF).
fn distilled_modifiers(d: &str) -> Vec<String> {
    let mut words = d.split_whitespace();
    let mut m = words.next().unwrap_or("");
    if m.starts_with('@') {
        m = words.next().unwrap_or("");
    }
    m.split('.').skip(1).map(str::to_string).collect()
}

/// The atomic operands of a distilled line, brackets flattened (`[R0+0x1]` -> R0, 0x1).
fn distilled_operands(d: &str) -> Vec<String> {
    let d = d.trim().trim_end_matches(';').trim();
    let mut words = d.splitn(3, ' ');
    let first = words.next().unwrap_or("");
    let rest = if first.starts_with('@') {
        words.nth(1).unwrap_or("")
    } else {
        words.next().unwrap_or("")
    };
    rest.split(',')
        .flat_map(|o| {
            let o = o.trim();
            match o.strip_prefix('[').and_then(|o| o.strip_suffix(']')) {
                Some(inner) => inner
                    .split('+')
                    .map(|a| a.split('.').next().unwrap_or(a).to_string())
                    .collect(),
                None => vec![o.to_string()],
            }
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// Position of the dot-separated sequence `name` (e.g. `F16.RN`) in `mods`.
fn find_seq(mods: &[String], name: &str) -> Option<usize> {
    let parts: Vec<&str> = name.split('.').collect();
    (0..mods.len()).find(|&i| {
        i + parts.len() <= mods.len() && parts.iter().zip(&mods[i..]).all(|(a, b)| a == b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distilled_pieces() {
        assert_eq!(
            distilled_modifiers("@P0 TMML.???0.LOD R0, R0 ;"),
            vec!["???0", "LOD"]
        );
        assert_eq!(
            distilled_operands("@P0 LD.EF.U8 R0, [R0.U32+UR0+0x1], P6 ;"),
            vec!["R0", "R0", "UR0", "0x1", "P6"]
        );
        assert_eq!(
            find_seq(&["A".into(), "F16".into(), "RN".into()], "F16.RN"),
            Some(1)
        );
    }

    #[test]
    fn numbers_print_as_format_does() {
        for v in [
            0,
            1,
            9,
            10,
            99,
            100,
            254,
            255,
            0xabc,
            u32::MAX as u64,
            u64::MAX,
        ] {
            let mut s = String::new();
            push_decimal(&mut s, v);
            assert_eq!(s, v.to_string());
            s.clear();
            push_hex(&mut s, v);
            assert_eq!(s, format!("{v:#x}"));
        }
    }

    #[test]
    fn guards() {
        let mut s = String::new();
        guard(7, &mut s);
        assert_eq!(s, "");
        guard(15, &mut s);
        assert_eq!(s, "@!PT ");
        s.clear();
        guard(0b1010, &mut s);
        assert_eq!(s, "@!P2 ");
    }
}
