//! Explanations, in the vocabulary of the tables, of a bit whose flip changes nvdisasm's text
//! in more than one place (an operand nvdisasm leaves out at its default appears, an operand's
//! form changes, a modifier and an operand change together).
//!
//! Three sources, most specific first: the field that holds the bit (the variant's own, or
//! the sibling variant nvdisasm reads the flipped word as: its fixed bits match it and it has
//! a field there); that field's learned reading when one is given (`resolved/tables.json`:
//! width, signed, left out at a value, context bits); and the atoms that changed, each read
//! as a transform (immediate printed only when non-zero, signed immediate's sign bit, inverted
//! predicate `P(7-v)` left out at v = 0 with its complement bit `!`, register left out at RZ).

use crate::codec::{Codec, VariantId};
use crate::oracle::text::{Line, atom_value};
use crate::spec::{Field, FieldKind, Table, Variant};

/// How one flipped bit changes nvdisasm's text, in table words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explained {
    /// The reading, e.g. "read as LD_R_R_I: bit 1 of `operand 2` (32 bits, signed, left out
    /// at 0); prints `0x2` (an immediate printed only when non-zero): `[R0]` -> `[R0+0x2]`".
    pub text: String,
    /// The table's own field at the bit is the operand whose atom appears or disappears, at
    /// the same bit of its value: the table is right (nvdisasm only leaves the operand out at
    /// its default).
    pub agrees: bool,
}

/// The signature operand a field label of the form `opN.NAME` names (`op1.ABS` -> 1): a
/// modifier of that operand, as table generators label them.
fn operand_of_label(label: &str) -> Option<usize> {
    let (op, name) = label.split_once('.')?;
    let n = op.strip_prefix("op")?;
    (!name.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| n.parse().ok())
        .flatten()
}

/// The register or number of an operand atom written with affixes only: prefixes of `-`,
/// `|`, `~`, `!`, then the core (letters, digits, `_`), then `.NAME` suffixes and `|`
/// (`-|R12.H1|` -> `R12`); `None` for any other atom (`c[0x3][0x10]`, `[R1+0x4]`).
fn affixed_core(atom: &str) -> Option<&str> {
    let rest = atom.trim_start_matches(['-', '|', '~', '!']);
    let end = rest
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
        .unwrap_or(rest.len());
    let (core, mut tail) = rest.split_at(end);
    if core.is_empty() {
        return None;
    }
    while !tail.is_empty() {
        tail = if let Some(t) = tail.strip_prefix('|') {
            t
        } else {
            let t = tail.strip_prefix('.')?;
            let k = t
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .unwrap_or(t.len());
            if k == 0 {
                return None;
            }
            &t[k..]
        };
    }
    Some(core)
}

/// What changed between two texts: modifiers removed/added, the atoms replaced (a run of the
/// base text's atoms and the run that stands in its place) and whether the guard changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextChange {
    /// Modifiers only the base text has.
    pub mods_removed: Vec<String>,
    /// Modifiers only the flipped text has.
    pub mods_added: Vec<String>,
    /// Index of the first differing atom.
    pub at: usize,
    /// The base text's atoms from `at` that differ.
    pub atoms_removed: Vec<String>,
    /// The flipped text's atoms that stand in their place.
    pub atoms_added: Vec<String>,
    /// The guard differs.
    pub guard: bool,
    /// The mnemonic differs.
    pub mnemonic: bool,
}

