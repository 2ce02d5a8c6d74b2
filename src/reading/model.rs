//! The learned reading of every table, kept as data in resolved/tables.json beside the
//! resolved layouts: per table its constraint tables, per variant its recognizer. Entry points:
//! [`Model::legality`] (is it legal, and why not).

use super::legality::{
    Class, ConstraintTable, Legality, Recognizer, learn_constraints, learn_recognizer,
};
use crate::codec::{Codec, Decoded};
use crate::oracle::{Answer, Entry};
use serde::{Deserialize, Serialize};

/// The reading of one table file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableModel {
    /// The table's path, as in [`crate::spec::Table::path`].
    pub path: String,
    /// Constraint tables learned from the reasons for this table's words.
    pub constraints: Vec<ConstraintTable>,
    /// Per variant (table order): its recognizer, `None` when no word of it was recorded.
    pub variants: Vec<Option<Recognizer>>,
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
        let tables = codec
            .tables
            .iter()
            .enumerate()
            .map(|(i, t)| TableModel {
                path: t.path.clone(),
                constraints: learn_constraints(&per_table[i]),
                variants: per_variant[i].iter().map(|a| learn_recognizer(a)).collect(),
            })
            .collect();
        Model {
            tables,
            learned_from,
        }
    }

    /// Whether nvdisasm accepts the decoded word, and why not. The recognizer first (an
    /// unrecognised word has no opclass), then the table's constraint tables; a variant with
    /// no learned reading is taken as legal.
    pub fn legality(&self, codec: &Codec, d: &Decoded) -> Legality {
        let Some(t) = self.tables.get(d.id.table as usize) else {
            return Legality::Legal;
        };
        let word = d.word.0;
        let class = t
            .variants
            .get(d.id.variant as usize)
            .and_then(Option::as_ref)
            .map(|r| r.classify(word));
        if let Some(Class::Unrecognized(reason)) = class {
            return Legality::Unrecognized {
                reason: reason.clone(),
            };
        }
        for c in &t.constraints {
            if let Some(value) = c.refuses(word) {
                return Legality::Undefined {
                    table: c.table.clone(),
                    value,
                };
            }
        }
        let ours = codec.table(d.id).mnemonic.as_str();
        match class {
            Some(Class::Mnemonic(m)) if m != ours && !m.is_empty() => Legality::OtherMnemonic {
                mnemonic: m.clone(),
            },
            _ => Legality::Legal,
        }
    }
}
