//! GPU architecture names (`SM80`, `SM90`, `SM100`, ...) as nvdisasm's `-b` option spells them.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// An SM architecture, stored as its number (`SM80` -> 80, `SM100` -> 100).
///
/// Written `SM80`; parsed from `SM80`, `sm_80`, `sm80` or `80` (case-insensitive). The `a`/`f`
/// suffixes (`SM90a`) are accepted on input and dropped: the tables do not distinguish them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Arch(pub u16);

/// Error for a string that names no arch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an arch: expected SM80, sm_90, sm100 or similar")]
pub struct ArchParseError(pub String);

impl FromStr for Arch {
    type Err = ArchParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        let t = t.strip_prefix("sm").unwrap_or(&t);
        let t = t.strip_prefix('_').unwrap_or(t);
        let t = t.trim_end_matches(['a', 'f']);
        match t.parse::<u16>() {
            Ok(n) if (20..=200).contains(&n) => Ok(Arch(n)),
            _ => Err(ArchParseError(s.to_string())),
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SM{}", self.0)
    }
}

impl TryFrom<String> for Arch {
    type Error = ArchParseError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<Arch> for String {
    fn from(a: Arch) -> String {
        a.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_spellings() {
        for s in ["SM90", "sm_90", "sm90", "90", "SM90a"] {
            assert_eq!(s.parse::<Arch>().unwrap(), Arch(90), "{s}");
        }
        assert_eq!(Arch(100).to_string(), "SM100");
        assert!("SMX".parse::<Arch>().is_err());
        assert!("sm_5".parse::<Arch>().is_err());
    }
}
