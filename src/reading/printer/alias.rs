//! Aliases: modifier tokens nvdisasm prints by the values of operand fields (SM90 IMAD's
//! `.MOV` where a factor is `RZ`, `.IADD` where the immediate factor is 1), learned as rules
//! over field values from the answers, so that the printer is learned from the answers with
//! those tokens taken out ([`learn`]).
//!
//! A token of the opcode word is an alias candidate when answers whose small groups (at most
//! [`MAX_KEYED_BITS`] bits: modifiers, flags, guard, scheduling) are all alike disagree on
//! it: something wider than a slot's key decides it. Its rules are conjunctions of tests
//! (a small group at one of its values; a wide field at 0, 1, all ones, or a power of two),
//! found by sequential covering with FOIL's gain, each right on at least
//! [`MIN_RULE_PERMILLE`] of the answers it covers.

use super::Sample;
use crate::spec::printer::{
    Alias, FieldTest, Key, ValueTest, opcode_pieces, opcode_word, pext, prints_modifier,
};
use rustc_hash::FxHashMap as HashMap;

/// Widest group whose value keys a slot's text the ordinary way: a token that answers alike
/// in every group this narrow still disagree on is an alias candidate.
const MAX_KEYED_BITS: u32 = 4;

/// Fewest answers that must print a token (and fewest that must not) for it to be learned as
/// an alias; also the fewest answers a rule must cover.
const MIN_ALIAS_ANSWERS: usize = 3;

/// Most rules (alternatives) per alias: SM80 IMAD's `.MOV` takes six (either factor `RZ`,
/// with either reuse bit clear or bit 109 set).
const MAX_RULES: usize = 8;

/// Most tests per rule.
const MAX_RULE_TESTS: usize = 3;

/// Least share, per mille, of the answers a rule covers that must print the token: the
/// answers of a few words without it can be too few to learn what else decides (SM90
/// IMAD_R_R_R_I: 2 of 19 combination words with a factor `RZ` print no `.MOV`, and no test
/// sets those two aside but a bit that happened to differ there; IMAD_R_R_I_R: 2 of 10).
const MIN_RULE_PERMILLE: usize = 750;

/// Least share, per mille, of the answers printing the token that the rules must cover.
const MIN_COVER_PERMILLE: usize = 900;

/// A candidate test of a rule: the test, its group's rank (0 a field, 1 a free bit), and the
/// answers it holds for.
struct Test {
    test: FieldTest,
    rank: u8,
    holds: Bits,
}

/// Share of the best gain within which [`cover`] takes a test of a lower rank instead.
const NEAR_GAIN: f64 = 0.95;

/// One bit per answer.
#[derive(Clone, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    fn all(n: usize) -> Bits {
        let mut b = Bits::new(n);
        for i in 0..n {
            b.set(i);
        }
        b
    }

    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    fn count(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// How many bits both hold.
    fn count_and(&self, o: &Bits) -> usize {
        self.0
            .iter()
            .zip(&o.0)
            .map(|(a, b)| (a & b).count_ones() as usize)
            .sum()
    }

    fn and(&self, o: &Bits) -> Bits {
        Bits(self.0.iter().zip(&o.0).map(|(a, b)| a & b).collect())
    }

    fn and_not(&self, o: &Bits) -> Bits {
        Bits(self.0.iter().zip(&o.0).map(|(a, b)| a & !b).collect())
    }
}

/// The aliases of a variant's answers and the answers' texts with their tokens taken out, or
/// `None` when no token is one. `groups` are the variant's candidate groups (fields of the
/// layout, then free bits).
pub(super) fn learn(
    v: &crate::spec::Variant,
    samples: &[Sample],
) -> Option<(Vec<Alias>, Vec<String>)> {
    learn_over(&tested_groups(v), &super::candidate_groups(v), samples)
}

