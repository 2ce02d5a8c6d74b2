//! Legality as nvdisasm decides it, learned from nvdisasm's own reasons.
//!
//! Two rules, both learned from recorded answers (never typed in):
//! - **Constraint tables.** An illegal word's reason names a table and the index it looked up
//!   ("Opclass 'tld_urc_', undefined value 0x10 for table 'TABLES_opex_0'"). Index bit k is the
//!   word bit whose value equals bit k of the reported value in every such reason (on every
//!   seed table: bits 105-109 and 122-124, weights 1..128); the defined set is the index of
//!   every word nvdisasm accepts, the undefined set the values its reasons name.
//! - **Recognition.** Per variant, a decision tree over the word's bits gives the class
//!   nvdisasm puts the word in: a mnemonic (the opclass's, e.g. `LD` or `LDG` on SM80) or an
//!   unrecognised word ("Unrecognized operation for functional unit 'uC'").

use super::derived::Derived;
use super::tree::Tree;
use crate::oracle::Answer;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// What nvdisasm does with a word, as far as legality goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "verdict")]
pub enum Legality {
    /// Accepted and printed with the variant's mnemonic.
    Legal,
    /// Accepted, and printed as nothing: nvdisasm writes an empty line for the word (SM90
    /// HMNMX2 and SM100 MOVM words with some modifier values; learned, like every class, from
    /// the recognizer's answers).
    Silent,
    /// Accepted, but printed as another instruction (`LDG` for an `LD` table): not the
    /// table's word.
    OtherMnemonic {
        /// The mnemonic nvdisasm prints.
        mnemonic: String,
    },
    /// Refused: the constraint table has no entry at this index.
    Undefined {
        /// nvdisasm's table name, `TABLES_opex_0`.
        table: String,
        /// The index looked up.
        value: u32,
    },
    /// Refused before any opclass is chosen; nvdisasm's reason.
    Unrecognized {
        /// The reason, e.g. `Unrecognized operation for functional unit 'uC'`.
        reason: String,
    },
}

impl Legality {
    /// The text nvdisasm prints for a word read with this legality: `render()` for a legal
    /// word, nothing for a silent one, `None` for a word it does not print as the table's.
    pub fn text(&self, render: impl FnOnce() -> String) -> Option<String> {
        match self {
            Legality::Legal => Some(render()),
            Legality::Silent => Some(String::new()),
            _ => None,
        }
    }

    /// Whether nvdisasm prints the word (with any mnemonic).
    pub fn is_legal(&self) -> bool {
        matches!(
            self,
            Legality::Legal | Legality::Silent | Legality::OtherMnemonic { .. }
        )
    }
}

/// A constraint table learned from reasons: which word bits form its index, which index values
/// are defined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConstraintTable {
    /// nvdisasm's name for it (`TABLES_opex_0`).
    pub table: String,
    /// `index_bits[k]` is the word bit of index bit k (weight 2^k); `None` where no reason
    /// had that value bit set (the bit reads as 0).
    pub index_bits: Vec<Option<u8>>,
    /// Index values seen in words nvdisasm accepts.
    pub defined: Vec<u32>,
    /// Index values nvdisasm's reasons name undefined, sorted.
    undefined: Vec<u32>,
    /// One recorded word per undefined value set: (word, reason), for evidence.
    pub example: (String, String),
    /// `undefined` as a bit set ([`bit_set`]), worked out on first use (never read from or
    /// written to the file).
    #[serde(skip)]
    undefined_set: Derived<Vec<u64>>,
}

impl ConstraintTable {
    /// The index `word` looks up.
    pub fn index(&self, word: u128) -> u32 {
        self.index_bits
            .iter()
            .enumerate()
            .map(|(k, b)| b.map_or(0, |b| ((word >> b & 1) as u32) << k))
            .sum()
    }

    /// The word bits the index reads (every known `index_bits` entry), as a mask.
    pub fn index_mask(&self) -> u128 {
        self.index_bits
            .iter()
            .flatten()
            .fold(0u128, |m, &b| m | 1 << b)
    }

    /// Whether the index of `word` is not defined (values never seen count as defined: the
    /// check split says whether that holds).
    pub fn refuses(&self, word: u128) -> Option<u32> {
        let i = self.index(word);
        self.is_undefined(i).then_some(i)
    }

    /// Index values nvdisasm's reasons name undefined, sorted.
    pub fn undefined(&self) -> &[u32] {
        &self.undefined
    }

    /// Sets the undefined index values (sorted), dropping the bit set worked out from the old
    /// ones.
    pub fn set_undefined(&mut self, values: Vec<u32>) {
        debug_assert!(values.is_sorted());
        self.undefined = values;
        self.undefined_set = Derived::default();
    }

    /// Whether nvdisasm's reasons name index `value` undefined: a bit test, not a search of
    /// the sorted list (decode asks once per word and table).
    #[inline]
    pub fn is_undefined(&self, value: u32) -> bool {
        let set = self.undefined_set.get_or_init(|| bit_set(&self.undefined));
        set.get(value as usize / 64)
            .is_some_and(|w| w >> (value % 64) & 1 == 1)
    }
}

