//! A learned printer, as data: nvdisasm's text for a variant's words as an ordered list of
//! slots, each a function of some bits of the word (value table, number rule, default).
//! Learned by [`crate::reading::printer::learn`]; kept in resolved/tables.json on the variant;
//! printed by [`Printer::print_into`] for any table (no rule per mnemonic or arch).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A learned printer for one variant: concatenate the slots' texts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Printer {
    /// Slots in print order.
    pub slots: Vec<Slot>,
    /// Share of the legal answers learned from that this printer reproduces exactly, in
    /// per mille (provenance; 1000 = all).
    pub learned_permille: u32,
    /// Form bits: bits whose value changes the shape of the whole text (SM80 LD's
    /// `desc[UR0][R0.64]` against `[R0.U32+UR0]`); 0 when there are none. With form bits the
    /// text is printed by the printer of `forms` whose key is the packed form bits.
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        serialize_with = "hex_ser",
        deserialize_with = "hex_de"
    )]
    pub form_mask: u128,
    /// One printer per value of the form bits seen, sorted by key (empty without form bits).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forms: Vec<(Key, Printer)>,
    /// Some answer it was learned from holds two spaces in a row: the text is printed as the
    /// slots give it. Otherwise (the default) a run of spaces prints as one: nvdisasm 13.5.37
    /// wrote none of 2,006,544 recorded legal answers (bundled oracle/, 102 synthesised
    /// tables' workspaces, tests/data) with two, and a float name's own trailing space meets
    /// the space before `;` as one (SM80 MUFU `+QNAN ;` whatever the scheduling bits; SM120
    /// UF2I `-1486 ;`), which two slots learned side by side would print twice.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub double_spaces: bool,
    /// Modifiers nvdisasm prints by the values of operand fields, not by bits a slot keys
    /// (SM90 IMAD: `.MOV` where a factor is `RZ`, `.IADD` where the immediate factor is 1,
    /// `.SHL` where it is a power of two and the addend `RZ`), each inserted into the
    /// printed opcode word when one of its rules holds; learned by
    /// [`crate::reading::printer`] from answers whose token no bits of the word key. Empty
    /// for most printers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<Alias>,
    /// Shapes (numbers as `#`: `-#.#`) of the last operand of quiet words after which
    /// nvdisasm kept the space before `;` (SM121 DADD, synthesised: `-0.0 ;` in a word whose
    /// other operands end `R0;`): decode keeps ` ;` after such an operand in a quiet word
    /// ([`crate::render::end_semicolon`]). Learned from the answers, where the printer learns
    /// every quiet word's text as a word that is not quiet prints it (`X;` as `X ;`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spaced_ends: Vec<String>,
}

/// A text with every number replaced by `#` (`R48.reuse` -> `R#.reuse`, `+-0x1f` -> `+-0x#`,
/// `1.5e+10` -> `#.#e+#`): texts of one shape print the same kind of value.
pub fn shape(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    shape_into(t, &mut out);
    out
}

/// [`shape`], appended to `out`.
pub fn shape_into(t: &str, out: &mut String) {
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'0' && i + 2 < b.len() && b[i + 1] == b'x' && b[i + 2].is_ascii_hexdigit() {
            out.push_str("0x#");
            i += 2;
            while i < b.len() && b[i].is_ascii_hexdigit() {
                i += 1;
            }
        } else if b[i].is_ascii_digit() {
            out.push('#');
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
}

/// The last operand of a printed text without its `;` (`@P0 DADD R0, R0, -0.0` -> `-0.0`):
/// what follows its last space or comma.
pub fn last_operand(body: &[u8]) -> &[u8] {
    let body = body.trim_ascii_end();
    let from = body
        .iter()
        .rposition(|&c| c == b' ' || c == b',')
        .map_or(0, |i| i + 1);
    &body[from..]
}

impl Printer {
    /// Whether nvdisasm keeps the space before `;` in a quiet word after `body` (the printed
    /// text before its `;`): the shape of its last operand is one of
    /// [`Printer::spaced_ends`].
    pub fn keeps_space(&self, body: &[u8]) -> bool {
        !self.spaced_ends.is_empty()
            && std::str::from_utf8(last_operand(body))
                .is_ok_and(|t| self.spaced_ends.iter().any(|s| *s == shape(t)))
    }

    /// Whether nvdisasm keeps the space before `;` in quiet word `word`, printed `body`
    /// before its `;`: [`Printer::keeps_space`], or the printer's slots (unsqueezed) end with
    /// a space of their own before ` ;` (`  ;`).
    pub fn keeps_space_at(&self, word: u128, body: &[u8]) -> bool {
        self.keeps_space(body) || self.slots_text(word).ends_with("  ;")
    }
}

/// A modifier token printed by field values ([`Printer::aliases`]): `token` (with its dot,
/// `.MOV`) goes into the opcode word (the first token of the text after an optional `@P0`
/// guard) right after the piece `after` (the mnemonic, `IMAD`, or a modifier with its dot,
/// `.WIDE`; after the mnemonic when `after` is not printed) when any of `rules` holds, a rule
/// holding when all of its tests do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alias {
    /// The modifier, with its leading dot.
    pub token: String,
    /// The piece of the opcode word it follows in the answers learned from.
    pub after: String,
    /// Alternatives, each a conjunction of tests on the word.
    pub rules: Vec<Vec<FieldTest>>,
}

/// A test on the bits `mask` of a word, packed low first ([`pext`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldTest {
    /// The bits tested (a field of the layout, or a bit no field holds).
    #[serde(serialize_with = "hex_ser", deserialize_with = "hex_de")]
    pub mask: u128,
    /// What must hold of their packed value.
    pub test: ValueTest,
}

/// What a [`FieldTest`] asks of a packed value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValueTest {
    /// The value is this one (`RZ` = all ones of a register field, an immediate of 1).
    Equals(Key),
    /// The value is a power of two (one bit set).
    PowerOfTwo,
}

impl FieldTest {
    /// Whether the test holds for `word`.
    pub fn holds(&self, word: u128) -> bool {
        let v = pext(word, self.mask);
        match self.test {
            ValueTest::Equals(k) => v == k.0,
            ValueTest::PowerOfTwo => v.is_power_of_two(),
        }
    }

    /// `bits 32-63 = 0x1`, `bits 32-63 a power of two`.
    pub fn describe(&self) -> String {
        match self.test {
            ValueTest::Equals(k) => format!("bits {} = {:#x}", bit_ranges(self.mask), k.0),
            ValueTest::PowerOfTwo => format!("bits {} a power of two", bit_ranges(self.mask)),
        }
    }
}

impl Alias {
    /// Whether some rule holds for `word`.
    pub fn holds(&self, word: u128) -> bool {
        self.rules.iter().any(|r| r.iter().all(|t| t.holds(word)))
    }

    /// Inserts the token into the opcode word of `out[from..]` ([`Alias`]).
    pub fn insert(&self, out: &mut String, from: usize) {
        let (s, e) = opcode_word(&out[from..]);
        let (s, e) = (from + s, from + e);
        let pieces = opcode_pieces(&out[s..e]);
        let mut at = s + pieces.first().map_or(0, |p| p.len());
        let mut end = s;
        for p in &pieces {
            end += p.len();
            if *p == self.after {
                at = end;
                break;
            }
        }
        out.insert_str(at, &self.token);
    }

