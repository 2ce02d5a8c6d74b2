//! The space before `;`: which bits of a word make nvdisasm write `X;` instead of `X ;`,
//! learned per variant from a designed experiment instead of a rule per arch.
//!
//! nvdisasm 13.5.37 writes the `;` right after the text when the word's scheduling control is
//! "quiet" (stall 0, yield 0, no read or write scoreboard barrier, wait mask 0), and on some
//! archs only when further bits no table field covers are 0 as well (SM90 TMML and SM100 TEX:
//! two bits beside the wait mask; SM80 LD: none). Which bits count is what this module learns.
//!
//! The experiment, per variant with the five scheduling fields (recorded with the form-bit
//! experiment in `oracle/forms/<ARCH>-<MNEMONIC>.tsv`, see [`probe_words`]): the quiet word
//! (the variant's fixed word with its `r-bar` and `w-bar` fields all ones and the other
//! scheduling fields 0) and that word with each bit flipped alone that keeps the mnemonic
//! when flipped alone on the fixed word (the sweeps' answers; so no opcode bit, and no word
//! of another instruction, is asked). Where nvdisasm prints the quiet word with `;` and no
//! space, the bits outside the operand and modifier fields whose lone flip brings the space
//! back (the text otherwise legal, same mnemonic) are the condition ([`learn`]). Which bits
//! they are differs by instruction: SM90 TMML counts its barrier fields, synthesised SM90
//! FMUL does not (`r-bar` 6 still prints `X;`).

use super::flips::{Answers, base_mnemonic, flip_mnemonic};
use crate::arch::Arch;
use crate::oracle::Answer;
use crate::oracle::text::Line;
use crate::spec::model::{hex128, unhex128};
use crate::spec::{FieldKind, SchedKind, Table, Variant};
use serde::{Deserialize, Serialize};

/// How nvdisasm ends a variant's text, learned from [`probe_words`]' answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Semicolon {
    /// `X;` where `word & mask == value`, `X ;` otherwise (bits as in the word, bit 0 = LSB).
    Quiet {
        /// The bits that decide (SM90 TMML: the scheduling fields, bits 105-121, and 102-103).
        #[serde(serialize_with = "hex128", deserialize_with = "unhex128")]
        mask: u128,
        /// Their values in a quiet word.
        #[serde(serialize_with = "hex128", deserialize_with = "unhex128")]
        value: u128,
    },
    /// Always `X ;`: nvdisasm put the space before `;` even in the quiet word.
    Spaced,
}

impl Semicolon {
    /// (mask, value) of the bits that make the `;` follow the text directly; `None` for
    /// [`Semicolon::Spaced`].
    pub fn quiet(self) -> Option<(u128, u128)> {
        match self {
            Semicolon::Quiet { mask, value } => Some((mask, value)),
            Semicolon::Spaced => None,
        }
    }
}

/// The scheduling fields whose values make a quiet control, with the value each takes:
/// barriers all ones (none), the others 0.
const QUIET_FIELDS: [(SchedKind, bool); 5] = [
    (SchedKind::Stall, false),
    (SchedKind::Yield, false),
    (SchedKind::ReadBarrier, true),
    (SchedKind::WriteBarrier, true),
    (SchedKind::WaitMask, false),
];

/// (mask, value) of `v`'s scheduling fields in a quiet control: the table's own rule, used
/// where nothing was learned. A field the table fixes instead is left to its fixed bits
/// (synthesised SM80 STS fixes `r-bar` to 7); `None` when the variant has none of the five.
pub fn table_rule(v: &Variant) -> Option<(u128, u128)> {
    let (mut mask, mut value) = (0u128, 0u128);
    for (kind, ones) in QUIET_FIELDS {
        let Some(f) = v.fields.iter().find(|f| f.kind == FieldKind::Sched(kind)) else {
            continue;
        };
        mask |= f.mask();
        if ones {
            value |= f.mask();
        }
    }
    (mask != 0).then_some((mask, value))
}

/// The quiet word of `v`: its fixed word with the scheduling fields of [`table_rule`] quiet;
/// `None` when the variant has none of them. For a variant read around a legal word
/// ([`super::forms::centred`]) that word's other bits stay: synthesised SM80 BPT's fixed
/// word (bits 84-86 at 0) is refused, its centre sets them, and the quiet word cut down to
/// the fixed bits was refused again, so nothing was learned and 4 check-split words printed
/// `BPT.INT 0x5;` where nvdisasm writes `BPT.INT 0x5 ;`.
pub fn quiet_word(v: &Variant) -> Option<u128> {
    let (mask, value) = table_rule(v)?;
    Some((v.fixed_value & !mask) | value)
}

