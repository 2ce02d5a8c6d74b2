//! Form-bit findings: a bit the table fixes that nvdisasm refuses alone but reads together
//! with another bit (see [`crate::reading::forms`]), with the words that show it. SM80 LD:
//! the table fixes bit 76 to 0; ptxas sets it in every LD, and nvdisasm reads it (with bit 90)
//! as "no uniform register" and (with bit 101 too) as a `desc[URn]` descriptor.

use super::finding::{Evidence, Finding};
use crate::codec::{Codec, Word};
use crate::oracle::Answer;
use crate::reading::flips::{Answers, answer_text};
use crate::reading::forms::{Form, forms_of};

/// One `fixed-bit-is-form` finding per (variant, form bit), from the recorded form
/// experiment (oracle/forms/) and sweeps; evidence: the word with the bit alone (refused),
/// with its partner (read), and with each context bit as well.
pub fn form_findings(codec: &Codec, answers: &Answers) -> Vec<Finding> {
    let mut out = Vec::new();
    for id in codec.ids() {
        let (t, v) = (codec.table(id), codec.variant(id));
        let Some(arch) = t.arch else {
            continue;
        };
        for f in forms_of(v, arch, answers) {
            let ev = |w: u128| {
                answers.get(arch, w).map(|a| Evidence {
                    word: Word(w).to_string(),
                    arch,
                    nvdisasm: answer_text(a),
                })
            };
            let fixed = v.fixed_value;
            let alone = fixed ^ 1 << f.bit;
            let pair = alone ^ 1 << f.partner;
            let mut evidence: Vec<Evidence> =
                [fixed, alone, pair].into_iter().filter_map(ev).collect();
            evidence.extend(f.context.iter().filter_map(|&d| ev(pair ^ 1 << d)));
            let mut bits = vec![f.bit, f.partner];
            bits.extend(&f.context);
            out.push(Finding {
                file: t.path.clone(),
                line: v.layout_lines[if f.bit < 64 { 1 } else { 3 }],
                key: v.key.clone(),
                kind: "fixed-bit-is-form".into(),
                bits,
                message: format!(
                    "table: bit {} fixed to {}; nvdisasm refuses it alone but reads it with bit {}",
                    f.bit,
                    fixed >> f.bit & 1,
                    f.partner
                ),
                evidence,
                reading: Some(reading(&f, answers, arch, fixed)),
            });
        }
    }
    out
}

/// The form in words: what the text becomes with the partner, and with each context bit.
fn reading(f: &Form, answers: &Answers, arch: crate::Arch, fixed: u128) -> String {
    let text = |w: u128| match answers.get(arch, w) {
        Some(Answer::Text(t)) => format!("`{t}`"),
        Some(a) => answer_text(a),
        None => "not recorded".into(),
    };
    let pair = fixed ^ 1 << f.bit ^ 1 << f.partner;
    let mut s = format!(
        "bit {} with bit {} chooses an operand form: `{}` -> {} (bit {} alone: {})",
        f.bit,
        f.partner,
        text(fixed).trim_matches('`'),
        text(pair),
        f.partner,
        text(fixed ^ 1 << f.partner)
    );
    for &d in &f.context {
        s.push_str(&format!(
            "; with bit {d} too: {} (bit {d} alone changes nothing)",
            text(pair ^ 1 << d)
        ));
    }
    s
}
