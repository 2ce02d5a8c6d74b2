//! Criterion benchmarks of the hot paths over every recorded oracle word: decode,
//! decode + render (into a reused buffer), encode.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sass_conform::codec::{Codec, EncodeOptions, Word};
use sass_conform::oracle::load_dir;
use sass_conform::render::Renderer;
use sass_conform::spec::load_tables;
use std::hint::black_box;
use std::path::PathBuf;

fn setup() -> (Codec, Vec<(sass_conform::Arch, Word)>) {
    let codec = Codec::new(load_tables(&[PathBuf::from("specs")], None).unwrap()).unwrap();
    let words = load_dir("oracle")
        .unwrap()
        .into_iter()
        .flat_map(|(_, es)| es)
        .map(|e| (e.arch, Word(e.word)))
        .collect();
    (codec, words)
}

fn bench(c: &mut Criterion) {
    let (codec, words) = setup();
    let r = Renderer::new(&codec);
    let decoded: Vec<_> = words
        .iter()
        .filter_map(|&(a, w)| codec.decode(a, w))
        .collect();
    let mut g = c.benchmark_group("oracle-words");
    g.throughput(Throughput::Elements(words.len() as u64));
    g.sample_size(10);
    g.bench_function("decode", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for &(a, w) in &words {
                if let Some(d) = codec.decode(a, black_box(w)) {
                    n += d.n_fields;
                }
            }
            n
        })
    });
    g.bench_function("decode+render", |b| {
        let mut buf = String::with_capacity(128);
        b.iter(|| {
            let mut n = 0usize;
            for &(a, w) in &words {
                if let Some(d) = codec.decode(a, black_box(w)) {
                    buf.clear();
                    r.render_into(&codec, &d, &mut buf);
                    n += buf.len();
                }
            }
            n
        })
    });
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
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
