//! Variable-length elements inside `sharding_indexed` shards (as zarr-python 3 writes
//! `string` and `bytes` arrays given `shards=`).
//!
//! A shard holds its non-empty inner chunks, each encoded with the inner chain (vlen-utf8
//! or vlen-bytes, then bytes->bytes codecs), and an index of (offset, nbytes) per inner
//! chunk; the layout and the index are those of shards of fixed-size elements
//! ([`ShardLayout`], shared with the sharding codec). A read fetches a shard's index (its
//! byte range, when the store can), then only the inner chunks the selection touches,
//! neighbours together, and decodes them. A write reads the shard under its chunk lock
//! (unless it covers it), re-encodes the inner chunks it touches, keeps the others' bytes
//! as they are, leaves out inner chunks that hold only the fill value, and stores the
//! shard with one `set` (or erases it when no inner chunk is left).

use super::locks::{store_chunk, update_chunk};
use super::vlen::CellInput;
use super::{Array, ArrayState};
use crate::codec::array_to_bytes::sharding::{coalesce, Piece, ShardLayout};
use crate::codec::vlen::{VlenElements, VlenShards};
use crate::codec::{CodecError, Parallelism};
use crate::error::Error;
use crate::selection::for_each_index;
use crate::storage::source::{ByteSource, StoreValue};
use rayon::prelude::*;
use std::ops::Range;

/// The decoded inner chunks of one shard that a read needs.
pub(super) struct ShardElements {
    inner_chunk_shape: Vec<u64>,
    chunks_per_shard: Vec<u64>,
    /// Stored inner chunks by C-order position in the shard, sorted; the others are all
    /// fill value (or not needed).
    chunks: Vec<(usize, VlenElements)>,
}

impl ShardElements {
    /// The element at `in_shard + local` of the shard; `None` when its inner chunk is
    /// absent (the fill value).
    pub(super) fn get(&self, in_shard: &[u64], local: &[u64]) -> Option<&[u8]> {
        let mut inner = 0usize;
        let mut within = 0u64;
        for d in 0..local.len() {
            let position = in_shard[d] + local[d];
            let size = self.inner_chunk_shape[d];
            inner = inner * self.chunks_per_shard[d] as usize + (position / size) as usize;
            within = within * size + position % size;
        }
        let at = self
            .chunks
            .binary_search_by_key(&inner, |&(linear, _)| linear)
            .ok()?;
        self.chunks[at].1.get(within as usize)
    }
}

/// Add which inner chunk a corruption is in to its message.
fn in_inner_chunk(error: CodecError, coords: &[u64]) -> CodecError {
    match error {
        CodecError::Corrupt { codec, message } => CodecError::Corrupt {
            codec,
            message: format!("{message} (inner chunk {coords:?})"),
        },
        other => other,
    }
}

impl Array {
    /// Decode the inner chunks of the shard at `shard` that the block `in_shard ..
    /// in_shard + extent` of it touches; `None` when the shard is not stored.
    pub(super) fn read_vlen_shard(
        &self,
        state: &ArrayState,
        shards: &VlenShards,
        shard: &[u64],
        in_shard: &[u64],
        extent: &[u64],
    ) -> Result<Option<ShardElements>, Error> {
        if extent.contains(&0) {
            return Ok(None);
        }
        let key = self.key_of(state, shard);
        let shape = state.grid().chunk_shape_at(shard);
        let source = StoreValue {
            store: self.storage.as_ref(),
            key: &key,
        };
        shards
            .with_layout(&shape, |layout| {
                read_inner_chunks(layout, shards, &source, in_shard, extent)
            })
            .map_err(|e| super::planner::with_chunk_context(e, &key))
    }

