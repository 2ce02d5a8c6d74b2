//! Keys no answer showed: a slot keyed by many bits is learned from few of its values (SM120
//! LDGMC's synthesised table: its float type prints from bits 0, 73-76 and 87-90, 1024 keys,
//! 467 in the learned answers), and a key never seen printed the slot's commonest text. A
//! decision tree over the key's bits ([`Tree`]), learned from the keys seen, names the text
//! of an unseen key from the bits that decide it among the seen ones. It is kept only where,
//! learned without some of the seen keys, it names their texts better than the commonest
//! text does ([`FOLDS`]-fold over the keys).

use crate::reading::tree::Tree;
use crate::spec::printer::{Guess, Key, Printer, Product, Slot, pext};
use rustc_hash::FxHashMap as HashMap;

/// Folds of the keys a guess is judged on: every key is left out of one tree and named by it.
pub const FOLDS: usize = 5;

/// Least gain over `otherwise`, in per cent of the keys listed, on the keys left out: texts
/// no bit decides leave a tree a few keys ahead by chance (46 against 42 of 86 keys whose text
/// is a hash of the key, in this module's tests).
pub const MIN_GAIN_PERCENT: usize = 10;

/// Fewest keys a slot must list before a guess is tried.
pub const MIN_KEYS: usize = 16;

/// Narrowest key (bits) a guess is tried for; narrower keys are seen whole.
pub const MIN_KEY_BITS: u32 = 4;

/// Widest key (bits) a guess is tried for.
pub const MAX_KEY_BITS: u32 = 24;

/// Gives every slot of `p` (and of its forms and joined parts) the guess [`guess_for`] finds.
pub fn add_guesses(p: &mut Printer) {
    for s in &mut p.slots {
        add_to_slot(s);
    }
    for (_, f) in &mut p.forms {
        add_guesses(f);
    }
}

fn add_to_slot(s: &mut Slot) {
    if let Some(j) = &mut s.joined {
        for part in &mut j.parts {
            add_to_slot(part);
        }
        return;
    }
    s.guess = guess_for(s).map(Box::new);
    s.product = product_for(s).map(Box::new);
}

/// The guess for slot `s`: `None` for a slot with a number rule (it prints unseen values),
/// a key narrower than [`MIN_KEY_BITS`] or wider than [`MAX_KEY_BITS`], fewer than
/// [`MIN_KEYS`] keys listed, every key listed, one text, or where the tree names the texts of
/// left-out keys no better than `otherwise` does, by at least [`MIN_GAIN_PERCENT`] of them.
pub fn guess_for(s: &Slot) -> Option<Guess> {
    let width = s.mask.count_ones();
    if s.number.is_some()
        || !(MIN_KEY_BITS..=MAX_KEY_BITS).contains(&width)
        || s.texts.len() < MIN_KEYS
        || s.texts.len() as u128 >= 1u128 << width
    {
        return None;
    }
    let mut ids: HashMap<&str, u16> = HashMap::default();
    let mut texts: Vec<String> = Vec::new();
    let mut samples: Vec<(u128, u16)> = Vec::with_capacity(s.texts.len());
    for (k, t) in &s.texts {
        let id = *ids.entry(t.as_str()).or_insert_with(|| {
            texts.push(t.clone());
            (texts.len() - 1) as u16
        });
        samples.push((k.0, id));
    }
    if texts.len() < 2 || texts.len() > usize::from(u16::MAX) {
        return None;
    }
    // A left-out key is named right only where another key has its text: where too few keys
    // share a text (a register's name over its bits, one text per key), no tree can gain
    // [`MIN_GAIN_PERCENT`] and none is learned (a tree over 1,464 keys of as many texts,
    // SM80 LDG's address slot, took most of a learning step).
    let n = samples.len();
    if shared_keys(&samples, texts.len()) * 100 < MIN_GAIN_PERCENT * n {
        return None;
    }
    let (tree_right, commonest_right) = folds(&samples, s.otherwise.as_deref(), &texts);
    if std::env::var_os("SASS_CONFORM_DEBUG_GUESS").is_some() {
        eprintln!(
            "guess {:#x}: tree {tree_right}, otherwise {commonest_right} of {} keys, {} texts",
            s.mask,
            samples.len(),
            texts.len()
        );
    }
    if tree_right <= commonest_right || (tree_right - commonest_right) * 100 < MIN_GAIN_PERCENT * n
    {
        return None;
    }
    Some(Guess {
        tree: Tree::learn_with(&samples, true)?,
        texts,
    })
}