/// The bit set of `values`: bit `v % 64` of word `v / 64` for each, as many words as the
/// highest value needs.
fn bit_set(values: &[u32]) -> Vec<u64> {
    let words = values
        .iter()
        .map(|&v| v as usize / 64 + 1)
        .max()
        .unwrap_or(0);
    let mut set = vec![0u64; words];
    for &v in values {
        set[v as usize / 64] |= 1 << (v % 64);
    }
    set
}

/// The class nvdisasm puts a word of one variant in.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Recognised as this mnemonic (from the text, or the opclass of a constraint reason).
    Mnemonic(String),
    /// Not recognised; nvdisasm's reason.
    Unrecognized(String),
}

/// Recognition rule of one variant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recognizer {
    /// The classes, indexed by the tree's leaves.
    pub classes: Vec<Class>,
    /// The tree; `None` when every learned word had `classes[0]`.
    pub tree: Option<Tree>,
    /// The opclasses nvdisasm's constraint reasons name for this variant's words, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opclasses: Vec<String>,
    /// Which of `opclasses` a word is in (a tree over the words whose reasons name one);
    /// `None` with one opclass or none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opclass_tree: Option<Tree>,
    /// Constraint-table values this variant's accepted words look up, per (opclass, table):
    /// `(opclass or "", table, sorted values)`. A table name's undefined values are pooled
    /// over the opclasses whose reasons name it, but one opclass can define what another
    /// does not (SM103 IABS: `TABLES_opex_1` at 0x5a is refused for the immediate and
    /// uniform forms, printed for `IABS R, R`): a value seen accepted here is not refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accepted: Vec<(String, String, Vec<u32>)>,
    /// `(opclass, table)` pairs whose unseen index values are refused: this variant's words
    /// of the opclass that nvdisasm's reasons name the table for show at least
    /// [`MIN_CLOSED_REFUSED`] distinct refused values and more than [`CLOSED_RATIO`] times as
    /// many as accepted ones. nvdisasm's table for an opclass can define few values (SM120
    /// BPT `.DRAIN`, `bpt__onlyDRAIN` and `TABLES_opex_2`: 153 values refused, 1 accepted, the
    /// check split refusing more that no learned word showed: verdict 93.7% -> 100%), where
    /// taking unseen values as defined decodes words nvdisasm refuses. At a lower ratio the
    /// rule refuses words nvdisasm prints (SM103 IABS, 119-139 refused against 100 accepted:
    /// at ratio 1, 94.8% -> 80.1% legal text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub closed: Vec<(String, String)>,
    /// Where some learned answer is an empty line: which of the printed classes (a mnemonic,
    /// or `""` for the empty line) a word `tree` reads as recognised is printed as, a tree
    /// learned from the printed answers only. Words refused by a constraint table are left
    /// out of it: nvdisasm refused them before deciding what to print, and [`super::model`]
    /// checks the constraint tables whatever the class. Mixed in (one tree), they split the
    /// empty line by the scheduling bits the constraint tables index: nv_isa_solver's SM103
    /// QMUL4 prints an empty line exactly where a type pair (bits 77-78, 80-81 or 88-89) is 2,
    /// in every recorded file, and the one tree put 16 of the check split's empty lines in
    /// printed leaves. `None` where no answer is an empty line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printing: Option<Tree>,
    /// `(opclass, table, sorted values)`: index values no answer of this variant looked up
    /// that a tree over the index's bits, learned from the values seen accepted and refused
    /// in that opclass, calls refused. nvdisasm's constraint tables are not lists of chance
    /// values: nv_isa_solver's SM103 JMXU (`TABLES_opex_0`, index bits 105-109 and 122-124)
    /// refuses every value whose top index bits are 6 or 7 and the values 0x10, 0x30, ...
    /// (the low five bits 0x10) in every other row, and 48 of its 256 values were in no
    /// learned answer; taken as defined, 12 check-split words nvdisasm refuses were read as
    /// printed. Only where at least [`MIN_FORESEEN_SEEN`] values of each kind were seen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub foreseen: Vec<(String, String, Vec<u32>)>,
    /// `(opclass, table, sorted values)`: where this variant's accepted words of the opclass
    /// looked up values the table's pooled undefined set holds, the pool does not speak for
    /// the opclass, and only the values the opclass's own reasons named are refused (none
    /// where they never named the table). nv_isa_solver's SM103 IDP: only the uniform-register
    /// opclasses (`idp_2a__URb`, `idp_4a__URb`) name `TABLES_opex_4`, the register ones
    /// (`idp_2a__R`, `idp_4a__R`) name `TABLES_opex_7` and printed 44 and 42 values of the
    /// opex_4 pool; pooled, 4 check-split words nvdisasm prints were read as refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub own_refused: Vec<(String, String, Vec<u32>)>,
}

impl Recognizer {
    /// The class of `word`: `tree`'s, and for a recognised word the printing tree's where
    /// there is one.
    pub fn classify(&self, word: u128) -> &Class {
        let c = self.tree.as_ref().map_or(0, |t| t.classify(word));
        let class = &self.classes[c as usize];
        match (class, &self.printing) {
            (Class::Mnemonic(_), Some(p)) => &self.classes[p.classify(word) as usize],
            _ => class,
        }
    }