    /// Write the elements of `input` into the shard at `shard` (stored at `key`), merging
    /// with what is stored unless the input covers the shard (an update: one at a time per
    /// shard, within the process and across processes, see `locks`).
    pub(super) fn write_vlen_shard(
        &self,
        state: &ArrayState,
        shards: &VlenShards,
        shard: &[u64],
        key: &str,
        input: &CellInput,
        covered: bool,
    ) -> Result<(), Error> {
        let fill = state.metadata.fill_value.as_bytes();
        let shape = state.grid().chunk_shape_at(shard);
        let merge = |existing: Option<Vec<u8>>| -> Result<Option<Vec<u8>>, Error> {
            let (encoded, all_absent) = shards
                .with_layout(&shape, |layout| {
                    merge_shard(layout, shards, existing.as_deref(), input, fill)
                })
                .map_err(|e| super::planner::with_chunk_context(e, key))?;
            Ok((!all_absent).then_some(encoded))
        };
        if covered {
            return store_chunk(self.storage.as_ref(), key, merge(None)?);
        }
        update_chunk(self.storage.as_ref(), &self.lock_scope, key, merge)
    }
}

/// Read the index of the shard in `source`, then the stored inner chunks that the block
/// `in_shard .. in_shard + extent` (not empty) touches, and decode them.
fn read_inner_chunks(
    layout: &ShardLayout,
    shards: &VlenShards,
    source: &dyn ByteSource,
    in_shard: &[u64],
    extent: &[u64],
) -> Result<Option<ShardElements>, CodecError> {
    let Some(index) = layout.read_index(source)? else {
        return Ok(None);
    };
    let inner_shape = layout.inner_chunk_shape();
    // The inner chunks the block touches, as (position, offset, nbytes) of those stored.
    let touched: Vec<Range<u64>> = (0..extent.len())
        .map(|d| {
            let first = in_shard[d] / inner_shape[d];
            let last = (in_shard[d] + extent[d] - 1) / inner_shape[d];
            first..last + 1
        })
        .collect();
    let mut wanted: Vec<(usize, u64, u64)> = Vec::new();
    for_each_index(&touched, |coords| {
        let linear = layout.inner_linear(coords);
        if let Some((offset, nbytes)) = index.get(linear) {
            wanted
                .try_reserve(1)
                .map_err(|_| CodecError::OutOfMemory(wanted.len().saturating_mul(24)))?;
            wanted.push((linear, offset, nbytes));
        }
        Ok::<(), CodecError>(())
    })?;
    wanted.sort_unstable_by_key(|&(_, offset, _)| offset);
    let mut chunks: Vec<(usize, VlenElements)> = Vec::new();
    chunks
        .try_reserve_exact(wanted.len())
        .map_err(|_| CodecError::OutOfMemory(wanted.len().saturating_mul(56)))?;
    for batch in coalesce(source, wanted, |&(_, offset, nbytes)| (offset, nbytes)) {
        let bytes = batch.fetch(source)?;
        let (start, reads) = (batch.start, batch.reads);
        let decode = |&(linear, offset, nbytes): &(usize, u64, u64)| {
            let coords = layout.inner_coords(linear);
            let at = (offset - start) as usize;
            let encoded = bytes.get(at..at + nbytes as usize).ok_or_else(|| {
                CodecError::corrupt(
                    "sharding_indexed",
                    format!(
                        "inner chunk {coords:?} at offset {offset} with {nbytes} bytes: the \
                         store returned {} bytes for its range",
                        bytes.len()
                    ),
                )
            })?;
            shards
                .inner
                .decode(encoded.to_vec(), shards.inner_count())
                .map(|elements| (linear, elements))
                .map_err(|e| in_inner_chunk(e, &coords))
        };
        let decoded: Vec<(usize, VlenElements)> = if reads.len() > 1 {
            reads.par_iter().map(decode).collect::<Result<_, _>>()?
        } else {
            reads.iter().map(decode).collect::<Result<_, _>>()?
        };
        chunks.extend(decoded);
    }
    chunks.sort_unstable_by_key(|&(linear, _)| linear);
    Ok(Some(ShardElements {
        inner_chunk_shape: inner_shape.to_vec(),
        chunks_per_shard: layout.chunks_per_shard().to_vec(),
        chunks,
    }))
}

