//! nvdisasm's line as a structure for synthesis: guard, mnemonic, modifiers and operands made
//! of typed atoms, and the operand *shape* (the signature a table writes: `R,desc[UR][R+I]`).
//!
//! The grammar (design.md, "A general reading"): `[@[!]Pn ]MNEMONIC[.MOD]* [OPERAND[, OPERAND]*]`
//! closed by ` ;` or `;`. An operand is an atom, or letters (`c`, `cx`, `desc`, or none)
//! followed by bracket groups of `+`-joined atoms (`c[0x0][0x160]`, `[R2.64+UR4+0x10]`). An atom
//! is a core (`R2`, `URZ`, `0x10`, `SR_TID.X`, `1D`, `-INF`, `0.5`) with prefixes `-`, `!`,
//! `~`, `|` and suffixes after the first `.` (`.reuse`, `.64`, `.H1`, `.U32`).

/// The kind of an atom, as a signature writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AtomKind {
    /// `R0`..`R254`, `RZ`.
    Reg,
    /// `UR0`.., `URZ`.
    UniformReg,
    /// `P0`..`P6`, `PT`.
    Pred,
    /// `UP0`..`UP6`, `UPT`.
    UniformPred,
    /// `B0`..: a convergence barrier register.
    Barrier,
    /// `SR_TID.X`, `SR181`: a special register, printed by name.
    Special,
    /// A hex integer immediate, `0x10` or `-0x4`.
    Imm,
    /// A decimal or float immediate: `0.5`, `1`, `-INF`, `+QNAN`.
    Float,
    /// Texture dimensions `1D` .. `ARRAY_CUBE` (nvdisasm's names; see [`crate::render::DIMS`]).
    Dim,
    /// Any other name (`???3`, `INVALID2`, texture component names...).
    Name,
}

impl AtomKind {
    /// The signature token of the kind (`R`, `UR`, `P`, `UP`, `B`, `SR`, `I`, `F`, `D`, `N`).
    pub fn token(self) -> &'static str {
        match self {
            AtomKind::Reg => "R",
            AtomKind::UniformReg => "UR",
            AtomKind::Pred => "P",
            AtomKind::UniformPred => "UP",
            AtomKind::Barrier => "B",
            AtomKind::Special => "SR",
            AtomKind::Imm => "I",
            AtomKind::Float => "F",
            AtomKind::Dim => "D",
            AtomKind::Name => "N",
        }
    }
}

/// One atom: its kind, its core text (the value: `R2`, `0x10`, `SR_TID.X`) and its
/// decoration (prefixes before, suffixes after: `-|`, `|.reuse`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Atom {
    /// The kind.
    pub kind: AtomKind,
    /// The core text, without prefixes and suffixes (`R2`, `0x10`, `SR_TID.X`).
    pub core: String,
    /// Prefix characters (`-`, `!`, `~`, `|`) then `:` then the suffixes (`.reuse.64`), so
    /// that two atoms with equal cores differ here only by their decoration.
    pub deco: String,
}

/// One written operand: prefix letters (`c`, `cx`, `desc`; empty for `[...]` and plain
/// operands), whether it is bracketed, and its bracket groups of atoms (one group of one atom
/// for a plain operand).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operand {
    /// `c`, `cx`, `desc`, or empty.
    pub prefix: String,
    /// Written in brackets.
    pub bracketed: bool,
    /// The bracket groups, each a `+`-joined list of atoms.
    pub groups: Vec<Vec<Atom>>,
}

/// A parsed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The guard without `@` (`!P0`), or empty.
    pub guard: String,
    /// The mnemonic without modifiers.
    pub mnemonic: String,
    /// The dot-modifiers in print order.
    pub mods: Vec<String>,
    /// The operands in print order.
    pub operands: Vec<Operand>,
}

impl Parsed {
    /// Every atom in print order (the signature's atom order, which the layout's `operand N`
    /// labels number from 0).
    pub fn atoms(&self) -> Vec<&Atom> {
        self.operands
            .iter()
            .flat_map(|o| o.groups.iter().flatten())
            .collect()
    }