    /// The opclass of `word`, where the variant's reasons name any.
    pub fn opclass(&self, word: u128) -> Option<&str> {
        let i = self.opclass_tree.as_ref().map_or(0, |t| t.classify(word));
        self.opclasses.get(i as usize).map(String::as_str)
    }

    /// Whether an accepted word of this variant in `word`'s opclass looked up `value` in
    /// `table`.
    pub fn accepts(&self, word: u128, table: &str, value: u32) -> bool {
        let o = self.opclass(word).unwrap_or("");
        listed(&self.accepted, o, table).is_some_and(|v| v.binary_search(&value).is_ok())
    }

    /// Whether `table`'s unseen values are refused for `word`'s opclass ([`Recognizer::closed`]).
    pub fn closes(&self, word: u128, table: &str) -> bool {
        // Most variants close nothing: no opclass lookup on decode's path for them.
        if self.closed.is_empty() {
            return false;
        }
        let o = self.opclass(word).unwrap_or("");
        self.closed.iter().any(|(co, ct)| co == o && ct == table)
    }

    /// Whether `table`'s index `value` is one [`Recognizer::foreseen`] refuses for `word`'s
    /// opclass.
    pub fn foresees(&self, word: u128, table: &str, value: u32) -> bool {
        if self.foreseen.is_empty() {
            return false;
        }
        let o = self.opclass(word).unwrap_or("");
        listed(&self.foreseen, o, table).is_some_and(|v| v.binary_search(&value).is_ok())
    }

    /// Whether `table`'s index `value` is refused for `word`: by the opclass's own reasons
    /// where the pool does not speak for it ([`Recognizer::own_refused`]), else by `pooled`
    /// (the table's undefined set says so).
    pub fn refuses(&self, word: u128, table: &str, value: u32, pooled: bool) -> bool {
        if self.own_refused.is_empty() {
            return pooled;
        }
        let o = self.opclass(word).unwrap_or("");
        match listed(&self.own_refused, o, table) {
            Some(own) => own.binary_search(&value).is_ok(),
            None => pooled,
        }
    }

    /// Fills `own_refused`: the (opclass, table) pairs whose accepted values meet the table's
    /// undefined set, with the values the opclass's own reasons named.
    fn learn_own_refused(
        &mut self,
        refused: &BTreeMap<(String, String), BTreeSet<u32>>,
        tables: &[ConstraintTable],
    ) {
        self.own_refused = self
            .accepted
            .iter()
            .filter(|(_, t, acc)| {
                tables
                    .iter()
                    .find(|c| &c.table == t)
                    .is_some_and(|c| acc.iter().any(|&v| c.is_undefined(v)))
            })
            .map(|(o, t, _)| {
                let own = refused.get(&(o.clone(), t.clone()));
                (
                    o.clone(),
                    t.clone(),
                    own.map_or_else(Vec::new, |r| r.iter().copied().collect()),
                )
            })
            .collect();
    }

    /// Fills `foreseen` from `accepted` and the refused values of each (opclass, table).
    fn learn_foreseen(
        &mut self,
        refused: &BTreeMap<(String, String), BTreeSet<u32>>,
        tables: &[ConstraintTable],
    ) {
        self.foreseen = refused
            .iter()
            .filter_map(|((o, t), r)| {
                let acc = listed(&self.accepted, o, t)?;
                let c = tables.iter().find(|c| &c.table == t)?;
                let v = foreseen_values(c, acc, r);
                (!v.is_empty()).then(|| (o.clone(), t.clone(), v))
            })
            .collect();
    }

    /// Fills `accepted`, `closed` and `foreseen` from this variant's answers and its table's
    /// constraint tables.
    pub fn learn_accepted(&mut self, answers: &[(u128, &Answer)], tables: &[ConstraintTable]) {
        self.learn_values(answers, tables);
        let mut refused: BTreeMap<(String, String), BTreeSet<u32>> = BTreeMap::new();
        for (_, a) in answers {
            if let Answer::Illegal(r) = a
                && let Some((o, v, t)) = parse_constraint_reason(r)
            {
                refused
                    .entry((o.to_string(), t.to_string()))
                    .or_default()
                    .insert(v);
            }
        }
        self.closed = refused
            .iter()
            .filter(|((o, t), r)| {
                let seen = listed(&self.accepted, o, t).map_or(0, <[u32]>::len);
                r.len() >= MIN_CLOSED_REFUSED && r.len() > CLOSED_RATIO * seen
            })
            .map(|(k, _)| k.clone())
            .collect();
        self.learn_foreseen(&refused, tables);
        self.learn_own_refused(&refused, tables);
    }

    /// Fills `accepted`: per (opclass, table), the index values of the accepted words.
    fn learn_values(&mut self, answers: &[(u128, &Answer)], tables: &[ConstraintTable]) {
        let mut acc: BTreeMap<(String, String), BTreeSet<u32>> = BTreeMap::new();
        for (w, _) in answers.iter().filter(|(_, a)| a.is_legal()) {
            let o = self.opclass(*w).unwrap_or("").to_string();
            for c in tables {
                acc.entry((o.clone(), c.table.clone()))
                    .or_default()
                    .insert(c.index(*w));
            }
        }
        self.accepted = acc
            .into_iter()
            .map(|((o, t), v)| (o, t, v.into_iter().collect()))
            .collect();
    }
}

