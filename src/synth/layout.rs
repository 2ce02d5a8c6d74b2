//! A synthesised variant's layout: per bit a fixed value or a field, the fields' labels, and
//! the modifier groups with a name per value; built from per-bit [`Role`]s.
//!
//! Rules (each from the flips, none keyed to a mnemonic, an arch or a bit number):
//! - fixed bits keep the first base's value; bits that do nothing are fixed at the value most
//!   of the variant's real words have;
//! - consecutive bits of one role form a field: `pred` (guard), `operand N` (atom N of the
//!   signature), an operand modifier named after what it changes (`op2.NEG`), or a modifier
//!   field `modi K` (runs of modifier bits cut into pieces of at most `max_group_bits`);
//!   the same role in two places is one field written twice (the format's split label);
//! - the scheduling fields are laid out where the bundled tables lay them out
//!   ([`SchedLayout`]), whatever the flips say (a disagreement is a note), except a bit
//!   whose role is [`Role::Fixed`] (every base's flip of it is refused as another form): it
//!   is a fixed bit at the base's value.

use super::probe::Role;

/// The scheduling fields as the bundled tables lay them out: (label, bits ascending).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchedLayout {
    /// Each field's label (`stall`, `y`, `r-bar`, `w-bar`, `b-mask`, `reuse`) and bits.
    pub fields: Vec<(String, Vec<u8>)>,
}

impl SchedLayout {
    /// The bits of every scheduling field.
    pub fn mask(&self) -> u128 {
        self.fields
            .iter()
            .flat_map(|(_, b)| b.iter())
            .fold(0u128, |m, &b| m | (1u128 << b))
    }

    /// The layout of the bundled tables (specs/): per variant its scheduling fields; the
    /// layout most variants of `arch`'s tables share, else most variants of any table.
    /// Empty when there is no bundled table.
    pub fn from_bundled(arch: crate::arch::Arch) -> SchedLayout {
        let Ok(tables) = crate::spec::bundled_tables() else {
            return SchedLayout::default();
        };
        let layouts = |same_arch: bool| {
            let mut count: Vec<(SchedLayout, usize)> = Vec::new();
            for t in &tables {
                if same_arch && t.arch != Some(arch) {
                    continue;
                }
                for v in &t.variants {
                    let fields: Vec<(String, Vec<u8>)> = v
                        .fields
                        .iter()
                        .filter(|f| matches!(f.kind, crate::spec::FieldKind::Sched(_)))
                        .map(|f| (f.label.clone(), crate::spec::parse::field_bits(f)))
                        .collect();
                    let l = SchedLayout { fields };
                    match count.iter_mut().find(|(x, _)| *x == l) {
                        Some((_, n)) => *n += 1,
                        None => count.push((l, 1)),
                    }
                }
            }
            count.into_iter().max_by_key(|(_, n)| *n).map(|(l, _)| l)
        };
        layouts(true).or_else(|| layouts(false)).unwrap_or_default()
    }
}

/// One cell of the layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    /// A fixed bit with its value.
    Fixed(bool),
    /// A bit of field N (index into [`Layout::labels`]).
    Field(usize),
}

/// A modifier group: its number K (`modi K`), its bits (value bit i is `bits[i]`) and a name
/// per value (`(default)`, a token such as `X` or `CONSTANT.CTA`, `INVALIDn` for a value
/// nvdisasm refuses).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// K of `modi K` and `Modifier Group K`.
    pub index: u8,
    /// The field's bits, least significant first.
    pub bits: Vec<u8>,
    /// One name per value 0..2^bits.
    pub names: Vec<String>,
    /// Per value: nvdisasm prints it as this variant's form (its mnemonic and shape).
    pub same_form: Vec<bool>,
}

/// The layout of one variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Per bit 0..128.
    pub cells: Vec<Cell>,
    /// Field labels.
    pub labels: Vec<String>,
    /// Modifier groups, by K.
    pub groups: Vec<Group>,
}

/// What a field is before it gets its label.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    Guard,
    Operand(usize),
    Decoration(usize, String),
    Modifier(usize),
    Sched(usize),
}

impl Layout {
    /// The fixed word: every fixed bit at its value, everything else 0.
    pub fn fixed_word(&self) -> u128 {
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, c)| matches!(c, Cell::Fixed(true)))
            .fold(0u128, |w, (b, _)| w | (1u128 << b))
    }

    /// The mask of fixed bits.
    pub fn fixed_mask(&self) -> u128 {
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, c)| matches!(c, Cell::Fixed(_)))
            .fold(0u128, |w, (b, _)| w | (1u128 << b))
    }

    /// The bits of field `id`, ascending.
    pub fn field_bits(&self, id: usize) -> Vec<u8> {
        (0..128u8)
            .filter(|&b| self.cells[b as usize] == Cell::Field(id))
            .collect()
    }
}