    /// The signature: operands joined by `,`, each its prefix and bracket groups of atom kind
    /// tokens joined by `+` (`R,desc[UR][R+I]`, `P,P,R,c[I][I],P`). Empty for no operand.
    pub fn signature(&self) -> String {
        let ops: Vec<String> = self
            .operands
            .iter()
            .map(|o| {
                let groups: Vec<String> = o
                    .groups
                    .iter()
                    .map(|g| {
                        g.iter()
                            .map(|a| a.kind.token())
                            .collect::<Vec<_>>()
                            .join("+")
                    })
                    .collect();
                if o.bracketed {
                    format!(
                        "{}{}",
                        o.prefix,
                        groups.iter().map(|g| format!("[{g}]")).collect::<String>()
                    )
                } else {
                    groups.concat()
                }
            })
            .collect();
        ops.join(",")
    }
}

/// Parses a normalised nvdisasm line. `None` for an empty line (a legal word nvdisasm prints
/// no text for) or a line whose brackets do not close.
pub fn parse(text: &str) -> Option<Parsed> {
    let (guard, opcode, ops) = crate::oracle::text::split_line(text)?;
    let mut parts = opcode.split('.');
    let mnemonic = parts.next().unwrap_or("").to_string();
    if mnemonic.is_empty() {
        return None;
    }
    let mods = parts
        .filter(|m| !m.is_empty())
        .map(str::to_string)
        .collect();
    let mut operands = Vec::new();
    for o in split_operands(ops)? {
        operands.push(parse_operand(o)?);
    }
    Some(Parsed {
        guard: guard.to_string(),
        mnemonic,
        mods,
        operands,
    })
}

/// Splits at the commas outside brackets, and at a space outside brackets between two
/// operands nvdisasm writes without a comma (a register and a relative target:
/// `RET.REL.NODEC R2 -0x1400`, `BRX R4 -0x900`, `CALL.ABS P0, R128 0x2c`); a space before a
/// comma or a bracket (`+INF , PT`, `c[0x0] [0x10]`) or after a comma cuts nothing. `None`
/// when brackets do not balance.
fn split_operands(ops: &str) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let bytes = ops.as_bytes();
    for (i, c) in ops.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth < 0 {
                    return None;
                }
            }
            ',' if depth == 0 => {
                out.push(ops[start..i].trim());
                start = i + 1;
            }
            ' ' if depth == 0 => {
                let before = ops[start..i].trim_end();
                let after = ops[i..].trim_start();
                let joins = before.is_empty()
                    || bytes.get(i + 1) == Some(&b' ')
                    || after.is_empty()
                    || after.starts_with([',', '[', ']']);
                if !joins {
                    out.push(before.trim());
                    start = i + 1;
                }
            }
            _ => {}
        }
    }
    if depth != 0 {
        return None;
    }
    let last = ops[start..].trim();
    if !last.is_empty() || !out.is_empty() {
        out.push(last);
    }
    Some(out.into_iter().filter(|o| !o.is_empty()).collect())
}

fn parse_operand(o: &str) -> Option<Operand> {
    let Some(open) = o.find('[') else {
        return Some(Operand {
            prefix: String::new(),
            bracketed: false,
            groups: vec![vec![parse_atom(o)]],
        });
    };
    let prefix = &o[..open];
    if !prefix.chars().all(|c| c.is_ascii_alphabetic()) {
        // `-c[0x0][0x10]`, `|c[..]|`: a decorated bracketed operand is kept as one atom.
        return Some(Operand {
            prefix: String::new(),
            bracketed: false,
            groups: vec![vec![parse_atom(o)]],
        });
    }
    let mut groups = Vec::new();
    let mut rest = &o[open..];
    while let Some(inner) = rest.strip_prefix('[') {
        let close = inner.find(']')?;
        groups.push(
            inner[..close]
                .split('+')
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(parse_atom)
                .collect(),
        );
        // nvdisasm writes some constant operands with a space between the brackets
        // (`c[0x0] [0x0]`): the same two groups.
        rest = inner[close + 1..].trim_start();
    }
    if !rest.trim().is_empty() {
        // Text after the last bracket (`c[0x0][0x10].H1`): one atom, as written.
        return Some(Operand {
            prefix: String::new(),
            bracketed: false,
            groups: vec![vec![parse_atom(o)]],
        });
    }
    Some(Operand {
        prefix: prefix.to_string(),
        bracketed: true,
        groups,
    })
}