/// The values a per-(opclass, table) list ([`Recognizer::accepted`], [`Recognizer::foreseen`])
/// holds for `opclass` and `table`.
fn listed<'a>(
    list: &'a [(String, String, Vec<u32>)],
    opclass: &str,
    table: &str,
) -> Option<&'a [u32]> {
    list.iter()
        .find(|(o, t, _)| o == opclass && t == table)
        .map(|(_, _, v)| v.as_slice())
}

/// Fewest distinct values seen accepted, and seen refused, before [`Recognizer::foreseen`]
/// guesses the unseen ones of an (opclass, table).
pub const MIN_FORESEEN_SEEN: usize = 8;

/// The index values of `table` that neither `accepted` nor `refused` holds, nor the table's
/// own lists (seen accepted or refused in any variant: SM90 F2F's variants each saw part of
/// what the table saw accepted), and that a tree
/// over the index bits ([`Tree::learn`]; accepted class 0, refused class 1) calls refused;
/// empty with fewer than [`MIN_FORESEEN_SEEN`] values of either kind. Only the values whose
/// unread index bits (no word bit known) are 0 are weighed; sorted.
fn foreseen_values(table: &ConstraintTable, accepted: &[u32], refused: &BTreeSet<u32>) -> Vec<u32> {
    if accepted.len() < MIN_FORESEEN_SEEN || refused.len() < MIN_FORESEEN_SEEN {
        return Vec::new();
    }
    let samples: Vec<(u128, u16)> = accepted
        .iter()
        .map(|&v| (u128::from(v), 0))
        .chain(refused.iter().map(|&v| (u128::from(v), 1)))
        .collect();
    let Some(tree) = Tree::learn(&samples) else {
        return Vec::new();
    };
    let read: u32 = table
        .index_bits
        .iter()
        .enumerate()
        .filter(|(_, b)| b.is_some())
        .fold(0, |m, (k, _)| m | 1 << k);
    (0..1u32 << table.index_bits.len().min(16))
        .filter(|&v| v & !read == 0)
        .filter(|v| accepted.binary_search(v).is_err() && !refused.contains(v))
        .filter(|v| !table.defined.contains(v) && !table.is_undefined(*v))
        .filter(|&v| tree.classify(u128::from(v)) == 1)
        .collect()
}

/// Fewest distinct refused values of an (opclass, table) before [`Recognizer::closed`] can
/// hold it.
pub const MIN_CLOSED_REFUSED: usize = 16;

/// How many times more distinct refused than accepted values close an (opclass, table)
/// ([`Recognizer::closed`]).
pub const CLOSED_RATIO: usize = 8;

/// The reason nvdisasm gives for an undefined constraint-table index: (opclass, value, table).
pub fn parse_constraint_reason(reason: &str) -> Option<(&str, u32, &str)> {
    let rest = reason.strip_prefix("Opclass '")?;
    let (opclass, rest) = rest.split_once("', undefined value 0x")?;
    let (hex, rest) = rest.split_once(" for table '")?;
    let table = rest.strip_suffix('\'')?;
    Some((opclass, u32::from_str_radix(hex, 16).ok()?, table))
}

/// The mnemonic an opclass name stands for: `ldg_uniform__Ra32` -> `LDG`, `tld4_scr_` -> `TLD4`.
pub fn opclass_mnemonic(opclass: &str) -> String {
    opclass.split('_').next().unwrap_or("").to_ascii_uppercase()
}

/// The class of a recorded answer: the printed mnemonic, the opclass's mnemonic for a
/// constraint reason, else unrecognised with the reason.
pub fn class_of(answer: &Answer) -> Class {
    match answer {
        Answer::Text(t) => Class::Mnemonic(text_mnemonic(t).to_string()),
        Answer::Illegal(r) => match parse_constraint_reason(r) {
            Some((opclass, _, _)) => Class::Mnemonic(opclass_mnemonic(opclass)),
            None => Class::Unrecognized(r.clone()),
        },
    }
}

/// The mnemonic of an nvdisasm line without its guard and modifiers:
/// `@!P0 LDG.E.EL R1, [R2.64] ;` -> `LDG` ("" for an empty line).
pub fn text_mnemonic(t: &str) -> &str {
    let mut it = t.split_whitespace();
    let first = it.next().unwrap_or("");
    let op = if first.starts_with('@') {
        it.next().unwrap_or("")
    } else {
        first
    };
    // `NOP;`: some opclasses print no space before the `;` (SM103 NOP, IADD3).
    op.split('.').next().unwrap_or("").trim_end_matches(';')
}

/// Most index bits of a constraint table whose every value [`index_sweep_words`] asks for.
pub const MAX_SWEPT_INDEX_BITS: usize = 8;