/// The bits the experiment flips on `v`'s quiet word: those whose lone flip on the fixed word
/// nvdisasm reads with the fixed word's mnemonic. `None` until the fixed word and its 128
/// single flips are recorded and the fixed word is legal.
fn probe_bits(v: &Variant, arch: Arch, known: &Answers) -> Option<Vec<u8>> {
    let m0 = base_mnemonic(v, arch, known)?;
    let mut bits = Vec::new();
    for b in 0..128u8 {
        if flip_mnemonic(v, arch, known, b)? == Some(m0) {
            bits.push(b);
        }
    }
    Some(bits)
}

/// The experiment's words for `v` on `arch` that what is `known` so far calls for: none until
/// the fixed word's single flips are recorded, then the quiet word and it with each bit of
/// [`probe_bits`] flipped alone (at most 129 words; none without the scheduling fields).
pub fn probe_words(v: &Variant, arch: Arch, known: &Answers) -> Vec<u128> {
    let (Some(q), Some(bits)) = (quiet_word(v), probe_bits(v, arch, known)) else {
        return Vec::new();
    };
    std::iter::once(q)
        .chain(bits.into_iter().map(|b| q ^ 1 << b))
        .collect()
}

/// Whether nvdisasm wrote the `;` right after the text.
fn tight(t: &str) -> bool {
    t.trim_end().ends_with(';') && !t.trim_end().ends_with(" ;")
}

/// Bits of `v`'s fields other than the scheduling ones: their values print text of their
/// own, and some texts end with a space nvdisasm keeps before the `;` whatever the control
/// (SM90 FMUL's float immediate `-0 ;`, bit 63, in a quiet word): not control bits.
fn text_fields(v: &Variant) -> u128 {
    v.fields
        .iter()
        .filter(|f| !matches!(f.kind, FieldKind::Sched(_)))
        .fold(0, |m, f| m | f.mask())
}

/// What the answers to [`probe_words`] show for `v` on `arch`; `None` when the quiet word
/// was not asked or nvdisasm refused it.
pub fn learn(v: &Variant, arch: Arch, known: &Answers) -> Option<Semicolon> {
    let q = quiet_word(v)?;
    let Some(Answer::Text(t0)) = known.get(arch, q) else {
        return None;
    };
    if !tight(t0) {
        return Some(Semicolon::Spaced);
    }
    let m0 = Line::parse(t0).map(|l| l.mnemonic);
    let texts = text_fields(v);
    let table = table_rule(v).map_or(0, |(mask, _)| mask);
    let bits = probe_bits(v, arch, known)?;
    // A scheduling field's bit the experiment could not read (its flip refused or another
    // instruction on the fixed word, or refused on the quiet word) keeps the table's rule:
    // nothing says otherwise (synthesised SM80 BPT is read around `.PAUSE`, whose opclass
    // refuses every stall but 0; `.INT` with stall 8 prints `X ;`). The bundled tables' yield
    // bit 109 (refused in their quiet words) joins their masks so, no answer changed.
    let probed = bits.iter().fold(0u128, |m, &b| m | 1 << b);
    let mut mask = table & !probed & !texts;
    for b in bits {
        if texts >> b & 1 == 1 {
            continue;
        }
        match known.get(arch, q ^ 1 << b) {
            Some(Answer::Text(t)) if !tight(t) && Line::parse(t).map(|l| l.mnemonic) == m0 => {
                mask |= 1 << b
            }
            Some(Answer::Illegal(_)) => mask |= table & 1 << b,
            Some(_) => {}
            None => return None,
        }
    }
    Some(Semicolon::Quiet {
        mask,
        value: q & mask,
    })
}

