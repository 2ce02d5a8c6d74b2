//! The learned reading of every table, kept as data in resolved/tables.json beside the
//! resolved layouts: per table its constraint tables, per variant its recognizer. Entry points:
//! [`Model::legality`] (is it legal, and why not).

use super::derived::Derived;
use super::legality::{
    Class, ConstraintTable, Legality, Recognizer, learn_constraints, learn_recognizer,
};
use crate::codec::{Codec, Decoded, VariantId};
use crate::oracle::{Answer, Entry};
use crate::render::Renderer;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The reading of one table file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableModel {
    /// The table's path, as in [`crate::spec::Table::path`].
    pub path: String,
    /// Constraint tables learned from the reasons for this table's words.
    pub constraints: Vec<ConstraintTable>,
    /// Per variant (table order): its recognizer, `None` when no word of it was recorded.
    pub variants: Vec<Option<Recognizer>>,
    /// Variant indices in the order nvdisasm's texts prefer them where several variants'
    /// fixed bits match a word (SM80 LD: the forms with an immediate and a predicate operand
    /// before the forms without, which are the same encodings with 0 and PT); empty when no
    /// learned word matched two variants.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    preference: Vec<u16>,
    /// Each variant's first place in `preference` ([`ranks_of`]), worked out on first use
    /// and dropped whenever `preference` is set (never read from or written to the file).
    #[serde(skip)]
    ranks: Derived<Vec<u16>>,
    /// Where several variants' fixed bits match a word: a bit tree naming the variant (its
    /// index in the table) nvdisasm reads it as, learned from which variant's text is right
    /// ([`crate::reading::printer::learn_printers`]); used before `preference` when the
    /// variant it names matches the word. `None` when the preference order does as well.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chooser: Option<super::tree::Tree>,
    /// Whether each recognizer of `variants` was learned from the words decoded as its
    /// variant ([`Model::learn`]), so that [`Model::relearn_recognizers`] keeps those whose
    /// words it would give are the same (never read from or written to the file).
    #[serde(skip)]
    from_decoded: FromDecoded,
}

/// [`TableModel`]'s mark that its recognizers were learned by [`Model::learn`]: equal
/// whatever it holds (what it says is known only in the process that learned them).
#[derive(Debug, Clone, Copy, Default)]
struct FromDecoded(bool);

impl PartialEq for FromDecoded {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for FromDecoded {}

impl TableModel {
    /// Variant indices in the order nvdisasm's texts prefer them where several variants'
    /// fixed bits match a word (see the field's documentation).
    pub fn preference(&self) -> &[u16] {
        &self.preference
    }

    /// Sets the preference order (and drops the ranks worked out from the old one).
    pub fn set_preference(&mut self, order: Vec<u16>) {
        self.preference = order;
        self.ranks = Derived::default();
    }

    /// Each variant's first place in the preference, [`UNRANKED`] where it has none; worked
    /// out once.
    fn preference_ranks(&self) -> &[u16] {
        self.ranks.get_or_init(|| ranks_of(&self.preference))
    }
}

/// The learned reading of all tables, parallel to [`Codec::tables`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Model {
    /// One per table, in codec order.
    pub tables: Vec<TableModel>,
    /// Recorded answers learned from.
    pub learned_from: usize,
}

