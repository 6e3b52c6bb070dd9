//! The `zstd` bytes -> bytes codec.
//!
//! Specification: <https://zarr-specs.readthedocs.io/en/latest/v3/codecs/zstd/index.html>.
//!
//! * Configuration: `{"level": -131072..=22, "checksum": bool}`. On read, `level` defaults to 0
//!   (zstd's default level) and `checksum` to `false`; both are always written back.
//! * Encoding: one zstd frame (RFC 8878) with the content size recorded and the content
//!   checksum as configured.
//! * Decoding: one or more concatenated frames (skippable frames allowed), with or without a
//!   content size (tensorstore writes frames without one). Checksums present in a frame are
//!   always verified. The whole input must be consumed.

use super::BytesToBytesCodec;
use crate::codec::{try_vec_with_capacity, CodecError, DecodedSize};
use ::zstd::stream::raw::{CParameter, Decoder, InBuffer, Operation, OutBuffer};
use ::zstd::zstd_safe::WriteBuf;
use serde_json::{Map, Value};
use std::cell::RefCell;

const NAME: &str = "zstd";

/// The smallest level the spec allows (zstd's fastest negative level).
pub const MIN_LEVEL: i32 = -131_072;
/// The largest level the spec allows.
pub const MAX_LEVEL: i32 = 22;

/// The `zstd` codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZstdCodec {
    level: i32,
    checksum: bool,
}

impl ZstdCodec {
    /// A zstd codec with compression `level` (0 = zstd's default) and, if `checksum`, a
    /// content checksum in every frame written.
    pub fn new(level: i32, checksum: bool) -> Result<Self, CodecError> {
        if !(MIN_LEVEL..=MAX_LEVEL).contains(&level) {
            return Err(level_error(&Value::from(level)));
        }
        Ok(ZstdCodec { level, checksum })
    }

    /// Build from the `configuration` object of the codec's metadata.
    pub fn from_configuration(config: &Map<String, Value>) -> Result<Self, CodecError> {
        if let Some(key) = config
            .keys()
            .find(|k| !matches!(k.as_str(), "level" | "checksum"))
        {
            return Err(CodecError::config(
                NAME,
                format!("unknown configuration key '{key}'"),
            ));
        }
        let level = match config.get("level") {
            None => 0,
            Some(value) => value
                .as_i64()
                .and_then(|l| i32::try_from(l).ok())
                .ok_or_else(|| level_error(value))?,
        };
        let checksum = match config.get("checksum") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(CodecError::config(
                    NAME,
                    format!("'checksum' must be a boolean, got {other}"),
                ))
            }
        };
        Self::new(level, checksum)
    }

    #[cfg(test)]
    /// The compression level.
    pub fn level(&self) -> i32 {
        self.level
    }

    #[cfg(test)]
    /// Whether encoded frames carry a content checksum.
    pub fn checksum(&self) -> bool {
        self.checksum
    }
}

fn level_error(value: &Value) -> CodecError {
    CodecError::config(
        NAME,
        format!("'level' must be an integer from {MIN_LEVEL} to {MAX_LEVEL}, got {value}"),
    )
}

fn encode_failed(e: std::io::Error) -> CodecError {
    CodecError::EncodeFailed {
        codec: NAME.to_string(),
        message: e.to_string(),
    }
}

fn corrupt_io(e: std::io::Error) -> CodecError {
    CodecError::corrupt(NAME, format!("invalid zstd data: {e}"))
}

/// The most bytes a zstd stream of `len` bytes can decode to: a block yields at most
/// 128 KiB and takes at least 4 bytes (an RLE block: a 3-byte header and its byte).
fn most_decodable(len: usize) -> usize {
    (len / 4).saturating_mul(128 << 10)
}

/// Decode into a buffer of exactly `expected` bytes, in one shot (no window buffer, no
/// allocation beyond `expected`). Handles concatenated and skippable frames and frames
/// without a content size; verifies checksums; rejects trailing bytes. An input too short
/// to produce `expected` bytes is corrupt before anything is allocated (a chunk of a few
/// bytes whose metadata declares gigabytes costs nothing).
fn decode_exact(input: &[u8], expected: usize) -> Result<Vec<u8>, CodecError> {
    if expected > most_decodable(input.len()) {
        return Err(CodecError::corrupt(
            NAME,
            format!(
                "{} bytes of zstd data cannot decode to the expected {expected} bytes",
                input.len()
            ),
        ));
    }
    let mut out = crate::scratch::take(expected).ok_or(CodecError::OutOfMemory(expected))?;
    decompress_exact(input, &mut out, expected)?;
    Ok(out)
}