/// Writes what the recorded answers show into each variant's `semicolon` (left as it is
/// where the experiment was not recorded). A variant whose fixed word nvdisasm refuses is
/// learned around the legal word the experiment was asked around
/// ([`super::forms::centred`]; nv_isa_solver's SM103 BAR page, whose fixed words set `r-bar`
/// to 0, refused: its `BAR_R_R` learned nothing and kept the table's rule).
pub fn learn_semicolons(mut tables: Vec<Table>, known: &Answers) -> Vec<Table> {
    for t in &mut tables {
        let Some(arch) = t.arch else { continue };
        let mnemonic = t.mnemonic.clone();
        for v in &mut t.variants {
            let centred = super::forms::centred(v, &mnemonic, arch, known);
            if let Some(s) = learn(&centred, arch, known) {
                v.semicolon = Some(s);
            }
        }
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Entry;

    /// SM90 TMML's first variant (specs/sm90/TMML.txt).
    fn variant() -> Variant {
        let text = include_str!("../../specs/sm90/TMML.txt");
        crate::spec::parse_table("TMML.txt", text).unwrap().variants[0].clone()
    }

    /// Answers for `v`'s fixed word and its flips (bit 0 another mnemonic) and for the
    /// quiet word and its flips: `tight` is the text of a quiet word, the bits of `spaced`
    /// bring the space back, bit 109 makes the word illegal.
    fn answers(v: &Variant, tight: &str, spaced: u128) -> Vec<Entry> {
        let arch = Arch(90);
        let text = |t: &str| Answer::Text(t.to_string());
        let mut out = vec![Entry {
            arch,
            word: v.fixed_value,
            answer: text("TMML R0 ;"),
        }];
        for b in 0..128u8 {
            let t = if b == 0 { "FLO R0 ;" } else { "TMML R1 ;" };
            out.push(Entry {
                arch,
                word: v.fixed_value ^ 1 << b,
                answer: text(t),
            });
        }
        let q = quiet_word(v).unwrap();
        out.push(Entry {
            arch,
            word: q,
            answer: text(tight),
        });
        for b in 0..128u8 {
            let answer = match b {
                109 => Answer::Illegal("Invalid".into()),
                _ if spaced >> b & 1 == 1 => text("TMML R2 ;"),
                _ => text("TMML R2;"),
            };
            out.push(Entry {
                arch,
                word: q ^ 1 << b,
                answer,
            });
        }
        out
    }

    #[test]
    fn the_bits_that_bring_the_space_back_are_the_mask() {
        let v = variant();
        let (sched, q) = (table_rule(&v).unwrap().0, quiet_word(&v).unwrap());
        // Bit 24 is in `operand 1`: a value whose text ends with a space is not control.
        let spaced = sched & !(1 << 109) | 1 << 102 | 1 | 1 << 24;
        let es = answers(&v, "TMML R0;", spaced);
        let known = Answers::new(&es);
        // No opcode bit is asked: bit 0 reads another mnemonic on the fixed word.
        let words = probe_words(&v, Arch(90), &known);
        assert_eq!(words.len(), 128);
        assert!(!words.contains(&(q ^ 1)));
        // Bit 109's flip is refused: a scheduling bit the experiment cannot read keeps the
        // table's rule.
        let mask = sched | 1 << 102;
        assert_eq!(
            learn(&v, Arch(90), &known),
            Some(Semicolon::Quiet {
                mask,
                value: q & mask
            })
        );
        assert_eq!(
            Semicolon::Quiet {
                mask,
                value: q & mask
            }
            .quiet(),
            Some((mask, 0x000f_c000 << 96))
        );
    }

    #[test]
    fn a_scheduling_field_the_table_fixes_is_left_to_its_fixed_bits() {
        // Synthesised SM80 STS fixes `r-bar` (bits 110-112) to 7: the other four decide.
        let mut v = variant();
        let (all, _) = table_rule(&v).unwrap();
        v.fields
            .retain(|f| f.kind != FieldKind::Sched(SchedKind::ReadBarrier));
        let (mask, value) = table_rule(&v).unwrap();
        assert_eq!(mask, all & !(0b111 << 110));
        assert_eq!(value, 0b111 << 113);
        v.fields.retain(|f| !matches!(f.kind, FieldKind::Sched(_)));
        assert_eq!(table_rule(&v), None);
        assert!(probe_words(&v, Arch(90), &Answers::new(&[])).is_empty());
    }

    #[test]
    fn a_refused_fixed_word_is_learned_around_its_quiet_word() {
        // nv_isa_solver's SM103 BAR pages write fixed words nvdisasm refuses (`r-bar` 0):
        // only the quiet word and its flips are answered.
        let text = include_str!("../../specs/sm90/TMML.txt");
        let mut t = crate::spec::parse_table("TMML.txt", text).unwrap();
        t.variants.truncate(1);
        let v = t.variants[0].clone();
        let (sched, q) = (table_rule(&v).unwrap().0, quiet_word(&v).unwrap());
        let spaced = sched & !(1 << 109) | 1 << 102;
        let refused = Entry {
            arch: Arch(90),
            word: v.fixed_value,
            answer: Answer::Illegal("Unrecognized operation".into()),
        };
        let es: Vec<Entry> = answers(&v, "TMML R0;", spaced)
            .into_iter()
            .skip(129)
            .chain(std::iter::once(refused))
            .collect();
        let known = Answers::new(&es);
        assert_eq!(learn(&v, Arch(90), &known), None);
        let learned = learn_semicolons(vec![t], &known);
        assert_eq!(
            learned[0].variants[0].semicolon,
            Some(Semicolon::Quiet {
                mask: spaced | 1 << 109,
                value: q & (spaced | 1 << 109)
            })
        );
    }

    #[test]
    fn a_spaced_quiet_word_and_a_missing_answer() {
        let v = variant();
        let es = answers(&v, "TMML R0 ;", 0);
        assert_eq!(
            learn(&v, Arch(90), &Answers::new(&es)),
            Some(Semicolon::Spaced)
        );
        let es = answers(&v, "TMML R0;", 0);
        let q = quiet_word(&v).unwrap();
        let fewer: Vec<Entry> = es.into_iter().filter(|e| e.word != q ^ 1 << 50).collect();
        assert_eq!(learn(&v, Arch(90), &Answers::new(&fewer)), None);
        assert_eq!(learn(&v, Arch(90), &Answers::new(&[])), None);
    }
}
