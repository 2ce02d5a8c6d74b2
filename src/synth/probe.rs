//! Single-bit flips of a base word and what each does to nvdisasm's answer ([`Flip`]), and
//! the per-bit role read off the flips of several bases of one variant ([`Role`]).
//!
//! Facts used (nvdisasm 13.5.37): a refused word's reason either names a constraint table
//! (`Opclass 'x', undefined value 0x10 for table 'TABLES_opex_0'`: the flipped bit indexes a
//! table of the same form, design.md section 2) or not (`Unrecognized operation for functional
//! unit 'uC'`: the bit selects the operation). The rule for one base:
//! refused without a table, another mnemonic, another operand shape, or no text at all ->
//! the bit belongs to the form ([`Flip::Form`]); refused naming a table -> [`Flip::Table`];
//! otherwise what changed: the modifiers, else the guard, else the first atom whose core
//! changed, else the first atom whose decoration changed, else nothing.

use super::text::{Parsed, parse};
use crate::oracle::Answer;

/// What flipping one bit of a base word does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flip {
    /// Another form: refused with no table named, another mnemonic or operand shape, no text.
    Form,
    /// Refused with a reason naming a constraint table (an index bit of a legal-value table).
    Table,
    /// Only the guard changed (`@P0` -> `@P1`, `@!P0`).
    Guard,
    /// The dot-modifiers changed.
    Modifier,
    /// The value (core) of atom N changed (atoms numbered in print order from 0).
    Operand(usize),
    /// Only the decoration of atom N changed; the string names the change (`NEG`, `ABS`,
    /// `NOT`, `INV`, or the suffix, e.g. `H1`).
    Decoration(usize, String),
    /// The text is the same (apart from the space before `;`).
    Nothing,
}

impl Flip {
    /// True for the flips that say the bit belongs to the form ([`Flip::Form`]).
    pub fn is_form(&self) -> bool {
        matches!(self, Flip::Form)
    }
}

/// Reads the flip of a base (parsed `base`, text `base_text`) from the flipped word's answer.
pub fn classify(base: &Parsed, base_text: &str, flipped: &Answer) -> Flip {
    let t = match flipped {
        Answer::Illegal(reason) => {
            return if reason.contains("undefined value") && reason.contains("for table") {
                Flip::Table
            } else {
                Flip::Form
            };
        }
        Answer::Text(t) => t,
    };
    if t.trim_end_matches(';').trim() == base_text.trim_end_matches(';').trim() {
        return Flip::Nothing;
    }
    let Some(p) = parse(t) else {
        return Flip::Form;
    };
    if p.mnemonic != base.mnemonic || p.signature() != base.signature() {
        return Flip::Form;
    }
    if p.mods != base.mods {
        return Flip::Modifier;
    }
    if p.guard != base.guard {
        return Flip::Guard;
    }
    let (a, b) = (base.atoms(), p.atoms());
    if let Some(j) = (0..a.len()).find(|&j| a[j].core != b[j].core) {
        return Flip::Operand(j);
    }
    if let Some(j) = (0..a.len()).find(|&j| a[j].deco != b[j].deco) {
        return Flip::Decoration(j, deco_name(&a[j].deco, &b[j].deco));
    }
    Flip::Nothing
}

/// Names the difference of two decorations (`pre:suffix`): the prefix characters one has and
/// the other lacks (`-` NEG, `!` NOT, `~` INV, `|` ABS), else the suffix that differs, in
/// capitals without dots (`.H1` -> `H1`).
pub fn deco_name(a: &str, b: &str) -> String {
    let (pa, sa) = a.split_once(':').unwrap_or((a, ""));
    let (pb, sb) = b.split_once(':').unwrap_or((b, ""));
    let diff: String = pa
        .chars()
        .filter(|c| !pb.contains(*c))
        .chain(pb.chars().filter(|c| !pa.contains(*c)))
        .collect();
    let mut names: Vec<&str> = diff
        .chars()
        .filter_map(|c| match c {
            '-' => Some("NEG"),
            '!' => Some("NOT"),
            '~' => Some("INV"),
            '|' => Some("ABS"),
            _ => None,
        })
        .collect();
    names.dedup();
    if !names.is_empty() {
        return names.join("_");
    }
    let longer = if sa.len() >= sb.len() { sa } else { sb };
    let name: String = longer
        .trim_matches(|c| c == '.' || c == '|')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() { "MOD".into() } else { name }
}

