//! Bytes -> bytes codecs: compressors and checksums, and `conditional`, which applies a
//! list of them chunk by chunk.

pub mod blosc;
pub mod bz2;
pub mod checksum32;
pub mod conditional;
pub mod crc32c;
pub mod gzip;
pub mod jenkins_lookup3;
pub mod lz4;
pub mod lzma;
pub mod numcodecs;
pub mod shuffle;
pub mod zlib;
pub mod zstd;

use super::{try_vec_with_capacity, CodecError, DecodedSize};
use serde_json::{Map, Value};
use std::fmt::Debug;
use std::io::{ErrorKind, Read, Write};

/// A codec that maps a byte string to a byte string.
pub trait BytesToBytesCodec: Debug + Send + Sync {
    /// The codec's registered name, as written in `zarr.json`.
    fn name(&self) -> &'static str;

    /// The full configuration to write into `zarr.json` (every key spelled out, so that
    /// readers with other defaults decode the same way). `None` means no configuration.
    fn configuration(&self) -> Option<Map<String, Value>>;

    /// Encode `input`.
    fn encode(&self, input: Vec<u8>) -> Result<Vec<u8>, CodecError>;

    /// Decode `input` into exactly `size` bytes, or at most `size` (see [`DecodedSize`]).
    /// A decoder rejects output of another size and never allocates more than the size
    /// allows (protection against decompression bombs); an exact size it may allocate up
    /// front, without touching the memory before it is written.
    fn decode(&self, input: Vec<u8>, size: DecodedSize) -> Result<Vec<u8>, CodecError>;

    /// [`BytesToBytesCodec::decode`] of bytes the caller keeps (a chunk inside a shard
    /// batch). Codecs that only read their input override this to skip the default's copy.
    fn decode_slice(&self, input: &[u8], size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        self.decode(super::try_to_vec(input)?, size)
    }

    /// Decode `input` into `out`, which is exactly the decoded size. Codecs that can
    /// decompress in place override this; the default decodes and copies. On error `out`
    /// may hold partial output.
    fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Result<(), CodecError> {
        let decoded = self.decode_slice(input, DecodedSize::Exact(out.len()))?;
        if decoded.len() != out.len() {
            return Err(CodecError::corrupt(
                self.name(),
                format!("decoded {} bytes, expected {}", decoded.len(), out.len()),
            ));
        }
        out.copy_from_slice(&decoded);
        Ok(())
    }

    /// The encoded size for a given decoded size, when it is fixed (checksums); `None` for
    /// variable-size codecs (compressors).
    fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        let _ = decoded_len;
        None
    }

    /// The most bytes this codec can encode `decoded_len` bytes into, as any writer of the
    /// format produces them: it bounds what the codec after it in a chain may decode to.
    /// The default suits compressors (their worst case adds a small fraction and a header)
    /// with room to spare; fixed-size codecs return their exact size.
    fn max_encoded_len(&self, decoded_len: usize) -> usize {
        match self.encoded_len(decoded_len) {
            Some(n) => n,
            None => decoded_len
                .saturating_add(decoded_len / 8)
                .saturating_add(1 << 16),
        }
    }
}

/// Room for the deflate stream of `len` bytes, in a zlib or gzip wrapper: the worst case
/// is a little over the input (stored blocks cost 5 bytes per 64 KiB), plus at most 18
/// bytes of header and trailer.
pub(crate) fn deflate_bound(len: usize) -> usize {
    len.saturating_add(len >> 10).saturating_add(64)
}

/// Build a bytes->bytes codec from its name and configuration.
///
/// `element_size` is the size in bytes of one element of the array the chain belongs to
/// (blosc uses it as the default `typesize`). Returns `Ok(None)` when `name` is not a
/// bytes->bytes codec, so that the caller can try the other kinds.
pub fn from_metadata(
    name: &str,
    configuration: Option<&Map<String, Value>>,
    element_size: usize,
) -> Result<Option<Box<dyn BytesToBytesCodec>>, CodecError> {
    let empty = Map::new();
    let config = configuration.unwrap_or(&empty);
    Ok(Some(match name {
        "gzip" => Box::new(gzip::GzipCodec::from_configuration(config)?),
        "zstd" => Box::new(zstd::ZstdCodec::from_configuration(config)?),
        "blosc" => Box::new(blosc::BloscCodec::from_configuration(config, element_size)?),
        "crc32c" => Box::new(crc32c::Crc32cCodec::from_configuration(config)?),
        "conditional" => Box::new(conditional::ConditionalCodec::from_configuration(
            config,
            element_size,
        )?),
        _ => match name.strip_prefix("numcodecs.") {
            Some(id) => return numcodecs::from_numcodecs(id, config, element_size),
            None => return Ok(None),
        },
    }))
}

