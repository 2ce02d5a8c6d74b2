//! Table-based verdicts on a word: valid, INVALIDn modifier, reserved bit, undescribed bits,
//! no variant, ambiguous variant.

use super::{Codec, Decoded, VariantId, Word, bit_list, modifier_name};
use crate::arch::Arch;
use crate::spec::{Field, ModifierName, Table, Variant};
use serde::Serialize;

/// What the tables say of a word (precedence: ambiguous, invalid modifier, undescribed bits,
/// valid; reserved bit and no variant when nothing matches).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// One variant matches, every modifier value is named, no undescribed bit is set.
    Valid {
        /// Variant key.
        key: String,
    },
    /// A modifier field holds a value its table marks `INVALIDn` or `???n`, or has no row for.
    InvalidModifier {
        /// Variant key.
        key: String,
        /// Field label (`modi 4`).
        field: String,
        /// The field's value.
        value: u64,
        /// The table's name for it (`INVALID6`, `???0`, or `(no row)`).
        name: String,
    },
    /// Bits set that no cell of the matching variant describes (header gaps).
    UndescribedBits {
        /// Variant key.
        key: String,
        /// The bits set.
        bits: Vec<u8>,
    },
    /// The word's opcode is a tabled mnemonic's, but fixed (reserved) bits differ from every
    /// variant; `key` is the nearest variant and `bits` the fixed bits that differ from it.
    ReservedBit {
        /// Nearest variant key.
        key: String,
        /// Fixed bits that differ.
        bits: Vec<u8>,
    },
    /// No table of this arch knows the word's opcode.
    NoVariant,
    /// Several variants' fixed bits match the word: the tables are ambiguous.
    Ambiguous {
        /// Keys of every matching variant, table order.
        keys: Vec<String>,
    },
}

impl Verdict {
    /// Short name: `valid`, `invalid-modifier`, ...
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Valid { .. } => "valid",
            Verdict::InvalidModifier { .. } => "invalid-modifier",
            Verdict::UndescribedBits { .. } => "undescribed-bits",
            Verdict::ReservedBit { .. } => "reserved-bit",
            Verdict::NoVariant => "no-variant",
            Verdict::Ambiguous { .. } => "ambiguous",
        }
    }
}

/// The verdict of a decoded word, before its details are built.
enum Kind {
    Ambiguous,
    /// The index of the first field whose value is not a named row.
    InvalidModifier(usize),
    UndescribedBits,
    Valid,
}

impl Codec {
    /// The verdict for `word` on `arch`.
    pub fn check(&self, arch: Arch, word: Word) -> Verdict {
        match self.decode(arch, word) {
            Some(d) => self.verdict_of(&d),
            None => self.nearest(arch, word),
        }
    }

    /// The verdict for an already decoded word.
    pub fn verdict_of(&self, d: &Decoded) -> Verdict {
        let v = self.variant(d.id);
        match self.verdict_kind(d) {
            Kind::Ambiguous => {
                let mut keys = vec![v.key.clone()];
                keys.extend(d.others().iter().map(|&o| self.variant(o).key.clone()));
                Verdict::Ambiguous { keys }
            }
            Kind::InvalidModifier(i) => {
                let f = &v.fields[i];
                let val = d.values()[i];
                let name = match modifier_name(v, f, val) {
                    None => "(no row)".to_string(),
                    Some(ModifierName::Invalid(n)) => format!("INVALID{n}"),
                    Some(ModifierName::Unknown(n)) => format!("???{n}"),
                    Some(other) => format!("{other:?}"),
                };
                Verdict::InvalidModifier {
                    key: v.key.clone(),
                    field: f.label.clone(),
                    value: val,
                    name,
                }
            }
            Kind::UndescribedBits => Verdict::UndescribedBits {
                key: v.key.clone(),
                bits: bit_list(d.undescribed_set),
            },
            Kind::Valid => Verdict::Valid { key: v.key.clone() },
        }
    }

