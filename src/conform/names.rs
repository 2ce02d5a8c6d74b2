//! Modifier value names checked on recorded words: for every value of every `Modifier Group`
//! (not only 0 and 2^j, which the single-bit flips read), nvdisasm's text for the recorded
//! words that set the group to that value says which name it prints. A value whose name the
//! table gives otherwise (two names swapped, `3 <-> 5`; a name no flip reaches) is a
//! `modifier-name-differs` finding on the group's value row, with the words as evidence.
//!
//! Method, per variant whose fixed word nvdisasm accepts: the group's bits are where nvdisasm
//! reads them (the resolved layout, [`crate::reading::resolved::resolve_layouts`], so a group
//! whose label sits on another group's bits is still read at its own). Every recorded word
//! whose resolved fixed bits match, with nvdisasm's text of the variant's mnemonic, gives its
//! modifier tokens; those the fixed word prints whatever the fields (title, fixed bits) and
//! those the other modifier and flag fields print by the table's names are taken away, and
//! what is left, but for tokens no value of the group names (another field's doing, as SM80
//! LD's `???0`), is what the group's value prints. A value is reported when at least
//! [`MIN_WORDS`] words show the same other name and it is at least [`MIN_SHARE`] of the words
//! that could be read. Values 0 (the fixed word's) and 2^j whose single flip changes the
//! modifiers (read by [`super::resolve`]) are left to the flip reading: one defect, one
//! finding.

use super::finding::{Evidence, Finding};
use crate::arch::Arch;
use crate::codec::{Codec, VariantId, Word};
use crate::oracle::text::Line;
use crate::oracle::{Answer, Entry};
use crate::reading::flips::{Effect, VariantReading};
use crate::render::field_modifier_text;
use crate::spec::{FieldKind, GroupKind, Variant};
use std::collections::{BTreeMap, HashMap};

/// Fewest words that must show the same other name.
pub const MIN_WORDS: usize = 3;

/// Share (percent) of the readable words with the value that must show that name.
pub const MIN_SHARE: usize = 90;

/// Evidence words per finding (after the fixed word).
const EVIDENCE: usize = 3;

/// Recorded words with nvdisasm's text, by arch ([`texts_by_arch`]).
pub type ByArch<'a> = HashMap<Arch, Vec<(u128, &'a str)>>;

/// The legal recorded answers of `entries`, by arch (the input of [`name_findings`]).
pub fn texts_by_arch(entries: &[Entry]) -> ByArch<'_> {
    let mut out: ByArch = HashMap::new();
    for e in entries {
        if let Answer::Text(t) = &e.answer {
            out.entry(e.arch).or_default().push((e.word, t.as_str()));
        }
    }
    out
}

/// `modifier-name-differs` findings for group values whose name nvdisasm prints otherwise than
/// the table says, from the recorded words `texts` ([`texts_by_arch`]) and the bit readings
/// (which place each group's bits).
pub fn name_findings(
    codec: &Codec,
    readings: &[(VariantId, VariantReading)],
    texts: &ByArch,
) -> Vec<Finding> {
    let resolved = crate::reading::resolved::resolve_layouts(codec, readings);
    let mut out = Vec::new();
    for (id, vr) in readings {
        if !vr.base_legal {
            continue;
        }
        let (t, v) = (codec.table(*id), codec.variant(*id));
        let rv = &resolved[id.table as usize].variants[id.variant as usize];
        let words = texts.get(&vr.arch).map(Vec::as_slice).unwrap_or(&[]);
        out.extend(variant_findings(&t.path, v, rv, vr, words));
    }
    out
}

/// Modifier tokens of a text (`@P0 TLD.LZ.EF ...` -> `LZ`, `EF`), `None` when the mnemonic
/// is not `mnemonic`.
fn tokens<'a>(text: &'a str, mnemonic: &str) -> Option<Vec<&'a str>> {
    let l = Line::parse(text)?;
    (l.mnemonic == mnemonic).then_some(l.mods)
}

/// `a` minus the multiset `b`, or `None` when `b` is not inside `a`.
fn minus<'a>(a: &[&'a str], b: &[String]) -> Option<Vec<&'a str>> {
    let mut left: Vec<&str> = a.to_vec();
    for x in b {
        let i = left.iter().position(|y| y == x)?;
        left.remove(i);
    }
    Some(left)
}

