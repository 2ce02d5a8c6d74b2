//! One shape per word for `decode --json` and `check --json` ([`WordJson`]: the same keys in
//! the same order, the verdict a flat name), and the one-line explanation `check` prints in
//! text mode ([`explain`]).

use super::Prediction;
use crate::arch::Arch;
use crate::codec::Verdict;
use crate::reading::legality::Legality;
use serde::Serialize;

/// A modifier field holding a value its table does not name (`invalid-modifier`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModifierValue {
    /// Field label as in the table (`modi 4`).
    pub field: String,
    /// The field's value.
    pub value: u64,
    /// The table's name for it (`INVALID6`, `???0`, or `(no row)`).
    pub name: String,
}

/// What `decode --json` and `check --json` print for one word, keys in this order. Every key
/// is always present (null or empty when it does not apply).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WordJson {
    /// 32 hex digits, most significant first.
    pub word: String,
    /// Arch, `SM100`.
    pub arch: Arch,
    /// The table-based verdict: `valid`, `invalid-modifier`, `undescribed-bits`,
    /// `reserved-bit`, `no-variant` or `ambiguous` ([`Verdict::name`]).
    pub verdict: &'static str,
    /// The variant the word decodes as; null for `reserved-bit` and `no-variant`.
    pub key: Option<String>,
    /// The predicted nvdisasm text; null where the project predicts nvdisasm refuses the word.
    pub text: Option<String>,
    /// What the learned reading says nvdisasm does: `legal`, `other-mnemonic`, `undefined`,
    /// `unrecognized`; null when no variant matches or without a learned reading
    /// (`--as-written`).
    pub legality: Option<&'static str>,
    /// `reserved-bit`: the nearest variant (its opcode matches, some fixed bits differ).
    pub nearest: Option<String>,
    /// `undescribed-bits`: the bits set that no field describes; `reserved-bit`: the fixed
    /// bits that differ from `nearest`. Bit numbers, 0 = least significant; else empty.
    pub bits: Vec<u8>,
    /// `invalid-modifier`: the field, its value and the table's name for it.
    pub modifier: Option<ModifierValue>,
    /// `ambiguous`: every matching variant, table order; else empty.
    pub keys: Vec<String>,
    /// The same explanation `check` prints in text mode ([`explain`]).
    pub note: String,
}

/// The name of a legality (`legal`, `silent`, `other-mnemonic`, `undefined`, `unrecognized`).
pub fn legality_name(l: &Legality) -> &'static str {
    match l {
        Legality::Legal => "legal",
        Legality::Silent => "silent",
        Legality::OtherMnemonic { .. } => "other-mnemonic",
        Legality::Undefined { .. } => "undefined",
        Legality::Unrecognized { .. } => "unrecognized",
    }
}

impl WordJson {
    /// The shape of a prediction.
    pub fn new(p: &Prediction) -> WordJson {
        let mut j = WordJson {
            word: p.word.clone(),
            arch: p.arch,
            verdict: p.verdict.name(),
            key: p.key.clone(),
            text: p.text.clone(),
            legality: p.legality.as_ref().map(legality_name),
            nearest: None,
            bits: Vec::new(),
            modifier: None,
            keys: Vec::new(),
            note: explain(p),
        };
        match &p.verdict {
            Verdict::Valid { .. } | Verdict::NoVariant => {}
            Verdict::InvalidModifier {
                field, value, name, ..
            } => {
                j.modifier = Some(ModifierValue {
                    field: field.clone(),
                    value: *value,
                    name: name.clone(),
                })
            }
            Verdict::UndescribedBits { bits, .. } => j.bits = bits.clone(),
            Verdict::ReservedBit { key, bits } => {
                j.key = None;
                j.nearest = Some(key.clone());
                j.bits = bits.clone();
            }
            Verdict::Ambiguous { keys } => j.keys = keys.clone(),
        }
        j
    }
}

/// `bit 91` or `bits 3, 7, 12`.
fn bits_text(bits: &[u8]) -> String {
    let list: Vec<String> = bits.iter().map(|b| b.to_string()).collect();
    match list.len() {
        1 => format!("bit {}", list[0]),
        _ => format!("bits {}", list.join(", ")),
    }
}