    /// [`Verdict::name`] of [`Codec::verdict_of`], without building the verdict (no
    /// allocation).
    pub fn verdict_name_of(&self, d: &Decoded) -> &'static str {
        match self.verdict_kind(d) {
            Kind::Ambiguous => "ambiguous",
            Kind::InvalidModifier(_) => "invalid-modifier",
            Kind::UndescribedBits => "undescribed-bits",
            Kind::Valid => "valid",
        }
    }

    /// Which verdict a decoded word gets (precedence as in [`Verdict`]), from the plan
    /// worked out once per variant ([`VerdictPlans`]).
    fn verdict_kind(&self, d: &Decoded) -> Kind {
        let plan = self.verdicts.get(d.id);
        // Variants that read the word identically (as resolved variants can) are one reading.
        if d.n_others > 0
            && !d
                .others()
                .iter()
                .all(|&o| self.verdicts.get(o).layout == plan.layout)
        {
            return Kind::Ambiguous;
        }
        let v = self.variant(d.id);
        let values = d.values();
        for m in &plan.modifiers {
            let i = m.field as usize;
            let val = values[i];
            let bad = match &m.bad {
                Some(bits) if val >> m.width == 0 => bits[val as usize / 64] >> (val % 64) & 1 == 1,
                _ => bad_modifier_value(v, &v.fields[i], val),
            };
            if bad {
                return Kind::InvalidModifier(i);
            }
        }
        if d.undescribed_set != 0 {
            return Kind::UndescribedBits;
        }
        Kind::Valid
    }

    /// No variant matches: the nearest variant among those whose own opcode bits
    /// ([`crate::spec::Variant::opcode_mask`], as that variant fixes them) and identity bits
    /// ([`crate::spec::Variant::identity`], learned: fixed bits whose lone flip nvdisasm reads
    /// as another instruction) match, else `NoVariant`. With the bits every variant of the
    /// table shares instead, SM100 ATOM (synthesised; variants at 0x38a, 0x38b, 0x98a and
    /// 0x9a2) named LDC's 0xb82 words its own with a reserved bit; without the identity bits
    /// SM120 FHADD named FADD words (bit 81) so (ptxas words, nvdisasm 13.5.37).
    fn nearest(&self, arch: Arch, word: Word) -> Verdict {
        let Some(idx) = self.arch_index(arch) else {
            return Verdict::NoVariant;
        };
        let best = idx
            .all()
            .iter()
            .filter(|c| (word.0 ^ c.value) & self.verdicts.get(c.id).own == 0)
            .min_by_key(|c| (((word.0 ^ c.value) & c.mask).count_ones(), c.id));
        match best {
            Some(c) => Verdict::ReservedBit {
                key: self.variant(c.id).key.clone(),
                bits: bit_list((word.0 ^ c.value) & c.mask),
            },
            None => Verdict::NoVariant,
        }
    }
}

/// Whether a modifier field's value gets the invalid-modifier verdict: its table has no row
/// for it, or names it `INVALIDn` or `???n` (false for a field with no table).
fn bad_modifier_value(v: &Variant, f: &Field, val: u64) -> bool {
    match (super::field_group(v, f), modifier_name(v, f, val)) {
        (None, _) => false,
        (Some(_), None) => true,
        (Some(_), Some(ModifierName::Invalid(_) | ModifierName::Unknown(_))) => true,
        (Some(_), Some(_)) => false,
    }
}

/// Modifier fields up to this wide get the verdict of every value worked out once.
const TABLED_MODIFIER_BITS: u32 = 10;

/// A modifier field (one with a table) as verdicts read it.
#[derive(Debug)]
struct ModifierPlan {
    /// Index of the field in the variant's field order.
    field: u16,
    /// The field's width.
    width: u32,
    /// Bit `n` set when value `n` is a bad value ([`bad_modifier_value`]); `None` for a field
    /// wider than [`TABLED_MODIFIER_BITS`], looked up per word.
    bad: Option<Vec<u64>>,
}

/// What a variant's verdict needs, worked out once.
#[derive(Debug)]
struct VerdictPlan {
    /// Number shared by the variants that read a word identically: same fixed bits and
    /// values, same ranges for every field.
    layout: u32,
    /// The modifier fields with a table, field order.
    modifiers: Vec<ModifierPlan>,
    /// The bits a word must share with the variant to be its nearest: its opcode bits as it
    /// fixes them and its identity bits (the nearest variant of a word no variant matches).
    own: u128,
}

/// Verdict plans of every variant of a codec's tables.
#[derive(Debug, Default)]
pub(super) struct VerdictPlans {
    /// Per table, per variant.
    plans: Vec<Vec<VerdictPlan>>,
}

impl VerdictPlans {
    /// Plans every variant of `tables`.
    pub(super) fn build(tables: &[Table]) -> VerdictPlans {
        type LayoutKey<'a> = (u128, u128, Vec<&'a [crate::spec::BitRange]>);
        let mut layouts: rustc_hash::FxHashMap<LayoutKey<'_>, u32> = Default::default();
        let plans = tables
            .iter()
            .map(|t| {
                t.variants
                    .iter()
                    .map(|v| {
                        let key = (
                            v.fixed_mask,
                            v.fixed_value,
                            v.fields.iter().map(|f| f.ranges.as_slice()).collect(),
                        );
                        let next = layouts.len() as u32;
                        VerdictPlan {
                            layout: *layouts.entry(key).or_insert(next),
                            modifiers: modifier_plans(v),
                            own: v.opcode_mask() & v.fixed_mask | v.identity,
                        }
                    })
                    .collect()
            })
            .collect();
        VerdictPlans { plans }
    }

    #[inline]
    fn get(&self, id: VariantId) -> &VerdictPlan {
        &self.plans[id.table as usize][id.variant as usize]
    }
}

/// The modifier fields of `v` that have a table, with their bad values tabled where narrow.
fn modifier_plans(v: &Variant) -> Vec<ModifierPlan> {
    v.fields
        .iter()
        .enumerate()
        .filter(|(_, f)| super::field_group(v, f).is_some())
        .map(|(i, f)| {
            let width = f.width();
            let bad = (width <= TABLED_MODIFIER_BITS).then(|| {
                let mut bits = vec![0u64; (1usize << width).div_ceil(64)];
                for val in 0..1u64 << width {
                    if bad_modifier_value(v, f, val) {
                        bits[val as usize / 64] |= 1 << (val % 64);
                    }
                }
                bits
            });
            ModifierPlan {
                field: i as u16,
                width,
                bad,
            }
        })
        .collect()
}