impl Model {
    /// Learns the model from `entries` (never the check split: the caller filters), each word
    /// attributed to the variant `codec` decodes it as.
    pub fn learn(codec: &Codec, entries: &[Entry]) -> Model {
        let n = codec.tables.len();
        let mut per_table: Vec<Vec<(u128, &Answer)>> = vec![Vec::new(); n];
        let mut per_variant: Vec<Vec<Vec<(u128, &Answer)>>> = codec
            .tables
            .iter()
            .map(|t| vec![Vec::new(); t.variants.len()])
            .collect();
        let mut learned_from = 0;
        for e in entries {
            let Some(d) = codec.decode(e.arch, crate::codec::Word(e.word)) else {
                continue;
            };
            learned_from += 1;
            per_table[d.id.table as usize].push((e.word, &e.answer));
            per_variant[d.id.table as usize][d.id.variant as usize].push((e.word, &e.answer));
        }
        let votes = preference_votes(codec, entries);
        if std::env::var_os("SASS_CONFORM_DEBUG_MERGES").is_some() {
            for (t, v) in &votes {
                let mut v: Vec<_> = v.iter().collect();
                v.sort();
                eprintln!("preference votes table {t}: {v:?}");
            }
        }
        let tables = codec
            .tables
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let constraints = learn_constraints(&per_table[i]);
                let variants = recognizers(&per_variant[i], &constraints);
                TableModel {
                    path: t.path.clone(),
                    constraints,
                    variants,
                    preference: match votes.get(&(i as u16)) {
                        Some(v) => super::modifiers::rank(t.variants.len(), v)
                            .into_iter()
                            .map(|k| k as u16)
                            .collect(),
                        None => Vec::new(),
                    },
                    ranks: Derived::default(),
                    chooser: None,
                    from_decoded: FromDecoded(true),
                }
            })
            .collect();
        Model {
            tables,
            learned_from,
        }
    }

    /// Learns each variant's recognizer again from the words [`Model::choose`] gives it, once
    /// the preference and choosers are learned: legality is judged with the chosen variant's
    /// recognizer ([`Model::legality`]), so it must have learned from the words it will be
    /// asked about. (SM103 BRA pages: once `BRA_UR_I`, a `BRA_P_UR_I` with the predicate at
    /// `PT`, reads its words best and is preferred, the words nvdisasm refuses for a
    /// scoreboard barrier go to it, and its recognizer had never seen one.) A variant that
    /// gets no words keeps none; the constraint tables, per table, stay.
    ///
    /// A recognizer [`Model::learn`] learned from the same words (the words decoded as its
    /// variant are those chosen for it) is kept, not learned again: the same words and
    /// constraint tables learn the same recognizer, and decoding does not read the printers
    /// learned in between, so the words decoded as a variant here are those it learned from.
    pub fn relearn_recognizers(&mut self, codec: &Codec, entries: &[Entry]) {
        let empty = || -> Vec<Vec<Vec<(u128, &Answer)>>> {
            codec
                .tables
                .iter()
                .map(|t| vec![Vec::new(); t.variants.len()])
                .collect()
        };
        let (mut per_variant, mut decoded) = (empty(), empty());
        for e in entries {
            let Some(d) = codec.decode(e.arch, crate::codec::Word(e.word)) else {
                continue;
            };
            decoded[d.id.table as usize][d.id.variant as usize].push((e.word, &e.answer));
            let d = self.choose(codec, d);
            per_variant[d.id.table as usize][d.id.variant as usize].push((e.word, &e.answer));
        }
        for ((tm, answers), before) in self.tables.iter_mut().zip(&per_variant).zip(&decoded) {
            let kept = std::mem::take(&mut tm.variants);
            let same = |v: usize| {
                tm.from_decoded.0 && kept.len() == answers.len() && answers[v] == before[v]
            };
            tm.variants = answers
                .iter()
                .enumerate()
                .map(|(v, a)| {
                    if same(v) {
                        return kept[v].clone();
                    }
                    let mut r = learn_recognizer(a)?;
                    r.learn_accepted(a, &tm.constraints);
                    Some(r)
                })
                .collect();
            tm.from_decoded = FromDecoded(false);
        }
    }

    /// The variant nvdisasm reads the word as: of the variants whose fixed bits match (the
    /// decoded one and its `others`), the first in the table's learned preference
    /// ([`Model::choice`]), decoded again as that variant.
    pub fn choose(&self, codec: &Codec, d: Decoded) -> Decoded {
        match self.choice(&d) {
            Some(id) => codec.decode_as(id, d.word).unwrap_or(d),
            None => d,
        }
    }

    /// [`Model::choose`] in place: `d` (whose field values need not be read yet) becomes the
    /// chosen variant's decode, the field values aside (the caller reads them with
    /// [`Codec::read_fields`]). No copy of the struct in and out.
    pub fn choose_in_place(&self, codec: &Codec, d: &mut Decoded) {
        if let Some(id) = self.choice(d) {
            codec.retarget(id, d);
        }
    }

    /// The variant [`Model::choose`] moves `d` to, `None` when it keeps `d.id`: the variant
    /// the table's chooser tree names when it matches the word, else of `d.id` and its
    /// `others`, the first in the preference order. Reads `d`'s word, id and others only.
    pub fn choice(&self, d: &Decoded) -> Option<VariantId> {
        if d.n_others == 0 {
            return None;
        }
        let t = self.tables.get(d.id.table as usize)?;
        if let Some(tree) = &t.chooser {
            let want = VariantId {
                table: d.id.table,
                variant: tree.classify(d.word.0),
            };
            if want == d.id {
                return None;
            }
            if d.others().contains(&want) {
                return Some(want);
            }
        }
        preferred(t.preference_ranks(), d).filter(|&best| best != d.id)
    }

    /// Whether nvdisasm accepts the decoded word, and why not. The recognizer first (an
    /// unrecognised word has no opclass), then the table's constraint tables (an index value
    /// a reason named, unless the word's opclass printed values of that pool and its own
    /// reasons did not name it, [`super::legality::Recognizer::own_refused`]; or any value not
    /// seen accepted where the opclass's table is closed,
    /// [`super::legality::Recognizer::closed`]); a variant with no learned reading is taken
    /// as legal.
    pub fn legality(&self, codec: &Codec, d: &Decoded) -> Legality {
        let Some(t) = self.tables.get(d.id.table as usize) else {
            return Legality::Legal;
        };
        let word = d.word.0;
        let recognizer = t
            .variants
            .get(d.id.variant as usize)
            .and_then(Option::as_ref);
        let class = recognizer.map(|r| r.classify(word));
        if let Some(Class::Unrecognized(reason)) = class {
            return Legality::Unrecognized {
                reason: reason.clone(),
            };
        }
        for c in &t.constraints {
            let value = c.index(word);
            let pooled = c.is_undefined(value);
            let refused = recognizer.map_or(pooled, |r| r.refuses(word, &c.table, value, pooled))
                || recognizer
                    .is_some_and(|r| r.closes(word, &c.table) || r.foresees(word, &c.table, value));
            if refused && !recognizer.is_some_and(|r| r.accepts(word, &c.table, value)) {
                return Legality::Undefined {
                    table: c.table.clone(),
                    value,
                };
            }
        }
        let ours = codec.table(d.id).mnemonic.as_str();
        match class {
            Some(Class::Mnemonic(m)) if m.is_empty() => Legality::Silent,
            Some(Class::Mnemonic(m)) if m != ours => Legality::OtherMnemonic {
                mnemonic: m.clone(),
            },
            _ => Legality::Legal,
        }
    }
}