    /// `.MOV after "IMAD" where bits 24-31 = 0xff and bits 74 = 0x0, or ...`.
    pub fn describe(&self) -> String {
        let rules: Vec<String> = self
            .rules
            .iter()
            .map(|r| {
                r.iter()
                    .map(FieldTest::describe)
                    .collect::<Vec<_>>()
                    .join(" and ")
            })
            .collect();
        format!(
            "{} after {:?} where {}",
            self.token,
            self.after,
            rules.join(", or ")
        )
    }
}

/// The byte range of the opcode word of a text: its first token (up to a space or `;`) after
/// leading spaces and an optional guard (a token starting with `@`).
pub fn opcode_word(text: &str) -> (usize, usize) {
    let mut s = text.len() - text.trim_start().len();
    if text[s..].starts_with('@') {
        let g = text[s..].find(' ').map_or(text.len(), |i| s + i);
        s = g + (text[g..].len() - text[g..].trim_start().len());
    }
    let e = text[s..].find([' ', ';']).map_or(text.len(), |i| s + i);
    (s, e)
}

/// The pieces of an opcode word: the mnemonic, then each modifier with its dot
/// (`IMAD.MOV.U32` -> `IMAD`, `.MOV`, `.U32`).
pub fn opcode_pieces(word: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in word.char_indices() {
        if c == '.' && i > start {
            out.push(&word[start..i]);
            start = i;
        }
    }
    if start < word.len() {
        out.push(&word[start..]);
    }
    out
}

/// Whether the opcode word of `text` (an nvdisasm line, guard and all) holds the modifier
/// `token` (with its dot; the mnemonic is not a modifier).
pub fn prints_modifier(text: &str, token: &str) -> bool {
    let (s, e) = opcode_word(text);
    opcode_pieces(&text[s..e])
        .iter()
        .skip(1)
        .any(|p| *p == token)
}

fn is_zero(v: &u128) -> bool {
    *v == 0
}

fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

/// One piece of the text: fixed text (`mask` = 0) or a function of the bits in `mask`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slot {
    /// Word bits the text depends on (bit 0 = least significant bit of the word).
    #[serde(serialize_with = "hex_ser", deserialize_with = "hex_de")]
    pub mask: u128,
    /// Text per key, the key being the bits of `mask` packed low first ([`pext`]); sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub texts: Vec<(Key, String)>,
    /// How a value never seen prints, when the texts follow a number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<NumberRule>,
    /// Text for a key neither `texts` nor `number` covers: the most common text of the keys
    /// other than the base's (a slot that prints when any of its bits is set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub otherwise: Option<String>,
    /// Text for a key neither `texts` nor `number` covers, where a tree over the key's bits
    /// told the keys it was not learned from better than `otherwise`
    /// ([`crate::reading::printer`]'s guesses); used before `otherwise`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guess: Option<Box<Guess>>,
    /// Text for a key no answer showed, where every listed key's text is two pieces side by
    /// side, each told by some of the key's bits ([`Product`]); used before `guess` when both
    /// pieces of the key were seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product: Option<Box<Product>>,
    /// The slot as parts joined by a separator, each part omitted when it prints nothing
    /// (with it, `texts`, `number` and `otherwise` are unused): a memory operand whose
    /// register, uniform register and offset nvdisasm leaves out at RZ, URZ and 0 (SM103
    /// STS `[R1+0x10]`, `[0x10]` for RZ, `[R1]` for offset 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joined: Option<Box<Joined>>,
}

/// How a slot prints a key no answer showed: a decision tree over the packed key (bit `i` of
/// the tree's word is the `i`-th lowest bit of the slot's mask) naming one of `texts`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Guess {
    /// The tree; its classes index `texts`.
    pub tree: crate::reading::tree::Tree,
    /// The texts the tree names.
    pub texts: Vec<String>,
}

impl Guess {
    /// The text the tree names for packed key `key`.
    pub fn text(&self, key: u128) -> &str {
        self.texts
            .get(self.tree.classify(key) as usize)
            .map_or("", String::as_str)
    }
}

/// A slot's texts as two pieces printed side by side, the first told by the bits `first` of
/// the packed key, the second by the others: SM121 ATOM's type and memory order over bits
/// 73-80 and 87 (`.F32x4.FTZ.RN` + `.CONSTANT.CTA`), 505 of 512 keys seen, each piece seen in
/// many keys. A key no answer showed prints as its two pieces where both were seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Product {
    /// Bits of the packed key (bit `i` is the `i`-th lowest bit of the slot's mask) that tell
    /// the first piece; the slot's other key bits tell the second.
    #[serde(serialize_with = "hex_ser", deserialize_with = "hex_de")]
    pub first: u128,
    /// The first piece per value of those bits (packed low first), sorted.
    pub firsts: Vec<(Key, String)>,
    /// The second piece per value of the other key bits (packed low first), sorted.
    pub seconds: Vec<(Key, String)>,
}

impl Product {
    /// The text of packed key `key` (the slot's `width` bits): `None` where a piece was not
    /// seen.
    pub fn text(&self, key: u128, width: u32) -> Option<(&str, &str)> {
        let all = if width >= 128 {
            !0
        } else {
            (1u128 << width) - 1
        };
        let a = listed(&self.firsts, pext(key, self.first))?;
        let b = listed(&self.seconds, pext(key, all & !self.first))?;
        Some((a, b))
    }
}

/// The text of key `k` in `list` (sorted by key).
fn listed(list: &[(Key, String)], k: u128) -> Option<&str> {
    list.binary_search_by_key(&Key(k), |(k, _)| *k)
        .ok()
        .map(|i| list[i].1.as_str())
}

/// Parts of a slot printed in order, the non-empty ones joined by `sep` (`+`); `empty` when
/// every part prints nothing (`RZ` for `[RZ]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Joined {
    /// Printed between two non-empty parts.
    pub sep: String,
    /// The parts in print order, each a slot over some of the slot's bits.
    pub parts: Vec<Slot>,
    /// Printed when no part prints anything.
    pub empty: String,
    /// Per part, how it prints when it is the only part that prints (`None`: as in `parts`):
    /// SM80 LDS prints bits 40-63 signed after a register (`[R1+-0x10]`) and unsigned alone
    /// (`[0xfffff0]` where the register is RZ). Empty when no part prints otherwise alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alone: Vec<Option<Slot>>,
}

impl Joined {
    /// Prints the non-empty parts joined by `sep`, or `empty`.
    pub fn print_into(&self, word: u128, out: &mut String) {
        let start = out.len();
        let mut present = (0, 0);
        for (i, p) in self.parts.iter().enumerate() {
            let before = out.len();
            if before > start {
                out.push_str(&self.sep);
            }
            let at = out.len();
            p.print_into(word, out);
            if out.len() == at {
                out.truncate(before);
            } else {
                present = (present.0 + 1, i);
            }
        }
        if present.0 == 1
            && let Some(Some(alone)) = self.alone.get(present.1)
        {
            out.truncate(start);
            alone.print_into(word, out);
        }
        if out.len() == start {
            out.push_str(&self.empty);
        }
    }
}

/// A packed key of up to 128 bits, written as lowercase hex in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Key(pub u128);

impl Key {
    /// Whether no bit is set (for `skip_serializing_if`).
    pub fn is_zero(&self) -> bool {
        self.0 == 0
    }
}

impl Serialize for Key {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:x}", self.0))
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        let s = String::deserialize(d)?;
        u128::from_str_radix(&s, 16)
            .map(Key)
            .map_err(serde::de::Error::custom)
    }
}