/// One line saying what the tables (and the learned reading, where it refuses the word) say
/// of a word:
/// - `valid`: `TLD_P_R_R_R_R_UR_D_I`
/// - `invalid-modifier`: `KEY: modi 4 = 6 is INVALID6 in the table`
/// - `undescribed-bits`: `KEY: bit 127 set, described by no field`
/// - `reserved-bit`: `no variant; nearest LD_R_R_I, whose fixed bit 91 differs`
/// - `no-variant`: `no SM80 table has this opcode`
/// - `ambiguous`: `A, B all match`
///
/// followed by `; nvdisasm refuses it (learned reading): REASON` or `; nvdisasm prints
/// another instruction (learned reading): LDG` when the learned reading says so.
pub fn explain(p: &Prediction) -> String {
    let mut s = match &p.verdict {
        Verdict::Valid { key } => key.clone(),
        Verdict::InvalidModifier {
            key,
            field,
            value,
            name,
        } => format!("{key}: {field} = {value} is {name} in the table"),
        Verdict::UndescribedBits { key, bits } => {
            format!("{key}: {} set, described by no field", bits_text(bits))
        }
        Verdict::ReservedBit { key, bits } => {
            let verb = if bits.len() == 1 { "differs" } else { "differ" };
            format!(
                "no variant; nearest {key}, whose fixed {} {verb}",
                bits_text(bits)
            )
        }
        Verdict::NoVariant => format!("no {} table has this opcode", p.arch),
        Verdict::Ambiguous { keys } => format!("{} all match", keys.join(", ")),
    };
    match &p.legality {
        Some(Legality::OtherMnemonic { mnemonic }) => s.push_str(&format!(
            "; nvdisasm prints another instruction (learned reading): {mnemonic}"
        )),
        Some(Legality::Undefined { table, value }) => s.push_str(&format!(
            "; nvdisasm refuses it (learned reading): undefined value {value:#x} in {table}"
        )),
        Some(Legality::Unrecognized { reason }) => s.push_str(&format!(
            "; nvdisasm refuses it (learned reading): {reason}"
        )),
        Some(Legality::Silent) => s.push_str("; nvdisasm prints nothing for it (learned reading)"),
        Some(Legality::Legal) | None => {}
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pred(verdict: Verdict, legality: Option<Legality>) -> Prediction {
        Prediction {
            word: "00000000080010000000080000000980".into(),
            arch: Arch(80),
            key: None,
            text: None,
            verdict,
            legality,
        }
    }

    #[test]
    fn reserved_bits_name_the_nearest_variant_and_the_bits() {
        let p = pred(
            Verdict::ReservedBit {
                key: "LD_R_R_I".into(),
                bits: vec![91],
            },
            None,
        );
        let j = WordJson::new(&p);
        assert_eq!(j.nearest.as_deref(), Some("LD_R_R_I"));
        assert_eq!(j.bits, vec![91]);
        assert_eq!(
            j.note,
            "no variant; nearest LD_R_R_I, whose fixed bit 91 differs"
        );
        assert_eq!(
            serde_json::to_string(&j).unwrap(),
            r#"{"word":"00000000080010000000080000000980","arch":"SM80","verdict":"reserved-bit","key":null,"text":null,"legality":null,"nearest":"LD_R_R_I","bits":[91],"modifier":null,"keys":[],"note":"no variant; nearest LD_R_R_I, whose fixed bit 91 differs"}"#
        );
    }

    #[test]
    fn a_refusal_of_the_learned_reading_is_named() {
        let p = pred(
            Verdict::UndescribedBits {
                key: "LD_R_R_I".into(),
                bits: vec![0, 3],
            },
            Some(Legality::Undefined {
                table: "TABLES_opex_0".into(),
                value: 0x30,
            }),
        );
        assert_eq!(
            explain(&p),
            "LD_R_R_I: bits 0, 3 set, described by no field; nvdisasm refuses it (learned \
             reading): undefined value 0x30 in TABLES_opex_0"
        );
        assert_eq!(WordJson::new(&p).legality, Some("undefined"));
    }
}