/// The groups of `v` the rules test, each with its rank (0 a field of the layout, 1 a single
/// bit of a scheduling field or a bit no field holds: a field's test is preferred where the
/// answers cannot tell them apart). The guard is left out. Scheduling fields are tested bit
/// by bit: nvdisasm 13.5 prints SM80 IMAD's `.MOV` for a factor `RZ` unless both factors'
/// reuse bits (122, 123) are set with bit 109 clear; the designed words of [`probe_words`]
/// tell such bits from ones that happened to differ where the sweeps kept them at one value.
fn tested_groups(v: &crate::spec::Variant) -> Vec<(u128, u8)> {
    use crate::spec::FieldKind;
    let mut out: Vec<(u128, u8)> = v
        .fields
        .iter()
        .filter(|f| !matches!(f.kind, FieldKind::Guard | FieldKind::Sched(_)))
        .map(|f| (f.mask(), 0))
        .filter(|&(m, _)| m != 0)
        .collect();
    let sched = v
        .fields
        .iter()
        .filter(|f| matches!(f.kind, FieldKind::Sched(_)))
        .fold(0u128, |a, f| a | f.mask());
    let guard = v
        .fields
        .iter()
        .filter(|f| matches!(f.kind, FieldKind::Guard))
        .fold(0u128, |a, f| a | f.mask());
    let held = v.fields.iter().fold(v.fixed_mask, |a, f| a | f.mask());
    out.extend(
        (0..128)
            .map(|b| (1u128 << b, 1))
            .filter(|&(m, _)| m & held == 0 || (m & sched != 0 && m & (guard | v.fixed_mask) == 0)),
    );
    out
}

/// Most answers on each side of an alias (printing its token; not printing it where the
/// first test of one of its rules holds) that [`probe_words`] flips bits of.
const PROBES_PER_SIDE: usize = 8;

/// How many of the answers on one side [`probe_words`] flips each bit on (one fewer where
/// the side has fewer answers; none where it has one).
const PROBES_PER_BIT: usize = 2;

/// The designed words that test the aliases of `v`'s learned printer against nvdisasm: per
/// first test of one of an alias's rules, up to [`PROBES_PER_SIDE`] answers of `samples`
/// where it holds that print the token and as many that do not (combination words first, in
/// a scattered order); each bit outside the fixed bits flipped alone on [`PROBES_PER_BIT`] of
/// each side's answers, in turn (no answer is flipped at every bit: a word with a flip of
/// each group would become the base the printer reads slots against, as it did for SM80
/// IMAD_R_R_R_I, a base with the guard at `PT` whose guard slot no answer placed). A bit whose flip takes
/// the token away (or brings it) is one nvdisasm decides by; one whose flip changes nothing
/// is not, where the answers learned from could not tell (SM80 IMAD learned `.MOV` as
/// "factor RZ and bit 83 clear and bit 92 clear" from two random words without it; nvdisasm
/// 13.5 leaves `.MOV` out where both factors' reuse bits are set and bit 109 is clear).
/// Empty without aliases.
pub(super) fn probe_words(v: &crate::spec::Variant, samples: &[Sample]) -> Vec<u128> {
    let Some(p) = &v.printer else {
        return Vec::new();
    };
    let mut firsts: Vec<(&str, &FieldTest)> = Vec::new();
    for a in &p.aliases {
        for t in a.rules.iter().filter_map(|r| r.first()) {
            if !firsts.contains(&(a.token.as_str(), t)) {
                firsts.push((a.token.as_str(), t));
            }
        }
    }
    let mut out = Vec::new();
    for (token, test) in firsts {
        let mut near: Vec<(u128, bool)> = samples
            .iter()
            .filter(|(w, _)| test.holds(*w))
            .map(|(w, t)| (*w, prints_modifier(t, token)))
            .collect();
        near.sort_by_key(|&(w, _)| {
            (
                !super::is_combination(w, v.fixed_mask),
                super::scatter(w),
                w,
            )
        });
        for side in [true, false] {
            let picked: Vec<u128> = near
                .iter()
                .filter(|n| n.1 == side)
                .map(|n| n.0)
                .take(PROBES_PER_SIDE)
                .collect();
            let k = picked.len();
            let per_bit = PROBES_PER_BIT.min(k.saturating_sub(1));
            for (j, b) in super::bits_of(!v.fixed_mask).enumerate() {
                for i in 0..per_bit {
                    out.push(picked[(j + i * k / per_bit) % k] ^ b);
                }
            }
        }
    }
    out
}