/// Decompress `input` into `dest` (a `Vec` with room for `expected` bytes, or a slice of
/// exactly `expected` bytes), which must then hold exactly `expected` bytes.
fn decompress_exact<C: WriteBuf + ?Sized>(
    input: &[u8],
    dest: &mut C,
    expected: usize,
) -> Result<(), CodecError> {
    // One decompression context per thread, reused: creating one per chunk costs an
    // allocation of about 100 KiB (and its page faults) each time.
    thread_local! {
        static DECOMPRESSOR: RefCell<Option<::zstd::bulk::Decompressor<'static>>> =
            const { RefCell::new(None) };
    }
    let result = DECOMPRESSOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(::zstd::bulk::Decompressor::new().map_err(corrupt_io)?);
        }
        let decompressor = slot.as_mut().expect("set just above");
        Ok::<_, CodecError>(decompressor.decompress_to_buffer(input, dest))
    })?;
    match result {
        Ok(n) if n == expected && dest.as_slice().len() == expected => Ok(()),
        Ok(n) => Err(CodecError::corrupt(
            NAME,
            format!("decoded {n} bytes, expected {expected}"),
        )),
        Err(e) if e.to_string().contains("too small") => Err(CodecError::corrupt(
            NAME,
            format!("decoded data is longer than the expected {expected} bytes"),
        )),
        Err(e) => Err(corrupt_io(e)),
    }
}

/// Decode data of unknown decoded size, at most `max` bytes, by streaming into a growing
/// buffer.
fn decode_to_end(input: &[u8], max: usize) -> Result<Vec<u8>, CodecError> {
    // Start from the first frame's content size when it has one (not trusted beyond 64 MiB),
    // otherwise from a guess; the buffer doubles as needed.
    let initial = match ::zstd::zstd_safe::get_frame_content_size(input) {
        Ok(Some(size)) => usize::try_from(size.min(64 << 20)).unwrap_or(64 << 20),
        _ => input.len().saturating_mul(4).clamp(4096, 1 << 20),
    };
    let mut out = try_vec_with_capacity(initial.min(max).max(1))?;
    let mut decoder = Decoder::new().map_err(corrupt_io)?;
    let mut in_buf = InBuffer::around(input);
    loop {
        if out.len() == out.capacity() {
            if out.len() > max {
                return Err(DecodedSize::AtMost(max).mismatch(NAME, out.len()));
            }
            // One byte past the bound is room enough to notice data that exceeds it.
            let extra = out
                .capacity()
                .max(4096)
                .min(max.saturating_add(1) - out.len());
            out.try_reserve(extra)
                .map_err(|_| CodecError::OutOfMemory(out.len().saturating_add(extra)))?;
        }
        let pos = out.len();
        // `hint` is 0 exactly when a frame has been completely decoded and flushed. The
        // OutBuffer writes into `out`'s spare capacity and updates its length.
        let (hint, output_full) = {
            let mut out_buf = OutBuffer::around_pos(&mut out, pos);
            let hint = decoder.run(&mut in_buf, &mut out_buf).map_err(corrupt_io)?;
            (hint, out_buf.pos() == out_buf.capacity())
        };
        if out.len() > max {
            return Err(DecodedSize::AtMost(max).mismatch(NAME, out.len()));
        }
        if in_buf.pos() == input.len() {
            if hint == 0 {
                return Ok(out);
            }
            if !output_full {
                // All input consumed, room left in the output, and the frame is not over.
                return Err(CodecError::corrupt(NAME, "truncated zstd frame"));
            }
        }
    }
}