/// Builds a layout from the role of each bit (`roles[b]`), the first base `base` (fixed
/// values), the variant's real words `members` (the value of bits that do nothing), the
/// scheduling layout and the largest modifier piece. The groups get their bits here and
/// empty names (see [`super::enumerate`]).
pub fn build(
    roles: &[Role],
    base: u128,
    members: &[u128],
    sched: &SchedLayout,
    max_group_bits: usize,
) -> Layout {
    let mut keys: Vec<Option<Key>> = vec![None; 128];
    let mut cells = vec![Cell::Fixed(false); 128];
    let smask = sched.mask();
    for (i, (_, bits)) in sched.fields.iter().enumerate() {
        for &b in bits {
            if roles[b as usize] == Role::Fixed {
                // Every base's form needs this scheduling bit at its value.
                cells[b as usize] = Cell::Fixed(base >> b & 1 == 1);
            } else {
                keys[b as usize] = Some(Key::Sched(i));
            }
        }
    }
    // Modifier runs, cut into pieces.
    let mut piece = 0usize;
    let mut run = 0usize;
    for b in 0..128usize {
        if smask >> b & 1 == 1 {
            run = 0;
            continue;
        }
        match &roles[b] {
            Role::Fixed => cells[b] = Cell::Fixed(base >> b & 1 == 1),
            Role::Nothing => {
                let ones = members.iter().filter(|w| *w >> b & 1 == 1).count();
                cells[b] = Cell::Fixed(2 * ones > members.len());
            }
            Role::Guard => keys[b] = Some(Key::Guard),
            Role::Operand(j) => keys[b] = Some(Key::Operand(*j)),
            Role::Decoration(j, n) => keys[b] = Some(Key::Decoration(*j, n.clone())),
            Role::Modifier => {
                if run == 0 || run == max_group_bits {
                    piece += 1;
                    run = 0;
                }
                run += 1;
                keys[b] = Some(Key::Modifier(piece));
                continue;
            }
        }
        run = 0;
    }
    // Labels: one per distinct key, modifier pieces numbered from 1 in bit order.
    let mut distinct: Vec<Key> = Vec::new();
    for k in keys.iter().flatten() {
        if !distinct.contains(k) {
            distinct.push(k.clone());
        }
    }
    let mut labels = Vec::new();
    let mut groups = Vec::new();
    for k in &distinct {
        let label = match k {
            Key::Guard => "pred".to_string(),
            Key::Operand(j) => format!("operand {j}"),
            Key::Decoration(j, n) => format!("op{j}.{n}"),
            Key::Sched(i) => sched.fields[*i].0.clone(),
            Key::Modifier(_) => {
                let index = groups.len() as u8 + 1;
                let bits: Vec<u8> = (0..128u8)
                    .filter(|&b| keys[b as usize].as_ref() == Some(k))
                    .collect();
                groups.push(Group {
                    index,
                    bits,
                    names: Vec::new(),
                    same_form: Vec::new(),
                });
                format!("modi {index}")
            }
        };
        labels.push(label);
    }
    for b in 0..128 {
        if let Some(k) = &keys[b] {
            let id = distinct.iter().position(|d| d == k).unwrap_or(0);
            cells[b] = Cell::Field(id);
        }
    }
    Layout {
        cells,
        labels,
        groups,
    }
}

/// Replaces each group by its pieces (in order; each piece a [`Group`] whose index is ignored:
/// its bits, a name per value and whether each value keeps the variant's form, see
/// [`super::groups`]): the first piece keeps the group's field, the others get fields of
/// their own. Groups are renumbered from 1.
pub fn cut_groups(l: &mut Layout, pieces: Vec<Vec<Group>>) {
    let groups = std::mem::take(&mut l.groups);
    let mut out = Vec::new();
    let mut fresh = 0u8;
    for (g, ps) in groups.into_iter().zip(pieces) {
        for (i, p) in ps.into_iter().enumerate() {
            let bits = p.bits;
            let index = if i == 0 {
                g.index
            } else {
                // A temporary number above any group's, made final by `renumber`.
                fresh += 1;
                let index = 255 - fresh;
                l.labels.push(format!("modi {index}"));
                let id = l.labels.len() - 1;
                for &b in &bits {
                    l.cells[b as usize] = Cell::Field(id);
                }
                index
            };
            out.push(Group {
                index,
                bits,
                names: p.names,
                same_form: p.same_form,
            });
        }
    }
    out.sort_by_key(|g| g.bits.first().copied());
    l.groups = out;
    renumber(l);
}