/// The change from `t0` to `t` (`None` when either line does not parse).
pub fn text_change(t0: &str, t: &str) -> Option<TextChange> {
    let (a, b) = (Line::parse(t0)?, Line::parse(t)?);
    let (xa, xb) = (a.atoms(), b.atoms());
    let p = xa.iter().zip(&xb).take_while(|(x, y)| x == y).count();
    let room = xa.len().min(xb.len()) - p;
    let s = xa
        .iter()
        .rev()
        .zip(xb.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    Some(TextChange {
        mods_removed: own(&a
            .mods
            .iter()
            .filter(|m| !b.mods.contains(m))
            .copied()
            .collect::<Vec<_>>()),
        mods_added: own(&b
            .mods
            .iter()
            .filter(|m| !a.mods.contains(m))
            .copied()
            .collect::<Vec<_>>()),
        at: p,
        atoms_removed: own(&xa[p..xa.len() - s]),
        atoms_added: own(&xb[p..xb.len() - s]),
        guard: a.guard != b.guard,
        mnemonic: a.mnemonic != b.mnemonic,
    })
}

fn pow2_bit(x: u64) -> Option<u8> {
    (x.count_ones() == 1).then(|| x.trailing_zeros() as u8)
}

/// What an atom that appears (the base text left it out) says about its field's value:
/// `0x4` an immediate printed only when non-zero (bit 2); `-0x80000000` the sign bit of a
/// signed 32-bit immediate; `P5` an inverted predicate `P(7-v)` at v = 2; `!PT` its
/// complement bit; `R254` a register left out at RZ (255) with bit 0 cleared; `0xe` an
/// immediate left out at all ones (0xf) with bit 0 cleared.
pub fn appeared_atom(atom: &str) -> String {
    appeared(atom).0
}

/// [`appeared_atom`] and the bit of the field's value the atom shows, where it tells one.
pub fn appeared(atom: &str) -> (String, Option<u8>) {
    let (text, bit) = appeared_inner(atom);
    (text, bit)
}

fn appeared_inner(atom: &str) -> (String, Option<u8>) {
    let bare = atom.split('.').next().unwrap_or(atom);
    if let Some(h) = bare.strip_prefix("-0x")
        && let Ok(v) = u64::from_str_radix(h, 16)
        && let Some(j) = pow2_bit(v)
    {
        return (
            format!(
                "`{atom}`: the sign bit {j} of a signed {}-bit immediate (two's complement), \
                 printed only when non-zero",
                j + 1
            ),
            Some(j),
        );
    }
    if bare.starts_with("0x")
        && let Some(v) = atom_value(bare)
    {
        if let Some(j) = pow2_bit(v) {
            return (
                format!(
                    "`{atom}`: bit {j} of an immediate printed only when non-zero (left out at 0)"
                ),
                Some(j),
            );
        }
        let w = 64 - v.leading_zeros();
        for w in [w, w + 1] {
            let ones = (1u64 << w) - 1;
            if let Some(j) = pow2_bit(ones ^ v) {
                return (
                    format!(
                        "`{atom}`: an immediate left out at its default 0x{ones:x} (all {w} bits \
                         set); this bit is its bit {j}"
                    ),
                    Some(j),
                );
            }
        }
        return (
            format!("`{atom}`: an immediate left out at the fixed word's value"),
            None,
        );
    }
    let neg = bare.starts_with('!');
    let p = bare.trim_start_matches('!');
    if (p == "PT" || (p.starts_with('P') && p[1..].bytes().all(|b| b.is_ascii_digit())))
        && let Some(k) = atom_value(p)
        && k <= 7
    {
        let v = 7 - k;
        return match (neg, pow2_bit(v)) {
            (true, _) if v == 0 => (
                format!(
                    "`{atom}`: the complement bit (`!`) of a predicate operand printed \
                     inverted, P(7-v), and left out at v = 0 (PT) without it"
                ),
                None,
            ),
            (false, Some(j)) => (
                format!(
                    "`{atom}`: a predicate operand printed inverted, P(7-v): v = {v} (bit {j}) \
                     prints P{k}; left out at v = 0 (PT)"
                ),
                Some(j),
            ),
            _ => (
                format!("`{atom}`: a predicate operand, left out at PT"),
                None,
            ),
        };
    }
    if let Some(k) = atom_value(bare)
        && (bare.starts_with('R') || bare.starts_with("UR"))
    {
        let file = if bare.starts_with("UR") {
            "uniform register"
        } else {
            "register"
        };
        if let Some(j) = pow2_bit(255 ^ k) {
            return (
                format!(
                    "`{atom}`: a {file} operand left out at RZ (255); this bit is bit {j} of \
                     the register number (255 -> {k})"
                ),
                Some(j),
            );
        }
        return (
            format!("`{atom}`: a {file} operand left out at the fixed word's value"),
            None,
        );
    }
    if bare.starts_with("???") {
        return (
            format!("`{atom}`: a value the operand's names do not cover (printed `???`)"),
            None,
        );
    }
    (format!("`{atom}` appears"), None)
}

/// The change in words (no field): modifiers, atoms appearing, disappearing or replaced.
pub fn describe_change(c: &TextChange) -> String {
    let tick = |v: &[String]| {
        v.iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts: Vec<String> = Vec::new();
    if c.mnemonic {
        parts.push("the mnemonic changes".into());
    }
    if c.guard {
        parts.push("the guard changes".into());
    }
    match (c.mods_removed.is_empty(), c.mods_added.is_empty()) {
        (true, true) => {}
        (true, false) => parts.push(format!("modifier {} added", tick(&c.mods_added))),
        (false, true) => parts.push(format!("modifier {} left out", tick(&c.mods_removed))),
        (false, false) => parts.push(format!(
            "modifier {} -> {}",
            tick(&c.mods_removed),
            tick(&c.mods_added)
        )),
    }
    let (r, a) = (&c.atoms_removed, &c.atoms_added);
    match (r.len(), a.len()) {
        (0, 0) => {}
        (0, _) => parts.extend(a.iter().map(|x| format!("prints {}", appeared_atom(x)))),
        (_, 0) => parts.push(format!(
            "operand atom(s) {} left out: the bit selects a form without them",
            tick(r)
        )),
        (1, 1) if r[0].split('.').next() == a[0].split('.').next() => parts.push(format!(
            "operand `{}` -> `{}`: the operand's suffix changes",
            r[0], a[0]
        )),
        (1, 1) => parts.push(format!(
            "operand value name `{}` -> `{}` at atom {}: the operand field's names per value \
             (`???` = a value with no name)",
            r[0], a[0], c.at
        )),
        _ => parts.push(format!(
            "operand form {} -> {}: the bit selects another operand form",
            tick(r),
            tick(a)
        )),
    }
    if parts.is_empty() {
        "no visible change".into()
    } else {
        parts.join("; ")
    }
}

/// The field of `v` holding word bit `b` and the bit's index in its value.
pub fn field_at(v: &Variant, b: u8) -> Option<(&Field, u8)> {
    v.fields.iter().find_map(|f| {
        let mut j = 0u8;
        for r in &f.ranges {
            if (r.lo..=r.hi()).contains(&b) {
                return Some((f, j + (b - r.lo)));
            }
            j += r.len;
        }
        None
    })
}

/// The field of `v` whose printed name bit `b` is a context bit of (e.g. LD's `cNOT` bit 67
/// for the predicate operand at bits 64-66).
fn context_of(v: &Variant, b: u8) -> Option<&Field> {
    v.fields
        .iter()
        .find(|f| f.context.iter().any(|r| (r.lo..=r.hi()).contains(&b)))
}

/// The learned reading of a field in words: width, signed, the value it is left out at,
/// context bits.
fn field_reading(f: &Field) -> String {
    let mut parts = vec![format!("{} bits", f.width())];
    if f.signed {
        parts.push("signed".into());
    }
    if let Some((v, _)) = f.names.iter().find(|(_, n)| n.is_empty()) {
        parts.push(format!("left out at {v}"));
    }
    if !f.context.is_empty() {
        let bits: Vec<String> = f
            .context
            .iter()
            .map(|r| {
                if r.len == 1 {
                    r.lo.to_string()
                } else {
                    format!("{}-{}", r.lo, r.hi())
                }
            })
            .collect();
        parts.push(format!("printed name also keyed by bit {}", bits.join(",")));
    }
    parts.join(", ")
}

/// Explains a bit reading of variant `id` in table words.
pub struct Explainer<'a> {
    codec: &'a Codec,
    reading: Option<&'a [Table]>,
}

impl<'a> Explainer<'a> {
    /// `reading`: the tables as nvdisasm reads them (`ResolvedSet::tables`), parallel to the
    /// codec's tables, when available.
    pub fn new(codec: &'a Codec, reading: Option<&'a [Table]>) -> Explainer<'a> {
        let reading = reading.filter(|r| {
            r.len() == codec.tables.len()
                && r.iter()
                    .zip(&codec.tables)
                    .all(|(a, b)| a.variants.len() == b.variants.len())
        });
        Explainer { codec, reading }
    }

    fn read_variant(&self, id: VariantId) -> Option<&'a Variant> {
        self.reading
            .map(|r| &r[id.table as usize].variants[id.variant as usize])
    }

    /// The variant nvdisasm reads the flipped word `w` as, for bit `b`: `id` itself when its
    /// table has a field there, else the first sibling (same table) whose fixed bits match
    /// `w` and that has a field at `b`, preferring one whose operand count is nvdisasm's.
    fn reader(&self, id: VariantId, w: u128, b: u8, atoms: usize) -> Option<VariantId> {
        if field_at(self.codec.variant(id), b).is_some() {
            return Some(id);
        }
        let siblings: Vec<VariantId> = self
            .codec
            .ids()
            .filter(|s| s.table == id.table && *s != id)
            .filter(|s| {
                let v = self.codec.variant(*s);
                w & v.fixed_mask == v.fixed_value && field_at(v, b).is_some()
            })
            .collect();
        siblings
            .iter()
            .find(|s| self.codec.variant(**s).signature.atoms.len() == atoms)
            .or(siblings.first())
            .copied()
    }

    /// The reading of bit `b` of variant `id`, whose fixed word's text is `t0` and whose
    /// flipped word `w` nvdisasm prints `t`. `None` when a text does not parse.
    pub fn explain(&self, id: VariantId, b: u8, w: u128, t0: &str, t: &str) -> Option<Explained> {
        let c = text_change(t0, t)?;
        let atoms = Line::parse(t).map_or(0, |l| l.atoms().len());
        let mut head = String::new();
        let mut agrees = false;
        if let Some(rid) = self.reader(id, w, b, atoms) {
            let rv = self.codec.variant(rid);
            let (f, j) = field_at(rv, b)?;
            let learned = self
                .read_variant(rid)
                .and_then(|x| x.fields.iter().find(|g| g.label == f.label))
                .map(|g| format!(" ({})", field_reading(g)))
                .unwrap_or_default();
            head = if rid == id {
                format!("bit {j} of the table's `{}`{learned}", f.label)
            } else {
                format!("read as {}: bit {j} of its `{}`{learned}", rv.key, f.label)
            };
            if rid == id
                && let FieldKind::Operand(n) = f.kind
                && c.mods_removed.is_empty()
                && c.mods_added.is_empty()
                && !c.guard
                && c.at <= n as usize
                && c.atoms_removed.len() + c.atoms_added.len() == 1
                && c.atoms_added
                    .iter()
                    .chain(&c.atoms_removed)
                    .all(|x| appeared(x).1 == Some(j))
            {
                agrees = true;
            }
            // A field of one operand's modifiers (`op1.ABS`, `op1.H1`: the label names the
            // signature operand) whose flip changes only that operand's affixes (`R0` ->
            // `|R0|`, `R0.H1`): the table is right (SM120 FRND, synthesised table).
            if rid == id
                && let Some(n) = operand_of_label(&f.label)
                && c.mods_removed.is_empty()
                && c.mods_added.is_empty()
                && !c.guard
                && let ([a], [b]) = (c.atoms_removed.as_slice(), c.atoms_added.as_slice())
                && affixed_core(a).is_some_and(|x| affixed_core(b) == Some(x))
                && super::resolve::text_atom_to_signature(rv, c.at) == Some(n)
            {
                agrees = true;
            }
        }
        if head.is_empty()
            && let Some(s) = self.codec.ids().find(|s| {
                let x = self.codec.variant(*s);
                s.table == id.table && *s != id && w & x.fixed_mask == x.fixed_value
            })
        {
            head = format!(
                "selects variant {} (its fixed bits match the flipped word)",
                self.codec.variant(s).key
            );
        }
        if let Some(rv) = self.read_variant(id)
            && let Some(f) = context_of(rv, b)
        {
            let ctx = format!(
                "a context bit of `{}` ({}): it changes how that field prints",
                f.label,
                field_reading(f)
            );
            head = if head.is_empty() {
                ctx
            } else {
                format!("{head}; {ctx}")
            };
        }
        let what = describe_change(&c);
        let text = if head.is_empty() {
            format!("{what} (`{t0}` -> `{t}`)")
        } else {
            format!("{head}; {what} (`{t0}` -> `{t}`)")
        };
        Some(Explained { text, agrees })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operand_flag_is_read_off_its_label_and_an_affix_only_change() {
        assert_eq!(operand_of_label("op1.ABS"), Some(1));
        assert_eq!(operand_of_label("op12.INVALID2"), Some(12));
        assert_eq!(operand_of_label("operand 1"), None);
        assert_eq!(operand_of_label("op.ABS"), None);
        assert_eq!(operand_of_label("op1."), None);
        assert_eq!(affixed_core("-|R12.H1|"), Some("R12"));
        assert_eq!(affixed_core("R0.reuse.H1_H1"), Some("R0"));
        assert_eq!(affixed_core("~UR7"), Some("UR7"));
        assert_eq!(affixed_core("c[0x3]"), None);
        assert_eq!(affixed_core("R1+0x4"), None);
        assert_eq!(affixed_core("|"), None);
    }

    #[test]
    fn atoms_that_appear_are_read_as_transforms() {
        assert_eq!(
            appeared_atom("0x2"),
            "`0x2`: bit 1 of an immediate printed only when non-zero (left out at 0)"
        );
        assert!(appeared_atom("-0x80000000").contains("sign bit 31 of a signed 32-bit"));
        assert!(appeared_atom("P5").contains("P(7-v): v = 2 (bit 1) prints P5"));
        assert!(appeared_atom("!PT").contains("complement bit"));
        assert!(appeared_atom("R254").contains("left out at RZ (255); this bit is bit 0"));
        assert!(
            appeared_atom("0xe").contains("default 0xf (all 4 bits set); this bit is its bit 0")
        );
        assert!(
            appeared_atom("0x7").contains("default 0xf (all 4 bits set); this bit is its bit 3")
        );
    }

    #[test]
    fn changes_split_into_modifiers_and_atoms() {
        let c = text_change("@P0 LD.EF.U8 R0, [R0] ;", "@P0 LD.EF.U8 R0, [R0+0x2] ;").unwrap();
        assert_eq!((c.at, c.atoms_added.clone()), (2, vec!["0x2".to_string()]));
        let c = text_change("@P0 LD.EF.U8 R0, [R0.U32+UR0] ;", "@P0 LD.EF.U8 R0, [R0] ;").unwrap();
        assert_eq!(c.atoms_removed, vec!["R0.U32", "UR0"]);
        assert_eq!(c.atoms_added, vec!["R0"]);
        let c = text_change(
            "@P0 TLD4.R.EF P0, R0, R0, R0, 0x0 ;",
            "@P0 TLD4.R.B.EF P0, R0, R0, R0, ???255, 0x0 ;",
        )
        .unwrap();
        assert_eq!(c.mods_added, vec!["B"]);
        assert_eq!(
            describe_change(&c),
            "modifier `B` added; prints `???255`: a value the operand's names do not cover \
             (printed `???`)"
        );
    }
}
