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
//! that could be read (of the first [`MAX_WORDS`] matching words). Values 0 (the fixed
//! word's) and 2^j whose single flip changes the modifiers (read by [`super::resolve`]) are
//! left to the flip reading: one defect, one finding.

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

/// Widest modifier or flag field whose values are rendered one by one (a variant with a
/// wider one is not checked).
const MAX_BITS: u32 = 12;

/// Most words read per variant (the first, in recording order): a 4-bit group then still
/// has some 250 words per value, and TLD4's 111 variants, each matched by ~12,000 recorded
/// words, stay quick.
pub const MAX_WORDS: usize = 4000;

/// Evidence words per finding (after the fixed word).
const EVIDENCE: usize = 3;

/// A recorded word nvdisasm accepts: its text, the mnemonic and the modifier tokens
/// (`@P0 TLD.LZ.EF ...` -> `TLD`, [`LZ`, `EF`]).
pub type Text<'a> = (&'a str, &'a str, Vec<&'a str>);

/// The recorded words nvdisasm accepts with one arch and opcode (bits 0-11, which every
/// variant fixes): the words (scanned against a variant's fixed bits) and, parallel, their
/// texts.
#[derive(Default)]
pub struct Bucket<'a> {
    /// The words.
    pub words: Vec<u128>,
    /// Their texts, parallel to `words`.
    pub texts: Vec<Text<'a>>,
}

/// Recorded words with nvdisasm's text, by (arch, mnemonic nvdisasm printed)
/// ([`texts_by_arch`]).
pub type ByArch<'a> = HashMap<(Arch, &'a str), Bucket<'a>>;

