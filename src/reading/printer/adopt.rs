//! Slots a form takes from its sibling forms: a form printer learned from few answers holds
//! bits its answers never varied as fixed text (SM100 F2FP's `.RS` form under bit 81, one legal
//! answer: `fixed "@P0 F2FP"`) or cuts a group its answers showed at few values into pieces
//! (a guard seen only as `@P3`, `@!P5`: `"@"`, bit 15, `"P" n` over bits 12-14, which prints
//! `@PT` where nvdisasm leaves the guard out). Where a sibling form (another value of the same
//! form bits) learned one slot over those bits, the form takes it, placed where the form's own
//! answers print its text, so long as the form still prints every answer it printed.

use super::{Printer, Sample, Slot, deposit, pext};

/// Each leaf printer of `forms[i]` (forms within forms included) takes the slots of the leaf
/// printers of the other forms that it lacks ([`adopt_into`]), judged on `parts[i]`, the
/// answers of form `i`. Donor forms with more answers come first.
pub(super) fn adopt_siblings(forms: &mut [(super::Key, Printer)], parts: &[Vec<Sample>]) {
    let mut order: Vec<usize> = (0..forms.len()).collect();
    order.sort_by_key(|&j| std::cmp::Reverse(parts[j].len()));
    for i in 0..forms.len() {
        let donors: Vec<Donor> = order
            .iter()
            .filter(|&&j| j != i)
            .flat_map(|&j| {
                let larger = parts[j].len() > parts[i].len();
                leaves(&forms[j].1).into_iter().map(move |d| (d, larger))
            })
            .collect();
        adopt_tree(&mut forms[i].1, &donors, &parts[i]);
    }
}

/// A donor leaf's slots, and whether its form was learned from more answers than the form
/// that takes from it (only such a donor may cut a slot of the taker: [`split_at`]).
type Donor = (Vec<Slot>, bool);

/// The slot lists of every leaf printer (no form bits) of `p`, in key order.
fn leaves(p: &Printer) -> Vec<Vec<Slot>> {
    match p.form_mask {
        0 => vec![p.slots.clone()],
        _ => p.forms.iter().flat_map(|(_, f)| leaves(f)).collect(),
    }
}

/// [`adopt_into`] for every leaf of `p`, each judged on the answers of its form.
fn adopt_tree(p: &mut Printer, donors: &[Donor], samples: &[Sample]) {
    if p.form_mask == 0 {
        adopt_into(p, donors, samples);
        return;
    }
    let mask = p.form_mask;
    for (k, f) in p.forms.iter_mut() {
        let own: Vec<Sample> = samples
            .iter()
            .copied()
            .filter(|(w, _)| pext(*w, mask) == k.0)
            .collect();
        adopt_tree(f, donors, &own);
    }
}

/// For each donor slot over bits the leaf printer `p` holds in no slot of its own, the slot
/// put in place ([`placed`]), or, from a form of more answers where no place fits, cut out of
/// the slot of `p` that read those bits as context ([`split_at`]); kept when `p` still prints
/// as many of `samples` right.
fn adopt_into(p: &mut Printer, donors: &[Donor], samples: &[Sample]) {
    if samples.is_empty() {
        return;
    }
    let mut right = right_count(&p.slots, samples);
    let mut adopted: Vec<u128> = Vec::new();
    for (donor, larger) in donors {
        for at in 0..donor.len() {
            let s = &donor[at];
            if s.mask == 0 || p.slots.iter().any(|o| covers(o, s)) {
                continue;
            }
            let varies = s.mask != 0 && most_common(samples, s.mask).is_some_and(|(_, c)| !c);
            let got = placed(&p.slots, donor, at, samples).or_else(|| {
                larger
                    .then(|| split_at(&p.slots, donor, at, samples))
                    .flatten()
            });
            let r = got.as_ref().map(|g| right_count(g, samples));
            if std::env::var_os("SASS_CONFORM_DEBUG_ADOPT").is_some() {
                eprintln!(
                    "adopt {:x} into {} slots ({} answers): {}",
                    s.mask,
                    p.slots.len(),
                    samples.len(),
                    r.map_or("no place".to_string(), |r| format!("{r} of {right} right"))
                );
            }
            let (Some(slots), Some(r)) = (got, r) else {
                continue;
            };
            // A place chosen among several on the answers must show a gain; so must a slot
            // of other bits in place of one taken from a larger form before.
            let untouched = !p.slots.iter().any(|o| o.mask & s.mask != 0);
            let replaces_adopted = p
                .slots
                .iter()
                .any(|o| o.mask & s.mask != 0 && o.mask != s.mask && adopted.contains(&o.mask));
            if r > right || (r == right && !(varies && untouched) && !replaces_adopted) {
                p.slots = slots;
                right = r;
                adopted.push(s.mask);
            }
        }
    }
}