pub(crate) fn hex_ser<S: Serializer>(v: &u128, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:x}"))
}

pub(crate) fn hex_de<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
    let s = String::deserialize(d)?;
    u128::from_str_radix(&s, 16).map_err(serde::de::Error::custom)
}

/// The prefix and the suffix of a [`NumberRule`]'s affixes, each keyed apart: per side, the
/// key bits (packed as [`NumberRule::affixes`]' keys) that side's text does not follow, and
/// (a key with those bits cleared, negative, prefix, suffix) with the other side's text empty,
/// sorted as `affixes`. Learned as [`NumberRule::nearby`] is, from one side's texts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApartAffixes {
    /// Key bits the prefixes do not follow.
    pub prefix_bits: Key,
    /// (key without `prefix_bits`, negative, prefix, "").
    pub prefixes: Vec<(Key, bool, String, String)>,
    /// Key bits the suffixes do not follow.
    pub suffix_bits: Key,
    /// (key without `suffix_bits`, negative, "", suffix).
    pub suffixes: Vec<(Key, bool, String, String)>,
}

impl ApartAffixes {
    /// The prefix of one side's key and the suffix of the other's, when both are held.
    fn of(&self, other: Key, neg: bool) -> Option<(&str, &str)> {
        let (pre, _) = keyed_affixes(&self.prefixes, Key(other.0 & !self.prefix_bits.0), neg)?;
        let (_, suf) = keyed_affixes(&self.suffixes, Key(other.0 & !self.suffix_bits.0), neg)?;
        Some((pre, suf))
    }
}

/// A slot's number: `prefix + number(bits of mask) + suffix`, the affixes chosen by the other
/// bits of the slot and the sign (`+0x4` / `+-0x4`, `R12`, `UR3`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumberRule {
    /// Bits of the number, packed low first.
    #[serde(serialize_with = "hex_ser", deserialize_with = "hex_de")]
    pub mask: u128,
    /// Two's complement of the mask's width (`-0x10`).
    pub signed: bool,
    /// Printed as `0x...` (else decimal).
    pub hex: bool,
    /// The printed number is the value times this (plus `offset`); negative where the sign
    /// stands outside the slot and the number falls as the value grows (SM103 JMXU's
    /// `UR0 -0x200000000000000`: bits 16-23, 34-80 as `2^57 - 4 * value` after a fixed ` -`).
    pub scale: i32,
    /// Added to the scaled value: a branch target is printed as an address, the next
    /// word's (0x10 at address 0, where the oracle records every word) plus the offset.
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    pub offset: i64,
    /// The bits are an IEEE float (a 32-bit float's top bits when fewer than 32, a 64-bit
    /// float when 64), printed as nvdisasm prints floats ([`format_float`]): FADD's immediate on
    /// SM103.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub float: bool,
    /// With `float`: the bits are the top bits of a 64-bit float, the low bits 0 (a double
    /// immediate held as its high 32 bits: SM80 DFMA, DSETP, `2.2152404463053998003e-279`
    /// for `0x06141b08`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub double: bool,
    /// With `float`: the 16 bits are an IEEE half (5 exponent bits, 10 fraction bits), as
    /// each half of a packed pair is (SM80 HFMA2's `-0.701171875` for `0xb99c`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub half: bool,
    /// (key of the slot's other bits, negative) -> (prefix, suffix), sorted by key and sign,
    /// one entry each.
    pub affixes: Vec<(Key, bool, String, String)>,
    /// (negative, prefix, suffix): what a key not in `affixes` prints, for a sign where at
    /// least 90% of the learned keys (and at least 4) print the same affixes. A context value
    /// no learned word had then prints the number as its neighbours do rather than the slot's
    /// fallback text: SM80 F2F's constant offset, whose slot also holds the scheduling bits
    /// that put a space before `;`, printed `0x0] ;` for an unseen value of them (check split
    /// 98.5% -> 100% legal text). Where the keys' affixes vary more, an unseen key's are not
    /// guessed (SM90 F2FP's register operands: guessing the commonest lost 10 points).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unseen: Vec<(bool, String, String)>,
    /// Bits of `affixes`' keys (packed as the keys are) whose value the learned keys' affixes
    /// do not follow: every learned key, its sign and its other bits alike, prints the
    /// affixes most of its fellows do (at least 90%) whatever these bits hold. A key not in
    /// `affixes` prints the affixes [`NumberRule::nearby`] names for its other bits, before
    /// `unseen` is asked: SM90 F2F's source register, whose affix key took the guard bits
    /// 12-15 beside its half and `|...|` bits, prints `UR50.INVALID2` for a guard value no
    /// learned word had with those bits, as the words of every other guard value do.
    #[serde(default, skip_serializing_if = "Key::is_zero")]
    pub nearby_bits: Key,
    /// With `nearby_bits`: (a key with those bits cleared, negative, prefix, suffix), sorted as
    /// `affixes`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nearby: Vec<(Key, bool, String, String)>,
    /// The prefix and the suffix learned apart, for a key neither `affixes` nor `nearby`
    /// holds: each side keyed by the bits it follows only ([`ApartAffixes`]). SM86 F2I's
    /// source register (synthesised table): its `-` and `|...|` follow bits 62-63, its `.H1`
    /// or `.INVALID2` bits 60-61 and the type bit 85, and a key no learned word had (`.INVALID2`
    /// without `-`) prints the prefix of its sign bits and the suffix of its half bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apart: Option<Box<ApartAffixes>>,
    /// Values printed as a name in the number's place, between the same affixes (the rule's
    /// bits, packed -> the name): `R` + `Z` for register 255, `UR` + `Z` for 63, `P` + `T`
    /// for 7; learned where every answer of the value agrees, so that `-|RZ|` follows from
    /// `-|R12|` and `RZ` (SM90 FFMA operand 3).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<(Key, String)>,
    /// With `float`: the affixes of the values nvdisasm names ([`special_float`]: `+QNAN`,
    /// `-INF`, `-0.0`), keyed as `affixes`; learned apart because nvdisasm follows a name with
    /// a space where a number has none (`+QNAN , !P0` but `0.5, !P0`; SM80 FSETP).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub special_affixes: Vec<(Key, bool, String, String)>,
    /// Bits of the slot that neither the number reads nor its affixes depend on: the half of a
    /// 32-bit immediate that a 16-bit float source leaves unread (SM90 F2I `.F16`, bits 48-63).
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        serialize_with = "hex_ser",
        deserialize_with = "hex_de"
    )]
    pub unread: u128,
    /// The bits of the slot (outside every reading's number) that pick another reading of
    /// the number, and for each value of them (packed) that reading, with its own bits, kind,
    /// signedness and affixes; values not listed use this rule. nvdisasm reads an immediate by
    /// the instruction's source type: SM90 F2I's bits 32-63 as a 32-bit float, but with
    /// `.F16` only bits 32-47 as a half (`42.53125` for `0x5151`); SM100 HFMA2's 16 bits as a
    /// half, but with `.BF16_V2` as a bfloat16 (a 32-bit float's top bits); SM120 UI2F's bits
    /// 32-63 as unsigned with `.U32` (`0xb39c0992`), signed without (`-0x4c63f66e`).
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        serialize_with = "hex_ser",
        deserialize_with = "hex_de"
    )]
    pub alt_context: u128,
    /// With `alt_context`: (its bits' value, the reading used there).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alts: Vec<(Key, NumberRule)>,
}