/// The legal recorded answers of `entries`, parsed, by arch and printed mnemonic (the input
/// of [`name_findings`]); each bucket's words in recording order.
pub fn texts_by_arch(entries: &[Entry]) -> ByArch<'_> {
    let mut out: ByArch = HashMap::new();
    for e in entries {
        if let Answer::Text(t) = &e.answer
            && let Some(l) = Line::parse(t)
        {
            let b = out.entry((e.arch, l.mnemonic)).or_default();
            b.words.push(e.word);
            b.texts.push((t.as_str(), l.mnemonic, l.mods));
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
    use rayon::prelude::*;
    let resolved = crate::reading::resolved::resolve_layouts(codec, readings);
    readings
        .par_iter()
        .filter(|(_, vr)| vr.base_legal)
        .flat_map_iter(|(id, vr)| {
            let (t, v) = (codec.table(*id), codec.variant(*id));
            let rv = &resolved[id.table as usize].variants[id.variant as usize];
            // The words nvdisasm printed with the variant's mnemonic.
            let mnemonic = v.title.split('.').next().unwrap_or("");
            let bucket = texts.get(&(vr.arch, mnemonic));
            variant_findings(&t.path, v, rv, vr, bucket)
        })
        .collect()
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

/// Takes the multiset `b` out of `a`; false (and `a` part-taken) when `b` is not inside it.
fn take(a: &mut Vec<&str>, b: &[String]) -> bool {
    for x in b {
        let Some(i) = a.iter().position(|y| y == x) else {
            return false;
        };
        a.remove(i);
    }
    true
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
    bucket: Option<&Bucket>,
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
    // Tokens each value of each modifier or flag field prints, by the table (rendered once).
    if mod_fields.iter().any(|&f| rv.fields[f].width() > MAX_BITS) {
        return vec![];
    }
    let names: Vec<Vec<Vec<String>>> = mod_fields
        .iter()
        .map(|&fi| {
            (0..1u64 << rv.fields[fi].width())
                .map(|x| split(&field_modifier_text(rv, fi, x)))
                .collect()
        })
        .collect();
    let printed = |k: usize, w: u128| -> &[String] {
        &names[k][Word(w).get_field(&rv.fields[mod_fields[k]]) as usize]
    };
    // Tokens the fixed word prints that no field gives (title, fixed bits).
    let base_word = v.fixed_value;
    let Some(t0) = tokens(&vr.base.nvdisasm, mnemonic) else {
        return vec![];
    };
    let all0: Vec<String> = (0..mod_fields.len())
        .flat_map(|k| printed(k, base_word).iter().cloned())
        .collect();
    let Some(constant) = minus(&t0, &all0) else {
        return vec![];
    };
    let constant: Vec<String> = constant.into_iter().map(str::to_string).collect();
    // Groups to check: (index in `mod_fields`, group) for the variant's mnemonic groups.
    let groups: Vec<(usize, &crate::spec::ModifierGroup)> = (0..mod_fields.len())
        .filter(|&k| placed_by_flips(&rv.fields[mod_fields[k]], vr))
        .filter_map(|k| match rv.fields[mod_fields[k]].kind {
            FieldKind::Modifier(g) => v
                .groups
                .iter()
                .find(|x| x.kind == GroupKind::Mnemonic && x.index == g)
                .map(|x| (k, x)),
            _ => None,
        })
        .collect();
    if groups.is_empty() {
        return vec![];
    }
    // Every token some value of each group names.
    let vocabularies: HashMap<usize, std::collections::HashSet<&str>> = groups
        .iter()
        .map(|&(k, _)| {
            let voc = names[k].iter().flatten().map(String::as_str).collect();
            (k, voc)
        })
        .collect();
    // Values the single flips read: 2^j whose flip changes the modifiers.
    let flip_read = |k: usize, x: u64| -> bool {
        let fi = mod_fields[k];
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
    let (mask, fixed) = (rv.fixed_mask, rv.fixed_value & rv.fixed_mask);
    let words = bucket
        .into_iter()
        .flat_map(|b| b.words.iter().zip(&b.texts))
        .filter(|(w, _)| **w & mask == fixed)
        .take(MAX_WORDS);
    for (&w, (text, m, toks)) in words {
        let text = *text;
        if *m != mnemonic {
            continue;
        }
        // The word's tokens less those the fixed word prints whatever the fields.
        let Some(toks) = minus(toks, &constant) else {
            continue;
        };
        let per: Vec<&[String]> = (0..mod_fields.len()).map(|k| printed(k, w)).collect();
        // Every token as the table names it (most words): every group's value agrees.
        let mut all = toks.clone();
        let agrees = per.iter().all(|p| take(&mut all, p)) && all.is_empty();
        for &(k, _) in &groups {
            let x = Word(w).get_field(&rv.fields[mod_fields[k]]);
            if flip_read(k, x) {
                continue;
            }
            if agrees {
                *readable.entry((k, x)).or_default() += 1;
                continue;
            }
            let mut left = toks.clone();
            let explained = per
                .iter()
                .enumerate()
                .filter(|(o, _)| *o != k)
                .all(|(_, p)| take(&mut left, p));
            if !explained {
                continue;
            }
            *readable.entry((k, x)).or_default() += 1;
            // Tokens no value of the group names are another field's doing (SM80 LD's
            // `???0`, which bit 90 prints): left out of the group's name.
            let voc = &vocabularies[&k];
            let name: Vec<&str> = left.iter().copied().filter(|t| voc.contains(t)).collect();
            if same_tokens(&name, per[k]) {
                continue;
            }
            let e = seen
                .entry((k, x))
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
    for ((k, x), found) in seen {
        let Some((name, (n, examples))) =
            found.into_iter().max_by_key(|(t, (n, _))| (*n, t.clone()))
        else {
            continue;
        };
        let all = readable[&(k, x)];
        let fi = mod_fields[k];
        if n < MIN_WORDS || n * 100 < MIN_SHARE * all {
            continue;
        }
        let (f, g) = (&rv.fields[fi], groups.iter().find(|g| g.0 == k).unwrap().1);
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