impl BytesToBytesCodec for ZstdCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        map.insert("level".to_string(), Value::from(self.level));
        map.insert("checksum".to_string(), Value::from(self.checksum));
        Some(map)
    }

    fn encode(&self, input: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        // One compression context per thread, reused (its level and flags are set for
        // every chunk): creating one per chunk costs allocations of hundreds of KiB.
        thread_local! {
            static COMPRESSOR: RefCell<Option<::zstd::bulk::Compressor<'static>>> =
                const { RefCell::new(None) };
        }
        let mut out = try_vec_with_capacity(::zstd::zstd_safe::compress_bound(input.len()))?;
        COMPRESSOR.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                *slot = Some(::zstd::bulk::Compressor::new(self.level).map_err(encode_failed)?);
            }
            let compressor = slot.as_mut().expect("set just above");
            compressor
                .set_compression_level(self.level)
                .map_err(encode_failed)?;
            compressor
                .set_parameter(CParameter::ChecksumFlag(self.checksum))
                .map_err(encode_failed)?;
            compressor
                .set_parameter(CParameter::ContentSizeFlag(true))
                .map_err(encode_failed)?;
            compressor
                .compress_to_buffer(&input, &mut out)
                .map_err(encode_failed)
        })?;
        super::shrink_if_loose(&mut out);
        Ok(out)
    }

    fn decode(&self, input: Vec<u8>, size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let decoded = self.decode_slice(&input, size);
        crate::scratch::give_back(input);
        decoded
    }

    fn decode_slice(&self, input: &[u8], size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        if input.is_empty() {
            return Err(CodecError::corrupt(NAME, "empty input is not a zstd frame"));
        }
        match size {
            DecodedSize::Exact(expected) => decode_exact(input, expected),
            DecodedSize::AtMost(max) => decode_to_end(input, max),
        }
    }

    fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Result<(), CodecError> {
        if input.is_empty() {
            return Err(CodecError::corrupt(NAME, "empty input is not a zstd frame"));
        }
        let expected = out.len();
        decompress_exact(input, out, expected)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;
    use serde_json::json;

    fn codec(level: i32, checksum: bool) -> ZstdCodec {
        ZstdCodec::from_configuration(&config(json!({"level": level, "checksum": checksum})))
            .unwrap()
    }

    /// Both decode paths must agree.
    fn decode_both(c: &ZstdCodec, enc: &[u8], want: &[u8]) {
        assert_eq!(
            c.decode(enc.to_vec(), DecodedSize::Exact(want.len()))
                .unwrap(),
            want
        );
        assert_eq!(
            c.decode(enc.to_vec(), DecodedSize::AtMost(usize::MAX))
                .unwrap(),
            want
        );
    }

    const TEXT: &[u8] = b"zarr zstd test zarr zstd test zarr zstd test \
zarr zstd test zarr zstd test zarr zstd test ";

    #[test]
    fn round_trip_sizes_levels_checksum() {
        for (level, checksum) in [(0, false), (1, true), (3, false), (-5, true), (19, true)] {
            let c = codec(level, checksum);
            for len in [0usize, 1, 100, 4096, 131_073, 1 << 20] {
                let input = data(len, len as u64 + 1, 32);
                let enc = c.encode(input.clone()).unwrap();
                assert_eq!(&enc[..4], &[0x28, 0xb5, 0x2f, 0xfd], "zstd magic");
                // Frame header descriptor: bit 2 = checksum flag; content size is recorded.
                assert_eq!(enc[4] & 0x04 != 0, checksum);
                assert_eq!(
                    ::zstd::zstd_safe::get_frame_content_size(&enc).unwrap(),
                    Some(len as u64)
                );
                decode_both(&c, &enc, &input);
            }
        }
    }

    #[test]
    fn extreme_levels() {
        for level in [MIN_LEVEL, MAX_LEVEL] {
            let c = ZstdCodec::new(level, false).unwrap();
            let input = data(50_000, 5, 8);
            let enc = c.encode(input.clone()).unwrap();
            decode_both(&c, &enc, &input);
        }
    }

    #[test]
    fn decodes_numcodecs_frames() {
        // numcodecs 0.16.6: Zstd(level=3).encode(TEXT)
        let enc = hex("28b52ffd205ab50000787a617272207a737464207465737420010028e8ac03");
        decode_both(&codec(0, false), &enc, TEXT);
        // Zstd(level=1, checksum=True).encode(TEXT)
        let enc = hex("28b52ffd245ab50000787a617272207a737464207465737420010028e8ac03ab7f1cec");
        decode_both(&codec(0, false), &enc, TEXT);
        // Zstd(level=-5).encode(TEXT)
        let enc = hex(concat!(
            "28b52ffd205a2d0100f07a617272207a7374642074657374207a617272207a7374",
            "6420746573742001002648ca09"
        ));
        decode_both(&codec(0, false), &enc, TEXT);
        // Zstd().encode(b"")
        decode_both(&codec(0, false), &hex("28b52ffd2000010000"), b"");
    }

    #[test]
    fn decodes_frames_without_content_size() {
        // python-zstandard 0.25: ZstdCompressor(level=3, write_content_size=False).compress(TEXT)
        let enc = hex("28b52ffd0000b50000787a617272207a737464207465737420010028e8ac03");
        assert_eq!(
            ::zstd::zstd_safe::get_frame_content_size(&enc).unwrap(),
            None
        );
        decode_both(&codec(0, false), &enc, TEXT);
        // A streamed frame with a checksum and no content size:
        // ZstdCompressor(level=5, write_checksum=True, write_content_size=False).stream_writer
        let enc = hex("28b52ffd04584d0000186162630100f67443384b202f");
        decode_both(&codec(0, false), &enc, &b"abc".repeat(20));
        // The same frame with a wrong checksum.
        let mut bad = enc.clone();
        *bad.last_mut().unwrap() ^= 0x40;
        assert!(is_corrupt(
            codec(0, false).decode(bad.clone(), DecodedSize::Exact(60))
        ));
        assert!(is_corrupt(
            codec(0, false).decode(bad, DecodedSize::AtMost(usize::MAX))
        ));
        // An empty frame without content size.
        decode_both(&codec(0, false), &hex("28b52ffd0000010000"), b"");
    }

    #[test]
    fn decodes_concatenated_and_skippable_frames() {
        let c = codec(3, true);
        let mut enc = c.encode(b"first frame; ".to_vec()).unwrap();
        // A skippable frame (magic 0x184D2A50, 4-byte length, payload).
        enc.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
        enc.extend(c.encode(Vec::new()).unwrap());
        // A frame without content size from another implementation.
        enc.extend(hex(
            "28b52ffd0000b50000787a617272207a737464207465737420010028e8ac03",
        ));
        let mut want = b"first frame; ".to_vec();
        want.extend_from_slice(TEXT);
        decode_both(&c, &enc, &want);
    }

    #[test]
    fn verifies_checksums() {
        let c = codec(3, true);
        let input = data(10_000, 9, 4);
        let enc = c.encode(input.clone()).unwrap();
        let n = enc.len();
        for pos in n - 4..n {
            let mut bad = enc.clone();
            bad[pos] ^= 0x10;
            assert!(is_corrupt(
                c.decode(bad.clone(), DecodedSize::Exact(input.len()))
            ));
            assert!(is_corrupt(c.decode(bad, DecodedSize::AtMost(usize::MAX))));
        }
    }

    #[test]
    fn rejects_trailing_garbage() {
        let c = codec(3, false);
        let good = c.encode(b"payload".to_vec()).unwrap();
        for tail in [
            &b"x"[..],
            &b"\0"[..],
            &[0u8; 9][..],
            &[0x28, 0xb5, 0x2f, 0xfd][..],
        ] {
            let mut enc = good.clone();
            enc.extend_from_slice(tail);
            assert!(
                is_corrupt(c.decode(enc.clone(), DecodedSize::Exact(7))),
                "tail {tail:?}"
            );
            assert!(
                is_corrupt(c.decode(enc, DecodedSize::AtMost(usize::MAX))),
                "tail {tail:?}"
            );
        }
    }

    #[test]
    fn rejects_truncated_frames() {
        for checksum in [false, true] {
            let c = codec(3, checksum);
            let input = data(20_000, 4, 64);
            let enc = c.encode(input.clone()).unwrap();
            let cuts = (0..24)
                .chain((24..enc.len() - 8).step_by(29))
                .chain(enc.len() - 8..enc.len());
            for cut in cuts {
                let t = enc[..cut].to_vec();
                assert!(
                    is_corrupt(c.decode(t.clone(), DecodedSize::Exact(input.len()))),
                    "cut {cut}"
                );
                assert!(
                    is_corrupt(c.decode(t, DecodedSize::AtMost(usize::MAX))),
                    "cut {cut}"
                );
            }
        }
        // Truncated frames without a content size (the streaming path must notice too).
        let enc = hex("28b52ffd04584d0000186162630100f67443384b202f");
        for cut in 0..enc.len() {
            let c = codec(0, false);
            assert!(
                is_corrupt(c.decode(enc[..cut].to_vec(), DecodedSize::AtMost(usize::MAX))),
                "cut {cut}"
            );
            assert!(
                is_corrupt(c.decode(enc[..cut].to_vec(), DecodedSize::Exact(60))),
                "cut {cut}"
            );
        }
    }

    #[test]
    fn rejects_decoded_len_mismatch() {
        let c = codec(1, false);
        let enc = c.encode(vec![3u8; 1000]).unwrap();
        for wrong in [0, 1, 999, 1001, 1 << 20] {
            assert!(
                is_corrupt(c.decode(enc.clone(), DecodedSize::Exact(wrong))),
                "{wrong}"
            );
        }
        // Same for a frame without content size, which cannot be checked up front.
        let nocs = hex("28b52ffd0000b50000787a617272207a737464207465737420010028e8ac03");
        for wrong in [0, TEXT.len() - 1, TEXT.len() + 1] {
            assert!(
                is_corrupt(c.decode(nocs.clone(), DecodedSize::Exact(wrong))),
                "{wrong}"
            );
        }
    }

    #[test]
    fn decompression_bomb_is_bounded_by_decoded_len() {
        let c = codec(1, false);
        let enc = c.encode(vec![0u8; 8 << 20]).unwrap();
        assert!(enc.len() < 10_000);
        assert!(is_corrupt(c.decode(enc, DecodedSize::Exact(16))));
    }

    #[test]
    fn configuration_defaults_and_round_trip() {
        let c = ZstdCodec::from_configuration(&Map::new()).unwrap();
        assert_eq!((c.level(), c.checksum()), (0, false));
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"level": 0, "checksum": false})
        );
        let c = ZstdCodec::from_configuration(&config(json!({"level": -7}))).unwrap();
        assert_eq!((c.level(), c.checksum()), (-7, false));
        let c = ZstdCodec::from_configuration(&config(json!({"checksum": true}))).unwrap();
        assert_eq!((c.level(), c.checksum()), (0, true));
        let c = codec(22, true);
        assert_eq!(c.name(), "zstd");
        let conf = c.configuration().unwrap();
        assert_eq!(
            Value::Object(conf.clone()),
            json!({"level": 22, "checksum": true})
        );
        assert_eq!(ZstdCodec::from_configuration(&conf).unwrap(), c);
        assert_eq!(c.encoded_len(100), None);
    }

    #[test]
    fn rejects_bad_configurations() {
        for bad in [
            json!({"level": 23}),
            json!({"level": -131_073}),
            json!({"level": 1.5}),
            json!({"level": 3.0}),
            json!({"level": "3"}),
            json!({"level": null}),
            json!({"level": 1u64 << 40}),
            json!({"level": u64::MAX}),
            json!({"checksum": 1}),
            json!({"checksum": "true"}),
            json!({"checksum": null}),
            json!({"level": 1, "checksum": false, "extra": 0}),
            json!({"levels": 1}),
        ] {
            let r = ZstdCodec::from_configuration(&config(bad.clone()));
            assert!(
                matches!(r, Err(CodecError::InvalidConfiguration { .. })),
                "{bad} gave {r:?}"
            );
        }
        assert!(ZstdCodec::new(MAX_LEVEL + 1, false).is_err());
        assert!(ZstdCodec::new(MIN_LEVEL - 1, false).is_err());
    }

    #[test]
    fn garbage_never_panics() {
        let c = codec(3, true);
        assert!(is_corrupt(
            c.decode(Vec::new(), DecodedSize::AtMost(usize::MAX))
        ));
        assert!(is_corrupt(c.decode(Vec::new(), DecodedSize::Exact(0))));
        for seed in 1..300u64 {
            let len = (seed as usize * 7) % 200;
            let mut junk = data(len, seed, 255);
            if seed % 2 == 0 && len >= 4 {
                junk[..4].copy_from_slice(&[0x28, 0xb5, 0x2f, 0xfd]);
            }
            let _ = c.decode(junk.clone(), DecodedSize::AtMost(usize::MAX));
            let _ = c.decode(junk, DecodedSize::Exact(len * 3));
        }
        let input = data(5000, 12, 16);
        let enc = c.encode(input.clone()).unwrap();
        for i in 0..enc.len() {
            let mut bad = enc.clone();
            bad[i] ^= 1 << (i % 8);
            if let Ok(out) = c.decode(bad.clone(), DecodedSize::Exact(input.len())) {
                assert_eq!(out.len(), input.len());
            }
            let _ = c.decode(bad, DecodedSize::AtMost(usize::MAX));
        }
    }
}