/// How many of `samples` (key, text id below `texts`) have a text another sample has too.
fn shared_keys(samples: &[(u128, u16)], texts: usize) -> usize {
    let mut count = vec![0usize; texts];
    for &(_, c) in samples {
        count[usize::from(c)] += 1;
    }
    count.into_iter().filter(|&n| n > 1).sum()
}

/// Over [`FOLDS`] folds of `samples` (key `i` in fold `i % FOLDS`): how many left-out keys a
/// tree learned from the others names right, and how many the slot's `otherwise` does (where
/// it is one of `texts`; else the commonest text of the others).
fn folds(samples: &[(u128, u16)], otherwise: Option<&str>, texts: &[String]) -> (usize, usize) {
    let fixed = otherwise.and_then(|o| texts.iter().position(|t| t == o));
    let (mut tree_right, mut commonest_right) = (0, 0);
    for f in 0..FOLDS {
        let (out, train): (Vec<_>, Vec<_>) = samples
            .iter()
            .enumerate()
            .partition(|(i, _)| i % FOLDS == f);
        let train: Vec<(u128, u16)> = train.into_iter().map(|(_, s)| *s).collect();
        let Some(tree) = Tree::learn_with(&train, true) else {
            continue;
        };
        let commonest = fixed.map_or_else(|| commonest_class(&train), |c| c as u16);
        for (_, (k, c)) in out {
            tree_right += usize::from(tree.classify(*k) == *c);
            commonest_right += usize::from(commonest == *c);
        }
    }
    (tree_right, commonest_right)
}

