//! Criterion benchmarks of the hot paths over every recorded evidence word of oracle/ (the
//! words `sass-conform diff` compares): decode, decode + render (into a reused buffer) and
//! encode, for both views of the tables (as written in specs/, and resolved/tables.json as
//! `load_view` loads it by default); parsing the five tables; the whole diff.
//!
//! Throughput is in words (elements) per second. Sample sizes are small so that
//! `cargo bench --bench codec` finishes in about a minute.

use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput, measurement::WallTime};
use criterion::{criterion_group, criterion_main};
use sass_conform::Arch;
use sass_conform::codec::{Codec, EncodeOptions, Word};
use sass_conform::conform::diff;
use sass_conform::oracle::{Entry, is_evidence_file, load_entries_where};
use sass_conform::reading::resolved::ResolvedSet;
use sass_conform::render::Renderer;
use sass_conform::spec::load_tables;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The two views of the tables, as `load_view` in src/cli.rs builds them.
fn views() -> Vec<(&'static str, Codec)> {
    let tables = load_tables(&[PathBuf::from("specs")], None).unwrap();
    let resolved = ResolvedSet::read(Path::new("resolved/tables.json"), &tables).unwrap();
    vec![
        ("as-written", Codec::new(tables).unwrap()),
        ("resolved", Codec::new(resolved.tables).unwrap()),
    ]
}

/// Every evidence entry of oracle/ (the set `sass-conform diff` reads).
fn entries() -> Vec<Entry> {
    load_entries_where("oracle", is_evidence_file).unwrap()
}

fn decode_bench(g: &mut BenchmarkGroup<WallTime>, codec: &Codec, words: &[(Arch, Word)]) {
    g.throughput(Throughput::Elements(words.len() as u64));
    g.bench_function("decode", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for &(a, w) in words {
                if let Some(d) = codec.decode(a, black_box(w)) {
                    n += d.n_fields;
                }
            }
            n
        })
    });
}

fn render_bench(g: &mut BenchmarkGroup<WallTime>, codec: &Codec, words: &[(Arch, Word)]) {
    let r = Renderer::new(codec);
    g.throughput(Throughput::Elements(words.len() as u64));
    g.bench_function("decode+render", |b| {
        let mut buf = String::with_capacity(128);
        b.iter(|| {
            let mut n = 0usize;
            for &(a, w) in words {
                if let Some(d) = codec.decode(a, black_box(w)) {
                    buf.clear();
                    r.render_into(codec, &d, &mut buf);
                    n += buf.len();
                }
            }
            n
        })
    });
}

fn encode_bench(g: &mut BenchmarkGroup<WallTime>, codec: &Codec, words: &[(Arch, Word)]) {
    let decoded: Vec<_> = words
        .iter()
        .filter_map(|&(a, w)| codec.decode(a, w))
        .collect();
    g.throughput(Throughput::Elements(decoded.len() as u64));
    g.bench_function("encode", |b| {
        let opts = EncodeOptions {
            allow_invalid: true,
        };
        b.iter(|| {
            let mut x = 0u128;
            for d in &decoded {
                x ^= codec.encode(d.id, black_box(d.values()), opts).unwrap().0;
            }
            x
        })
    });
}

fn diff_bench(g: &mut BenchmarkGroup<WallTime>, codec: &Codec, entries: &[Entry]) {
    let r = Renderer::new(codec);
    g.throughput(Throughput::Elements(entries.len() as u64));
    g.bench_function("diff", |b| {
        b.iter(|| diff(codec, &r, black_box(entries)).counts.matched)
    });
}

/// Decode, decode + render, encode and diff over the oracle words, per view.
fn per_view(c: &mut Criterion) {
    let entries = entries();
    let words: Vec<(Arch, Word)> = entries.iter().map(|e| (e.arch, Word(e.word))).collect();
    for (name, codec) in views() {
        let mut g = c.benchmark_group(name);
        g.sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        decode_bench(&mut g, &codec, &words);
        render_bench(&mut g, &codec, &words);
        encode_bench(&mut g, &codec, &words);
        diff_bench(&mut g, &codec, &entries);
        g.finish();
    }
}

/// Parsing the five tables of specs/ (read from disk each time).
fn parse(c: &mut Criterion) {
    let mut g = c.benchmark_group("specs");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("parse", |b| {
        b.iter(|| load_tables(&[PathBuf::from("specs")], None).unwrap().len())
    });
    g.finish();
}

criterion_group!(benches, per_view, parse);
criterion_main!(benches);