/// Whether the leaf's slot `own` already stands for the donor slot `s`: the same bits, and as
/// many values seen (a guard slot that saw `@P3` and `@!P5` only, printed as `"@"` + `"P" n`,
/// takes the donor's that also saw `PT`, which prints nothing).
fn covers(own: &Slot, s: &Slot) -> bool {
    own.mask == s.mask && own.texts.len() >= s.texts.len()
}

/// How many of `samples` the slots print exactly.
fn right_count(slots: &[Slot], samples: &[Sample]) -> usize {
    let mut s = String::new();
    samples
        .iter()
        .filter(|(w, t)| {
            s.clear();
            for slot in slots {
                slot.print_into(*w, &mut s);
            }
            s == *t
        })
        .count()
}

/// The text `slot` prints for `w`.
fn text_of(slot: &Slot, w: u128) -> String {
    let mut s = String::new();
    slot.print_into(w, &mut s);
    s
}

/// `slots` with one slot cut where a sibling form learned from more answers prints its bits in
/// two slots: a slot over exactly the bits of the donor's slot `d` and some bits of
/// `donor[at]`, which it read as context (SM103 QFMA4's bit-83 form keyed its register by the
/// `|...|` bit 72 and by bits 109 and 122, which the larger form prints as `.reuse` in a slot
/// of their own after the register; the form never saw `|R26|.reuse` and printed `|R26|`),
/// becomes the donor's run from `d` to `donor[at]`: both slots and the fixed text between.
/// `d` is the nearest slot of bits before or after `at`; of the two, the one right on more
/// of `samples` (the one before on a tie). `None` where no slot of `slots` reads so.
fn split_at(slots: &[Slot], donor: &[Slot], at: usize, samples: &[Sample]) -> Option<Vec<Slot>> {
    let m = donor[at].mask;
    let before = donor[..at].iter().rposition(|d| d.mask != 0);
    let after = donor[at + 1..]
        .iter()
        .position(|d| d.mask != 0)
        .map(|i| at + 1 + i);
    [before, after]
        .into_iter()
        .flatten()
        .filter_map(|j| {
            let d = donor[j].mask;
            if d & m != 0 {
                return None;
            }
            let i = slots
                .iter()
                .position(|o| o.mask & m != 0 && o.mask & !m == d)?;
            let (lo, hi) = (j.min(at), j.max(at));
            let mut out = slots[..i].to_vec();
            out.extend_from_slice(&donor[lo..=hi]);
            out.extend_from_slice(&slots[i + 1..]);
            Some(out)
        })
        .map(|out| (right_count(&out, samples), out))
        .reduce(|a, b| if b.0 > a.0 { b } else { a })
        .map(|(_, out)| out)
}

/// The text of a fixed slot (`None` for a slot of bits).
fn fixed_text(slot: &Slot) -> Option<&str> {
    match slot.mask {
        0 => Some(slot.texts.first().map_or("", |(_, t)| t.as_str())),
        _ => None,
    }
}