/// A group nvdisasm reads as this variant's form at one value only (every other refused or
/// another form) is no field: its bits become fixed at `base`'s values. Groups are
/// renumbered from 1.
pub fn single_values_to_fixed(l: &mut Layout, base: u128) {
    let groups = std::mem::take(&mut l.groups);
    let mut kept = Vec::new();
    for g in groups {
        let legal = g.same_form.iter().filter(|x| **x).count();
        if legal == 1 {
            for &b in &g.bits {
                l.cells[b as usize] = Cell::Fixed(base >> b & 1 == 1);
            }
            // The label stays (no cell uses it) but no longer names a group.
            let old = format!("modi {}", g.index);
            if let Some(x) = l.labels.iter_mut().find(|x| **x == old) {
                x.clear();
            }
        } else {
            kept.push(g);
        }
    }
    l.groups = kept;
    renumber(l);
}

/// `INVALIDn`: the name [`super::group_names`] gives a value nvdisasm refuses.
pub fn is_refused_name(n: &str) -> bool {
    n.strip_prefix("INVALID")
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// Numbers the groups 1, 2, ... in order, relabelling their `modi K` fields.
fn renumber(l: &mut Layout) {
    let mut relabel: Vec<(usize, String)> = Vec::new();
    for (k, g) in l.groups.iter_mut().enumerate() {
        let old = format!("modi {}", g.index);
        g.index = k as u8 + 1;
        if let Some(id) = l.labels.iter().position(|x| *x == old) {
            relabel.push((id, format!("modi {}", g.index)));
        }
    }
    for (id, label) in relabel {
        l.labels[id] = label;
    }
}

/// A one-bit modifier group whose value 1 prints one token `T` and value 0 nothing becomes a
/// flag labelled `T` (as the bundled tables write `NODEP`), when `T` is a valid flag label
/// that no other field of the layout uses. Groups are renumbered from 1.
pub fn groups_to_flags(l: &mut Layout) {
    let reserved = |t: &str, labels: &[String]| {
        labels.iter().any(|x| x == t)
            || matches!(
                t,
                "pred"
                    | "predicate"
                    | "stall"
                    | "y"
                    | "r-bar"
                    | "w-bar"
                    | "b-mask"
                    | "reuse"
                    | "modi"
            )
            || t.starts_with("operand")
            || t.starts_with("modi")
    };
    let mut kept = Vec::new();
    let groups = std::mem::take(&mut l.groups);
    for g in groups {
        let id = l
            .labels
            .iter()
            .position(|x| *x == format!("modi {}", g.index));
        let flag = match (g.bits.len(), g.names.as_slice(), id) {
            (1, [d, t], Some(_)) if d == "(default)" && is_flag_label(t) && !is_refused_name(t) => {
                Some(t.clone())
            }
            _ => None,
        };
        match (flag, id) {
            (Some(t), Some(id)) if !reserved(&t, &l.labels) => l.labels[id] = t,
            _ => kept.push(g),
        }
    }
    l.groups = kept;
    renumber(l);
}

/// A flag label the parser takes: a letter, then letters, digits, `_`, `-`, `.`; at most 32.
pub fn is_flag_label(t: &str) -> bool {
    let mut c = t.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic())
        && c.all(|x| x.is_ascii_alphanumeric() || matches!(x, '_' | '-' | '.'))
        && t.len() <= 32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_fields_and_pieces() {
        let mut roles = vec![Role::Fixed; 128];
        for r in roles.iter_mut().take(16).skip(12) {
            *r = Role::Guard;
        }
        for r in roles.iter_mut().take(24).skip(16) {
            *r = Role::Operand(0);
        }
        for r in roles.iter_mut().take(40).skip(32) {
            *r = Role::Modifier;
        }
        // The stall bits' flips do nothing; every flip of the read barrier's is refused.
        for r in roles.iter_mut().take(109).skip(105) {
            *r = Role::Nothing;
        }
        let sched = SchedLayout {
            fields: vec![
                ("stall".into(), vec![105, 106, 107, 108]),
                ("r-bar".into(), vec![110, 111, 112]),
            ],
        };
        let base = 1 | 0b111u128 << 110;
        let l = build(&roles, base, &[base], &sched, 6);
        assert_eq!(
            l.labels,
            vec!["pred", "operand 0", "modi 1", "modi 2", "stall"]
        );
        assert_eq!(l.groups[0].bits, (32..38).collect::<Vec<u8>>());
        assert_eq!(l.groups[1].bits, vec![38, 39]);
        // The read barrier is written as fixed bits at the base's value (7).
        assert_eq!(l.fixed_word(), base);
        assert_eq!(l.fixed_mask() >> 110 & 0b111, 0b111);
        assert_eq!(l.field_bits(4), vec![105, 106, 107, 108]);
    }
}