/// Reads one atom: prefixes, core, suffixes, kind.
pub fn parse_atom(a: &str) -> Atom {
    let a = a.trim();
    let pre_len = a.len() - a.trim_start_matches(['-', '!', '~', '|', '+']).len();
    let (pre, body) = a.split_at(pre_len);
    let body_trim = body.trim_end_matches('|');
    let post_bar = &body[body_trim.len()..];
    // A float or a special register keeps its dots; others split at the first dot.
    let (core, suffix) = if is_float(body_trim) || body_trim.starts_with("SR_") {
        (body_trim, "")
    } else {
        match body_trim.find('.') {
            Some(i) => (&body_trim[..i], &body_trim[i..]),
            None => (body_trim, ""),
        }
    };
    // A `+`/`-` sign belongs to a float's value (`-INF`, `+QNAN`), not to its decoration.
    let (pre, core) = if is_float(core) && (pre.ends_with('-') || pre.ends_with('+')) {
        let sign = &pre[pre.len() - 1..];
        (&pre[..pre.len() - 1], format!("{sign}{core}"))
    } else {
        (pre, core.to_string())
    };
    Atom {
        kind: kind_of(&core),
        deco: format!("{pre}:{suffix}{post_bar}"),
        core,
    }
}

fn is_float(s: &str) -> bool {
    let s = s.trim_start_matches(['-', '+']);
    matches!(s, "INF" | "QNAN" | "NAN" | "SNAN")
        || (!s.is_empty()
            && s.starts_with(|c: char| c.is_ascii_digit())
            && !s.starts_with("0x")
            && s.chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
            && !s.ends_with('D'))
}

fn digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn kind_of(core: &str) -> AtomKind {
    let c = core.trim_start_matches('-');
    let num = |p: &str| c.strip_prefix(p).is_some_and(digits);
    if c == "RZ" || num("R") {
        AtomKind::Reg
    } else if c == "URZ" || num("UR") {
        AtomKind::UniformReg
    } else if c == "PT" || num("P") {
        AtomKind::Pred
    } else if c == "UPT" || num("UP") {
        AtomKind::UniformPred
    } else if num("B") {
        AtomKind::Barrier
    } else if c.starts_with("SR_") || num("SR") {
        AtomKind::Special
    } else if c
        .strip_prefix("0x")
        .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        AtomKind::Imm
    } else if is_float(c) {
        AtomKind::Float
    } else if crate::render::DIMS.contains(&c) {
        AtomKind::Dim
    } else {
        AtomKind::Name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_of_lines() {
        let p = parse("@!P0 LDG.E.64 R2, desc[UR4][R2.64+0x10] ;").unwrap();
        assert_eq!(p.guard, "!P0");
        assert_eq!(p.mods, vec!["E", "64"]);
        assert_eq!(p.signature(), "R,desc[UR][R+I]");
        let p = parse("ISETP.GE.AND P0, PT, R0, c[0x0][0x168], PT ;").unwrap();
        assert_eq!(p.signature(), "P,P,R,c[I][I],P");
        let p = parse("FADD R0, -R2.reuse, |R3| ;").unwrap();
        assert_eq!(p.signature(), "R,R,R");
        let a = p.atoms();
        assert_eq!((a[1].core.as_str(), a[1].deco.as_str()), ("R2", "-:.reuse"));
        assert_eq!((a[2].core.as_str(), a[2].deco.as_str()), ("R3", "|:|"));
        let p = parse("S2R R0, SR_TID.X ;").unwrap();
        assert_eq!(p.atoms()[1].core, "SR_TID.X");
        assert_eq!(p.signature(), "R,SR");
        let p = parse("HFMA2.MMA R0, -RZ, RZ, 0, -INF ;").unwrap();
        assert_eq!(p.signature(), "R,R,R,F,F");
        assert_eq!(p.atoms()[4].core, "-INF");
        assert_eq!(parse("EXIT ;").unwrap().signature(), "");
        // A register and a relative target without a comma are two operands.
        let p = parse("RET.REL.NODEC R2 -0x1400 ;").unwrap();
        assert_eq!(p.signature(), "R,I");
        assert_eq!(
            (p.atoms()[1].core.as_str(), p.atoms()[1].deco.as_str()),
            ("0x1400", "-:")
        );
        assert_eq!(
            parse("@!P1 CALL.ABS P0, R128 0x2c ;").unwrap().signature(),
            "P,R,I"
        );
        // A space before a comma or between brackets joins.
        let p = parse("FSETP.GTU.AND P0, PT, |R2|, +INF , PT ;").unwrap();
        assert_eq!(p.signature(), "P,P,R,F,P");
        let p = parse("HSETP2.NEU.AND P2, PT, R11.H0_H0, c[0x0] [0x0], PT ;").unwrap();
        assert_eq!(p.signature(), "P,P,R,c[I][I],P");
        assert!(parse("").is_none());
        assert!(parse("X R0, [R1").is_none());
    }
}
