//! sass-conform: spec-conformance fuzzer and differential tester for NVIDIA SASS encoding tables.
//!
//! The pipeline, each layer importing only those before it:
//! [`spec`] (tables -> model) -> [`codec`] (words <-> field values, verdicts) -> [`render`]
//! (nvdisasm-syntax text) -> [`oracle`] (recorded/live nvdisasm answers) -> [`conform`]
//! (diff against the oracle) -> [`report`]; [`synth`] (tables written from real words and
//! nvdisasm's answers, issue 22) uses the layers up to [`conform`]; [`bench`] times the pipeline against nvdisasm; [`shard`] splits a run's tables over CI jobs and joins their rows; [`words`] reads words given by a user
//! (strict hex, bounded lines), below every layer.

pub mod arch;
pub mod bench;
pub mod codec;
pub mod conform;
pub mod load;
pub mod locate;
pub mod oracle;
pub mod reading;
pub mod render;
pub mod report;
pub mod shard;
pub mod spec;
pub mod synth;
pub mod words;

pub use arch::Arch;