/// The index sweep: for each variant of `variants`, on the lowest word of the variant (its
/// fixed bits at their values) that nvdisasm printed among `answers`, every value of the index
/// of each constraint table learned from `answers` ([`learn_constraints`], at most
/// [`MAX_SWEPT_INDEX_BITS`] index bits) that no answer showed (values with an index bit no
/// word bit is known for are left out). Asked once, no value of the index is left to guess
/// ([`foreseen_values`]); values seen are not asked again, so the words a printer learns
/// from (all of one register, one guard) stay few: SM103
/// BREAK's `TABLES_opex_0` over scheduling bits, whose values the sweeps and splits never
/// showed, refused by the guess where nvdisasm takes `BREAK B8 ;` and taken where it refuses.
/// Unsorted, with repeats.
pub fn index_sweep_words(
    variants: &[crate::spec::Variant],
    answers: &[(u128, &Answer)],
) -> Vec<u128> {
    let tables = learn_constraints(answers);
    let mut out = Vec::new();
    for v in variants {
        let Some(base) = answers
            .iter()
            .filter(|(w, a)| a.is_legal() && w & v.fixed_mask == v.fixed_value)
            .map(|(w, _)| *w)
            .min()
        else {
            continue;
        };
        for t in tables
            .iter()
            .filter(|t| t.index_bits.len() <= MAX_SWEPT_INDEX_BITS)
        {
            let clear = t.index_mask();
            let unseen = |value: &u32| !t.defined.contains(value) && !t.is_undefined(*value);
            out.extend(
                (0..1u32 << t.index_bits.len())
                    .filter(unseen)
                    .filter_map(|value| with_index(t, base & !clear, value)),
            );
        }
        out.extend(opclass_sweep_words(v, &tables, answers));
    }
    out
}

/// `word` with `t`'s index bits set to `value` (its index bits already clear); `None` where
/// `value` sets an index bit no word bit is known for.
fn with_index(t: &ConstraintTable, word: u128, value: u32) -> Option<u128> {
    t.index_bits
        .iter()
        .enumerate()
        .filter(|(k, _)| value >> k & 1 == 1)
        .try_fold(word, |w, (_, b)| b.map(|b| w | 1 << b))
}

/// The index sweep within each opclass of `v`, where its reasons name two or more: on the
/// lowest word of `v` each opclass's reasons name a table for, every value of that table's
/// index (at most [`MAX_SWEPT_INDEX_BITS`] bits) the opclass's reasons did not name
/// refused. A value seen accepted in one opclass says nothing of another's table of the same
/// name (SM120 HADD2: `TABLES_opex_6` value 0x34, `.reuse` on the first source with the
/// yield bit, printed for `hadd2__RR` and refused for `hadd2_F32__RR`), and the sweep of
/// [`index_sweep_words`] skips every value seen in any opclass. Unsorted, with repeats.
fn opclass_sweep_words(
    v: &crate::spec::Variant,
    tables: &[ConstraintTable],
    answers: &[(u128, &Answer)],
) -> Vec<u128> {
    // (opclass, table) -> (lowest refused word, values refused).
    let mut seen: BTreeMap<(&str, &str), (u128, BTreeSet<u32>)> = BTreeMap::new();
    for (w, a) in answers {
        if w & v.fixed_mask != v.fixed_value {
            continue;
        }
        if let Answer::Illegal(r) = a
            && let Some((opclass, value, table)) = parse_constraint_reason(r)
        {
            let e = seen
                .entry((opclass, table))
                .or_insert((*w, BTreeSet::new()));
            e.0 = e.0.min(*w);
            e.1.insert(value);
        }
    }
    let opclasses: BTreeSet<&str> = seen.keys().map(|k| k.0).collect();
    if opclasses.len() < 2 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for ((_, table), (base, refused)) in &seen {
        let Some(t) = tables
            .iter()
            .find(|t| t.table == *table && t.index_bits.len() <= MAX_SWEPT_INDEX_BITS)
        else {
            continue;
        };
        let clear = t.index_mask();
        out.extend(
            (0..1u32 << t.index_bits.len())
                .filter(|value| !refused.contains(value))
                .filter_map(|value| with_index(t, base & !clear, value)),
        );
    }
    out
}

/// A refused word with its reported index value and nvdisasm's reason.
type Reasoned<'a> = (u128, u32, &'a str);

/// Learns the constraint tables of one set of answers (one table file's words): per table
/// name, the index bits from the reasons, then the defined values from the accepted words.
/// A table whose index bits the reasons do not pin down is left out.
pub fn learn_constraints(answers: &[(u128, &Answer)]) -> Vec<ConstraintTable> {
    let mut by_table: BTreeMap<&str, Vec<Reasoned>> = BTreeMap::new();
    for (w, a) in answers {
        if let Answer::Illegal(r) = a
            && let Some((_, value, table)) = parse_constraint_reason(r)
        {
            by_table.entry(table).or_default().push((*w, value, r));
        }
    }
    let mut out = Vec::new();
    for (table, ex) in by_table {
        let Some(index_bits) = index_bits(&ex) else {
            continue;
        };
        let mut t = ConstraintTable {
            table: table.to_string(),
            index_bits,
            defined: Vec::new(),
            undefined: Vec::new(),
            example: (crate::oracle::word_to_hex(ex[0].0), ex[0].2.to_string()),
            undefined_set: Derived::default(),
        };
        let undefined: BTreeSet<u32> = ex.iter().map(|e| e.1).collect();
        let defined: BTreeSet<u32> = answers
            .iter()
            .filter(|(_, a)| a.is_legal())
            .map(|(w, _)| t.index(*w))
            .collect();
        t.defined = defined.into_iter().collect();
        t.set_undefined(undefined.into_iter().collect());
        out.push(t);
    }
    out
}

