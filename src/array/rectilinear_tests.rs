//! Arrays on a `rectilinear` chunk grid: region reads and writes across chunks of
//! different shapes, the chunk functions, sharding, resizing and variable-length elements,
//! each compared with what a regular grid gives for the same values.

use super::tests::{le, store};
use super::Array;
use crate::error::Error;
use serde_json::{json, Value};

/// A v3 array document on a rectilinear grid.
fn document(shape: &[u64], chunk_shapes: Value, dtype: &str, fill: Value, codecs: Value) -> String {
    json!({
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": dtype,
        "chunk_grid": {"name": "rectilinear",
                       "configuration": {"kind": "inline", "chunk_shapes": chunk_shapes}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill, "codecs": codecs,
    })
    .to_string()
}

fn ints(bytes: &[u8]) -> Vec<i32> {
    bytes
        .chunks(4)
        .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

fn bytes(values: impl IntoIterator<Item = i32>) -> Vec<u8> {
    values.into_iter().flat_map(i32::to_ne_bytes).collect()
}

fn read(a: &Array, start: &[u64], count: &[u64]) -> Vec<i32> {
    let mut out = vec![0u8; a.selection_nbytes(start, count).unwrap()];
    a.read_region(start, count, &mut out).unwrap();
    ints(&out)
}

fn sharded(inner: &[u64]) -> Value {
    json!([{"name": "sharding_indexed", "configuration": {
        "chunk_shape": inner,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                   {"name": "zstd", "configuration": {"level": 1, "checksum": false}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
    }}])
}

/// Rows in chunks of 1, 2, 3 and 4 (the last past the edge at 9); columns regular by 4.
const ROWS: &str = "[1, 2, [3, 1], 4]";

#[test]
fn regions_read_back_across_chunks_of_every_shape() {
    for codecs in [le(), sharded(&[1, 2])] {
        let s = store();
        let rows: Value = serde_json::from_str(ROWS).unwrap();
        let a = Array::create(
            s.clone(),
            "/r",
            &document(
                &[9, 10],
                json!([rows, 4]),
                "int32",
                json!(-1),
                codecs.clone(),
            ),
        )
        .unwrap();
        assert!(a.is_rectilinear());
        assert_eq!(a.chunk_grid_shape(), [4, 3]);
        assert_eq!(
            a.chunk_shape(),
            [4, 4],
            "the longest chunk along each dimension"
        );
        // Writes that straddle chunks of different shapes, then reads of other regions.
        let value = |r: u64, c: u64| (100 * r + c) as i32;
        a.write_region(
            &[0, 0],
            &[9, 10],
            &bytes((0..90).map(|i| value(i / 10, i % 10))),
        )
        .unwrap();
        a.write_region(&[2, 3], &[3, 5], &bytes((0..15).map(|i| -i - 2)))
            .unwrap();
        let expect = |r: u64, c: u64| {
            if (2..5).contains(&r) && (3..8).contains(&c) {
                -(((r - 2) * 5 + (c - 3)) as i32) - 2
            } else {
                value(r, c)
            }
        };
        for (start, count) in [([0, 0], [9, 10]), ([1, 2], [5, 7]), ([6, 9], [3, 1])] {
            let got = read(&a, &start, &count);
            let want: Vec<i32> = (0..count[0])
                .flat_map(|r| (0..count[1]).map(move |c| (r, c)))
                .map(|(r, c)| expect(start[0] + r, start[1] + c))
                .collect();
            assert_eq!(got, want, "{start:?} {count:?} {codecs}");
        }
        // Chunk (1, 0) holds rows 1..3, columns 0..4.
        assert_eq!(a.chunk_region(&[1, 0]).unwrap(), (vec![1, 0], vec![2, 4]));
        let mut chunk = vec![0u8; a.chunk_nbytes()];
        a.read_chunk(&[1, 0], &mut chunk).unwrap();
        assert_eq!(ints(&chunk[..32]), [100, 101, 102, 103, 200, 201, 202, -2]);
        // The last chunk of rows (6..10) reaches past the edge at 9: stored full-size.
        assert_eq!(a.chunk_region(&[3, 2]).unwrap(), (vec![6, 8], vec![4, 4]));
        // A whole-chunk write takes exactly that chunk's bytes.
        assert!(matches!(
            a.write_chunk(&[0, 1], &bytes(0..16)),
            Err(Error::BufferSizeMismatch { expected: 16, .. })
        ));
        a.write_chunk(&[0, 1], &bytes([7, 7, 7, 7])).unwrap();
        assert_eq!(read(&a, &[0, 3], &[1, 6]), [3, 7, 7, 7, 7, 8]);
        assert!(matches!(
            a.chunk_region(&[4, 0]),
            Err(Error::OutOfBounds(_))
        ));
        // The reopened array says the same.
        let again = Array::open(s, "/r").unwrap();
        assert_eq!(read(&again, &[0, 0], &[9, 10]), read(&a, &[0, 0], &[9, 10]));
        assert!(a.is_chunk_aligned(&[1, 4], &[5, 6]).unwrap());
        assert!(!a.is_chunk_aligned(&[2, 4], &[4, 6]).unwrap());
    }
}

#[test]
fn the_grid_must_cover_the_shape_and_shards_must_tile() {
    let s = store();
    let short = document(&[10], json!([[[3, 3]]]), "int32", json!(0), le());
    match Array::create(s.clone(), "/short", &short) {
        Err(Error::Metadata { source, .. }) => {
            assert!(source.to_string().contains("add up to 9"), "{source}")
        }
        other => panic!("{other:?}"),
    }
    let untiled = document(&[9], json!([[4, 5]]), "int32", json!(0), sharded(&[2]));
    assert!(Array::create(s.clone(), "/untiled", &untiled).is_err());
    let tiled = document(&[9], json!([[4, 6]]), "int32", json!(0), sharded(&[2]));
    Array::create(s, "/tiled", &tiled).unwrap();
}

#[test]
fn growing_past_the_grid_appends_chunks_of_the_last_length() {
    let s = store();
    let a = Array::create(
        s.clone(),
        "/g",
        &document(&[5], json!([[2, 3]]), "int32", json!(0), le()),
    )
    .unwrap();
    a.write_region(&[0], &[5], &bytes(1..=5)).unwrap();
    a.append(&[6], 0, &bytes(6..=11)).unwrap();
    assert_eq!(a.shape(), [11]);
    assert_eq!(a.chunk_grid_shape(), [4]);
    assert_eq!(a.chunk_region(&[3]).unwrap(), (vec![8], vec![3]));
    assert_eq!(read(&a, &[0], &[11]), (1..=11).collect::<Vec<_>>());
    let stored: Value = serde_json::from_slice(&s.get("g/zarr.json").unwrap().unwrap()).unwrap();
    assert_eq!(
        stored["chunk_grid"]["configuration"]["chunk_shapes"],
        json!([[2, 3, [3, 2]]])
    );
    // Shrinking keeps the grid (chunks past the extent are allowed) and drops the chunks
    // outside; growing again shows the fill value there.
    a.resize(&[3]).unwrap();
    assert_eq!(s.get("g/c/2").unwrap(), None);
    a.resize(&[7]).unwrap();
    assert_eq!(read(&a, &[0], &[7]), [1, 2, 3, 0, 0, 0, 0]);
}

#[test]
fn variable_length_elements_on_a_rectilinear_grid() {
    let s = store();
    let a = Array::create(
        s,
        "/v",
        &document(
            &[6],
            json!([[1, 2, 3]]),
            "string",
            json!(""),
            json!([{"name": "vlen-utf8"}]),
        ),
    )
    .unwrap();
    let words = ["a", "bb", "ccc", "dddd", "e"];
    let mut offsets = vec![0u64];
    let mut data = Vec::new();
    for w in words {
        data.extend_from_slice(w.as_bytes());
        offsets.push(data.len() as u64);
    }
    a.write_vlen(&[1], &[5], &offsets, &data).unwrap();
    let back = a.read_vlen(&[0], &[6]).unwrap();
    let texts: Vec<&[u8]> = (0..6).map(|i| back.get(i).unwrap()).collect();
    assert_eq!(texts, [&b""[..], b"a", b"bb", b"ccc", b"dddd", b"e"]);
}

#[test]
fn sharded_variable_length_elements_on_a_rectilinear_grid() {
    let s = store();
    let shards = json!([{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [2], "codecs": [{"name": "vlen-utf8"}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
    }}]);
    // Shards of 2, 4 and 2 elements: each has its own number of inner chunks.
    let a = Array::create(
        s.clone(),
        "/w",
        &document(
            &[8],
            json!([[2, 4, 2]]),
            "string",
            json!(""),
            shards.clone(),
        ),
    )
    .unwrap();
    let words = ["a", "bb", "", "dddd", "\u{e9}", "f"];
    let mut offsets = vec![0u64];
    let mut data = Vec::new();
    for w in words {
        data.extend_from_slice(w.as_bytes());
        offsets.push(data.len() as u64);
    }
    a.write_vlen(&[1], &[6], &offsets, &data).unwrap();
    let back = a.read_vlen(&[0], &[8]).unwrap();
    let texts: Vec<&[u8]> = (0..8).map(|i| back.get(i).unwrap()).collect();
    let expected: [&[u8]; 8] = [
        b"",
        b"a",
        b"bb",
        b"",
        b"dddd",
        "\u{e9}".as_bytes(),
        b"f",
        b"",
    ];
    assert_eq!(texts, expected);
    // The middle shard's index has two entries (of 16 bytes), plus the checksum.
    let middle = s.get("w/c/1").unwrap().unwrap();
    assert_eq!(middle.len(), (4 + 4 + 2 + 4) + (4 + 4 + 4 + 4 + 2) + 32 + 4);
    // Shards must be whole inner chunks.
    assert!(Array::create(
        s,
        "/bad",
        &document(&[8], json!([[3, 5]]), "string", json!(""), shards),
    )
    .is_err());
}
