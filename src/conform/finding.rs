//! A finding about a table: where, what kind, which bits, and the nvdisasm evidence.

use crate::arch::Arch;
use serde::Serialize;

/// One nvdisasm answer that supports a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, PartialOrd, Ord)]
pub struct Evidence {
    /// 32 hex digits.
    pub word: String,
    /// Arch the word was disassembled for.
    pub arch: Arch,
    /// nvdisasm's text, or `illegal: <reason>`.
    pub nvdisasm: String,
}

/// Something a table gets wrong or leaves open. Printed by `lint` and `resolve`, one JSON
/// object per line with `--json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Table file.
    pub file: String,
    /// 1-based line the finding points at.
    pub line: usize,
    /// Variant key (`""` for file-level findings).
    pub key: String,
    /// Kind, e.g. `header-gap`, `fixed-overlap`, `field-boundary`.
    pub kind: String,
    /// Bits concerned (0..=127).
    pub bits: Vec<u8>,
    /// Human-readable message.
    pub message: String,
    /// nvdisasm answers proving it (resolve only; empty for static lint).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
    /// What nvdisasm confirms the bits really do (resolve only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reading: Option<String>,
}

impl Finding {
    /// `file:line: [kind] key: message (bits ...)` (see [`line_text`]).
    pub fn line_text(&self) -> String {
        line_text(
            &self.file,
            self.line,
            &self.kind,
            &self.key,
            &self.message,
            &compact_bits(&self.bits),
        )
    }
}

/// A finding's one-line form, `file:line: [kind] key: message (bits 1-3,7)`; an empty `key`
/// or `bits` (already compacted, see [`compact_bits`]) is left out.
pub fn line_text(
    file: &str,
    line: usize,
    kind: &str,
    key: &str,
    message: &str,
    bits: &str,
) -> String {
    let bits = if bits.is_empty() {
        String::new()
    } else {
        format!(" (bits {bits})")
    };
    let key = if key.is_empty() {
        String::new()
    } else {
        format!("{key}: ")
    };
    format!("{file}:{line}: [{kind}] {key}{message}{bits}")
}

/// `[1,2,3,7]` -> `1-3,7`.
pub fn compact_bits(bits: &[u8]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < bits.len() {
        let mut j = i;
        while j + 1 < bits.len() && bits[j + 1] == bits[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            bits[i].to_string()
        } else {
            format!("{}-{}", bits[i], bits[j])
        });
        i = j + 1;
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    #[test]
    fn compact() {
        assert_eq!(super::compact_bits(&[1, 2, 3, 7, 9, 10]), "1-3,7,9-10");
    }
}