/// Index bit k = the word bit equal to bit k of the value in every example (`None` when no
/// example has value bit k set); the width ends past the highest value bit set. `None` when a
/// value bit is set somewhere yet no word bit explains it.
fn index_bits(ex: &[(u128, u32, &str)]) -> Option<Vec<Option<u8>>> {
    let top = ex
        .iter()
        .map(|e| 32 - e.1.leading_zeros())
        .max()
        .unwrap_or(0);
    let mut bits = Vec::new();
    for k in 0..top {
        if ex.iter().all(|e| e.1 >> k & 1 == 0) {
            bits.push(None);
            continue;
        }
        let b = (0..128u8).find(|&b| ex.iter().all(|e| (e.1 >> k & 1) as u128 == e.0 >> b & 1))?;
        bits.push(Some(b));
    }
    Some(bits)
}

/// Learns a variant's recognizer from its words' answers: the tree over every answer, and
/// where some answer is an empty line ([`Legality::Silent`]) the printing tree over the
/// printed answers only ([`Recognizer::printing`]).
pub fn learn_recognizer(answers: &[(u128, &Answer)]) -> Option<Recognizer> {
    let classes: BTreeSet<Class> = answers.iter().map(|(_, a)| class_of(a)).collect();
    let classes: Vec<Class> = classes.into_iter().collect();
    if classes.is_empty() {
        return None;
    }
    let (opclasses, opclass_tree) = learn_opclasses(answers);
    if classes.len() == 1 {
        return Some(Recognizer {
            classes,
            tree: None,
            opclasses,
            opclass_tree,
            accepted: Vec::new(),
            closed: Vec::new(),
            foreseen: Vec::new(),
            own_refused: Vec::new(),
            printing: None,
        });
    }
    let sample = |(w, a): &(u128, &Answer)| {
        let c = class_of(a);
        (*w, classes.binary_search(&c).expect("listed") as u16)
    };
    let samples: Vec<(u128, u16)> = answers.iter().map(sample).collect();
    // The printing tree: learned from the printed answers only, where one is an empty line.
    let silent = answers
        .iter()
        .any(|(_, a)| matches!(a, Answer::Text(t) if t.is_empty()));
    let printed: Vec<(u128, u16)> = answers
        .iter()
        .filter(|(_, a)| silent && a.is_legal())
        .map(sample)
        .collect();
    Some(Recognizer {
        printing: Tree::learn_with(&printed, true),
        tree: Tree::learn_with(&samples, true),
        classes,
        opclasses,
        opclass_tree,
        accepted: Vec::new(),
        closed: Vec::new(),
        foreseen: Vec::new(),
        own_refused: Vec::new(),
    })
}