/// Packs the bits of `word` selected by `mask`, lowest first. Works a run of adjacent mask
/// bits at a time (a field's bit range is one run or a few).
pub fn pext(word: u128, mask: u128) -> u128 {
    let mut out = 0u128;
    let mut i = 0;
    for (lo, ones) in bit_runs(mask) {
        out |= (word >> lo & ones) << i;
        i += ones.count_ones();
    }
    out
}

/// [`pext`] by one mask for many words: the mask's runs of adjacent bits worked out once.
#[derive(Debug, Clone)]
pub struct Pext {
    /// Per run of the mask, lowest first: (its lowest bit, its length as that many low bits
    /// set, where its bits go in the packed value).
    runs: Vec<(u32, u128, u32)>,
}

impl Pext {
    /// The runs of `mask`.
    pub fn new(mask: u128) -> Pext {
        let mut at = 0;
        let runs = bit_runs(mask)
            .map(|(lo, ones)| {
                let r = (lo, ones, at);
                at += ones.count_ones();
                r
            })
            .collect();
        Pext { runs }
    }

    /// [`pext`] of `word` by the mask.
    #[inline]
    pub fn of(&self, word: u128) -> u128 {
        self.runs
            .iter()
            .fold(0, |out, &(lo, ones, at)| out | (word >> lo & ones) << at)
    }
}

/// The runs of adjacent set bits of `mask`, lowest first: (lowest bit, the run's length as
/// that many low bits set).
fn bit_runs(mask: u128) -> impl Iterator<Item = (u32, u128)> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let lo = m.trailing_zeros();
        let ones = u128::MAX >> (128 - (m >> lo).trailing_ones());
        m &= !(ones << lo);
        Some((lo, ones))
    })
}

impl Printer {
    /// A printer of `slots` alone: no forms, aliases or learned share, runs of spaces printed
    /// as one.
    pub fn of_slots(slots: Vec<Slot>) -> Printer {
        Printer {
            slots,
            learned_permille: 0,
            form_mask: 0,
            forms: vec![],
            double_spaces: false,
            aliases: Vec::new(),
            spaced_ends: Vec::new(),
        }
    }

    /// A printer of one fixed text and `aliases` (tests of what reads the aliases).
    #[cfg(test)]
    pub(crate) fn of_aliases(text: &str, aliases: Vec<Alias>) -> Printer {
        Printer {
            slots: vec![Slot::fixed(text)],
            learned_permille: 1000,
            form_mask: 0,
            forms: vec![],
            double_spaces: false,
            aliases,
            spaced_ends: Vec::new(),
        }
    }

    /// The text of `word` (a word of the variant this printer was learned for), appended to
    /// `out`; runs of spaces printed as one unless [`Printer::double_spaces`].
    pub fn print_into(&self, word: u128, out: &mut String) {
        let start = out.len();
        self.print_slots(word, out);
        self.print_aliases(word, out, start);
        if !self.double_spaces {
            squeeze_spaces(out, start);
        }
    }

    /// The slots' texts of `word` put together as they are (no run of spaces made one): what
    /// the learner weighs a printer by, so that where a slot's trailing space and the next
    /// slot's space print as one it still learns which slot prints it
    /// ([`crate::reading::printer`]).
    pub fn slots_text(&self, word: u128) -> String {
        let mut s = String::with_capacity(64);
        self.slots_text_into(word, &mut s);
        s
    }

    /// [`Printer::slots_text`] into `out` (cleared first): a caller that checks many words
    /// reuses one buffer.
    pub fn slots_text_into(&self, word: u128, out: &mut String) {
        out.clear();
        self.print_slots(word, out);
        self.print_aliases(word, out, 0);
    }

    /// Inserts the tokens of the aliases that hold for `word` into `out[from..]`.
    fn print_aliases(&self, word: u128, out: &mut String, from: usize) {
        for a in &self.aliases {
            if a.holds(word) {
                a.insert(out, from);
            }
        }
    }

    /// The slots' texts of `word` (of the form's printer, with form bits), as they are.
    fn print_slots(&self, word: u128, out: &mut String) {
        if self.form_mask != 0 {
            let key = Key(pext(word, self.form_mask));
            let i = self
                .forms
                .binary_search_by_key(&key, |(k, _)| *k)
                .unwrap_or(0);
            if let Some((_, p)) = self.forms.get(i) {
                p.print_slots(word, out);
            }
            return;
        }
        for s in &self.slots {
            s.print_into(word, out);
        }
    }

    /// [`Printer::print_into`] into a new string.
    pub fn print(&self, word: u128) -> String {
        let mut s = String::with_capacity(64);
        self.print_into(word, &mut s);
        s
    }
}

/// `out` with every run of spaces from byte `from` on made one space.
fn squeeze_spaces(out: &mut String, from: usize) {
    if !out[from..].contains("  ") {
        return;
    }
    let mut squeezed = String::with_capacity(out.len() - from);
    for c in out[from..].chars() {
        if !(c == ' ' && squeezed.ends_with(' ')) {
            squeezed.push(c);
        }
    }
    out.truncate(from);
    out.push_str(&squeezed);
}

impl Slot {
    /// A slot of fixed text `t` (mask 0, one text under key 0): printed the same for every
    /// word.
    pub fn fixed(t: &str) -> Slot {
        Slot {
            mask: 0,
            texts: vec![(Key(0), t.to_string())],
            number: None,
            otherwise: None,
            guess: None,
            product: None,
            joined: None,
        }
    }

    /// A slot of bits `mask` that prints only the listed texts (`(packed key, text)`, sorted
    /// here), nothing for another key.
    pub fn of_texts(mask: u128, texts: &[(u128, &str)]) -> Slot {
        let mut texts: Vec<(Key, String)> = texts
            .iter()
            .map(|(k, t)| (Key(*k), t.to_string()))
            .collect();
        texts.sort();
        Slot::keyed(mask, texts)
    }

    /// A slot of bits `mask` that prints only `texts` (sorted by key), nothing for another
    /// key.
    pub fn keyed(mask: u128, texts: Vec<(Key, String)>) -> Slot {
        Slot {
            mask,
            texts,
            number: None,
            otherwise: None,
            guess: None,
            product: None,
            joined: None,
        }
    }

    /// Appends the slot's text for `word`.
    pub fn print_into(&self, word: u128, out: &mut String) {
        if let Some(j) = &self.joined {
            j.print_into(word, out);
            return;
        }
        let key = pext(word, self.mask);
        if let Ok(i) = self.texts.binary_search_by_key(&Key(key), |(k, _)| *k) {
            out.push_str(&self.texts[i].1);
            return;
        }
        if let Some(n) = &self.number
            && n.print_into(word, self.mask, out)
        {
            return;
        }
        if let Some((a, b)) = self
            .product
            .as_ref()
            .and_then(|p| p.text(key, self.mask.count_ones()))
        {
            out.push_str(a);
            out.push_str(b);
        } else if let Some(g) = &self.guess {
            out.push_str(g.text(key));
        } else if let Some(t) = &self.otherwise {
            out.push_str(t);
        }
    }
}

impl NumberRule {
    /// The printed number of `word`.
    pub fn value(&self, word: u128) -> i128 {
        self.value_of_bits(pext(word, self.mask))
    }