/// [`learn`] with the groups tested (`tested`, with their ranks) and the variant's candidate
/// groups (`groups`, whose narrow ones key a slot the ordinary way).
fn learn_over(
    tested: &[(u128, u8)],
    groups: &[u128],
    samples: &[Sample],
) -> Option<(Vec<Alias>, Vec<String>)> {
    let n = samples.len();
    let pieces: Vec<Vec<&str>> = samples
        .iter()
        .map(|(_, t)| {
            let (s, e) = opcode_word(t);
            opcode_pieces(&t[s..e])
        })
        .collect();
    // Worked out at the first candidate token: most variants have none.
    let mut tests: Option<Vec<Test>> = None;
    let small = groups
        .iter()
        .filter(|g| g.count_ones() <= MAX_KEYED_BITS)
        .fold(0u128, |m, g| m | g);
    let mut aliases = Vec::new();
    for token in tokens(&pieces) {
        let mut label = Bits::new(n);
        for (i, p) in pieces.iter().enumerate() {
            if p.iter().skip(1).any(|x| *x == token) {
                label.set(i);
            }
        }
        let pos = label.count();
        if pos < MIN_ALIAS_ANSWERS || n - pos < MIN_ALIAS_ANSWERS {
            continue;
        }
        let debug = std::env::var_os("SASS_CONFORM_DEBUG_ALIAS").is_some();
        if keyed(samples, &label, small) {
            continue;
        }
        let tests = tests.get_or_insert_with(|| candidate_tests(tested, samples));
        let Some(rules) = cover(tests, &label, n) else {
            if debug {
                eprintln!("alias {token}: {pos} of {n} answers, not covered");
            }
            continue;
        };
        let alias = Alias {
            token: token.to_string(),
            after: predecessor(&pieces, &label, token),
            rules,
        };
        if debug {
            eprintln!("alias {}: {pos} of {n} answers", alias.describe());
        }
        aliases.push(alias);
    }
    if aliases.is_empty() {
        return None;
    }
    let texts = samples
        .iter()
        .map(|(_, t)| {
            aliases
                .iter()
                .fold(t.to_string(), |t, a| strip(&t, &a.token))
        })
        .collect();
    Some((aliases, texts))
}

/// The modifier pieces (not the mnemonic) of the opcode words, each once, in order of first
/// sight.
fn tokens<'t>(pieces: &[Vec<&'t str>]) -> Vec<&'t str> {
    let mut seen: Vec<&str> = Vec::new();
    for p in pieces {
        for &x in p.iter().skip(1) {
            if !seen.contains(&x) {
                seen.push(x);
            }
        }
    }
    seen
}

/// Whether the small groups' values (`small`, packed) tell the token's presence for every
/// answer: no two answers alike in them disagree.
fn keyed(samples: &[Sample], label: &Bits, small: u128) -> bool {
    let mut seen: HashMap<u128, bool> = HashMap::default();
    for (i, (w, _)) in samples.iter().enumerate() {
        let k = pext(*w, small);
        let l = label.get(i);
        if *seen.entry(k).or_insert(l) != l {
            return false;
        }
    }
    true
}

/// The tests the rules are made of, each with the answers it holds for (tests that hold for
/// every answer or none are left out): per group of at most [`MAX_KEYED_BITS`] bits each of
/// its values; per wider group 0, 1, all ones and a power of two.
fn candidate_tests(groups: &[(u128, u8)], samples: &[Sample]) -> Vec<Test> {
    let n = samples.len();
    let mut out = Vec::new();
    for &(g, rank) in groups {
        let w = g.count_ones();
        let tests: Vec<ValueTest> = if w <= MAX_KEYED_BITS {
            (0..1u128 << w).map(|v| ValueTest::Equals(Key(v))).collect()
        } else {
            let ones = if w >= 128 { u128::MAX } else { (1 << w) - 1 };
            vec![
                ValueTest::Equals(Key(0)),
                ValueTest::Equals(Key(1)),
                ValueTest::Equals(Key(ones)),
                ValueTest::PowerOfTwo,
            ]
        };
        for test in tests {
            let t = FieldTest { mask: g, test };
            let mut b = Bits::new(n);
            for (i, (w, _)) in samples.iter().enumerate() {
                if t.holds(*w) {
                    b.set(i);
                }
            }
            let c = b.count();
            if c > 0 && c < n {
                out.push(Test {
                    test: t,
                    rank,
                    holds: b,
                });
            }
        }
    }
    out
}

