//! How nvdisasm reads a word, learned from designed nvdisasm experiments and kept as data:
//! which variant, whether it is legal (and why not), what text. The codec stays the tables'
//! bit layout; conform compares this reading with the tables and the recordings.

pub mod combos;
pub mod derived;
pub mod flips;
pub mod forms;
pub mod hidden;
pub mod identity;
pub mod legality;
pub mod model;
pub mod modifiers;
pub mod operands;
pub mod printer;
pub mod resolved;
pub mod semicolon;
pub mod tree;