/// The role of one bit in a variant, from its flips on every base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// A fixed (opcode or form) bit.
    Fixed,
    /// Part of the guard.
    Guard,
    /// Part of a modifier field (its flips change the modifiers or index a constraint table).
    Modifier,
    /// Part of operand N's value.
    Operand(usize),
    /// A one-bit operand modifier of operand N, named.
    Decoration(usize, String),
    /// No effect seen.
    Nothing,
}

/// The role of a bit from its flips on each base (at least one). The rule: where some base
/// reads the bit as part of a field (guard, modifier, operand, decoration), the most frequent
/// such reading wins (ties: the earliest base's); else, where some base reads it as the
/// form's, it is fixed (a constraint table's refusal on another base may be another form's
/// table); else, where some flip is refused by a constraint table, it is a modifier bit (an
/// index of the form's table); else it does nothing.
pub fn role(flips: &[Flip]) -> Role {
    let informative: Vec<Role> = flips
        .iter()
        .filter_map(|f| match f {
            Flip::Guard => Some(Role::Guard),
            Flip::Modifier => Some(Role::Modifier),
            Flip::Operand(j) => Some(Role::Operand(*j)),
            Flip::Decoration(j, n) => Some(Role::Decoration(*j, n.clone())),
            Flip::Form | Flip::Table | Flip::Nothing => None,
        })
        .collect();
    if let Some(best) = informative
        .iter()
        .max_by_key(|r| {
            let n = informative.iter().filter(|x| x == r).count();
            let first = informative.iter().position(|x| x == *r).unwrap_or(0);
            (n, std::cmp::Reverse(first))
        })
        .cloned()
    {
        return best;
    }
    if flips.iter().any(Flip::is_form) {
        Role::Fixed
    } else if flips.contains(&Flip::Table) {
        Role::Modifier
    } else {
        Role::Nothing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flip(base: &str, t: &str) -> Flip {
        classify(&parse(base).unwrap(), base, &Answer::Text(t.into()))
    }

    #[test]
    fn flips_read() {
        let b = "@P0 IADD3 R2, P0, R4, 0x1, RZ ;";
        assert_eq!(flip(b, "@P1 IADD3 R2, P0, R4, 0x1, RZ ;"), Flip::Guard);
        assert_eq!(flip(b, "@P0 IADD3 R2, P0, R5, 0x1, RZ ;"), Flip::Operand(2));
        assert_eq!(flip(b, "@P0 IADD3.X R2, P0, R4, 0x1, RZ ;"), Flip::Modifier);
        assert_eq!(flip(b, "@P0 IADD3 R2, P0, R4, R1, RZ ;"), Flip::Form);
        assert_eq!(flip(b, "@P0 IADD3 R2, P0, R4, 0x1, RZ;"), Flip::Nothing);
        assert_eq!(
            flip(b, "@P0 IADD3 R2, P0, -R4, 0x1, RZ ;"),
            Flip::Decoration(2, "NEG".into())
        );
        let p = parse(b).unwrap();
        assert_eq!(
            classify(
                &p,
                b,
                &Answer::Illegal("Opclass 'x', undefined value 0x10 for table 'T'".into())
            ),
            Flip::Table
        );
        assert_eq!(
            classify(
                &p,
                b,
                &Answer::Illegal("Unrecognized operation for functional unit 'uC'".into())
            ),
            Flip::Form
        );
        assert_eq!(role(&[Flip::Form, Flip::Operand(3)]), Role::Operand(3));
        assert_eq!(role(&[Flip::Form, Flip::Nothing]), Role::Fixed);
        assert_eq!(role(&[Flip::Form, Flip::Table]), Role::Fixed);
        assert_eq!(role(&[Flip::Nothing, Flip::Table]), Role::Modifier);
        assert_eq!(role(&[Flip::Nothing, Flip::Nothing]), Role::Nothing);
        assert_eq!(deco_name("-:", ":"), "NEG");
        assert_eq!(deco_name(":.H1", ":"), "H1");
    }
}