/// Rules whose union tells the answers of `label`: sequential covering, each rule grown test
/// by test by FOIL's gain until it covers no answer without the token (or
/// [`MAX_RULE_TESTS`]); kept when right on [`MIN_RULE_PERMILLE`] of what it covers and
/// covering [`MIN_ALIAS_ANSWERS`]. `None` unless the rules cover [`MIN_COVER_PERMILLE`] of
/// the token's answers.
fn cover(tests: &[Test], label: &Bits, n: usize) -> Option<Vec<Vec<FieldTest>>> {
    let negative = Bits::all(n).and_not(label);
    let total = label.count();
    let mut left = label.clone();
    let mut rules = Vec::new();
    while rules.len() < MAX_RULES && left.count() >= MIN_ALIAS_ANSWERS {
        let mut covered = Bits::all(n);
        let mut rule: Vec<FieldTest> = Vec::new();
        while rule.len() < MAX_RULE_TESTS && covered.count_and(&negative) > 0 {
            let (p0, n0) = (covered.count_and(&left), covered.count_and(&negative));
            let gains: Vec<(f64, &Test, Bits)> = tests
                .iter()
                .filter(|t| !rule.contains(&t.test))
                .map(|t| {
                    let c = covered.and(&t.holds);
                    let n1 = c.count_and(&negative);
                    let g = foil_gain((p0, n0), (c.count_and(&left), n1));
                    // A test must set aside a few answers without the token: one that sets
                    // aside one or two stands in for what decides (a bit that happened to
                    // differ there).
                    (if n0 - n1 >= MIN_ALIAS_ANSWERS { g } else { 0.0 }, t, c)
                })
                .filter(|(g, _, _)| *g > 0.0)
                .collect();
            let top = gains.iter().map(|g| g.0).fold(0.0, f64::max);
            // The best test of the lowest rank near the best gain; the first on a tie.
            let best = gains
                .into_iter()
                .filter(|(g, _, _)| *g >= top * NEAR_GAIN)
                .min_by(|a, b| a.1.rank.cmp(&b.1.rank).then(b.0.total_cmp(&a.0)));
            let Some((_, t, c)) = best else {
                break;
            };
            rule.push(t.test.clone());
            covered = c;
        }
        let (p, ng) = (covered.count_and(&left), covered.count_and(&negative));
        if std::env::var_os("SASS_CONFORM_DEBUG_ALIAS").is_some() {
            let r: Vec<String> = rule.iter().map(FieldTest::describe).collect();
            eprintln!("  rule {r:?}: {p} with, {ng} without");
        }
        if rule.is_empty() || p < MIN_ALIAS_ANSWERS || p * 1000 < (p + ng) * MIN_RULE_PERMILLE {
            break;
        }
        rules.push(rule);
        left = left.and_not(&covered);
    }
    let got = total - left.count();
    (!rules.is_empty() && got * 1000 >= total * MIN_COVER_PERMILLE).then_some(rules)
}

/// FOIL's information gain of narrowing a rule covering `p0` answers with the token and `n0`
/// without to one covering `p1` and `n1`.
fn foil_gain((p0, n0): (usize, usize), (p1, n1): (usize, usize)) -> f64 {
    if p1 == 0 || p0 == 0 {
        return 0.0;
    }
    let info = |p: usize, n: usize| (p as f64 / (p + n) as f64).log2();
    p1 as f64 * (info(p1, n1) - info(p0, n0))
}

/// The piece the token follows most often in the answers that print it.
fn predecessor(pieces: &[Vec<&str>], label: &Bits, token: &str) -> String {
    let mut count: HashMap<&str, usize> = HashMap::default();
    for (i, p) in pieces.iter().enumerate() {
        if !label.get(i) {
            continue;
        }
        if let Some(at) = p.iter().skip(1).position(|x| *x == token) {
            *count.entry(p[at]).or_default() += 1;
        }
    }
    count
        .into_iter()
        .max_by_key(|&(p, c)| (c, std::cmp::Reverse(p)))
        .map_or_else(String::new, |(p, _)| p.to_string())
}