/// Release the spare capacity of an encoder's output when it is more than a quarter of
/// the output: compressors write into a buffer sized for the worst case, and encoded
/// chunks are kept (in shards, in store caches) long enough for the waste to matter.
pub(crate) fn shrink_if_loose(out: &mut Vec<u8>) {
    if out.capacity() - out.len() > out.len() / 4 {
        out.shrink_to_fit();
    }
}

/// Encode `input` through a streaming `encoder` that writes into a `Vec` sized for the
/// worst case; `finish` ends the stream and gives the output back.
pub(crate) fn encode_stream<W: Write>(
    mut encoder: W,
    input: &[u8],
    codec: &str,
    finish: impl FnOnce(W) -> std::io::Result<Vec<u8>>,
) -> Result<Vec<u8>, CodecError> {
    let failed = |e: std::io::Error| CodecError::EncodeFailed {
        codec: codec.to_string(),
        message: e.to_string(),
    };
    encoder.write_all(input).map_err(failed)?;
    let mut out = finish(encoder).map_err(failed)?;
    shrink_if_loose(&mut out);
    Ok(out)
}

/// Decode one whole compressed stream held in `input` with `decoder` (a reader over
/// `input`): empty input, and bytes left after the stream ends (`remaining` gives them
/// back), are [`CodecError::Corrupt`]; see [`read_decoded`] for `size`.
pub(crate) fn decode_stream<'a, R: Read>(
    input: &'a [u8],
    size: DecodedSize,
    codec: &str,
    stream: &str,
    mut decoder: R,
    remaining: impl FnOnce(R) -> &'a [u8],
) -> Result<Vec<u8>, CodecError> {
    if input.is_empty() {
        return Err(CodecError::corrupt(
            codec,
            format!("empty input is not a {stream} stream"),
        ));
    }
    let out = read_decoded(&mut decoder, size, input.len().saturating_mul(4), codec)?;
    if !remaining(decoder).is_empty() {
        return Err(CodecError::corrupt(
            codec,
            format!("trailing bytes after the {stream} stream"),
        ));
    }
    Ok(out)
}

/// Read a decoder's whole output: exactly `size` bytes, or at most `size`.
///
/// The buffer starts at `size_hint` (bounded by the size) and grows as data decodes, so
/// memory follows what the input really produces: a chunk of a few corrupt bytes whose
/// metadata declares gigabytes costs a few kilobytes. Output of another size is
/// [`CodecError::Corrupt`]; so are I/O errors (corrupt or truncated streams), naming
/// `codec`.
pub(crate) fn read_decoded(
    reader: &mut impl Read,
    size: DecodedSize,
    size_hint: usize,
    codec: &str,
) -> Result<Vec<u8>, CodecError> {
    fn fill(reader: &mut impl Read, buf: &mut [u8], codec: &str) -> Result<usize, CodecError> {
        let mut filled = 0;
        while filled < buf.len() {
            match reader.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(k) => filled += k,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(CodecError::corrupt(codec, format!("invalid stream: {e}"))),
            }
        }
        Ok(filled)
    }
    let max = size.max();
    let mut out = try_vec_with_capacity(size_hint.clamp(64, 1 << 20).min(max.max(1)))?;
    loop {
        if out.len() >= max {
            // Full at the size: any further byte is too many.
            let mut probe = [0u8; 1];
            if fill(reader, &mut probe, codec)? != 0 {
                return Err(CodecError::corrupt(
                    codec,
                    format!("decoded data is longer than the expected {max} bytes"),
                ));
            }
            break;
        }
        if out.len() == out.capacity() {
            let extra = out.capacity().max(64).min(max - out.len());
            out.try_reserve_exact(extra)
                .map_err(|_| CodecError::OutOfMemory(out.len().saturating_add(extra)))?;
        }
        let start = out.len();
        let room = out.capacity().min(max);
        out.resize(room, 0);
        let got = fill(reader, &mut out[start..], codec)?;
        out.truncate(start + got);
        if out.len() < room {
            break;
        }
    }
    if !size.accepts(out.len()) {
        return Err(size.mismatch(codec, out.len()));
    }
    Ok(out)
}

/// Helpers shared by the codecs' unit tests.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::codec::CodecError;
    use serde_json::{Map, Value};

    /// A JSON object literal as a configuration map.
    pub fn config(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => panic!("not an object"),
        }
    }

    /// Bytes from a hex string (white space ignored).
    pub fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Deterministic pseudo-random bytes (xorshift), compressible when `modulo` is small.
    pub fn data(len: usize, seed: u64, modulo: u8) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x as u8) % modulo
            })
            .collect()
    }

    pub fn is_corrupt(r: Result<Vec<u8>, CodecError>) -> bool {
        matches!(r, Err(CodecError::Corrupt { .. }))
    }
}