/// The class most samples have (the lowest on a tie).
fn commonest_class(samples: &[(u128, u16)]) -> u16 {
    let mut count: HashMap<u16, usize> = HashMap::default();
    for (_, c) in samples {
        *count.entry(*c).or_default() += 1;
    }
    count
        .into_iter()
        .max_by_key(|&(c, n)| (n, std::cmp::Reverse(c)))
        .map_or(0, |(c, _)| c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::printer::Key;

    /// A slot over 8 bits whose text follows its two low bits, learned from one key in three.
    fn slot(text: impl Fn(u128) -> String) -> Slot {
        let mut s = Slot::fixed("");
        s.mask = 0xff << 40;
        s.texts = (0..256u128)
            .filter(|k| k % 3 == 0)
            .map(|k| (Key(k), text(k)))
            .collect();
        s.otherwise = Some(text(0));
        s
    }

    #[test]
    fn an_unseen_key_prints_what_the_bits_that_decide_the_seen_ones_say() {
        let mut s = slot(|k| format!(".T{}", k & 3));
        let g = guess_for(&s).expect("the low bits decide every seen key");
        assert_eq!(g.text(0x41), ".T1");
        s.guess = Some(Box::new(g));
        let mut out = String::new();
        s.print_into(0x42 << 40, &mut out);
        assert_eq!(
            out, ".T2",
            "0x42 was not seen (0x42 % 3 = 0 is; 0x43 is not)"
        );
        out.clear();
        s.print_into(0x43 << 40, &mut out);
        assert_eq!(out, ".T3");
    }

    #[test]
    fn no_guess_where_the_tree_does_not_beat_the_commonest_text() {
        // Texts no bit decides (a hash of the key), or one text throughout: nothing to learn.
        let hashed =
            slot(|k| format!(".H{}", (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 63));
        assert!(guess_for(&hashed).is_none());
        let one = slot(|_| ".X".to_string());
        assert!(guess_for(&one).is_none());
        // A number rule prints unseen values itself.
        let mut numbered = slot(|k| format!(".T{}", k & 3));
        numbered.number = serde_json::from_str(
            r#"{"mask": "ff0000000000", "signed": false, "hex": true, "scale": 1,
                "affixes": [], "unread": "0"}"#,
        )
        .expect("a number rule");
        assert!(guess_for(&numbered).is_none());
    }

    #[test]
    fn no_tree_is_learned_where_few_keys_share_a_text() {
        // One text per key (a register's name) but for 8 of the 86 keys: left out, at most
        // those 8 can be named right, under the 10% a guess must gain.
        let s = slot(|k| format!("R{}", if k < 24 { 0 } else { k }));
        let samples: Vec<(u128, u16)> = s
            .texts
            .iter()
            .map(|(k, t)| (k.0, u16::from(t != "R0")))
            .collect();
        assert_eq!(
            shared_keys(&samples, 2),
            86,
            "two classes, each of several keys: every key shares its class"
        );
        let ids: Vec<(u128, u16)> = s
            .texts
            .iter()
            .enumerate()
            .map(|(i, (k, t))| (k.0, if t == "R0" { 0 } else { i as u16 }))
            .collect();
        assert_eq!(shared_keys(&ids, 86), 8);
        assert!(guess_for(&s).is_none());
    }
}

/// Widest key (bits) a [`Product`] is looked for: every split of the key's bits into two is
/// tried.
pub const MAX_PRODUCT_BITS: u32 = 12;

/// Keys a [`Product`] must list per piece it learns: with fewer, two pieces per key fit any
/// texts.
pub const PRODUCT_KEYS_PER_PIECE: usize = 2;

/// The product for slot `s`: `None` for a slot with a number rule or joined parts, a key
/// narrower than [`MIN_KEY_BITS`] or wider than [`MAX_PRODUCT_BITS`], fewer than [`MIN_KEYS`]
/// keys listed or every key listed. Of the splits of the key's bits into a first and a second
/// part under which every listed text is a first piece told by the first part followed by a
/// second told by the second ([`split_pieces`]), the one with the fewest pieces, kept when
/// the keys listed number at least [`PRODUCT_KEYS_PER_PIECE`] times its pieces.
pub fn product_for(s: &Slot) -> Option<Product> {
    let width = s.mask.count_ones();
    if s.number.is_some()
        || s.joined.is_some()
        || !(MIN_KEY_BITS..=MAX_PRODUCT_BITS).contains(&width)
        || s.texts.len() < MIN_KEYS
        || s.texts.len() as u128 >= 1u128 << width
    {
        return None;
    }
    let all = (1u128 << width) - 1;
    let keys: Vec<(u128, &str)> = s.texts.iter().map(|(k, t)| (k.0, t.as_str())).collect();
    let mut best: Option<(usize, u128, Pieces)> = None;
    for first in 1..all {
        let Some(p) = split_pieces(&keys, first, all & !first) else {
            continue;
        };
        let n = p.0.len() + p.1.len();
        if best.as_ref().is_none_or(|b| n < b.0) {
            best = Some((n, first, p));
        }
    }
    let (n, first, (firsts, seconds)) = best?;
    if keys.len() < PRODUCT_KEYS_PER_PIECE * n {
        return None;
    }
    let sorted = |m: HashMap<u128, String>| {
        let mut v: Vec<(Key, String)> = m.into_iter().map(|(k, t)| (Key(k), t)).collect();
        v.sort();
        v
    };
    Some(Product {
        first,
        firsts: sorted(firsts),
        seconds: sorted(seconds),
    })
}

/// First pieces by the value of the first part, second pieces by that of the second.
type Pieces = (HashMap<u128, String>, HashMap<u128, String>);

/// The pieces under which each of `keys` (packed key, text) prints the first piece of its
/// `first` bits followed by the second piece of its `second` bits; `None` where no such
/// pieces exist. Keys that share a part's value are linked; each linked set is solved from
/// one of its keys by each way of cutting that key's text in two, the first cut that leaves
/// no key of the set in conflict taken (every consistent cut gives the set's keys the same
/// texts, and any key of two seen values the same text too).
fn split_pieces(keys: &[(u128, &str)], first: u128, second: u128) -> Option<Pieces> {
    let parts: Vec<(u128, u128)> = keys
        .iter()
        .map(|(k, _)| (pext(*k, first), pext(*k, second)))
        .collect();
    let mut by_a: HashMap<u128, Vec<usize>> = HashMap::default();
    let mut by_b: HashMap<u128, Vec<usize>> = HashMap::default();
    for (i, (a, b)) in parts.iter().enumerate() {
        by_a.entry(*a).or_default().push(i);
        by_b.entry(*b).or_default().push(i);
    }
    let links = Links {
        keys,
        parts: &parts,
        by_a: &by_a,
        by_b: &by_b,
    };
    let mut pieces: Pieces = (HashMap::default(), HashMap::default());
    for (i, &(a, _)) in parts.iter().enumerate() {
        if pieces.0.contains_key(&a) {
            continue;
        }
        let t = keys[i].1;
        let solved = (0..=t.len())
            .filter(|&c| t.is_char_boundary(c))
            .find_map(|c| links.solve(i, (&t[..c], &t[c..])));
        let (fa, fb) = solved?;
        pieces.0.extend(fa);
        pieces.1.extend(fb);
    }
    Some(pieces)
}

/// The keys of [`split_pieces`], each key's two part values, and the keys by each value.
struct Links<'a> {
    keys: &'a [(u128, &'a str)],
    parts: &'a [(u128, u128)],
    by_a: &'a HashMap<u128, Vec<usize>>,
    by_b: &'a HashMap<u128, Vec<usize>>,
}

