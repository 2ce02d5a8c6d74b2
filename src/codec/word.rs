//! `Word`: one 128-bit SASS instruction with checked get/set of (split) fields.

use super::CodecError;
use crate::spec::{BitRange, Field, bits_mask};
use std::fmt;

/// A 128-bit instruction word. Bit 0 is the least significant bit; in memory the low 64 bits
/// come first, each half little-endian (checked against nvdisasm; README.md, "The oracle").
/// Written as 32 lowercase hex digits, most significant first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Word(pub u128);

impl Word {
    /// The bits of `r`, right-aligned.
    pub fn get(&self, r: BitRange) -> u64 {
        ((self.0 >> r.lo) & bits_mask(r.len as u32)) as u64
    }

    /// Sets the bits of `r` to `value`. Errors if `value` needs more than `r.len` bits.
    pub fn set(&mut self, r: BitRange, value: u64) -> Result<(), CodecError> {
        if (value as u128) > bits_mask(r.len as u32) {
            return Err(CodecError::OutOfRange {
                field: format!("bits {}..={}", r.lo, r.hi()),
                width: r.len as u32,
                value,
            });
        }
        self.0 = (self.0 & !r.mask()) | ((value as u128) << r.lo);
        Ok(())
    }

    /// A field's value: its ranges concatenated, the first (lowest) range least significant.
    pub fn get_field(&self, f: &Field) -> u64 {
        let mut v = 0u64;
        let mut shift = 0u32;
        for r in &f.ranges {
            v |= self.get(*r) << shift;
            shift += r.len as u32;
        }
        v
    }

    /// Sets a field's value (see [`Word::get_field`] for the bit order). Errors with the
    /// field's label if `value` does not fit its width.
    pub fn set_field(&mut self, f: &Field, value: u64) -> Result<(), CodecError> {
        let width = f.width();
        if width < 64 && value >> width != 0 {
            return Err(CodecError::OutOfRange {
                field: f.label.clone(),
                width,
                value,
            });
        }
        let mut rest = value;
        for r in &f.ranges {
            self.set(*r, rest & bits_mask(r.len as u32) as u64)?;
            rest = if r.len >= 64 { 0 } else { rest >> r.len };
        }
        Ok(())
    }

    /// Parses 1 to 32 hex digits, with or without `0x`.
    pub fn from_hex(s: &str) -> Option<Word> {
        let s = s.trim();
        let s = s
            .strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .unwrap_or(s);
        if s.is_empty() || s.len() > 32 {
            return None;
        }
        u128::from_str_radix(s, 16).ok().map(Word)
    }

    /// The 16 bytes as nvdisasm reads them from a raw file (little-endian).
    pub fn to_le_bytes(&self) -> [u8; 16] {
        self.0.to_le_bytes()
    }

    /// The bit numbers set in `mask & self`, ascending.
    pub fn bits_set(&self, mask: u128) -> Vec<u8> {
        bit_list(self.0 & mask)
    }
}

/// The bit numbers set in `m`, ascending.
pub fn bit_list(m: u128) -> Vec<u8> {
    (0..128u8).filter(|b| m >> b & 1 == 1).collect()
}

impl serde::Serialize for Word {
    /// As 32 lowercase hex digits.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl fmt::Display for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::FieldKind;

    fn split_field() -> Field {
        Field {
            label: "operand 4".into(),
            kind: FieldKind::Operand(4),
            ranges: vec![BitRange { lo: 53, len: 1 }, BitRange { lo: 55, len: 4 }],
            line: 1,
            names: Default::default(),
            rejected: Vec::new(),
            signed: false,
            context: Vec::new(),
        }
    }

    #[test]
    fn split_field_round_trips_low_range_first() {
        let f = split_field();
        let mut w = Word(0);
        w.set_field(&f, 0b10111).unwrap();
        assert_eq!(w.0, (1u128 << 53) | (0b1011u128 << 55));
        assert_eq!(w.get_field(&f), 0b10111);
    }

    #[test]
    fn out_of_range_is_refused() {
        let mut w = Word(0);
        let e = w.set_field(&split_field(), 32).unwrap_err();
        assert_eq!(
            e.to_string(),
            "value 32 does not fit field `operand 4` (5 bits)"
        );
        assert_eq!(w.0, 0, "a refused set leaves the word unchanged");
    }

    #[test]
    fn hex_forms() {
        assert_eq!(Word::from_hex("0x0f66"), Some(Word(0xf66)));
        assert_eq!(
            Word(0x00000000080000000000000000000f66).to_string(),
            "00000000080000000000000000000f66"
        );
        assert_eq!(Word::from_hex("g"), None);
        assert_eq!(Word::from_hex(&"1".repeat(33)), None);
    }
}