/// `slots` with `donor[at]` put in: over the run of slots whose bits are within the donor
/// slot's ([`over_run`]), or, where no slot holds any of its bits, into the fixed text between
/// the slots the donor prints it between ([`into_fixed`]).
fn placed(slots: &[Slot], donor: &[Slot], at: usize, samples: &[Sample]) -> Option<Vec<Slot>> {
    let m = donor[at].mask;
    let touching: Vec<usize> = (0..slots.len())
        .filter(|&i| slots[i].mask & m != 0)
        .collect();
    match (touching.first(), touching.last()) {
        (Some(&a), Some(&b)) => over_run(slots, &donor[at], (a, b), samples),
        _ => into_fixed(slots, donor, at, samples),
    }
}

/// The slots `a..=b` (each over bits within the donor slot's, or fixed text) and as much of the
/// fixed text on either side as the donor slot prints, replaced by the donor slot: the guard
/// cut as `"@"`, bit 15 and `"P" n` becomes one slot over bits 12-15 that also knows `PT`.
fn over_run(
    slots: &[Slot],
    s: &Slot,
    (a, b): (usize, usize),
    samples: &[Sample],
) -> Option<Vec<Slot>> {
    // Bits of the run outside the donor slot's are only its context where another slot
    // prints them (SM103 FMUL2: a form seen in few answers keyed its register by the sign
    // bit, which a slot of its own prints, where the larger form keyed it by the bits that
    // print `.reuse`); bits the run alone holds would print nothing.
    let elsewhere = slots
        .iter()
        .enumerate()
        .filter(|&(i, _)| i < a || i > b)
        .fold(0, |m, (_, o)| m | o.mask);
    if slots[a..=b]
        .iter()
        .any(|o| o.mask & !s.mask & !elsewhere != 0)
    {
        return None;
    }
    let left = a.checked_sub(1).and_then(|i| fixed_text(&slots[i]));
    let right = slots.get(b + 1).and_then(fixed_text);
    let (l, r) = (left.unwrap_or(""), right.unwrap_or(""));
    let cuts: Vec<(String, String)> = samples
        .iter()
        .map(|&(w, _)| {
            let region: String = slots[a..=b].iter().map(|o| text_of(o, w)).collect();
            (region, text_of(s, w))
        })
        .collect();
    let (k, k2) = (0..=l.len())
        .filter(|&k| l.is_char_boundary(l.len() - k))
        .find_map(|k| trims_fit(&l[l.len() - k..], r, &cuts).map(|k2| (k, k2)))?;
    let mut out: Vec<Slot> = slots[..a.saturating_sub(left.is_some() as usize)].to_vec();
    if !l[..l.len() - k].is_empty() {
        out.push(Slot::fixed(&l[..l.len() - k]));
    }
    out.push(s.clone());
    if !r[k2..].is_empty() {
        out.push(Slot::fixed(&r[k2..]));
    }
    out.extend_from_slice(&slots[b + 1 + right.is_some() as usize..]);
    Some(out)
}

/// The length of the prefix of `r` the donor slot prints, where most (run text, donor text)
/// pairs read as `tail` + run text + that prefix; `None` where no more than half do. A form
/// learned from few answers may print some of them wrong (a register printed with `.reuse`
/// by heart), and the donor then prints them otherwise; whether it prints more of them
/// right is judged after.
fn trims_fit(tail: &str, r: &str, cuts: &[(String, String)]) -> Option<usize> {
    let mut k2 = None;
    let reads = cuts
        .iter()
        .filter(|(region, full)| {
            let Some(rest) = full
                .strip_prefix(tail)
                .and_then(|x| x.strip_prefix(region.as_str()))
            else {
                return false;
            };
            r.starts_with(rest) && *k2.get_or_insert(rest.len()) == rest.len()
        })
        .count();
    if reads * 2 > cuts.len() { k2 } else { None }
}

