//! Render a decoded word as nvdisasm-syntax text: guard, mnemonic with modifiers, operands.
//!
//! Conventions checked against nvdisasm 13.5 on SM100 TLD words (oracle/): `@P0 ` guard, no
//! guard for PT, `@!PT` when negated; `RZ` for register 255; `URZ` for an all-ones uniform
//! register field; a destination predicate of PT is left out; immediates in lowercase hex
//! (`0x0`); texture dimensions `1D`, `2D`, `3D`, `ARRAY_1D`, ... by a 3-bit code; modifiers
//! joined with `.`; operands with `, `; the line ends ` ;`. The order in which modifiers print is
//! taken from the variant's distilled line where the table's fixed word shows it.

use crate::codec::{Codec, Decoded, VariantId, field_group};
use crate::spec::{Field, FieldKind, GroupKind, ModifierName, OperandKind, SigOperand, Variant};
use std::fmt::Write as _;

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
}

/// Per-variant rendering plan, built once.
#[derive(Debug, Clone)]
struct Plan {
    base: String,
    guard: Option<usize>,
    mods: Vec<ModSource>,
    atoms: Vec<AtomPlan>,
    operand_modifier: Option<usize>,
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
            .map(|t| t.variants.iter().map(plan).collect())
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
        let p = &self.plans[d.id.table as usize][d.id.variant as usize];
        let vals = d.values();
        if let Some(g) = p.guard {
            guard(vals[g], out);
        }
        out.push_str(&p.base);
        for m in &p.mods {
            modifier(v, m, vals, out);
        }
        let mut first = true;
        for op in &v.signature.operands {
            let start = out.len();
            out.push_str(if first { " " } else { ", " });
            let printed = match op {
                SigOperand::Plain(i) => atom(&p.atoms[*i], vals, None, out),
                SigOperand::Memory(ids) => memory(p, v, ids, vals, out),
            };
            if printed {
                first = false;
            } else {
                out.truncate(start);
            }
        }
        out.push_str(" ;");
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
            let _ = write!(out, "@{}P{reg} ", if neg { "!" } else { "" });
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
                    let _ = write!(out, ".INVALID{n}");
                }
                Some(ModifierName::Unknown(n)) => {
                    let _ = write!(out, ".???{n}");
                }
                None => {
                    let _ = write!(out, ".???{val}");
                }
            }
        }
    }
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
            let _ = write!(out, "P{v}");
        }
        OperandKind::Reg if v == 255 => out.push_str("RZ"),
        OperandKind::Reg => {
            let _ = write!(out, "R{v}");
        }
        OperandKind::UniformReg if v == 255 => out.push_str("URZ"),
        OperandKind::UniformReg => {
            let _ = write!(out, "UR{v}");
        }
        OperandKind::Dim | OperandKind::ArrayDim | OperandKind::Snowflake => {
            let code = a.dim_base + v as usize;
            match DIMS.get(code) {
                Some(n) if code != 6 => out.push_str(n),
                _ => {
                    let _ = write!(out, "INVALID{code}");
                }
            }
        }
        OperandKind::Imm | OperandKind::Other(_) => {
            let _ = write!(out, "{v:#x}");
        }
    }
    if let Some(s) = suffix {
        out.push_str(s);
    }
    true
}

fn memory(p: &Plan, v: &Variant, ids: &[usize], vals: &[u64], out: &mut String) -> bool {
    out.push('[');
    for (k, &i) in ids.iter().enumerate() {
        if k > 0 {
            out.push('+');
        }
        let mut suffix = None;
        let text;
        if k == 0
            && let Some(mi) = p.operand_modifier
            && ids.len() > 1
        {
            let f = &v.fields[mi];
            if let Some(ModifierName::Named(n)) = field_group(v, f)
                .and_then(|g| g.lookup(vals[mi] as u32))
                .map(|r| &r.name)
            {
                text = format!(".{n}");
                suffix = Some(text.as_str());
            }
        }
        atom(&p.atoms[i], vals, suffix, out);
    }
    out.push(']');
    true
}

/// Builds the plan of one variant from its fields, signature and distilled line.
fn plan(v: &Variant) -> Plan {
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
    let atoms = v
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
            AtomPlan {
                kind: k.clone(),
                names: field.map(|f| v.fields[f].names.clone()).unwrap_or_default(),
                field,
                distilled,
                first: matches!(v.signature.operands.first(), Some(SigOperand::Plain(0))) && n == 0,
                dim_base,
            }
        })
        .collect();
    Plan {
        base,
        guard: v.fields.iter().position(|f| f.kind == FieldKind::Guard),
        mods: keyed.into_iter().map(|(_, m)| m).collect(),
        atoms,
        operand_modifier: v
            .fields
            .iter()
            .position(|f| f.kind == FieldKind::OperandModifier),
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