/// The shard that results from writing `input` over `existing` (the stored shard, if any,
/// when the input does not cover it all), and whether all its inner chunks are absent.
/// Serial: the caller may hold the shard's lock (see `locks`).
fn merge_shard(
    layout: &ShardLayout,
    shards: &VlenShards,
    existing: Option<&[u8]>,
    input: &CellInput,
    fill: &[u8],
) -> Result<(Vec<u8>, bool), CodecError> {
    let stored = match existing {
        Some(shard) => Some((shard, layout.index_of(shard)?)),
        None => None,
    };
    let inner_shape = layout.inner_chunk_shape();
    let whole: Vec<Range<u64>> = inner_shape.iter().map(|&n| 0..n).collect();
    let count = shards.inner_count() as usize;
    layout.assemble(Parallelism::SERIAL, |linear| {
        let coords = layout.inner_coords(linear);
        let start = layout.inner_box(&coords);
        // In range: `index_of` checked every stored range against the shard's size.
        let kept = stored.as_ref().and_then(|(shard, index)| {
            index
                .get(linear)
                .map(|(at, n)| &shard[at as usize..(at + n) as usize])
        });
        if !input.touches(&start, inner_shape) {
            return Ok(kept.map_or(Piece::Absent, Piece::Kept));
        }
        let old = match kept {
            Some(bytes) if !input.covers(&start, inner_shape) => Some(
                shards
                    .inner
                    .decode(bytes.to_vec(), count as u64)
                    .map_err(|e| in_inner_chunk(e, &coords))?,
            ),
            _ => None,
        };
        // The inner chunk's elements in C order: the caller's where the input covers them,
        // otherwise what is stored (or the fill value).
        let mut elements = VlenElements::with_capacity(count, 0)?;
        let mut all_fill = true;
        let mut position = start.clone();
        for_each_index(&whole, |local| {
            for d in 0..local.len() {
                position[d] = start[d] + local[d];
            }
            let element = match input.get(&position) {
                Some(element) => element,
                None => old
                    .as_ref()
                    .and_then(|old| old.get(elements.len()))
                    .unwrap_or(fill),
            };
            all_fill &= element == fill;
            elements.push(element)
        })?;
        if all_fill {
            return Ok(Piece::Absent);
        }
        let encoded = shards
            .inner
            .encode(&elements.offsets, &elements.data)
            .map_err(|e| in_inner_chunk(e, &coords))?;
        Ok(Piece::New(encoded))
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{metadata, store};
    use super::super::vlen::tests::{arrow, texts};
    use super::*;
    use crate::storage::Storage;
    use serde_json::{json, Value};
    use std::sync::Arc;

    fn sharding(inner: Value, index_codecs: Value, location: &str) -> Value {
        json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [2, 2], "codecs": inner, "index_codecs": index_codecs,
            "index_location": location,
        }}])
    }

    fn crc_index() -> Value {
        json!([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}])
    }

    /// A [7, 5] string array of [4, 4] shards of [2, 2] inner chunks (vlen-utf8 + zstd).
    fn sharded_strings(location: &str, index_codecs: Value) -> (Array, Arc<dyn Storage>) {
        let s = store();
        let doc = metadata(
            &[7, 5],
            &[4, 4],
            "string",
            json!(""),
            sharding(
                json!([{"name": "vlen-utf8"}, {"name": "zstd", "configuration": {"level": 1}}]),
                index_codecs,
                location,
            ),
        );
        (Array::create(s.clone(), "/s", &doc).unwrap(), s)
    }

    /// The (offset, nbytes) pairs of a shard's index of 4 inner chunks with crc32c.
    fn index_pairs(shard: &[u8], location: &str) -> Vec<(u64, u64)> {
        let index = match location {
            "start" => &shard[..68],
            _ => &shard[shard.len() - 68..],
        };
        (0..4)
            .map(|i| {
                let word = |at: usize| u64::from_le_bytes(index[at..at + 8].try_into().unwrap());
                (word(16 * i), word(16 * i + 8))
            })
            .collect()
    }

    /// Write `values` (row-major strings) into `model` at the block `start`, `count`.
    fn write(a: &Array, model: &mut [String], start: [u64; 2], count: [u64; 2], values: &[&str]) {
        let (offsets, data) = arrow(values);
        a.write_vlen(&start, &count, &offsets, &data).unwrap();
        for (k, value) in values.iter().enumerate() {
            let (r, c) = (k as u64 / count[1], k as u64 % count[1]);
            model[((start[0] + r) * 5 + start[1] + c) as usize] = value.to_string();
        }
    }

    fn check_reads(a: &Array, model: &[String]) {
        assert_eq!(texts(&a.read_vlen(&[0, 0], &[7, 5]).unwrap()), model);
        // Every sub-region of a few shapes, across shard and inner chunk edges.
        for (r0, c0, rn, cn) in [(3, 1, 4, 4), (1, 3, 5, 2), (6, 4, 1, 1), (2, 2, 1, 3)] {
            let got = texts(&a.read_vlen(&[r0, c0], &[rn, cn]).unwrap());
            let want: Vec<String> = (r0..r0 + rn)
                .flat_map(|r| (c0..c0 + cn).map(move |c| (r * 5 + c) as usize))
                .map(|i| model[i].clone())
                .collect();
            assert_eq!(got, want, "region at ({r0}, {c0}) of ({rn}, {cn})");
        }
    }

    #[test]
    fn sharded_strings_round_trip_with_absent_inner_chunks_and_partial_rewrites() {
        for location in ["end", "start"] {
            let (a, s) = sharded_strings(location, crc_index());
            assert_eq!(a.inner_chunk_shape(), [2, 2]);
            let mut model = vec![String::new(); 35];
            // Columns 0..3 of every row: rows 2..4, columns 0..2 (inner chunk (1, 0) of
            // shard (0, 0)) hold only "" and are not stored.
            let values: Vec<String> = (0..7)
                .flat_map(|r| (0..3).map(move |c| (r, c)))
                .map(|(r, c)| match (r, c) {
                    (2 | 3, 0 | 1) => String::new(),
                    (0, 0) => "\u{65e5}\u{672c}\u{8a9e}".into(),
                    (1, 1) => "\u{1f600} grin".into(),
                    (5, 2) => String::new(),
                    _ => format!("r{r}c{c}\u{e9}"),
                })
                .collect();
            let refs: Vec<&str> = values.iter().map(String::as_str).collect();
            write(&a, &mut model, [0, 0], [7, 3], &refs);
            check_reads(&a, &model);
            // Shards (0, 1) and (1, 1), columns 4.. never written: not stored.
            assert_eq!(s.get("s/c/0/1").unwrap(), None, "{location}");
            assert_eq!(s.get("s/c/1/1").unwrap(), None, "{location}");
            let shard = s.get("s/c/0/0").unwrap().unwrap();
            let pairs = index_pairs(&shard, location);
            assert_eq!(
                pairs[2],
                (u64::MAX, u64::MAX),
                "inner chunk (1, 0) is absent"
            );
            let first_data = if location == "start" { 68 } else { 0 };
            assert_eq!(pairs[0].0, first_data, "{location}");
            // The edge shard (1, 0): rows 4..7 of its 4, stored.
            assert!(s.get("s/c/1/0").unwrap().is_some());

            // A partial rewrite inside inner chunk (1, 0) of shard (0, 0) and inner chunk
            // (0, 0) of shard (1, 0): the other inner chunks keep their bytes.
            write(&a, &mut model, [3, 1], [2, 1], &["new \u{e9}", ""]);
            check_reads(&a, &model);
            let rewritten = s.get("s/c/0/0").unwrap().unwrap();
            let after = index_pairs(&rewritten, location);
            assert_ne!(
                after[2],
                (u64::MAX, u64::MAX),
                "inner chunk (1, 0) now stored"
            );
            for inner in [0, 1, 3] {
                let (o0, n0) = pairs[inner];
                let (o1, n1) = after[inner];
                assert_eq!(
                    shard[o0 as usize..(o0 + n0) as usize],
                    rewritten[o1 as usize..(o1 + n1) as usize],
                    "inner chunk {inner} kept"
                );
            }

            // Another handle reads the same.
            let again = Array::open(s.clone(), "/s").unwrap();
            check_reads(&again, &model);

            // Writing "" over the whole shard (1, 0) erases it; over a part of shard
            // (0, 0), drops the inner chunks that become all fill.
            let blanks = vec![""; 12];
            write(&a, &mut model, [4, 0], [3, 4], &blanks);
            assert_eq!(s.get("s/c/1/0").unwrap(), None, "{location}");
            write(&a, &mut model, [0, 2], [2, 2], &blanks[..4]);
            let shard = s.get("s/c/0/0").unwrap().unwrap();
            assert_eq!(index_pairs(&shard, location)[1], (u64::MAX, u64::MAX));
            check_reads(&a, &model);
            write(&a, &mut model, [0, 0], [4, 4], &vec![""; 16]);
            assert_eq!(s.get("s/c/0/0").unwrap(), None, "{location}");
            assert!(model.iter().all(String::is_empty));
            check_reads(&a, &model);
        }
    }

    #[test]
    fn sharded_bytes_and_a_fill_value_other_than_empty() {
        let s = store();
        let doc = metadata(
            &[5],
            &[4],
            "bytes",
            json!(""),
            json!([{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [2], "codecs": [{"name": "vlen-bytes"}],
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                "index_location": "end",
            }}]),
        );
        let a = Array::create(s.clone(), "/b", &doc).unwrap();
        let (offsets, data) = arrow(&[&[0xffu8, 0][..], &[], &[0x80]]);
        a.write_vlen(&[1], &[3], &offsets, &data).unwrap();
        let back = a.read_vlen(&[0], &[5]).unwrap();
        assert_eq!(back.offsets, [0, 0, 2, 2, 3, 3]);
        assert_eq!(back.data, [0xff, 0, 0x80]);
        // Shard 0 holds two inner chunks of the vlen-bytes format, then the index.
        let shard = s.get("b/c/0").unwrap().unwrap();
        let first = [2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0xff, 0];
        assert_eq!(shard[..first.len()], first);
        assert_eq!(shard.len(), first.len() + 4 + 4 + 1 + 4 + 32);

        let s = store();
        let doc = metadata(
            &[6],
            &[6],
            "string",
            json!("n/a"),
            json!([{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [3], "codecs": [{"name": "vlen-utf8"}],
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            }}]),
        );
        let a = Array::create(s.clone(), "/f", &doc).unwrap();
        assert_eq!(
            texts(&a.read_vlen(&[0], &[6]).unwrap()),
            ["n/a", "n/a", "n/a", "n/a", "n/a", "n/a"]
        );
        let (offsets, data) = arrow(&["x", ""]);
        a.write_vlen(&[3], &[2], &offsets, &data).unwrap();
        assert_eq!(
            texts(&a.read_vlen(&[0], &[6]).unwrap()),
            ["n/a", "n/a", "n/a", "x", "", "n/a"]
        );
        // Only the second inner chunk is stored.
        let shard = s.get("f/c/0").unwrap().unwrap();
        let index = &shard[shard.len() - 32..];
        assert_eq!(index[..16], [0xff; 16]);
    }

    fn assert_corrupt(result: Result<VlenElements, Error>, what: &str) {
        match result {
            Err(Error::Codec(CodecError::Corrupt { message, .. })) => {
                assert!(message.contains("s/c/0/0"), "{what}: {message}")
            }
            other => panic!("{what}: expected corrupt data, got {other:?}"),
        }
    }

    #[test]
    fn corrupt_shards_are_corrupt_data_naming_the_shard() {
        for location in ["end", "start"] {
            let (a, s) = sharded_strings(location, crc_index());
            let (offsets, data) = arrow(&["ab"; 16]);
            a.write_vlen(&[0, 0], &[4, 4], &offsets, &data).unwrap();
            let good = s.get("s/c/0/0").unwrap().unwrap();
            let at = if location == "start" {
                0
            } else {
                good.len() - 68
            };
            // A flipped bit in the index: the checksum fails.
            let mut bad = good.clone();
            bad[at + 3] ^= 1;
            s.set("s/c/0/0", &bad).unwrap();
            assert_corrupt(a.read_vlen(&[0, 0], &[1, 1]), "index checksum");
            // A partial write must merge: it refuses too and leaves the shard alone.
            let (o, d) = arrow(&["z"]);
            assert!(a.write_vlen(&[0, 0], &[1, 1], &o, &d).is_err());
            assert_eq!(s.get("s/c/0/0").unwrap().unwrap(), bad);
            // Shorter than the index.
            s.set("s/c/0/0", &good[..10]).unwrap();
            assert_corrupt(a.read_vlen(&[0, 0], &[2, 2]), "truncated shard");
            // A corrupt inner chunk (its zstd frame) names the shard and the inner chunk.
            let mut bad = good.clone();
            let data_at = if location == "start" { 68 } else { 0 };
            bad[data_at..data_at + 4].copy_from_slice(b"junk");
            s.set("s/c/0/0", &bad).unwrap();
            match a.read_vlen(&[0, 0], &[1, 1]) {
                Err(Error::Codec(CodecError::Corrupt { message, .. })) => {
                    assert!(message.contains("inner chunk [0, 0]"), "{message}");
                    assert!(message.contains("s/c/0/0"), "{message}");
                }
                other => panic!("expected corrupt data, got {other:?}"),
            }
            // Inner chunks never read are not checked: the others still read.
            assert_eq!(texts(&a.read_vlen(&[2, 2], &[2, 2]).unwrap()), ["ab"; 4]);
        }
        // Without a checksum: an index pointing outside the shard, or past 2^64.
        let (a, s) = sharded_strings(
            "end",
            json!([{"name": "bytes", "configuration": {"endian": "little"}}]),
        );
        let (offsets, data) = arrow(&["ab"; 4]);
        a.write_vlen(&[0, 0], &[2, 2], &offsets, &data).unwrap();
        let good = s.get("s/c/0/0").unwrap().unwrap();
        let at = good.len() - 64;
        for (what, offset, nbytes) in [
            ("past the end", 1000u64, 8u64),
            ("into the index", 0, good.len() as u64 - 1),
            ("overflowing", u64::MAX - 1, 2),
        ] {
            let mut bad = good.clone();
            bad[at..at + 8].copy_from_slice(&offset.to_le_bytes());
            bad[at + 8..at + 16].copy_from_slice(&nbytes.to_le_bytes());
            s.set("s/c/0/0", &bad).unwrap();
            if what != "into the index" {
                assert_corrupt(a.read_vlen(&[0, 0], &[1, 1]), what);
            } else {
                // Inside the shard but not an inner chunk: its decoding fails.
                assert!(a.read_vlen(&[0, 0], &[1, 1]).is_err(), "{what}");
            }
            let (o, d) = arrow(&["z"]);
            assert!(a.write_vlen(&[0, 0], &[1, 1], &o, &d).is_err(), "{what}");
            assert_eq!(s.get("s/c/0/0").unwrap().unwrap(), bad, "{what}");
        }
    }

    #[test]
    fn unsupported_sharded_chains_say_why() {
        let s = store();
        let inner_shard = json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [1], "codecs": [{"name": "vlen-utf8"}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        }}]);
        let nested = metadata(
            &[4],
            &[4],
            "string",
            json!(""),
            json!([{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [2], "codecs": inner_shard,
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            }}]),
        );
        match Array::create(s.clone(), "/n", &nested) {
            Err(Error::Codec(CodecError::Unsupported(message))) => {
                assert!(message.contains("nested sharding_indexed"), "{message}")
            }
            other => panic!("expected Unsupported, got {other:?}"),
        }
        let after = metadata(
            &[4],
            &[4],
            "string",
            json!(""),
            json!([{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [2], "codecs": [{"name": "vlen-utf8"}],
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            }}, {"name": "crc32c"}]),
        );
        assert!(matches!(
            Array::create(s.clone(), "/a", &after),
            Err(Error::Codec(CodecError::Unsupported(_)))
        ));
        // The inner codecs must suit the data type, the inner shape divide the shard.
        let wrong_type = metadata(
            &[4],
            &[4],
            "bytes",
            json!(""),
            sharding_1d(json!([{"name": "vlen-utf8"}]), 2),
        );
        assert!(Array::create(s.clone(), "/w", &wrong_type).is_err());
        let uneven = metadata(
            &[4],
            &[4],
            "string",
            json!(""),
            sharding_1d(json!([{"name": "vlen-utf8"}]), 3),
        );
        assert!(Array::create(s, "/u", &uneven).is_err());
    }

    fn sharding_1d(inner: Value, chunk: u64) -> Value {
        json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [chunk], "codecs": inner,
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        }}])
    }
}