    /// The printed number for the rule's bits `v` (the word's `mask` bits, packed).
    pub fn value_of_bits(&self, v: u128) -> i128 {
        let w = self.mask.count_ones();
        let n = if self.signed && w > 0 && w < 128 && v >> (w - 1) & 1 == 1 {
            v as i128 - (1i128 << w)
        } else {
            v as i128
        };
        n * self.scale as i128 + self.offset as i128
    }

    /// Prints the number of `word` with its affixes; `false` when no affix pair is known for
    /// the other bits of the slot and the sign.
    pub fn print_into(&self, word: u128, slot_mask: u128, out: &mut String) -> bool {
        if self.alt_context != 0 {
            let k = Key(pext(word, self.alt_context));
            if let Some((_, alt)) = self.alts.iter().find(|(a, _)| *a == k) {
                return alt.print_into(word, slot_mask, out);
            }
        }
        if self.float {
            return self.print_float(word, slot_mask, out);
        }
        // The rule's bits packed once: the number and its name both read them.
        let bits = Key(pext(word, self.mask));
        let n = self.value_of_bits(bits.0);
        let other = Key(pext(word, slot_mask & !self.mask & !self.unread));
        let neg = n < 0;
        let Some((pre, suf)) = self.affixes_of(other, neg) else {
            return false;
        };
        out.push_str(pre);
        match self.names.binary_search_by_key(&bits, |(k, _)| *k) {
            Ok(i) => out.push_str(&self.names[i].1),
            Err(_) => push_number(out, n, self.hex),
        }
        out.push_str(suf);
        true
    }
}

impl NumberRule {
    /// The affixes learned for the slot's other bits `other` and the sign ([`NumberRule::
    /// affixes`], searched by halves when long); `None` where none were learned.
    pub fn learned_affixes(&self, other: Key, neg: bool) -> Option<(&str, &str)> {
        keyed_affixes(&self.affixes, other, neg)
    }

    /// The affixes of the slot's other bits `other` and the sign: those learned for them,
    /// else those [`NumberRule::nearby`] names for them without `nearby_bits`, else those
    /// [`NumberRule::apart`] names side by side, else those [`NumberRule::unseen`] names for
    /// the sign; `None` when none has any.
    pub(crate) fn affixes_of(&self, other: Key, neg: bool) -> Option<(&str, &str)> {
        self.learned_affixes(other, neg)
            .or_else(|| keyed_affixes(&self.nearby, Key(other.0 & !self.nearby_bits.0), neg))
            .or_else(|| self.apart.as_ref().and_then(|a| a.of(other, neg)))
            .or_else(|| {
                self.unseen
                    .iter()
                    .find(|(s, _, _)| *s == neg)
                    .map(|(_, pre, suf)| (pre.as_str(), suf.as_str()))
            })
    }
}

/// The (prefix, suffix) `list` holds for `key` and the sign. A long list is searched by
/// halves: the learner writes each list sorted by key and sign, one entry each
/// ([`crate::reading::printer`]), and learning asks a slot's rule about every value of its
/// table (a linear search over thousands of keys was a tenth of a `resolve --write`).
pub(crate) fn keyed_affixes(
    list: &[(Key, bool, String, String)],
    key: Key,
    neg: bool,
) -> Option<(&str, &str)> {
    let found = if list.len() > LINEAR_AFFIX_SEARCH {
        debug_assert!(list.is_sorted_by_key(|e| (e.0, e.1)));
        let i = list.partition_point(|e| (e.0, e.1) < (key, neg));
        list.get(i).filter(|e| e.0 == key && e.1 == neg)
    } else {
        list.iter().find(|(k, s, _, _)| *k == key && *s == neg)
    };
    found.map(|(_, _, pre, suf)| (pre.as_str(), suf.as_str()))
}

/// Longest affix list [`keyed_affixes`] searches entry by entry.
const LINEAR_AFFIX_SEARCH: usize = 16;

impl NumberRule {
    /// The float the bits of `mask` hold, if they are 1..=32 or 64 bits wide (1..=63 as the top
    /// bits of a double with `double`).
    pub fn float_value(&self, word: u128) -> Option<f64> {
        let v = pext(word, self.mask);
        match self.mask.count_ones() {
            16 if self.half => Some(half_value(v as u16)),
            64 => Some(f64::from_bits(v as u64)),
            w @ 1..=63 if self.double => Some(f64::from_bits((v as u64) << (64 - w))),
            w @ 1..=32 => Some(f32::from_bits((v as u32) << (32 - w)) as f64),
            _ => None,
        }
    }

    fn print_float(&self, word: u128, slot_mask: u128, out: &mut String) -> bool {
        let Some(x) = self.float_value(word) else {
            return false;
        };
        let other = Key(pext(word, slot_mask & !self.mask & !self.unread));
        let neg = x.is_sign_negative();
        if let Some(name) = self.special(word) {
            // A name's own affixes when learned; else the number's, with the space nvdisasm
            // writes after a name (`+QNAN , P5`).
            let (pre, space, suf) = match keyed_affixes(&self.special_affixes, other, neg) {
                Some((pre, suf)) => (pre, "", suf),
                None => match self.affixes_of(other, neg) {
                    Some((pre, suf)) => (pre, " ", suf),
                    None => return false,
                },
            };
            for part in [pre, name, space, suf] {
                out.push_str(part);
            }
            return true;
        }
        let Some((pre, suf)) = self.affixes_of(other, neg) else {
            return false;
        };
        out.push_str(pre);
        with_float_text(x, |f| out.push_str(f));
        out.push_str(suf);
        true
    }

    /// The name nvdisasm prints for the float of `word` when it prints a name, not a number
    /// ([`special_float`]); `None` for a float printed as a number, or bits that hold none.
    pub fn special(&self, word: u128) -> Option<&'static str> {
        let v = pext(word, self.mask);
        let w = self.mask.count_ones();
        let (bits, exp, frac) = match w {
            16 if self.half => (v as u64, 5, 10),
            64 => (v as u64, 11, 52),
            1..=63 if self.double => ((v as u64) << (64 - w), 11, 52),
            1..=32 => (((v as u32) << (32 - w)) as u64, 8, 23),
            _ => return None,
        };
        special_float(bits, exp, frac)
    }
}

/// The IEEE half `h` as a double.
pub fn half_value(h: u16) -> f64 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let exp = i32::from(h >> 10 & 0x1f);
    let frac = f64::from(h & 0x3ff);
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        0x1f if frac == 0.0 => f64::INFINITY,
        0x1f => f64::NAN,
        e => (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
    }
}

/// What nvdisasm 13.5.37 prints for the IEEE float of `exp` exponent and `frac` fraction bits
/// held low in `bits`, when it prints a name and not a number: `+INF`/`-INF`, `+QNAN`/`-QNAN`
/// (the fraction's top bit set), `+SNAN`/`-SNAN` (clear), `-0.0` (while `+0` prints `0`).
/// Measured on SM80 FSETP's 32-bit immediate (`0x7f800000` -> `+INF`, `0x7fc00000` ->
/// `+QNAN`, `0x7f800001` -> `+SNAN`, `0x80000000` -> `-0.0`) and seen on SM80-SM120 FFMA,
/// FMUL, FSEL, HFMA2, F2I and MUFU in the synthesised tables' answers.
pub fn special_float(bits: u64, exp: u32, frac: u32) -> Option<&'static str> {
    let neg = bits >> (exp + frac) & 1 == 1;
    let e = bits >> frac & ((1 << exp) - 1);
    let f = bits & ((1 << frac) - 1);
    let quiet = f >> (frac - 1) & 1 == 1;
    match (e == (1 << exp) - 1, f == 0, quiet, neg) {
        (true, true, _, false) => Some("+INF"),
        (true, true, _, true) => Some("-INF"),
        (true, false, true, false) => Some("+QNAN"),
        (true, false, true, true) => Some("-QNAN"),
        (true, false, false, false) => Some("+SNAN"),
        (true, false, false, true) => Some("-SNAN"),
        (false, _, _, true) if e == 0 && f == 0 => Some("-0.0"),
        _ => None,
    }
}