fn split(s: &str) -> Vec<String> {
    s.split('.')
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// The same tokens whatever their order.
fn same_tokens(a: &[&str], b: &[String]) -> bool {
    a.len() == b.len() && minus(a, b).is_some()
}

fn variant_findings(
    path: &str,
    v: &Variant,
    rv: &Variant,
    vr: &VariantReading,
    words: &[(u128, &str)],
) -> Vec<Finding> {
    let mnemonic = v.title.split('.').next().unwrap_or("");
    let mod_fields: Vec<usize> = (0..rv.fields.len())
        .filter(|&i| {
            matches!(
                rv.fields[i].kind,
                FieldKind::Modifier(_) | FieldKind::Flag(_)
            )
        })
        .collect();
    // Tokens per (field, value), rendered once.
    let cache: std::cell::RefCell<HashMap<(usize, u64), Vec<String>>> = Default::default();
    let printed = |fi: usize, w: u128| -> Vec<String> {
        let x = Word(w).get_field(&rv.fields[fi]);
        cache
            .borrow_mut()
            .entry((fi, x))
            .or_insert_with(|| split(&field_modifier_text(rv, fi, x)))
            .clone()
    };
    // Tokens the fixed word prints that no field gives (title, fixed bits).
    let base_word = v.fixed_value;
    let Some(t0) = tokens(&vr.base.nvdisasm, mnemonic) else {
        return vec![];
    };
    let all0: Vec<String> = mod_fields
        .iter()
        .flat_map(|&f| printed(f, base_word))
        .collect();
    let Some(constant) = minus(&t0, &all0) else {
        return vec![];
    };
    let constant: Vec<String> = constant.into_iter().map(str::to_string).collect();
    // Groups to check: (field index in rv, group) for the variant's mnemonic groups.
    let groups: Vec<(usize, &crate::spec::ModifierGroup)> = mod_fields
        .iter()
        .filter(|&&fi| placed_by_flips(&rv.fields[fi], vr))
        .filter_map(|&fi| match rv.fields[fi].kind {
            FieldKind::Modifier(g) => v
                .groups
                .iter()
                .find(|x| x.kind == GroupKind::Mnemonic && x.index == g)
                .map(|x| (fi, x)),
            _ => None,
        })
        .collect();
    if groups.is_empty() {
        return vec![];
    }
    // Every token some value of a group field names.
    let vocabularies: std::cell::RefCell<HashMap<usize, std::collections::HashSet<String>>> =
        Default::default();
    let vocabulary = |fi: usize| -> std::collections::HashSet<String> {
        vocabularies
            .borrow_mut()
            .entry(fi)
            .or_insert_with(|| {
                let w = rv.fields[fi].width().min(16);
                (0..1u64 << w)
                    .flat_map(|x| split(&field_modifier_text(rv, fi, x)))
                    .collect()
            })
            .clone()
    };
    // Values the single flips read: 2^j whose flip changes the modifiers.
    let flip_read = |fi: usize, x: u64| -> bool {
        if x == 0 {
            return true;
        }
        if x.count_ones() != 1 {
            return false;
        }
        let j = x.trailing_zeros();
        let Some(b) = nth_bit(&rv.fields[fi], j) else {
            return false;
        };
        vr.bits
            .iter()
            .find(|r| r.bit == b)
            .is_some_and(|r| matches!(r.effect, Effect::Modifier { .. }))
    };
    // (group field, value) -> nvdisasm's tokens (sorted, dot-joined) -> (count, example words).
    type Seen<'a> = BTreeMap<(usize, u64), BTreeMap<String, (usize, Vec<(u128, &'a str)>)>>;
    let mut seen: Seen = BTreeMap::new();
    let mut readable: HashMap<(usize, u64), usize> = HashMap::new();
    for &(w, text) in words {
        if w & rv.fixed_mask != rv.fixed_value & rv.fixed_mask {
            continue;
        }
        let Some(toks) = tokens(text, mnemonic) else {
            continue;
        };
        let per: Vec<Vec<String>> = mod_fields.iter().map(|&f| printed(f, w)).collect();
        for &(fi, _) in &groups {
            let x = Word(w).get_field(&rv.fields[fi]);
            if flip_read(fi, x) {
                continue;
            }
            let others: Vec<String> = constant
                .iter()
                .cloned()
                .chain(
                    mod_fields
                        .iter()
                        .zip(&per)
                        .filter(|(f, _)| **f != fi)
                        .flat_map(|(_, p)| p.iter().cloned()),
                )
                .collect();
            let Some(left) = minus(&toks, &others) else {
                continue;
            };
            *readable.entry((fi, x)).or_default() += 1;
            let own = &per[mod_fields.iter().position(|f| *f == fi).unwrap()];
            // Tokens no value of the group names are another field's doing (SM80 LD's
            // `???0`, which bit 90 prints): left out of the group's name.
            let voc = vocabulary(fi);
            let name: Vec<&str> = left.iter().copied().filter(|t| voc.contains(*t)).collect();
            if same_tokens(&name, own) {
                continue;
            }
            let e = seen
                .entry((fi, x))
                .or_default()
                .entry(name.join("."))
                .or_default();
            e.0 += 1;
            if e.1.len() < EVIDENCE {
                e.1.push((w, text));
            }
        }
    }
    let mut out = Vec::new();
    for ((fi, x), names) in seen {
        let Some((name, (n, examples))) =
            names.into_iter().max_by_key(|(k, (n, _))| (*n, k.clone()))
        else {
            continue;
        };
        let all = readable[&(fi, x)];
        if n < MIN_WORDS || n * 100 < MIN_SHARE * all {
            continue;
        }
        let (f, g) = (&rv.fields[fi], groups.iter().find(|g| g.0 == fi).unwrap().1);
        // A value the table has no row for is another defect (the row is missing).
        let Some(row) = g.lookup(x as u32) else {
            continue;
        };
        let table_name = field_modifier_text(rv, fi, x);
        let width = f.width() as usize;
        let bin = format!("{x:0width$b}");
        let mut bits: Vec<u8> = (0..f.width()).filter_map(|j| nth_bit(f, j)).collect();
        bits.sort_unstable();
        let bit_text = super::finding::compact_bits(&bits);
        let shown = |s: &str| {
            if s.is_empty() {
                "(nothing)".to_string()
            } else {
                format!("`{s}`")
            }
        };
        let mut evidence = vec![vr.base.clone()];
        evidence.extend(examples.iter().map(|(w, t)| Evidence {
            word: Word(*w).to_string(),
            arch: vr.arch,
            nvdisasm: t.to_string(),
        }));
        out.push(Finding {
            file: path.to_string(),
            line: row.line,
            key: v.key.clone(),
            kind: "modifier-name-differs".into(),
            bits,
            message: format!(
                "Modifier Group {}, value {bin}: the table names it {}; nvdisasm prints {}",
                g.index,
                shown(&table_name),
                shown(&name)
            ),
            evidence,
            reading: Some(format!(
                "value {x} of Modifier Group {} (bits {} as nvdisasm reads them) prints {} in \
                 {n} of the {all} recorded words with that value whose other modifiers the \
                 table explains",
                g.index,
                bit_text,
                shown(&name)
            )),
        });
    }
    out
}

/// Whether nvdisasm's single flips place every bit of the resolved group field `f`: the flip
/// of its value bit j prints the group's value 2^j (not a layout kept from the table because
/// the flips were not recorded).
fn placed_by_flips(f: &crate::spec::Field, vr: &VariantReading) -> bool {
    let FieldKind::Modifier(g) = f.kind else {
        return false;
    };
    (0..f.width()).all(|j| {
        nth_bit(f, j).is_some_and(|b| {
            vr.bits.iter().any(|r| {
                r.bit == b
                    && matches!(r.effect, Effect::Modifier { group: Some(x), bit: Some(y), .. }
                        if x == g && y as u32 == j)
            })
        })
    })
}

/// The word bit of value bit `j` of field `f`.
fn nth_bit(f: &crate::spec::Field, j: u32) -> Option<u8> {
    let mut k = j;
    for r in &f.ranges {
        if k < r.len as u32 {
            return Some(r.lo + k as u8);
        }
        k -= r.len as u32;
    }
    None
}