impl Links<'_> {
    /// The pieces of the set of keys linked to key `seed`, its text cut into `pieces`;
    /// `None` on a conflict (a text that does not start with its first piece or end with its
    /// second, or two pieces for one value).
    fn solve(&self, seed: usize, (p, q): (&str, &str)) -> Option<Pieces> {
        let (a0, b0) = self.parts[seed];
        let mut fa: HashMap<u128, String> = HashMap::default();
        let mut fb: HashMap<u128, String> = HashMap::default();
        fa.insert(a0, p.to_string());
        fb.insert(b0, q.to_string());
        // Values whose piece is known and whose keys are not yet checked: (is first, value).
        let mut queue: Vec<(bool, u128)> = vec![(true, a0), (false, b0)];
        while let Some((is_a, v)) = queue.pop() {
            let list = if is_a { &self.by_a[&v] } else { &self.by_b[&v] };
            for &i in list {
                let (a, b) = self.parts[i];
                let t = self.keys[i].1;
                if is_a {
                    let rest = t.strip_prefix(fa[&a].as_str())?;
                    if settle(&mut fb, b, rest)? {
                        queue.push((false, b));
                    }
                } else {
                    let head = t.strip_suffix(fb[&b].as_str())?;
                    if settle(&mut fa, a, head)? {
                        queue.push((true, a));
                    }
                }
            }
        }
        Some((fa, fb))
    }
}

/// Records `piece` for value `v` in `pieces`: `Some(true)` when it was new, `Some(false)` when
/// the same piece was there, `None` when another was (a conflict).
fn settle(pieces: &mut HashMap<u128, String>, v: u128, piece: &str) -> Option<bool> {
    match pieces.get(&v) {
        Some(x) if x != piece => None,
        Some(_) => Some(false),
        None => {
            pieces.insert(v, piece.to_string());
            Some(true)
        }
    }
}

#[cfg(test)]
mod product_tests {
    use super::*;

    /// A type (key bits 0, 2, 4: 8 values, some printing nothing) and a memory order (key
    /// bits 1, 3, 5, 6: 16 values) printed side by side over one 7-bit key, as SM121 ATOM
    /// prints `.F32x4.FTZ.RN` then `.CONSTANT.CTA` from bits 73-80 and 87.
    fn typed_order(k: u128) -> String {
        let ty = k & 1 | (k >> 1 & 2) | (k >> 2 & 4);
        let order = (k >> 1 & 1) | (k >> 2 & 2) | (k >> 3 & 0xc);
        let ty = [
            ".F16x2.RN",
            "",
            ".BF16x2.RN",
            ".F32.FTZ.RN",
            "",
            ".INVALID5",
            ".F64",
            ".S32",
        ][ty as usize];
        format!("{ty}.O{order}")
    }

    #[test]
    fn an_unseen_key_prints_its_two_pieces_where_each_was_seen_in_other_keys() {
        let mut s = Slot::fixed("");
        s.mask = 0x7f << 73;
        // A fifth of the keys never seen.
        let unseen = |k: u128| k % 5 == 2;
        s.texts = (0..128u128)
            .filter(|&k| !unseen(k))
            .map(|k| (Key(k), typed_order(k)))
            .collect();
        s.otherwise = Some(typed_order(0));
        let p = product_for(&s).expect("every seen text is a type then an order");
        assert_eq!(p.first, 0b001_0101, "the type's key bits print first");
        assert_eq!((p.firsts.len(), p.seconds.len()), (8, 16));
        s.product = Some(Box::new(p));
        let mut out = String::new();
        for k in (0..128u128).filter(|&k| unseen(k)) {
            out.clear();
            s.print_into(k << 73, &mut out);
            assert_eq!(out, typed_order(k), "key {k:#x}");
        }
        assert_eq!(typed_order(0x42), ".F16x2.RN.O9");
    }

    #[test]
    fn no_product_where_the_texts_are_no_two_pieces() {
        // One text per key, not made of pieces any split of the bits tells apart.
        let mut s = Slot::fixed("");
        s.mask = 0x3f << 40;
        s.texts = (0..64u128)
            .filter(|k| k % 4 != 1)
            .map(|k| {
                let h = (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58;
                (Key(k), format!(".H{h}"))
            })
            .collect();
        assert!(product_for(&s).is_none());
        // Too few keys for the pieces: 16 keys listed of a 5-bit key split 8 + 4 ways.
        let mut few = Slot::fixed("");
        few.mask = 0x1f << 40;
        few.texts = (0..16u128)
            .map(|k| (Key(k * 2 % 32), format!(".A{}.B{}", k % 8, k / 8)))
            .collect();
        few.texts.sort();
        assert!(product_for(&few).is_none());
    }
}