/// A float as nvdisasm 13.5.37 prints it (learned from SM103 FADD immediates, 1,500 words:
/// every exponent from -45 to 38): C's `%.20g` (20 significant digits, trailing zeros dropped,
/// `e-05` below 1e-4) under 1e9 in magnitude, C's `%.20e` (21 digits, zeros kept:
/// `9.65054549838528512000e+19`) from 1e9.
///
/// Exact formatting to 20 digits takes the bignum path of `core::fmt` (microseconds a value),
/// and learning formats the same values again and again (each float probe and context of a
/// slot, [`crate::reading`]): the texts are kept per thread, keyed by the value's bits (at most
/// `FLOAT_MEMO_MAX`, then started afresh: decoding a dump of random immediates passes through
/// here too, and must not grow the memo without bound; 2^16 texts are a few MB a thread).
pub fn format_float(x: f64) -> String {
    with_float_text(x, str::to_string)
}

/// [`format_float`]'s text of `x` lent to `f` from the memo, not copied: learning only looks
/// for it in answers ([`crate::reading`]'s float probes). `f` must not format floats itself
/// (the memo is borrowed while it runs).
pub fn with_float_text<R>(x: f64, f: impl FnOnce(&str) -> R) -> R {
    use std::collections::hash_map::Entry;
    const FLOAT_MEMO_MAX: usize = 1 << 16;
    thread_local! {
        static MEMO: std::cell::RefCell<rustc_hash::FxHashMap<u64, FloatText>> =
            std::cell::RefCell::new(Default::default());
    }
    MEMO.with_borrow_mut(|m| {
        let bits = x.to_bits();
        // One lookup while the memo is not full (the `entry` below).
        if m.len() >= FLOAT_MEMO_MAX && !m.contains_key(&bits) {
            m.clear();
        }
        match m.entry(bits) {
            Entry::Occupied(e) => f(e.get().as_str()),
            Entry::Vacant(e) => {
                let text = format_float_exact(x);
                match FloatText::new(&text) {
                    Some(held) => f(e.insert(held).as_str()),
                    None => f(&text),
                }
            }
        }
    })
}

/// A float's text as [`with_float_text`]'s memo holds it: in place, not behind a pointer
/// (learning looks up millions of them: one memory access fewer each). nvdisasm's longest,
/// `-1.79769313486231570815e+308`, is 28 bytes.
#[derive(Clone, Copy)]
struct FloatText {
    len: u8,
    bytes: [u8; 31],
}

impl FloatText {
    /// `text` held in place; `None` when longer than 31 bytes.
    fn new(text: &str) -> Option<Self> {
        let mut bytes = [0u8; 31];
        bytes
            .get_mut(..text.len())?
            .copy_from_slice(text.as_bytes());
        Some(FloatText {
            len: text.len() as u8,
            bytes,
        })
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).expect("copied from a str")
    }
}

/// [`format_float`] without the memo.
fn format_float_exact(x: f64) -> String {
    let c_exp = |s: String| -> (String, i32) {
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        (mant.to_string(), exp.parse().unwrap_or(0))
    };
    if x.abs() >= 1e9 {
        let (mant, exp) = c_exp(format!("{x:.20e}"));
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mant}e{sign}{:02}", exp.abs());
    }
    let (mant, exp) = c_exp(format!("{x:.19e}"));
    let strip = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..20).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(&mant), exp.abs())
    } else {
        strip(&format!("{x:.prec$}", prec = (19 - exp) as usize))
    }
}

/// Appends `n` as nvdisasm prints a number (`0x1f`, `-0x1f`, or decimal), written in place:
/// learning prints a rule's numbers for every value of every table it tries.
fn push_number(out: &mut String, n: i128, hex: bool) {
    let mut buf = [0u8; 48];
    out.push_str(write_number(n, hex, &mut buf));
}

/// `n` as nvdisasm prints a number, written at the end of `buf`: `0x1f`, `-0x1f` (`hex`), or
/// decimal (`-31`); the same text as `format!("0x{n:x}")`, `format!("-0x{:x}", n.unsigned_abs())`
/// and `format!("{n}")`, without `core::fmt` (decode prints millions).
pub fn write_number(n: i128, hex: bool, buf: &mut [u8; 48]) -> &str {
    // Only ASCII digits, `x` and `-` are written.
    std::str::from_utf8(number_bytes(n, hex, buf)).unwrap_or_default()
}

/// [`write_number`]'s text as its ASCII bytes.
pub fn number_bytes(n: i128, hex: bool, buf: &mut [u8; 48]) -> &[u8] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut m = n.unsigned_abs();
    let mut i = buf.len();
    if hex {
        loop {
            i -= 1;
            buf[i] = DIGITS[(m & 0xf) as usize];
            m >>= 4;
            if m == 0 {
                break;
            }
        }
        i -= 2;
        buf[i..i + 2].copy_from_slice(b"0x");
    } else if let Ok(mut m) = u64::try_from(m) {
        loop {
            i -= 1;
            buf[i] = b'0' + (m % 10) as u8;
            m /= 10;
            if m == 0 {
                break;
            }
        }
    } else {
        loop {
            i -= 1;
            buf[i] = b'0' + (m % 10) as u8;
            m /= 10;
            if m == 0 {
                break;
            }
        }
    }
    if n < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    &buf[i..]
}

/// The word whose bits under `mask` are `key` (the inverse of [`pext`]), other bits 0. Works
/// a run of adjacent mask bits at a time.
pub fn deposit(key: u128, mask: u128) -> u128 {
    let mut out = 0u128;
    let mut i = 0;
    for (lo, ones) in bit_runs(mask) {
        out |= (key >> i & ones) << lo;
        i += ones.count_ones();
    }
    out
}

/// Word bits as ranges, lowest first: `12-15, 90` (empty for 0).
pub fn bit_ranges(mask: u128) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut m = mask;
    while m != 0 {
        let lo = m.trailing_zeros();
        let run = (m >> lo).trailing_ones();
        let hi = lo + run - 1;
        out.push(match run {
            1 => lo.to_string(),
            _ => format!("{lo}-{hi}"),
        });
        if lo + run >= 128 {
            break;
        }
        m &= u128::MAX << (lo + run);
    }
    out.join(", ")
}

/// Most value-table entries [`Printer::describe`] lists per slot.
const LISTED: usize = 8;

impl Printer {
    /// What this printer prints, one line per slot in print order (with form bits, one block
    /// per form): `fixed "LD"`, `bits 12-15: 0 -> "@P0 ", 7 -> "" (16 values)`,
    /// `bits 24-31: number, decimal, prefix "R"`. For `sass-conform explain`.
    pub fn describe(&self) -> Vec<String> {
        let mut out = vec![format!(
            "reproduces {:.1}% of the legal answers it was learned from",
            self.learned_permille as f64 / 10.0
        )];
        out.extend(self.lines());
        out.extend(
            self.aliases
                .iter()
                .map(|a| format!("alias: {}", a.describe())),
        );
        out
    }

