//! Structured reading of one normalised nvdisasm line: guard, mnemonic, modifiers, operands.

use crate::render::DIMS;

/// A parsed nvdisasm line such as `@!P0 TLD.LZ.EF P0, R0, [R2.U32+UR4+0x10], 1D, 0x0 ;`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line<'a> {
    /// Guard without `@` (`!P0`), or "" when nvdisasm prints none.
    pub guard: &'a str,
    /// Mnemonic without modifiers (`TLD`).
    pub mnemonic: &'a str,
    /// Dot-separated modifiers in print order (`LZ`, `EF`).
    pub mods: Vec<&'a str>,
    /// Written operands, each split into atoms (`[R2.U32+UR4+0x10]` -> `R2.U32`, `UR4`, `0x10`).
    pub operands: Vec<Vec<&'a str>>,
}

/// An nvdisasm line cut into (guard without `@`, opcode with its modifiers, operand text):
/// `@!P0 LDG.E R1, [R2.64] ;` -> (`!P0`, `LDG.E`, `R1, [R2.64]`); `None` for an empty line.
pub fn split_line(t: &str) -> Option<(&str, &str, &str)> {
    let t = t.trim().trim_end_matches(';').trim();
    if t.is_empty() {
        return None;
    }
    let (guard, rest) = match t.strip_prefix('@') {
        Some(r) => r.split_once(' ').unwrap_or((r, "")),
        None => ("", t),
    };
    let (opcode, ops) = rest.split_once(' ').unwrap_or((rest, ""));
    Some((guard, opcode, ops))
}

impl<'a> Line<'a> {
    /// Parses a line; `None` for an empty line.
    pub fn parse(t: &'a str) -> Option<Line<'a>> {
        let (guard, opcode, ops) = split_line(t)?;
        let mut parts = opcode.split('.');
        let mnemonic = parts.next().unwrap_or("");
        let mods = parts.filter(|m| !m.is_empty()).collect();
        let operands = ops
            .split(',')
            .map(str::trim)
            .filter(|o| !o.is_empty())
            .map(|o| {
                // `desc[UR4][R2.64+0x10]`: the descriptor is an atom before the others.
                let (desc, o) = match o.strip_prefix("desc[").and_then(|r| r.find(']')) {
                    Some(end) if o[5 + end + 1..].starts_with('[') => {
                        (Some(&o[..5 + end + 1]), &o[5 + end + 1..])
                    }
                    _ => (None, o),
                };
                let mut atoms: Vec<&str> = desc.into_iter().collect();
                match o.strip_prefix('[').and_then(|o| o.strip_suffix(']')) {
                    Some(inner) => atoms.extend(inner.split('+').map(str::trim)),
                    None => atoms.push(o),
                }
                atoms
            })
            .collect();
        Some(Line {
            guard,
            mnemonic,
            mods,
            operands,
        })
    }

    /// Every operand atom in order (brackets flattened).
    pub fn atoms(&self) -> Vec<&'a str> {
        self.operands.iter().flatten().copied().collect()
    }
}

/// The number an atom stands for: `R12` -> 12, `RZ` -> 255, `UR3` -> 3, `URZ` -> 255 (SM90+),
/// `P2` -> 2, `PT` -> 7, `0x1f` -> 31, `-0x4` -> none, `2D` -> its [`DIMS`] code,
/// `INVALID6` -> 6, `???255` -> 255. An operand modifier suffix (`R2.U32`) is ignored.
pub fn atom_value(atom: &str) -> Option<u64> {
    let a = atom.split('.').next().unwrap_or(atom);
    let a = a.strip_prefix('!').unwrap_or(a);
    match a {
        "RZ" | "URZ" => return Some(255),
        "PT" | "UPT" => return Some(7),
        _ => {}
    }
    if let Some(i) = DIMS.iter().position(|d| *d == a) {
        return Some(i as u64);
    }
    for p in ["UR", "R", "UP", "P", "INVALID", "???"] {
        if let Some(n) = a.strip_prefix(p)
            && !n.is_empty()
            && n.bytes().all(|b| b.is_ascii_digit())
        {
            return n.parse().ok();
        }
    }
    a.strip_prefix("0x")
        .and_then(|h| u64::from_str_radix(h, 16).ok())
}

/// The register file or kind of an atom (`R`, `UR`, `P`, `imm`, `dim`, `other`), used to
/// tell whether two atoms are the same operand with another value.
pub fn atom_class(atom: &str) -> &'static str {
    let a = atom.split('.').next().unwrap_or(atom);
    let a = a.strip_prefix('!').unwrap_or(a);
    if a == "URZ" || a.starts_with("UR") {
        "UR"
    } else if a == "RZ" || (a.starts_with('R') && a[1..].bytes().all(|b| b.is_ascii_digit())) {
        "R"
    } else if a == "PT" || (a.starts_with('P') && a[1..].bytes().all(|b| b.is_ascii_digit())) {
        "P"
    } else if a.starts_with("0x") || a.starts_with("-0x") {
        "imm"
    } else if DIMS.contains(&a) || a.starts_with("INVALID") {
        "dim"
    } else {
        "other"
    }
}

/// A longest common subsequence of two lists of `m` and `n` items where `score(i, j)` weighs
/// pairing item `i` of the first with item `j` of the second (0: they cannot pair): for each
/// item of the first list, the item of the second it pairs with, or `None`. Ties go to the
/// earliest pair. E.g. a distilled line's atoms against nvdisasm's, paired by [`atom_class`].
pub fn align_by(m: usize, n: usize, score: impl Fn(usize, usize) -> u32) -> Vec<Option<usize>> {
    // best[i][j]: the best total of items i.. against items j...
    let mut best = vec![vec![0u32; n + 1]; m + 1];
    for i in (0..m).rev() {
        for j in (0..n).rev() {
            let s = score(i, j);
            let pair = if s > 0 { s + best[i + 1][j + 1] } else { 0 };
            best[i][j] = pair.max(best[i + 1][j]).max(best[i][j + 1]);
        }
    }
    let mut out = vec![None; m];
    let (mut i, mut j) = (0, 0);
    while i < m && j < n {
        let s = score(i, j);
        if s > 0 && best[i][j] == s + best[i + 1][j + 1] {
            out[i] = Some(j);
            (i, j) = (i + 1, j + 1);
        } else if best[i][j] == best[i + 1][j] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lines() {
        let l = Line::parse("@!P0 LD.EF.U8 R0, [R2.U32+UR4+0x10], P6 ;").unwrap();
        assert_eq!(l.guard, "!P0");
        assert_eq!(l.mnemonic, "LD");
        assert_eq!(l.mods, vec!["EF", "U8"]);
        assert_eq!(l.atoms(), vec!["R0", "R2.U32", "UR4", "0x10", "P6"]);
        let l = Line::parse("TLD.LZ P0, R1 ;").unwrap();
        assert_eq!(l.guard, "");
        assert!(Line::parse("").is_none());
    }

    #[test]
    fn atom_values() {
        assert_eq!(atom_value("R12"), Some(12));
        assert_eq!(atom_value("RZ"), Some(255));
        assert_eq!(atom_value("R2.U32"), Some(2));
        assert_eq!(atom_value("PT"), Some(7));
        assert_eq!(atom_value("0x1f"), Some(31));
        assert_eq!(atom_value("ARRAY_1D"), Some(4));
        assert_eq!(atom_value("???255"), Some(255));
        assert_eq!(atom_class("UR63"), "UR");
        assert_eq!(atom_class("R7"), "R");
        assert_eq!(atom_class("2D"), "dim");
    }
}