/// `donor[at]` put into the fixed text between the slots of `slots` that hold the nearest
/// slots before and after it in `donor` (the whole printer where there are none), where the
/// text of its most common value among the answers is, and its neighbours' fixed texts in
/// `donor` match most of the text around it: SM100 F2FP's `.RZ` (bits 79-80, `""` in most of
/// the `MERGE_C` form's answers) goes before the `" "` of `".F32.MERGE_C "`, where the
/// `PACK_AB` form prints it before its own `" "`. Where the bits take other values in the
/// answers, of the [`PLACES_TRIED`] best places the one right on most answers (taken only
/// when it is right on more than the leaf was); where they hold one value whose text is empty,
/// none.
fn into_fixed(slots: &[Slot], donor: &[Slot], at: usize, samples: &[Sample]) -> Option<Vec<Slot>> {
    let s = &donor[at];
    let (common, constant) = most_common(samples, s.mask)?;
    let c = text_of(s, deposit(common, s.mask));
    let find = |d: &Slot| slots.iter().position(|o| o.mask != 0 && o.mask == d.mask);
    let lo = donor[..at].iter().rev().find_map(find).map_or(0, |i| i + 1);
    let hi = donor[at + 1..].iter().find_map(find).unwrap_or(slots.len());
    let dl = at
        .checked_sub(1)
        .and_then(|i| fixed_text(&donor[i]))
        .unwrap_or("");
    let dr = donor.get(at + 1).and_then(fixed_text).unwrap_or("");
    let mut places: Vec<(usize, usize, usize)> = Vec::new();
    for (i, o) in slots.iter().enumerate().take(hi).skip(lo) {
        let Some(f) = fixed_text(o) else {
            continue;
        };
        for pos in (0..=f.len()).filter(|&p| f.is_char_boundary(p) && f[p..].starts_with(&c)) {
            let score = common_suffix(&f[..pos], dl) + common_prefix(&f[pos + c.len()..], dr);
            // An empty text fits anywhere: only the neighbours' texts place it.
            if !(c.is_empty() && score == 0) {
                places.push((score, i, pos));
            }
        }
    }
    // Best context first; among equals, the earliest place.
    places.sort_by_key(|&(score, i, pos)| (std::cmp::Reverse(score), i, pos));
    let build = |&(_, i, pos): &(usize, usize, usize)| {
        let f = fixed_text(&slots[i]).unwrap_or("");
        let mut out: Vec<Slot> = slots[..i].to_vec();
        if pos > 0 {
            out.push(Slot::fixed(&f[..pos]));
        }
        out.push(s.clone());
        if pos + c.len() < f.len() {
            out.push(Slot::fixed(&f[pos + c.len()..]));
        }
        out.extend_from_slice(&slots[i + 1..]);
        out
    };
    if constant {
        // One value, one text: where it is empty, nothing in the answers shows the place.
        return (!c.is_empty()).then(|| places.first().map(build)).flatten();
    }
    places
        .iter()
        .take(PLACES_TRIED)
        .map(build)
        .max_by_key(|out| right_count(out, samples))
}

/// Most places [`into_fixed`] judges on the answers when the donor slot's bits vary in them.
const PLACES_TRIED: usize = 3;

/// The most common value of the bits of `mask` (packed) among `samples`, and whether it is the
/// only one; `None` without samples.
fn most_common(samples: &[Sample], mask: u128) -> Option<(u128, bool)> {
    let mut counts: std::collections::BTreeMap<u128, usize> = Default::default();
    for (w, _) in samples {
        *counts.entry(pext(*w, mask)).or_default() += 1;
    }
    let constant = counts.len() == 1;
    let (&v, _) = counts
        .iter()
        .max_by_key(|&(v, n)| (*n, std::cmp::Reverse(*v)))?;
    Some((v, constant))
}