    /// The slots, or per form value its printer's lines (forms within forms indented).
    fn lines(&self) -> Vec<String> {
        if self.form_mask == 0 {
            return self.slot_lines();
        }
        let mut out = vec![format!(
            "form bits {}: one printer per value seen",
            bit_ranges(self.form_mask)
        )];
        for (k, p) in &self.forms {
            out.push(format!("  form {:#x}:", k.0));
            out.extend(p.lines().into_iter().map(|l| format!("    {l}")));
        }
        out
    }

    fn slot_lines(&self) -> Vec<String> {
        self.slots
            .iter()
            .enumerate()
            .map(|(i, s)| format!("{:>2}. {}", i + 1, s.describe()))
            .collect()
    }
}

impl Slot {
    /// One line: fixed text, or the bits, the listed texts, the number rule and the default.
    pub fn describe(&self) -> String {
        if self.mask == 0 {
            let t = self.texts.first().map_or("", |(_, t)| t.as_str());
            return format!("fixed {t:?}");
        }
        let mut parts: Vec<String> = self
            .texts
            .iter()
            .take(LISTED)
            .map(|(k, t)| format!("{:#x} -> {t:?}", k.0))
            .collect();
        if self.texts.len() > LISTED {
            parts.push(format!(
                "... ({LISTED} of {} values shown)",
                self.texts.len()
            ));
        }
        if let Some(n) = &self.number {
            parts.push(n.describe(self.mask));
        }
        if let Some(p) = &self.product {
            let bits = |packed: u128| bit_ranges(deposit(packed, self.mask));
            let all = (1u128 << self.mask.count_ones()) - 1;
            parts.push(format!(
                "a value not listed: as the piece of bits {} ({} seen) then that of bits {} ({} seen), where both were seen",
                bits(p.first),
                p.firsts.len(),
                bits(all & !p.first),
                p.seconds.len()
            ));
        }
        if let Some(g) = &self.guess {
            parts.push(format!(
                "a value not listed: as a tree over these bits ({} leaves) names it",
                g.tree.leaves()
            ));
        }
        if let Some(t) = &self.otherwise {
            parts.push(format!("otherwise {t:?}"));
        }
        if let Some(j) = &self.joined {
            let mut each: Vec<String> = j
                .parts
                .iter()
                .map(|p| format!("({})", p.describe()))
                .collect();
            for (i, a) in j.alone.iter().enumerate() {
                if let Some(a) = a {
                    each.push(format!("part {} alone: ({})", i + 1, a.describe()));
                }
            }
            return format!(
                "bits {}: parts joined by {:?} (a part that prints nothing is left out, all empty {:?}): {}",
                bit_ranges(self.mask),
                j.sep,
                j.empty,
                each.join(" ")
            );
        }
        format!("bits {}: {}", bit_ranges(self.mask), parts.join(", "))
    }
}

impl NumberRule {
    /// `number of bits 24-31 (signed, hex, x4), "R" .. ""` with each affix pair.
    pub fn describe(&self, slot_mask: u128) -> String {
        let kind = match (self.float, self.hex) {
            (true, _) if self.half => "half float".to_string(),
            (true, _) if self.double => "double (its top bits)".to_string(),
            (true, _) => "float".to_string(),
            (false, hex) => {
                format!(
                    "{}, {}{}",
                    if self.signed { "signed" } else { "unsigned" },
                    if hex { "hex" } else { "decimal" },
                    if self.scale != 1 {
                        format!(", x{}", self.scale)
                    } else {
                        String::new()
                    }
                ) + &if self.offset != 0 {
                    format!(", {:+#x}", self.offset)
                } else {
                    String::new()
                }
            }
        };
        let other = slot_mask & !self.mask & !self.unread;
        let affixes = describe_affixes(&self.affixes, other);
        let mut names: String = self
            .names
            .iter()
            .take(LISTED)
            .map(|(k, n)| format!(", {:#x} named {n:?}", k.0))
            .collect();
        if self.names.len() > LISTED {
            names += &format!(", ... ({} values named)", self.names.len());
        }
        let alts: String = self
            .alts
            .iter()
            .map(|(k, alt)| {
                format!(
                    "; where bits {} = {:#x}: {}",
                    bit_ranges(self.alt_context),
                    k.0,
                    alt.describe(slot_mask)
                )
            })
            .collect();
        let mut rest = String::new();
        if self.nearby_bits.0 != 0 {
            rest += &format!(
                "; a key never learned: as the learned keys that differ from it only in bits {} \
                 ({} groups)",
                bit_ranges(deposit(self.nearby_bits.0, other)),
                self.nearby.len()
            );
        }
        if let Some(a) = &self.apart {
            rest += &format!(
                "; else its prefix as the keys that differ only in bits {} ({} groups), its \
                 suffix as those that differ only in bits {} ({} groups)",
                bit_ranges(deposit(a.prefix_bits.0, other)),
                a.prefixes.len(),
                bit_ranges(deposit(a.suffix_bits.0, other)),
                a.suffixes.len()
            );
        }
        for (neg, pre, suf) in &self.unseen {
            let sign = if *neg { "negative" } else { "not negative" };
            rest += &format!("; any other key, {sign}: {pre:?} n {suf:?}");
        }
        format!(
            "otherwise the number in bits {} ({kind}{names}) as {}{rest}{alts}",
            bit_ranges(self.mask),
            affixes.join(" | ")
        )
    }
}

