//! The general printer's learner on arbitrary answers: a variant of up to six operand or
//! modifier groups (each up to 8 bits above the 12 opcode bits), up to 48 words, each with a
//! text made the way nvdisasm writes one (`@P3 OP.M2 R17, -0x1f, UR5 ;`: guard, modifiers,
//! operands joined by `, `) from the word's bits, some texts then cut or changed. Learning
//! must never panic, the learned printer must print every word, and its share of answers
//! reproduced must be a share (at most 1000 per mille).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sass_conform::reading::printer::learn;

/// One group: where its bits are and how its value prints.
#[derive(Arbitrary, Debug)]
struct Group {
    /// Lowest bit, 12 + (this % 112).
    at: u8,
    /// Width in bits, 1 + (this % 8).
    width: u8,
    /// How the value prints: register, hex immediate (signed), modifier, flag.
    style: u8,
}

#[derive(Arbitrary, Debug)]
struct Input {
    groups: Vec<Group>,
    /// The words' free bits (the opcode bits are the fixed 0x94c).
    words: Vec<u128>,
    /// Per word, an optional mangling of its text: (kind, position).
    noise: Vec<(u8, u8)>,
}

const OPCODE: u128 = 0x94c;

/// Group masks that do not overlap each other or the opcode bits.
fn masks(groups: &[Group]) -> Vec<(u128, u8)> {
    let mut taken = 0xfffu128;
    let mut out = Vec::new();
    for g in groups.iter().take(6) {
        let lo = 12 + u32::from(g.at % 112);
        let width = 1 + u32::from(g.width % 8);
        let m = ((1u128 << width) - 1) << lo;
        if m & taken == 0 {
            taken |= m;
            out.push((m, g.style % 4));
        }
    }
    out
}

/// The value of the bits `m` of `w`, packed low.
fn value(w: u128, m: u128) -> u128 {
    (w & m) >> m.trailing_zeros()
}

/// nvdisasm-style text of `w` for the groups.
fn text(w: u128, groups: &[(u128, u8)]) -> String {
    let mut mods = String::new();
    let mut ops: Vec<String> = Vec::new();
    for &(m, style) in groups {
        let v = value(w, m);
        match style {
            0 => ops.push(if v == 255 {
                "RZ".into()
            } else {
                format!("R{v}")
            }),
            1 => {
                let bits = m.count_ones();
                let signed = v as i128
                    - if v >> (bits - 1) & 1 == 1 {
                        1 << bits
                    } else {
                        0
                    };
                ops.push(if signed < 0 {
                    format!("-0x{:x}", -signed)
                } else {
                    format!("0x{signed:x}")
                });
            }
            2 => mods.push_str(&format!(".M{v}")),
            _ => {
                if v != 0 {
                    mods.push_str(".F");
                }
            }
        }
    }
    format!("OP{mods} {} ;", ops.join(", "))
}

/// `t` changed by `(kind, at)`: cut short, a character dropped, or a token doubled.
fn mangle(t: &str, (kind, at): (u8, u8)) -> String {
    let chars: Vec<char> = t.chars().collect();
    let i = usize::from(at) % chars.len().max(1);
    match kind % 8 {
        0 => chars[..i].iter().collect(),
        1 => chars
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, c)| c)
            .collect(),
        2 => {
            let mut s: String = chars[..i].iter().collect();
            s.push_str(" R0,");
            s.extend(&chars[i..]);
            s
        }
        _ => t.to_string(),
    }
}

fuzz_target!(|input: Input| {
    let groups = masks(&input.groups);
    if groups.is_empty() {
        return;
    }
    let group_masks: Vec<u128> = groups.iter().map(|g| g.0).collect();
    let texts: Vec<(u128, String)> = input
        .words
        .iter()
        .take(48)
        .enumerate()
        .map(|(i, &w)| {
            let w = w & !0xfffu128 | OPCODE;
            let t = text(w, &groups);
            match input.noise.get(i) {
                Some(&n) => (w, mangle(&t, n)),
                None => (w, t),
            }
        })
        .collect();
    let samples: Vec<(u128, &str)> = texts.iter().map(|(w, t)| (*w, t.as_str())).collect();
    if let Some(p) = learn(0xfff, &group_masks, &samples) {
        assert!(p.learned_permille <= 1000, "{}", p.learned_permille);
        for (w, _) in &samples {
            let _ = p.print(*w);
            let _ = p.print(!*w);
        }
    }
});