/// `text` with the first `token` piece of its opcode word taken out.
fn strip(text: &str, token: &str) -> String {
    let (s, e) = opcode_word(text);
    let pieces = opcode_pieces(&text[s..e]);
    let mut at = s;
    for p in pieces {
        if at > s && p == token {
            return format!("{}{}", &text[..at], &text[at + p.len()..]);
        }
        at += p.len();
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A variant of three groups: a 1-bit flag (bit 0, `.X`), an 8-bit register factor
    /// (bits 8-15) and an 8-bit register addend (bits 16-23). nvdisasm-like answers: `.MOV`
    /// where the factor is RZ (0xff) and the flag clear.
    fn answers() -> Vec<(u128, String)> {
        let mut out = Vec::new();
        for x in 0..2u128 {
            for a in [0u128, 1, 2, 7, 0x20, 0xfe, 0xff] {
                for c in [0u128, 3, 0xff] {
                    let w = x | a << 8 | c << 16;
                    let reg = |v: u128| {
                        if v == 0xff {
                            "RZ".into()
                        } else {
                            format!("R{v}")
                        }
                    };
                    let m = if a == 0xff && x == 0 { ".MOV" } else { "" };
                    let xs = if x == 1 { ".X" } else { "" };
                    out.push((
                        w,
                        format!("@P0 IMAD{m}.U32{xs} R1, {}, {} ;", reg(a), reg(c)),
                    ));
                }
            }
        }
        out
    }

    #[test]
    fn learns_a_field_value_rule_and_strips_its_token() {
        let owned = answers();
        let samples: Vec<Sample> = owned.iter().map(|(w, t)| (*w, t.as_str())).collect();
        let groups = [0x1, 0xff00, 0xff_0000];
        let tested: Vec<(u128, u8)> = groups.iter().map(|&g| (g, 0)).collect();
        let (aliases, texts) = learn_over(&tested, &groups, &samples).expect("an alias");
        assert_eq!(aliases.len(), 1);
        let a = &aliases[0];
        assert_eq!(a.token, ".MOV");
        assert_eq!(a.after, "IMAD");
        assert_eq!(a.rules.len(), 1);
        let mut rule = a.rules[0].clone();
        rule.sort_by_key(|t| t.mask);
        assert_eq!(
            rule,
            vec![
                FieldTest {
                    mask: 0x1,
                    test: ValueTest::Equals(Key(0))
                },
                FieldTest {
                    mask: 0xff00,
                    test: ValueTest::Equals(Key(0xff))
                },
            ]
        );
        // The `.X` token is keyed by bit 0: no alias. Stripped texts lose `.MOV` only.
        let i = owned.iter().position(|(w, _)| *w == 0xff00).unwrap();
        assert_eq!(owned[i].1, "@P0 IMAD.MOV.U32 R1, RZ, R0 ;");
        assert_eq!(texts[i], "@P0 IMAD.U32 R1, RZ, R0 ;");
        let mut out = texts[i].clone();
        a.insert(&mut out, 0);
        assert_eq!(out, owned[i].1);
        assert!(a.holds(0xff00) && !a.holds(0xff01) && !a.holds(0xfe00));
    }

    #[test]
    fn a_token_the_small_groups_key_is_no_alias() {
        let samples: Vec<Sample> = vec![
            (0, "FOO R1 ;"),
            (1, "FOO.X R1 ;"),
            (0x100, "FOO R2 ;"),
            (0x101, "FOO.X R2 ;"),
            (0x200, "FOO R3 ;"),
            (0x201, "FOO.X R3 ;"),
            (0x300, "FOO R4 ;"),
            (0x301, "FOO.X R4 ;"),
        ];
        assert!(learn_over(&[(0x1, 0), (0xff00, 0)], &[0x1, 0xff00], &samples).is_none());
    }

    #[test]
    fn opcode_word_skips_the_guard() {
        let t = "@!P1 IMAD.MOV.U32 R6, RZ, RZ, R13 ;";
        let (s, e) = opcode_word(t);
        assert_eq!(&t[s..e], "IMAD.MOV.U32");
        assert_eq!(opcode_pieces(&t[s..e]), vec!["IMAD", ".MOV", ".U32"]);
        assert_eq!(strip(t, ".MOV"), "@!P1 IMAD.U32 R6, RZ, RZ, R13 ;");
        assert_eq!(strip("BRA 0x10;", ".MOV"), "BRA 0x10;");
    }

    /// synth/SM80/IMAD.txt's IMAD_R_R_R_R (factor b in bits 32-39, reuse bits 122-125, bit
    /// 109, the guard in bits 12-15).
    fn imad_r_r_r_r() -> crate::spec::Variant {
        let text = include_str!("../../../synth/SM80/IMAD.txt");
        let t = crate::spec::parse_table("synth/SM80/IMAD.txt", text).unwrap();
        t.variants
            .into_iter()
            .find(|v| v.key == "IMAD_R_R_R_R")
            .unwrap()
    }

    #[test]
    fn scheduling_bits_are_tested_one_by_one_and_the_guard_never() {
        let v = imad_r_r_r_r();
        let tested = tested_groups(&v);
        assert!(tested.contains(&(0xff << 32, 0)));
        assert!(tested.contains(&(1 << 122, 1)) && tested.contains(&(1 << 109, 1)));
        assert!(!tested.iter().any(|&(m, _)| m == 0xf << 122));
        assert!(!tested.iter().any(|&(m, _)| m & 0xf << 12 != 0));
        assert!(tested.iter().all(|&(m, _)| m & v.fixed_mask == 0));
    }

    #[test]
    fn a_scheduling_bit_rule_is_learned_from_answers_that_show_it() {
        // nvdisasm 13.5 on SM80 IMAD: `.MOV` for a factor RZ (bits 8-15) unless both reuse
        // bits (122, 123) are set with bit 109 clear.
        let (reuse_a, reuse_b, y) = (1u128 << 122, 1u128 << 123, 1u128 << 109);
        let mut owned: Vec<(u128, String)> = Vec::new();
        for d in [1u128, 2, 5, 9] {
            for f in [0u128, 3, 0xff] {
                for s in 0..8u128 {
                    let bit = |i: u128, m: u128| if s >> i & 1 == 1 { m } else { 0 };
                    let w = d << 16 | f << 8 | bit(0, reuse_a) | bit(1, reuse_b) | bit(2, y);
                    let mov = f == 0xff && !(s & 3 == 3 && s >> 2 == 0);
                    let r = if f == 0xff {
                        "RZ".into()
                    } else {
                        format!("R{f}")
                    };
                    let m = if mov { ".MOV" } else { "" };
                    owned.push((w, format!("@P0 IMAD{m}.U32 R{d}, {r} ;")));
                }
            }
        }
        let samples: Vec<Sample> = owned.iter().map(|(w, t)| (*w, t.as_str())).collect();
        let groups = [0xff_0000, 0xff00, reuse_a, reuse_b, y];
        let tested = [
            (0xff_0000, 0),
            (0xff00, 0),
            (reuse_a, 1),
            (reuse_b, 1),
            (y, 1),
        ];
        let (aliases, _) = learn_over(&tested, &groups, &samples).expect("an alias");
        let a = &aliases[0];
        assert_eq!(a.token, ".MOV");
        for (w, t) in &owned {
            assert_eq!(a.holds(*w), t.contains(".MOV"), "{w:032x} {t}");
        }
    }

    #[test]
    fn probes_flip_each_free_bit_on_some_answers_of_each_side() {
        use crate::spec::printer::Printer;
        let mut v = imad_r_r_r_r();
        let rz = FieldTest {
            mask: 0xff << 32,
            test: ValueTest::Equals(Key(0xff)),
        };
        v.printer = Some(Printer::of_aliases(
            "IMAD",
            vec![Alias {
                token: ".MOV".into(),
                after: "IMAD".into(),
                rules: vec![vec![rz.clone()]],
            }],
        ));
        // Three answers with the factor RZ printing `.MOV`, two without (at least 3 bits
        // apart, so that no flip of one is a flip of another); one with another factor
        // (never picked).
        let base = v.fixed_value | 0xff << 32;
        let words = [
            base,
            base | 0x07 << 16,
            base | 0x38 << 16,
            base | 0xd << 122,
            base | 0x38 << 16 | 0xb << 122,
        ];
        let owned: Vec<(u128, &str)> = vec![
            (words[0], "IMAD.MOV.U32 R0, R0, RZ, R0 ;"),
            (words[1], "IMAD.MOV.U32 R7, R0, RZ, R0 ;"),
            (words[2], "IMAD.MOV.U32 R56, R0, RZ, R0 ;"),
            (words[3], "IMAD.U32 R0, R0, RZ, R0 ;"),
            (words[4], "IMAD.U32 R56, R0, RZ, R0 ;"),
            (v.fixed_value, "IMAD.U32 R0, R0, R0, R0 ;"),
        ];
        let probes = probe_words(&v, &owned);
        let free = (!v.fixed_mask).count_ones() as usize;
        // Each free bit flipped on two of the three answers printing `.MOV` and on one of
        // the two without.
        assert_eq!(probes.len(), free * 3);
        for b in 0..128u32 {
            let bit = 1u128 << b;
            let on: Vec<&u128> = words
                .iter()
                .filter(|&&w| probes.contains(&(w ^ bit)))
                .collect();
            let expect = if v.fixed_mask & bit == 0 { 3 } else { 0 };
            assert_eq!(on.len(), expect, "bit {b}");
        }
        assert!(probes.iter().all(|&p| p & v.fixed_mask == v.fixed_value));
        // No answer is flipped at every free bit.
        for w in words {
            assert!(
                probes
                    .iter()
                    .filter(|&&p| (p ^ w).count_ones() == 1)
                    .count()
                    < free
            );
        }
    }
}