/// One recognizer per variant of a table, learned from the answers given to it (`None` for a
/// variant given none), with the constraint values it accepts.
fn recognizers(
    per_variant: &[Vec<(u128, &Answer)>],
    constraints: &[ConstraintTable],
) -> Vec<Option<Recognizer>> {
    per_variant
        .iter()
        .map(|a| {
            let mut r = learn_recognizer(a)?;
            r.learn_accepted(a, constraints);
            Some(r)
        })
        .collect()
}

/// Of the decoded variant and its `others` in the same table, the one that comes first in the
/// preference (`ranks`: each variant's first place in it, [`TableModel::preference_ranks`]);
/// `None` when none of them is in it. The same pick as scanning the preference for the first
/// candidate, in as many steps as there are candidates (up to 17) instead of up to the
/// preference's length (111 variants in TLD4).
fn preferred(ranks: &[u16], d: &Decoded) -> Option<VariantId> {
    let table = d.id.table;
    std::iter::once(d.id)
        .chain(d.others().iter().copied())
        .filter(|id| id.table == table)
        .filter_map(|id| {
            let rank = *ranks.get(id.variant as usize)?;
            (rank != UNRANKED).then_some((rank, id))
        })
        .min_by_key(|&(rank, _)| rank)
        .map(|(_, id)| id)
}

/// The rank of a variant the preference does not list.
const UNRANKED: u16 = u16::MAX;

/// Each variant's first place in `preference` (indexed by variant, [`UNRANKED`] where it is
/// not listed), as long as the highest variant listed.
fn ranks_of(preference: &[u16]) -> Vec<u16> {
    let len = preference
        .iter()
        .map(|&p| p as usize + 1)
        .max()
        .unwrap_or(0);
    let mut ranks = vec![UNRANKED; len];
    for (place, &p) in preference.iter().enumerate() {
        let r = &mut ranks[p as usize];
        *r = (*r).min(place.min(UNRANKED as usize - 1) as u16);
    }
    ranks
}

/// Votes (per table) for "variant a before variant b": learned texts that a renders exactly
/// and b does not, over words both match.
fn preference_votes(
    codec: &Codec,
    entries: &[Entry],
) -> HashMap<u16, HashMap<(usize, usize), usize>> {
    let r = Renderer::new(codec);
    let mut votes: HashMap<u16, HashMap<(usize, usize), usize>> = HashMap::new();
    for e in entries {
        let Answer::Text(t) = &e.answer else { continue };
        let Some(d) = codec.decode(e.arch, crate::codec::Word(e.word)) else {
            continue;
        };
        if d.n_others == 0 {
            continue;
        }
        let ids: Vec<VariantId> = std::iter::once(d.id)
            .chain(d.others().iter().copied())
            .filter(|id| id.table == d.id.table)
            .collect();
        let right: Vec<bool> = ids
            .iter()
            .map(|&id| {
                codec
                    .decode_as(id, d.word)
                    .is_some_and(|x| r.render(codec, &x) == *t)
            })
            .collect();
        let table = votes.entry(d.id.table).or_default();
        for (i, a) in ids.iter().enumerate() {
            for (j, b) in ids.iter().enumerate() {
                if right[i] && !right[j] {
                    *table
                        .entry((a.variant as usize, b.variant as usize))
                        .or_default() += 1;
                }
            }
        }
    }
    votes
}