/// The opclasses a variant's constraint reasons name, sorted, and a tree telling them apart
/// (from those words; `None` with fewer than two).
fn learn_opclasses(answers: &[(u128, &Answer)]) -> (Vec<String>, Option<Tree>) {
    let named: Vec<(u128, &str)> = answers
        .iter()
        .filter_map(|(w, a)| match a {
            Answer::Illegal(r) => parse_constraint_reason(r).map(|(o, _, _)| (*w, o)),
            Answer::Text(_) => None,
        })
        .collect();
    let opclasses: Vec<String> = named
        .iter()
        .map(|(_, o)| o.to_string())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if opclasses.len() < 2 {
        return (opclasses, None);
    }
    let samples: Vec<(u128, u16)> = named
        .iter()
        .map(|(w, o)| {
            (
                *w,
                opclasses.iter().position(|x| x == o).expect("listed") as u16,
            )
        })
        .collect();
    let tree = Tree::learn_with(&samples, true);
    (opclasses, tree)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reason_is_parsed() {
        let r = "Opclass 'tld_urc_', undefined value 0x10 for table 'TABLES_opex_0'";
        assert_eq!(
            parse_constraint_reason(r),
            Some(("tld_urc_", 0x10, "TABLES_opex_0"))
        );
        assert_eq!(
            parse_constraint_reason("Unrecognized operation for functional unit 'uC'"),
            None
        );
        assert_eq!(opclass_mnemonic("ldg_uniform__Ra32"), "LDG");
        assert_eq!(opclass_mnemonic("tld4_scr_"), "TLD4");
    }

    #[test]
    fn an_empty_answer_is_its_own_class_and_silent_is_legal() {
        // nvdisasm 13.5.37 prints an empty line for some SM100 MOVM words: a class of its own
        // (mnemonic ""), read as Legality::Silent, which is legal and prints nothing.
        let empty = Answer::Text(String::new());
        let movm = Answer::Text("@P0 MOVM.16.MT88 R0, R1 ;".into());
        assert_eq!(class_of(&empty), Class::Mnemonic(String::new()));
        assert_eq!(class_of(&movm), Class::Mnemonic("MOVM".into()));
        let answers: Vec<(u128, &Answer)> = (0..8u128)
            .map(|v| (v << 76, if v >= 6 { &empty } else { &movm }))
            .collect();
        let r = learn_recognizer(&answers).expect("answers");
        assert_eq!(r.classify(7 << 76), &Class::Mnemonic(String::new()));
        assert_eq!(r.classify(1 << 76), &Class::Mnemonic("MOVM".into()));
        assert!(Legality::Silent.is_legal());
    }

    /// nv_isa_solver's SM103 JMXU `TABLES_opex_0` as recorded: index bits 105-109 and
    /// 122-124; a value is refused where its top three bits are 6 or 7 or its low five are
    /// 0x10. One value in five left out of the learned answers is guessed from the others.
    #[test]
    fn unseen_constraint_values_are_guessed_from_the_index_bits() {
        let bits = [105u8, 106, 107, 108, 109, 122, 123, 124];
        let table = ConstraintTable {
            table: "TABLES_opex_0".into(),
            index_bits: bits.iter().map(|&b| Some(b)).collect(),
            defined: Vec::new(),
            undefined: Vec::new(),
            example: (String::new(), String::new()),
            undefined_set: Derived::default(),
        };
        let refused_by_nvdisasm = |v: u32| v >> 5 >= 6 || v & 0x1f == 0x10;
        let unseen = |v: u32| v % 5 == 2;
        let accepted: Vec<u32> = (0..256)
            .filter(|&v| !unseen(v) && !refused_by_nvdisasm(v))
            .collect();
        let refused: BTreeSet<u32> = (0..256)
            .filter(|&v| !unseen(v) && refused_by_nvdisasm(v))
            .collect();
        let guessed = foreseen_values(&table, &accepted, &refused);
        let want: Vec<u32> = (0..256)
            .filter(|&v| unseen(v) && refused_by_nvdisasm(v))
            .collect();
        assert_eq!(want.len(), 14);
        assert_eq!(guessed, want);
        // A value another variant saw accepted (the table's own list) is not guessed.
        let mut shared = table.clone();
        shared.defined = vec![want[0]];
        let guessed = foreseen_values(&shared, &accepted, &refused);
        assert_eq!(guessed, want[1..].to_vec());
        // Too few refused values seen: nothing is guessed.
        let few: BTreeSet<u32> = refused
            .iter()
            .copied()
            .take(MIN_FORESEEN_SEEN - 1)
            .collect();
        assert!(foreseen_values(&table, &accepted, &few).is_empty());
    }

    /// nv_isa_solver's SM103 IDP in small: the uniform-register opclass names table `T_A`
    /// (values 1-3 refused), the register opclass names only `T_B` and prints values of `T_A`'s
    /// pool: `T_A`'s pool refuses the first opclass's words, not the second's.
    #[test]
    fn a_pool_the_opclass_printed_values_of_does_not_refuse_its_words() {
        let at = |index: u128, ur: bool| index << 105 | u128::from(ur) << 50;
        let reason = |o: &str, v: u32, t: &str| {
            Answer::Illegal(format!(
                "Opclass '{o}', undefined value 0x{v:x} for table '{t}'"
            ))
        };
        let text = Answer::Text("@P0 X R0 ;".into());
        let mut owned: Vec<(u128, Answer)> = (1..4)
            .map(|v| (at(v, true), reason("x__UR", v as u32, "T_A")))
            .collect();
        owned.extend([3, 6].map(|v| (at(v, false), reason("x__R", v as u32, "T_B"))));
        owned.extend([0, 4].map(|v| (at(v, true), text.clone())));
        owned.extend([0, 1, 2, 4].map(|v| (at(v, false), text.clone())));
        let answers: Vec<(u128, &Answer)> = owned.iter().map(|(w, a)| (*w, a)).collect();
        let tables = learn_constraints(&answers);
        let t_a = tables.iter().find(|c| c.table == "T_A").expect("T_A");
        assert_eq!(t_a.undefined(), &[1, 2, 3]);
        let mut r = learn_recognizer(&answers).expect("answers");
        r.learn_accepted(&answers, &tables);
        assert_eq!(r.opclass(at(3, false)), Some("x__R"));
        assert_eq!(
            r.own_refused,
            vec![("x__R".to_string(), "T_A".to_string(), vec![])]
        );
        assert!(!r.refuses(at(3, false), "T_A", 3, true));
        assert!(r.refuses(at(3, true), "T_A", 3, true));
        assert!(!r.refuses(at(0, true), "T_A", 0, false));
    }

    #[test]
    fn the_index_sweep_asks_every_value_of_a_constraint_index_no_answer_showed() {
        // SM90 TMML's first variant; nvdisasm refuses index values 1 and 2 of a table over
        // bits 105-106 (value bit 0 = word bit 105) and prints value 0 (the fixed word);
        // value 3 was never seen.
        let v = crate::spec::parse_table("TMML.txt", include_str!("../../specs/sm90/TMML.txt"))
            .unwrap()
            .variants[0]
            .clone();
        let base = v.fixed_value & !(3 << 105);
        let printed = Answer::Text("TMML R0 ;".into());
        let refused = |x: u32| {
            Answer::Illegal(format!(
                "Opclass 'tmml_', undefined value 0x{x:x} for table 'TABLES_opex_0'"
            ))
        };
        let (r1, r2) = (refused(1), refused(2));
        let mut answers: Vec<(u128, &Answer)> = vec![
            (base | 1 << 105, &r1),
            (base | 1 << 106, &r2),
            (base, &printed),
            // A printed word of another variant is no base for this one.
            (base ^ 1, &printed),
        ];
        let v = std::slice::from_ref(&v);
        assert_eq!(index_sweep_words(v, &answers), vec![base | 3 << 105]);
        // Without a printed word of the variant, nothing is asked; nor once value 3 is seen.
        assert!(index_sweep_words(v, &answers[..2]).is_empty());
        answers.push((base | 3 << 105, &printed));
        assert!(index_sweep_words(v, &answers).is_empty());
    }

    #[test]
    fn the_index_is_swept_again_within_each_opclass_the_reasons_name() {
        // SM120 HADD2's shape: one table name over bits 105-106 in two opclasses. Opclass
        // `o_a` refuses value 1 (on a word with bit 0 of the free bits clear), `o_b` refuses
        // value 2 (on a word with bit 40 set); value 3 was printed in some word, so the
        // table-wide sweep asks nothing, but each opclass is asked every value its own reasons
        // did not name, on its own lowest refused word.
        let v = crate::spec::parse_table("TMML.txt", include_str!("../../specs/sm90/TMML.txt"))
            .unwrap()
            .variants[0]
            .clone();
        let base = v.fixed_value & !(3 << 105);
        let reason = |o: &str, x: u32| {
            Answer::Illegal(format!(
                "Opclass '{o}', undefined value 0x{x:x} for table 'TABLES_opex_0'"
            ))
        };
        let (a1, b2) = (reason("o_a", 1), reason("o_b", 2));
        let printed = Answer::Text("TMML R0 ;".into());
        let b = base | 1 << 40;
        let answers: Vec<(u128, &Answer)> = vec![
            (base | 1 << 105, &a1),
            (b | 1 << 106, &b2),
            (base, &printed),
            (base | 3 << 105, &printed),
        ];
        let v = std::slice::from_ref(&v);
        let mut words = index_sweep_words(v, &answers);
        words.sort_unstable();
        words.dedup();
        let mut want = vec![
            base,
            base | 1 << 106,
            base | 3 << 105,
            b,
            b | 1 << 105,
            b | 3 << 105,
        ];
        want.sort_unstable();
        assert_eq!(words, want);
        // One opclass named: nothing more than the table-wide sweep.
        assert!(index_sweep_words(v, &answers[..1]).is_empty());
    }

    #[test]
    fn words_a_constraint_refused_do_not_split_the_empty_line() {
        // An empty line exactly where bits 8-9 are 2 (nv_isa_solver's SM103 QMUL4 type
        // pairs); bits 20-23 (scheduling) at 8-11 refused by a constraint table, 12-15 never
        // learned from. Trained on the refused words too, the tree splits the empty line at
        // bit 23 and reads an unseen 12-15 word as printed.
        let empty = Answer::Text(String::new());
        let printed = Answer::Text("@P0 QMUL4 R0, R0 ;".into());
        let refused = Answer::Illegal(
            "Opclass 'qmul4_', undefined value 0x30 for table 'TABLES_opex_0'".into(),
        );
        let mut answers: Vec<(u128, &Answer)> = Vec::new();
        for pair in 0..4u128 {
            for sched in 0..12u128 {
                for reg in 0..4u128 {
                    let w = pair << 8 | sched << 20 | reg << 40;
                    let a = if sched >= 8 {
                        &refused
                    } else if pair == 2 {
                        &empty
                    } else {
                        &printed
                    };
                    answers.push((w, a));
                }
            }
        }
        let r = learn_recognizer(&answers).expect("answers");
        for sched in 12..16u128 {
            assert_eq!(
                r.classify(2 << 8 | sched << 20),
                &Class::Mnemonic(String::new()),
                "sched {sched}"
            );
            assert_eq!(
                r.classify(1 << 8 | sched << 20),
                &Class::Mnemonic("QMUL4".into())
            );
        }
    }

    #[test]
    fn index_bits_follow_the_reported_values() {
        // The TLD SM100 fixed word with bit 109 alone gives 0x10, bit 122 alone 0x20.
        let base: u128 = 0x0000_0000_0800_0000_0000_0000_0000_0f66;
        let r = |v: u32| {
            format!("Opclass 'tld_urc_', undefined value 0x{v:x} for table 'TABLES_opex_0'")
        };
        let a1 = Answer::Illegal(r(0x10));
        let a2 = Answer::Illegal(r(0x20));
        let a3 = Answer::Illegal(r(0x30));
        let ok = Answer::Text("TLD ...".into());
        let answers = vec![
            (base | 1 << 109, &a1),
            (base | 1 << 122, &a2),
            (base | 1 << 109 | 1 << 122, &a3),
            (base, &ok),
        ];
        let t = learn_constraints(&answers);
        assert_eq!(t.len(), 1);
        // Value bits 0-3 are never set here: not pinned; bit 4 is word bit 109, bit 5 bit 122.
        assert_eq!(
            t[0].index_bits,
            vec![None, None, None, None, Some(109), Some(122)]
        );
        assert_eq!(t[0].defined, vec![0]);
        assert_eq!(t[0].undefined(), [0x10, 0x20, 0x30]);
        assert_eq!(t[0].refuses(base | 1 << 122), Some(0x20));
        assert_eq!(t[0].refuses(base), None);
        assert_eq!(text_mnemonic("@!P0 LDG.E.EL R1, [R2.64] ;"), "LDG");
        assert_eq!(text_mnemonic("@P0 NOP;"), "NOP");
    }
}