/// The affix pairs of a number rule, one entry per distinct (sign, prefix, suffix), each with
/// the keys of bits `other` that take it (at most [`LISTED`] keys shown, then their count):
/// `bits 0-1, 105-124 = 0x0, 0x1, ... (4096 keys): "R" n ""`. A `;` space keyed by scheduling
/// bits gives thousands of keys with a few pairs; listing each key made lines of 40,000
/// characters.
fn describe_affixes(affixes: &[(Key, bool, String, String)], other: u128) -> Vec<String> {
    // (sign, prefix, suffix), and the keys that take it.
    type Pair<'a> = (bool, &'a str, &'a str);
    let mut groups: Vec<(Pair, Vec<u128>)> = Vec::new();
    for (k, neg, pre, suf) in affixes {
        let id = (*neg, pre.as_str(), suf.as_str());
        match groups.iter_mut().find(|(g, _)| *g == id) {
            Some((_, keys)) => keys.push(k.0),
            None => groups.push((id, vec![k.0])),
        }
    }
    groups
        .into_iter()
        .map(|((neg, pre, suf), keys)| {
            let when = if other != 0 {
                let mut shown: Vec<String> = keys
                    .iter()
                    .take(LISTED)
                    .map(|k| format!("{k:#x}"))
                    .collect();
                if keys.len() > LISTED {
                    shown.push(format!("... ({} keys)", keys.len()));
                }
                format!(
                    "bits {} = {}{}: ",
                    bit_ranges(other),
                    shown.join(", "),
                    if neg { ", negative" } else { "" }
                )
            } else if neg {
                "negative: ".to_string()
            } else {
                String::new()
            };
            format!("{when}{pre:?} n {suf:?}")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_format_writes_them() {
        let mut values: Vec<i128> = vec![
            0,
            1,
            -1,
            9,
            10,
            -10,
            15,
            16,
            0x7fff_ffff,
            -0x8000_0000,
            u64::MAX as i128,
            u64::MAX as i128 + 1,
            -(u64::MAX as i128),
            -(u64::MAX as i128) - 1,
            i64::MIN as i128,
            i128::MAX,
            i128::MIN,
            i128::MIN + 1,
        ];
        let mut rng = crate::codec::SplitMix64(3);
        for s in 0..128 {
            let r = ((rng.next_u64() as u128) << 64 | rng.next_u64() as u128) as i128;
            values.push(r >> s);
        }
        let mut buf = [0u8; 48];
        for n in values {
            assert_eq!(write_number(n, false, &mut buf), format!("{n}"));
            let hex = match n < 0 {
                true => format!("-0x{:x}", n.unsigned_abs()),
                false => format!("0x{n:x}"),
            };
            assert_eq!(write_number(n, true, &mut buf), hex);
        }
        assert_eq!(write_number(-0x1f, true, &mut buf), "-0x1f");
        assert_eq!(
            write_number(i128::MIN, false, &mut buf),
            "-170141183460469231731687303715884105728"
        );
    }

    #[test]
    fn affixes_shared_by_many_keys_are_listed_once_with_their_count() {
        let mut affixes: Vec<(Key, bool, String, String)> = (0..20u128)
            .map(|k| (Key(k), false, "R".to_string(), " ".to_string()))
            .collect();
        affixes.push((Key(0x1c0), false, "R".into(), String::new()));
        let lines = describe_affixes(&affixes, 0x3ff << 105);
        assert_eq!(
            lines,
            [
                "bits 105-114 = 0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, ... (20 keys): \"R\" n \" \"",
                "bits 105-114 = 0x1c0: \"R\" n \"\"",
            ]
        );
        assert_eq!(
            describe_affixes(&[(Key(0), true, "-".into(), String::new())], 0),
            ["negative: \"-\" n \"\""]
        );
    }

    #[test]
    fn pext_and_deposit_by_runs_match_bit_by_bit() {
        // Bit by bit, as the run-wise versions must read.
        let slow = |w: u128, m: u128| -> u128 {
            (0..128)
                .filter(|b| m >> b & 1 == 1)
                .enumerate()
                .fold(0, |o, (i, b)| o | (w >> b & 1) << i)
        };
        let mut rng = crate::codec::SplitMix64(11);
        let r = |rng: &mut crate::codec::SplitMix64| {
            (rng.next_u64() as u128) << 64 | rng.next_u64() as u128
        };
        for i in 0..500 {
            let (w, m) = (r(&mut rng), r(&mut rng) & r(&mut rng));
            let m = match i {
                0 => u128::MAX,
                1 => 0,
                2 => 1 << 127 | 1,
                _ => m,
            };
            let packed = pext(w, m);
            assert_eq!(packed, slow(w, m), "pext {w:#x} {m:#x}");
            assert_eq!(deposit(packed, m), w & m, "deposit {m:#x}");
        }
        // SM80 LD's offset field: bits 40-63, value 0xabcdef.
        assert_eq!(pext(0xabcdef << 40 | 0xff, 0xff_ffff << 40), 0xabcdef);
        assert_eq!(deposit(0x1ff, 0xf << 8 | 0x1f << 100), 0xf00 | 0x1f << 100);
    }

    /// A 14-bit signed offset (bits 40-53, x4) whose slot also holds two context bits
    /// (105-106) picking its suffix, as SM80 F2F's constant offset does.
    fn offset_rule(affixes: Vec<(Key, bool, String, String)>, unseen: Vec<Affixes>) -> NumberRule {
        NumberRule {
            mask: 0x3fff << 40,
            signed: true,
            hex: true,
            scale: 4,
            offset: 0,
            float: false,
            double: false,
            half: false,
            affixes,
            unseen,
            nearby_bits: Key(0),
            nearby: Vec::new(),
            apart: None,
            names: Vec::new(),
            special_affixes: Vec::new(),
            unread: 0,
            alt_context: 0,
            alts: Vec::new(),
        }
    }

    type Affixes = (bool, String, String);

    #[test]
    fn an_unseen_context_prints_the_affixes_its_sign_names() {
        let a = |k: u128, neg: bool, suf: &str| (Key(k), neg, String::new(), suf.to_string());
        let u = |neg: bool, suf: &str| (neg, String::new(), suf.to_string());
        let rule = offset_rule(
            vec![a(0, false, "] ;"), a(1, false, "];"), a(2, false, "] ;")],
            vec![u(false, "] ;")],
        );
        let slot = 0x3fff << 40 | 3 << 105;
        let mut out = String::new();
        // Context 1 was learned with its own suffix.
        assert!(rule.print_into(0x10 << 40 | 1 << 105, slot, &mut out));
        assert_eq!(out, "0x40];");
        // Context 3 was never learned: the positive sign's unseen affixes.
        out.clear();
        assert!(rule.print_into(0x10 << 40 | 3 << 105, slot, &mut out));
        assert_eq!(out, "0x40] ;");
        // A negative offset: no affixes of that sign learned or named, nothing printed (the
        // slot's fallback text decides).
        out.clear();
        assert!(!rule.print_into(0x3fff << 40 | 3 << 105, slot, &mut out));
        assert_eq!(out, "");
    }

    #[test]
    fn an_alias_goes_after_its_piece_when_a_rule_holds() {
        // `IMAD` then `.U32` (bit 0 clear) then a register factor in bits 8-15 (0xff = RZ):
        // `.MOV` after `IMAD` where the factor is RZ and bit 0 clear.
        let slot = Slot::of_texts;
        let alias = Alias {
            token: ".MOV".into(),
            after: "IMAD".into(),
            rules: vec![vec![
                FieldTest {
                    mask: 0xff00,
                    test: ValueTest::Equals(Key(0xff)),
                },
                FieldTest {
                    mask: 1,
                    test: ValueTest::Equals(Key(0)),
                },
            ]],
        };
        let p = Printer {
            slots: vec![
                Slot::fixed("@P0 IMAD"),
                slot(1, &[(0, ".U32"), (1, "")]),
                Slot::fixed(" R1, "),
                slot(0xff00, &[(2, "R2"), (0xff, "RZ")]),
                Slot::fixed(" ;"),
            ],
            learned_permille: 1000,
            form_mask: 0,
            forms: vec![],
            double_spaces: false,
            aliases: vec![alias.clone()],
            spaced_ends: Vec::new(),
        };
        assert_eq!(p.print(0xff00), "@P0 IMAD.MOV.U32 R1, RZ ;");
        assert_eq!(p.slots_text(0xff00), "@P0 IMAD.MOV.U32 R1, RZ ;");
        assert_eq!(p.print(0xff01), "@P0 IMAD R1, RZ ;");
        assert_eq!(p.print(0x0200), "@P0 IMAD.U32 R1, R2 ;");
        assert!(
            alias
                .describe()
                .contains("bits 8-15 = 0xff and bits 0 = 0x0")
        );
        // A piece the text lacks: after the mnemonic; a power-of-two test.
        let shl = Alias {
            token: ".SHL".into(),
            after: ".WIDE".into(),
            rules: vec![vec![FieldTest {
                mask: 0xff00,
                test: ValueTest::PowerOfTwo,
            }]],
        };
        let mut out = String::from("IMAD.U32 R1, R2 ;");
        assert!(shl.holds(0x0200) && !shl.holds(0x0300) && !shl.holds(0));
        shl.insert(&mut out, 0);
        assert_eq!(out, "IMAD.SHL.U32 R1, R2 ;");
        // Serialised and read back alike.
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<Printer>(&json).unwrap(), p);
    }
}