/// Length in bytes of the longest common suffix of `a` and `b`.
fn common_suffix(a: &str, b: &str) -> usize {
    a.bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// Length in bytes of the longest common prefix of `a` and `b`.
fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::super::Key;
    use super::*;

    /// A slot over `mask` printing `texts` (packed key, text) and nothing for other keys.
    fn slot(mask: u128, texts: &[(u128, &str)]) -> Slot {
        Slot {
            mask,
            texts: texts
                .iter()
                .map(|&(k, t)| (Key(k), t.to_string()))
                .collect(),
            number: None,
            otherwise: None,
            guess: None,
            product: None,
            joined: None,
        }
    }

    fn leaf(slots: Vec<Slot>) -> Printer {
        Printer {
            slots,
            learned_permille: 1000,
            form_mask: 0,
            forms: Vec::new(),
            double_spaces: false,
            aliases: Vec::new(),
            spaced_ends: Vec::new(),
        }
    }

    const GUARD: u128 = 0xf000;
    const REG: u128 = 0xff_0000;
    const ROUND: u128 = 0x3 << 79;

    fn guard() -> Slot {
        slot(GUARD, &[(0, "@P0 "), (1, "@P1 "), (7, "")])
    }

    #[test]
    fn a_form_keyed_by_a_bit_printed_elsewhere_takes_the_larger_forms_telling_slot() {
        // SM103 FMUL2: the larger form prints `.reuse` after the register (bits 16-17 here)
        // where bits 109 and 122 are both set; a form of few answers keyed its register by
        // the sign bit (72), which its own slot prints, and learned `R1.reuse` by heart.
        let (sign, y, ru) = (1u128 << 72, 1u128 << 109, 1u128 << 122);
        let minus = || slot(sign, &[(0, ""), (1, "-")]);
        let donor: Vec<(u128, String)> = (0..16u128)
            .map(|k| {
                let reuse = if k >> 2 == 3 { ".reuse" } else { "" };
                (k, format!("R{}{reuse}", k & 3))
            })
            .collect();
        let donor: Vec<(u128, &str)> = donor.iter().map(|(k, t)| (*k, t.as_str())).collect();
        let by_heart = [(0, "R0"), (1, "R1.reuse"), (2, "R2"), (3, "R3")];
        let by_heart: Vec<(u128, &str)> = (0..8u128)
            .map(|k| (k, by_heart[(k & 3) as usize].1))
            .collect();
        let mut forms = vec![
            (
                Key(0),
                leaf(vec![
                    slot(0, &[(0, "FMUL2 ")]),
                    minus(),
                    slot(0x3 << 16 | y | ru, &donor),
                ]),
            ),
            (
                Key(1),
                leaf(vec![
                    slot(0, &[(0, "FMUL2.X ")]),
                    minus(),
                    slot(0x3 << 16 | sign, &by_heart),
                ]),
            ),
        ];
        let parts = vec![
            vec![(0u128, "FMUL2 R0"), (1 << 16 | y | ru, "FMUL2 R1.reuse")],
            vec![
                (1 << 16 | y | ru, "FMUL2.X R1.reuse"),
                (2 << 16 | sign, "FMUL2.X -R2"),
                (0, "FMUL2.X R0"),
                (3 << 16 | y, "FMUL2.X R3"),
                // The form's own slot prints this one wrong.
                (1 << 16, "FMUL2.X R1"),
            ],
        ];
        adopt_siblings(&mut forms, &parts);
        let p = &forms[1].1;
        assert_eq!(p.slots[2].mask, 0x3 << 16 | y | ru);
        assert_eq!(p.slots_text(2 << 16 | y | ru), "FMUL2.X R2.reuse");
        assert_eq!(p.slots_text(1 << 16 | sign), "FMUL2.X -R1");
    }

    #[test]
    fn a_slot_keyed_by_bits_a_larger_form_prints_apart_is_cut_as_the_larger_form_cuts_it() {
        // SM103 QFMA4: the larger form prints the register, `|...|` by bit 72, then `.reuse`
        // by bits 109 and 122 in a slot of its own; the bit-83 form keyed its register by all
        // three and never saw `|R1|.reuse`, which it learned as `|R1|`.
        let (abs, y, ru) = (1u128 << 72, 1u128 << 109, 1u128 << 122);
        let reg_abs = |k: u128| {
            let r = k & 3;
            if k & 4 != 0 {
                format!("|R{r}|")
            } else {
                format!("R{r}")
            }
        };
        let reg: Vec<(u128, String)> = (0..8u128).map(|k| (k, reg_abs(k))).collect();
        let reg: Vec<(u128, &str)> = reg.iter().map(|(k, t)| (*k, t.as_str())).collect();
        let reuse = slot(y | ru, &[(0, ""), (1, ""), (2, ""), (3, ".reuse")]);
        // Packed key: register (2 bits), abs, y, reuse bit.
        let joint: Vec<(u128, String)> = (0..32u128)
            .map(|k| {
                let suffix = if k >> 3 == 3 && k & 4 == 0 {
                    ".reuse"
                } else {
                    ""
                };
                (k, format!("{}{suffix}", reg_abs(k & 7)))
            })
            .collect();
        let joint: Vec<(u128, &str)> = joint.iter().map(|(k, t)| (*k, t.as_str())).collect();
        let mut forms = vec![
            (
                Key(0),
                leaf(vec![
                    slot(0, &[(0, "QFMA4 ")]),
                    slot(0x3 << 16 | abs, &reg),
                    reuse,
                    slot(0, &[(0, " ;")]),
                ]),
            ),
            (
                Key(1),
                leaf(vec![
                    slot(0, &[(0, "QFMA4.X ")]),
                    slot(0x3 << 16 | abs | y | ru, &joint),
                    slot(0, &[(0, " ;")]),
                ]),
            ),
        ];
        let parts = vec![
            vec![
                (0u128, "QFMA4 R0 ;"),
                (1 << 16 | abs | y | ru, "QFMA4 |R1|.reuse ;"),
                (2 << 16 | y | ru, "QFMA4 R2.reuse ;"),
                (3 << 16 | abs, "QFMA4 |R3| ;"),
            ],
            vec![
                (1 << 16 | y | ru, "QFMA4.X R1.reuse ;"),
                (2 << 16 | abs, "QFMA4.X |R2| ;"),
                (3 << 16 | abs | y, "QFMA4.X |R3| ;"),
            ],
        ];
        adopt_siblings(&mut forms, &parts);
        let p = &forms[1].1;
        let masks: Vec<u128> = p.slots.iter().map(|s| s.mask).collect();
        assert_eq!(masks, vec![0, 0x3 << 16 | abs, y | ru, 0]);
        assert_eq!(p.slots_text(1 << 16 | abs | y | ru), "QFMA4.X |R1|.reuse ;");
        assert_eq!(right_count(&p.slots, &parts[1]), 3);
    }

    #[test]
    fn a_slot_is_not_cut_by_a_smaller_form() {
        // The same two printers, with the answer counts the other way round: the form that
        // prints `.reuse` apart is the smaller one, so the larger keeps its own slot.
        let (abs, y, ru) = (1u128 << 72, 1u128 << 109, 1u128 << 122);
        let mut forms = vec![
            (
                Key(0),
                leaf(vec![
                    slot(0x3 << 16 | abs, &[(0, "R0"), (4, "|R0|")]),
                    slot(y | ru, &[(0, ""), (3, ".reuse")]),
                ]),
            ),
            (
                Key(1),
                leaf(vec![slot(
                    0x3 << 16 | abs | y | ru,
                    &[(0, "R0"), (4, "|R0|"), (24, "R0.reuse")],
                )]),
            ),
        ];
        let parts = vec![
            vec![(0u128, "R0")],
            vec![(0u128, "R0"), (abs, "|R0|"), (y | ru, "R0.reuse")],
        ];
        adopt_siblings(&mut forms, &parts);
        assert_eq!(forms[1].1.slots.len(), 1);
        assert_eq!(forms[1].1.slots[0].mask, 0x3 << 16 | abs | y | ru);
    }

    #[test]
    fn a_guard_cut_in_pieces_takes_the_siblings_whole_guard_slot() {
        // The form saw guards 0 and 1 only: "@" + "P" n + " F2FP".
        let mut forms = vec![
            (Key(0), leaf(vec![guard(), slot(0, &[(0, "F2FP ;")])])),
            (
                Key(1),
                leaf(vec![
                    slot(0, &[(0, "@")]),
                    slot(GUARD, &[(0, "P0"), (1, "P1")]),
                    slot(0, &[(0, " F2FP.RS ;")]),
                ]),
            ),
        ];
        let parts = vec![
            vec![(0u128, "@P0 F2FP ;"), (0x7000, "F2FP ;")],
            vec![(0u128, "@P0 F2FP.RS ;"), (0x1000, "@P1 F2FP.RS ;")],
        ];
        adopt_siblings(&mut forms, &parts);
        let p = &forms[1].1;
        assert_eq!(p.slots.len(), 2);
        assert_eq!(p.slots[0].mask, GUARD);
        assert_eq!(p.slots_text(0x7000), "F2FP.RS ;");
        assert_eq!(p.slots_text(0x1000), "@P1 F2FP.RS ;");
    }

    #[test]
    fn text_a_form_learned_by_heart_is_cut_where_the_siblings_slots_print() {
        let mut forms = vec![
            (
                Key(0),
                leaf(vec![
                    guard(),
                    slot(0, &[(0, "F2FP ")]),
                    slot(REG, &[(0, "R0"), (1, "R1")]),
                    slot(0, &[(0, ";")]),
                ]),
            ),
            (Key(1), leaf(vec![slot(0, &[(0, "@P0 F2FP.RS R0;")])])),
        ];
        let parts = vec![
            vec![(0u128, "@P0 F2FP R0;"), (0x1_1000, "@P1 F2FP R1;")],
            vec![(0u128, "@P0 F2FP.RS R0;")],
        ];
        adopt_siblings(&mut forms, &parts);
        let p = &forms[1].1;
        let masks: Vec<u128> = p.slots.iter().map(|s| s.mask).collect();
        assert_eq!(masks, vec![GUARD, 0, REG, 0]);
        assert_eq!(p.slots_text(0x1_1000), "@P1 F2FP.RS R1;");
    }

    #[test]
    fn bits_a_form_never_cut_go_where_the_answers_print_them() {
        // The MERGE_C form's answers set bits 79-80 in one of three, and its printer has no
        // slot for them; the PACK_AB form prints `.RZ` before the space.
        let mut forms = vec![
            (
                Key(0),
                leaf(vec![
                    slot(0, &[(0, "F2FP.PACK_AB")]),
                    slot(ROUND, &[(0, ""), (3, ".RZ")]),
                    slot(0, &[(0, " ")]),
                    slot(REG, &[(0, "R0"), (1, "R1")]),
                ]),
            ),
            (
                Key(1),
                leaf(vec![
                    slot(0, &[(0, "F2FP.MERGE_C ")]),
                    slot(REG, &[(0, "R0"), (1, "R1")]),
                ]),
            ),
        ];
        let round = 3u128 << 79;
        let parts = vec![
            vec![(0u128, "F2FP.PACK_AB R0"), (round, "F2FP.PACK_AB.RZ R0")],
            vec![
                (0u128, "F2FP.MERGE_C R0"),
                (0x1_0000, "F2FP.MERGE_C R1"),
                (round, "F2FP.MERGE_C.RZ R0"),
            ],
        ];
        adopt_siblings(&mut forms, &parts);
        let p = &forms[1].1;
        assert_eq!(p.slots_text(round | 0x1_0000), "F2FP.MERGE_C.RZ R1");
        assert_eq!(right_count(&p.slots, &parts[1]), 3);
    }

    #[test]
    fn an_empty_text_seen_at_one_value_is_not_placed() {
        let mut forms = vec![
            (
                Key(0),
                leaf(vec![
                    slot(0, &[(0, "F2FP.PACK_AB")]),
                    slot(ROUND, &[(0, ""), (3, ".RZ")]),
                    slot(0, &[(0, " R0")]),
                ]),
            ),
            (Key(1), leaf(vec![slot(0, &[(0, "F2FP.MERGE_C R0")])])),
        ];
        let parts = vec![
            vec![
                (0u128, "F2FP.PACK_AB R0"),
                (3u128 << 79, "F2FP.PACK_AB.RZ R0"),
            ],
            vec![(0u128, "F2FP.MERGE_C R0")],
        ];
        adopt_siblings(&mut forms, &parts);
        assert_eq!(forms[1].1.slots.len(), 1);
    }
}
