//! The `blosc` bytes -> bytes codec.
//!
//! Specification: <https://zarr-specs.readthedocs.io/en/latest/v3/codecs/blosc/index.html>.
//!
//! * Configuration: `{"cname", "clevel", "shuffle", "typesize", "blocksize"}`, all five always
//!   written back. On read, `cname` and `clevel` are required; `typesize` defaults to the
//!   array's element size (the spec lets an implementation choose it, as long as the choice is
//!   recorded); `blocksize` defaults to 0 (automatic); `shuffle`, which the spec also lets an
//!   implementation choose, defaults as in zarr-python: `"bitshuffle"` for 1-byte elements,
//!   `"shuffle"` otherwise.
//! * Encoding: one c-blosc1 frame (format version 2), made with the thread-safe context API.
//! * Decoding: the frame header is checked before anything is allocated; the frame must be
//!   exactly as long as its header says, and when the decoded size is known the header must
//!   agree with it. Decoding does not depend on the configuration: the frame header records the
//!   compressor, shuffle and typesize used.
//!
//! `snappy` is not compiled into the bundled c-blosc: a configuration naming it is
//! [`CodecError::Unsupported`], and so is decoding a snappy-compressed frame.

use super::BytesToBytesCodec;
use crate::codec::{CodecError, DecodedSize};
use crate::sys::blosc as ffi;
use serde_json::{Map, Value};
use std::ffi::CStr;

const NAME: &str = "blosc";

/// Size of a blosc frame header, and the most a frame can exceed its input by.
pub const MAX_OVERHEAD: usize = ffi::MAX_OVERHEAD;
/// The largest buffer c-blosc1 can compress.
pub const MAX_BUFFER_SIZE: usize = blosc_src::BLOSC_MAX_BUFFERSIZE as usize;
/// The largest compression level.
pub const MAX_CLEVEL: u8 = 9;

const FORMAT_VERSION: u8 = blosc_src::BLOSC_VERSION_FORMAT as u8;
const FLAG_MEMCPYED: u8 = blosc_src::BLOSC_MEMCPYED as u8;
/// Flag bit 3 is reserved; c-blosc1 refuses frames that set it.
const FLAG_RESERVED: u8 = 0x08;
const SNAPPY_FORMAT: u8 = blosc_src::BLOSC_SNAPPY_FORMAT as u8;

/// The compressor blosc applies to each block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BloscCompressor {
    BloscLz,
    Lz4,
    Lz4Hc,
    Snappy,
    Zlib,
    Zstd,
}

impl BloscCompressor {
    /// Every compressor the spec names.
    pub const ALL: [BloscCompressor; 6] = [
        BloscCompressor::BloscLz,
        BloscCompressor::Lz4,
        BloscCompressor::Lz4Hc,
        BloscCompressor::Snappy,
        BloscCompressor::Zlib,
        BloscCompressor::Zstd,
    ];

    /// The name used in the configuration (and by c-blosc).
    pub fn name(self) -> &'static str {
        match self {
            BloscCompressor::BloscLz => "blosclz",
            BloscCompressor::Lz4 => "lz4",
            BloscCompressor::Lz4Hc => "lz4hc",
            BloscCompressor::Snappy => "snappy",
            BloscCompressor::Zlib => "zlib",
            BloscCompressor::Zstd => "zstd",
        }
    }

    /// Parse a configuration name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }

    fn c_name(self) -> &'static CStr {
        match self {
            BloscCompressor::BloscLz => c"blosclz",
            BloscCompressor::Lz4 => c"lz4",
            BloscCompressor::Lz4Hc => c"lz4hc",
            BloscCompressor::Snappy => c"snappy",
            BloscCompressor::Zlib => c"zlib",
            BloscCompressor::Zstd => c"zstd",
        }
    }

    /// Whether the bundled c-blosc can compress with this compressor.
    pub fn is_available(self) -> bool {
        ffi::compressor_available(self.c_name())
    }
}

/// The shuffle filter applied before compression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BloscShuffle {
    NoShuffle,
    Shuffle,
    BitShuffle,
}

impl BloscShuffle {
    /// The name used in the configuration.
    pub fn name(self) -> &'static str {
        match self {
            BloscShuffle::NoShuffle => "noshuffle",
            BloscShuffle::Shuffle => "shuffle",
            BloscShuffle::BitShuffle => "bitshuffle",
        }
    }

    /// Parse a configuration name.
    pub fn from_name(name: &str) -> Option<Self> {
        [
            BloscShuffle::NoShuffle,
            BloscShuffle::Shuffle,
            BloscShuffle::BitShuffle,
        ]
        .into_iter()
        .find(|s| s.name() == name)
    }

    /// The mode chosen when the configuration has no `shuffle` (zarr-python's rule).
    pub fn default_for_element_size(element_size: usize) -> Self {
        if element_size <= 1 {
            BloscShuffle::BitShuffle
        } else {
            BloscShuffle::Shuffle
        }
    }

    fn c_mode(self) -> std::os::raw::c_int {
        match self {
            BloscShuffle::NoShuffle => blosc_src::BLOSC_NOSHUFFLE as std::os::raw::c_int,
            BloscShuffle::Shuffle => blosc_src::BLOSC_SHUFFLE as std::os::raw::c_int,
            BloscShuffle::BitShuffle => blosc_src::BLOSC_BITSHUFFLE as std::os::raw::c_int,
        }
    }
}

/// The `blosc` codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BloscCodec {
    cname: BloscCompressor,
    clevel: u8,
    shuffle: BloscShuffle,
    typesize: usize,
    blocksize: usize,
}

impl BloscCodec {
    /// A blosc codec. `typesize` must be at least 1 (c-blosc treats sizes above 255 as 1);
    /// `blocksize` 0 lets c-blosc choose.
    pub fn new(
        cname: BloscCompressor,
        clevel: u8,
        shuffle: BloscShuffle,
        typesize: usize,
        blocksize: usize,
    ) -> Result<Self, CodecError> {
        if clevel > MAX_CLEVEL {
            return Err(CodecError::config(
                NAME,
                format!("'clevel' must be an integer from 0 to {MAX_CLEVEL}, got {clevel}"),
            ));
        }
        if typesize == 0 {
            return Err(CodecError::config(
                NAME,
                "'typesize' must be a positive integer, got 0",
            ));
        }
        if !cname.is_available() {
            return Err(CodecError::Unsupported(format!(
                "blosc cname '{}' (not compiled in)",
                cname.name()
            )));
        }
        Ok(BloscCodec {
            cname,
            clevel,
            shuffle,
            typesize,
            blocksize,
        })
    }

    /// Build from the `configuration` object of the codec's metadata; `element_size` is the
    /// size of one array element, the default `typesize`.
    pub fn from_configuration(
        config: &Map<String, Value>,
        element_size: usize,
    ) -> Result<Self, CodecError> {
        const KEYS: [&str; 5] = ["cname", "clevel", "shuffle", "typesize", "blocksize"];
        if let Some(key) = config.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(CodecError::config(
                NAME,
                format!("unknown configuration key '{key}'"),
            ));
        }
        let cname = match config.get("cname") {
            None => return Err(CodecError::config(NAME, "missing required key 'cname'")),
            Some(value) => value
                .as_str()
                .and_then(BloscCompressor::from_name)
                .ok_or_else(|| {
                    CodecError::config(
                        NAME,
                        format!(
                            "'cname' must be one of \"lz4\", \"lz4hc\", \"blosclz\", \"zstd\", \
                             \"snappy\", \"zlib\", got {value}"
                        ),
                    )
                })?,
        };
        let clevel = match config.get("clevel") {
            None => return Err(CodecError::config(NAME, "missing required key 'clevel'")),
            Some(value) => value
                .as_u64()
                .filter(|&l| l <= u64::from(MAX_CLEVEL))
                .and_then(|l| u8::try_from(l).ok())
                .ok_or_else(|| {
                    CodecError::config(
                        NAME,
                        format!("'clevel' must be an integer from 0 to {MAX_CLEVEL}, got {value}"),
                    )
                })?,
        };
        let shuffle = match config.get("shuffle") {
            None => BloscShuffle::default_for_element_size(element_size),
            Some(value) => value
                .as_str()
                .and_then(BloscShuffle::from_name)
                .ok_or_else(|| {
                    CodecError::config(
                        NAME,
                        format!(
                            "'shuffle' must be one of \"noshuffle\", \"shuffle\", \
                             \"bitshuffle\", got {value}"
                        ),
                    )
                })?,
        };
        let typesize = match config.get("typesize") {
            None => element_size.max(1),
            Some(value) => value
                .as_u64()
                .filter(|&t| t >= 1)
                .and_then(|t| usize::try_from(t).ok())
                .ok_or_else(|| {
                    CodecError::config(
                        NAME,
                        format!("'typesize' must be a positive integer, got {value}"),
                    )
                })?,
        };
        let blocksize = match config.get("blocksize") {
            None => 0,
            Some(value) => value
                .as_u64()
                .and_then(|b| usize::try_from(b).ok())
                .ok_or_else(|| {
                    CodecError::config(
                        NAME,
                        format!("'blocksize' must be a non-negative integer, got {value}"),
                    )
                })?,
        };
        Self::new(cname, clevel, shuffle, typesize, blocksize)
    }

    #[cfg(test)]
    /// The compressor.
    pub fn cname(&self) -> BloscCompressor {
        self.cname
    }

    #[cfg(test)]
    /// The compression level.
    pub fn clevel(&self) -> u8 {
        self.clevel
    }

    #[cfg(test)]
    /// The shuffle mode.
    pub fn shuffle(&self) -> BloscShuffle {
        self.shuffle
    }

    #[cfg(test)]
    /// The shuffle stride in bytes.
    pub fn typesize(&self) -> usize {
        self.typesize
    }

    #[cfg(test)]
    /// The requested block size (0 = automatic).
    pub fn blocksize(&self) -> usize {
        self.blocksize
    }
}

/// Check a frame's header against its length (and the expected decoded size, if known) before
/// anything is allocated or handed to c-blosc. Returns the decoded size.
fn check_header(input: &[u8], size: DecodedSize) -> Result<usize, CodecError> {
    if input.len() < MAX_OVERHEAD {
        return Err(CodecError::corrupt(
            NAME,
            format!(
                "truncated: {} bytes is shorter than the {MAX_OVERHEAD}-byte blosc header",
                input.len()
            ),
        ));
    }
    if input[0] != FORMAT_VERSION {
        return Err(CodecError::corrupt(
            NAME,
            format!(
                "unsupported blosc format version {} (expected {FORMAT_VERSION})",
                input[0]
            ),
        ));
    }
    let flags = input[2];
    if flags & FLAG_RESERVED != 0 {
        return Err(CodecError::corrupt(
            NAME,
            format!("reserved header flag set (flags {flags:#04x})"),
        ));
    }
    let (nbytes, cbytes) = ffi::cbuffer_sizes(input);
    if cbytes > input.len() {
        return Err(CodecError::corrupt(
            NAME,
            format!(
                "truncated: header says {cbytes} compressed bytes, only {} present",
                input.len()
            ),
        ));
    }
    if cbytes < input.len() {
        return Err(CodecError::corrupt(
            NAME,
            format!(
                "{} bytes of trailing data after a {cbytes}-byte blosc frame",
                input.len() - cbytes
            ),
        ));
    }
    let validated = ffi::cbuffer_validate(input).ok_or_else(|| {
        CodecError::corrupt(
            NAME,
            format!("invalid blosc header (decoded size {nbytes}, limit {MAX_BUFFER_SIZE})"),
        )
    })?;
    debug_assert_eq!(validated, nbytes);
    if !size.accepts(nbytes) {
        return Err(CodecError::corrupt(
            NAME,
            format!(
                "header says {nbytes} decoded bytes, expected {}{}",
                if size.exact().is_some() {
                    ""
                } else {
                    "at most "
                },
                size.max()
            ),
        ));
    }
    if flags & FLAG_MEMCPYED != 0 {
        if Some(cbytes) != nbytes.checked_add(MAX_OVERHEAD) {
            return Err(CodecError::corrupt(
                NAME,
                format!("uncompressed frame of {nbytes} bytes has {cbytes} bytes"),
            ));
        }
    } else if nbytes > 0 && flags >> 5 == SNAPPY_FORMAT {
        return Err(CodecError::Unsupported(
            "blosc cname 'snappy' (not compiled in)".to_string(),
        ));
    }
    Ok(nbytes)
}

impl BytesToBytesCodec for BloscCodec {
    fn name(&self) -> &'static str {
        NAME
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        map.insert("cname".to_string(), Value::from(self.cname.name()));
        map.insert("clevel".to_string(), Value::from(self.clevel));
        map.insert("shuffle".to_string(), Value::from(self.shuffle.name()));
        map.insert("typesize".to_string(), Value::from(self.typesize));
        map.insert("blocksize".to_string(), Value::from(self.blocksize));
        Some(map)
    }

    fn encode(&self, input: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        if input.len() > MAX_BUFFER_SIZE {
            return Err(CodecError::EncodeFailed {
                codec: NAME.to_string(),
                message: format!(
                    "{} bytes is more than blosc can compress ({MAX_BUFFER_SIZE})",
                    input.len()
                ),
            });
        }
        // c-blosc stores typesize and blocksize in 32-bit ints: map them to what c-blosc would
        // use anyway (a typesize above 255 means 1; block sizes are capped) before they can
        // wrap around.
        let typesize = if self.typesize > blosc_src::BLOSC_MAX_TYPESIZE as usize {
            1
        } else {
            self.typesize
        };
        let blocksize = self.blocksize.min(blosc_src::BLOSC_MAX_BLOCKSIZE as usize);
        let mut out = ffi::compress(
            self.clevel,
            self.shuffle.c_mode(),
            typesize,
            &input,
            self.cname.c_name(),
            blocksize,
        )
        .map_err(|e| match e {
            ffi::BloscError::OutOfMemory(n) => CodecError::OutOfMemory(n),
            ffi::BloscError::Failed(message) => CodecError::EncodeFailed {
                codec: NAME.to_string(),
                message,
            },
        })?;
        super::shrink_if_loose(&mut out);
        Ok(out)
    }

    fn decode(&self, input: Vec<u8>, size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let nbytes = check_header(&input, size)?;
        ffi::decompress(&input, nbytes).map_err(|e| match e {
            ffi::BloscError::OutOfMemory(n) => CodecError::OutOfMemory(n),
            ffi::BloscError::Failed(message) => CodecError::corrupt(NAME, message),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;
    use serde_json::json;

    fn codec(
        cname: &str,
        clevel: u8,
        shuffle: &str,
        typesize: usize,
        blocksize: usize,
    ) -> BloscCodec {
        BloscCodec::from_configuration(
            &config(json!({
                "cname": cname, "clevel": clevel, "shuffle": shuffle,
                "typesize": typesize, "blocksize": blocksize
            })),
            1,
        )
        .unwrap()
    }

    fn any_codec() -> BloscCodec {
        codec("lz4", 5, "shuffle", 4, 0)
    }

    /// Little-endian i32 ramp, the kind of data shuffling helps.
    fn ramp_i32(n: usize) -> Vec<u8> {
        (0..n as i32).flat_map(|i| (i * 3).to_le_bytes()).collect()
    }

    const AVAILABLE: [&str; 5] = ["blosclz", "lz4", "lz4hc", "zlib", "zstd"];
    const SHUFFLES: [&str; 3] = ["noshuffle", "shuffle", "bitshuffle"];

    #[test]
    fn round_trip_all_compressors_and_shuffles() {
        let sizes = [0usize, 1, 7, 127, 128, 1000, 65_539, 300_000];
        for cname in AVAILABLE {
            for shuffle in SHUFFLES {
                for (typesize, blocksize) in [(1, 0), (4, 0), (8, 1000), (2, 256), (3, 0)] {
                    let c = codec(cname, 5, shuffle, typesize, blocksize);
                    for &len in &sizes {
                        let input = if len % 2 == 0 {
                            ramp_i32(len / 4 + 1)[..len].to_vec()
                        } else {
                            data(len, len as u64, 40)
                        };
                        let enc = c.encode(input.clone()).unwrap();
                        assert!(enc.len() <= len + MAX_OVERHEAD, "{cname} {shuffle} {len}");
                        assert_eq!(enc[0], 2, "blosc format version");
                        let dec = c.decode(enc.clone(), DecodedSize::Exact(len)).unwrap();
                        assert!(
                            dec == input,
                            "{cname} {shuffle} {typesize} {blocksize} {len}"
                        );
                        assert_eq!(
                            c.decode(enc, DecodedSize::AtMost(usize::MAX)).unwrap(),
                            input
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn round_trip_levels_and_large_typesize() {
        let input = ramp_i32(50_000);
        for clevel in 0..=9 {
            let c = codec("zstd", clevel, "shuffle", 4, 0);
            let enc = c.encode(input.clone()).unwrap();
            if clevel == 0 {
                assert_eq!(enc.len(), input.len() + MAX_OVERHEAD, "clevel 0 stores");
            } else {
                assert!(enc.len() < input.len() / 4, "clevel {clevel}");
            }
            assert_eq!(
                c.decode(enc, DecodedSize::Exact(input.len())).unwrap(),
                input
            );
        }
        // c-blosc treats a typesize above 255 as 1; it must still round-trip, also for sizes
        // that do not fit c-blosc's 32-bit int.
        for typesize in [256, 1000, 1 << 31, (1 << 32) + 4, usize::MAX] {
            for shuffle in SHUFFLES {
                let c = codec("lz4", 5, shuffle, typesize, 0);
                let enc = c.encode(input.clone()).unwrap();
                assert_eq!(enc[3], 1, "typesize byte for {typesize}");
                assert_eq!(
                    c.decode(enc, DecodedSize::Exact(input.len())).unwrap(),
                    input
                );
            }
        }
        // A block size beyond what c-blosc supports is clamped, not wrapped.
        let c = codec("lz4", 5, "shuffle", 4, usize::MAX);
        let enc = c.encode(input.clone()).unwrap();
        assert_eq!(
            c.decode(enc, DecodedSize::Exact(input.len())).unwrap(),
            input
        );
        let c = codec("lz4", 5, "shuffle", 4, (1usize << 32) + 4096);
        let enc = c.encode(input.clone()).unwrap();
        assert_eq!(
            c.decode(enc, DecodedSize::Exact(input.len())).unwrap(),
            input
        );
    }

    /// Frames written by numcodecs 0.16.6 (c-blosc 1.21.7.dev):
    /// `Blosc(cname, clevel, shuffle, typesize, blocksize).encode(data)`.
    fn numcodecs_vectors() -> Vec<(&'static str, Vec<u8>, Vec<u8>)> {
        let tile_i32: Vec<u8> = (0..64)
            .flat_map(|_| (0..8i32).flat_map(|i| i.to_le_bytes()))
            .collect();
        let ramp_u16: Vec<u8> = (0..512u16).flat_map(|i| i.to_le_bytes()).collect();
        let tile_f64: Vec<u8> = (0..64)
            .flat_map(|_| (0..4).flat_map(|i| (f64::from(i) * 0.5).to_le_bytes()))
            .collect();
        let small_i32: Vec<u8> = (0..8i32).flat_map(|i| i.to_le_bytes()).collect();
        vec![
            (
                "lz4 clevel 5 shuffle typesize 4",
                tile_i32.clone(),
                hex(concat!(
                    "02012104000800000008000064000000140000001c000000ff01000102030405",
                    "060700010203040506071000ffd95003040506070c0000001f000100ffe85000",
                    "000000000c0000001f000100ffe85000000000000c0000001f000100ffe85000",
                    "00000000"
                )),
            ),
            (
                "zstd clevel 3 bitshuffle typesize 2",
                ramp_u16,
                hex(concat!(
                    "02019402000400000004000052000000140000003a00000028b52ffd60000385",
                    "010068aaccf000ff00ffff00ff00ff0010a0b0f6011083bc01bc540d4d1d1d3a",
                    "0c3193fc236e08d932570a2365099188a47f"
                )),
            ),
            (
                "zlib clevel 9 noshuffle typesize 1",
                b"zarr blosc zlib ".repeat(40),
                hex(concat!(
                    "02016001800200008002000037000000140000001f00000078daab4a2c2a5248",
                    "cac92f4e56a8cac94c52a81ae58ff2e9c807003e49eb79"
                )),
            ),
            (
                "blosclz clevel 5 shuffle typesize 8 blocksize 256",
                tile_f64,
                hex(concat!(
                    "02011108000800000001000028010000300000004f0000006e0000008d000000",
                    "ac000000cb000000ea000000090100001b0000002300000000e0b40303e0f0f8",
                    "00e01303033f3f3f00e01003013f3f1b0000002300000000e0b40303e0f0f800",
                    "e01303033f3f3f00e01003013f3f1b0000002300000000e0b40303e0f0f800e0",
                    "1303033f3f3f00e01003013f3f1b0000002300000000e0b40303e0f0f800e013",
                    "03033f3f3f00e01003013f3f1b0000002300000000e0b40303e0f0f800e01303",
                    "033f3f3f00e01003013f3f1b0000002300000000e0b40303e0f0f800e0130303",
                    "3f3f3f00e01003013f3f1b0000002300000000e0b40303e0f0f800e01303033f",
                    "3f3f00e01003013f3f1b0000002300000000e0b40303e0f0f800e01303033f3f",
                    "3f00e01003013f3f"
                )),
            ),
            (
                "lz4 clevel 0 (memcpy) shuffle typesize 4",
                small_i32,
                hex(concat!(
                    "0201330420000000200000003000000000000000010000000200000003000000",
                    "04000000050000000600000007000000"
                )),
            ),
            (
                "zstd clevel 5 empty",
                Vec::new(),
                hex("02019304000000000100000010000000"),
            ),
        ]
    }

    #[test]
    fn decodes_numcodecs_frames() {
        for (what, want, enc) in numcodecs_vectors() {
            let c = any_codec();
            assert_eq!(
                c.decode(enc.clone(), DecodedSize::Exact(want.len()))
                    .unwrap(),
                want,
                "{what}"
            );
            assert_eq!(
                c.decode(enc, DecodedSize::AtMost(usize::MAX)).unwrap(),
                want,
                "{what}"
            );
        }
    }

    #[test]
    fn encodes_like_numcodecs() {
        // Frames that depend only on c-blosc itself (blosclz, memcpy) are byte-identical.
        let vectors = numcodecs_vectors();
        let c = codec("blosclz", 5, "shuffle", 8, 256);
        assert_eq!(c.encode(vectors[3].1.clone()).unwrap(), vectors[3].2);
        let c = codec("lz4", 0, "shuffle", 4, 0);
        assert_eq!(c.encode(vectors[4].1.clone()).unwrap(), vectors[4].2);
        let c = codec("zstd", 5, "shuffle", 4, 0);
        assert_eq!(c.encode(Vec::new()).unwrap(), vectors[5].2);
        let c = codec("lz4", 5, "shuffle", 4, 0);
        assert_eq!(c.encode(vectors[0].1.clone()).unwrap(), vectors[0].2);
    }

    #[test]
    fn configuration_round_trip() {
        let c = codec("zstd", 7, "bitshuffle", 2, 4096);
        assert_eq!(c.name(), "blosc");
        let conf = c.configuration().unwrap();
        assert_eq!(
            serde_json::to_string(&conf).unwrap(),
            r#"{"cname":"zstd","clevel":7,"shuffle":"bitshuffle","typesize":2,"blocksize":4096}"#
        );
        assert_eq!(BloscCodec::from_configuration(&conf, 8).unwrap(), c);
        assert_eq!(c.encoded_len(10), None);
        assert_eq!(
            (
                c.cname(),
                c.clevel(),
                c.shuffle(),
                c.typesize(),
                c.blocksize()
            ),
            (BloscCompressor::Zstd, 7, BloscShuffle::BitShuffle, 2, 4096)
        );
    }

    #[test]
    fn configuration_defaults() {
        // typesize from the element size, blocksize 0, shuffle as zarr-python chooses.
        let c = BloscCodec::from_configuration(&config(json!({"cname": "lz4", "clevel": 1})), 8)
            .unwrap();
        assert_eq!(
            Value::Object(c.configuration().unwrap()),
            json!({"cname": "lz4", "clevel": 1, "shuffle": "shuffle", "typesize": 8, "blocksize": 0})
        );
        let c = BloscCodec::from_configuration(&config(json!({"cname": "lz4", "clevel": 1})), 1)
            .unwrap();
        assert_eq!((c.shuffle(), c.typesize()), (BloscShuffle::BitShuffle, 1));
        // An element size of 0 (no fixed size) still gives a valid typesize.
        let c = BloscCodec::from_configuration(&config(json!({"cname": "lz4", "clevel": 1})), 0)
            .unwrap();
        assert_eq!(c.typesize(), 1);
        // An explicit shuffle or typesize wins over the element size.
        let c = BloscCodec::from_configuration(
            &config(json!({"cname": "lz4", "clevel": 1, "shuffle": "noshuffle", "typesize": 2})),
            8,
        )
        .unwrap();
        assert_eq!((c.shuffle(), c.typesize()), (BloscShuffle::NoShuffle, 2));
    }

    #[test]
    fn rejects_bad_configurations() {
        let base = json!({"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0});
        let with = |key: &str, value: Value| {
            let mut m = config(base.clone());
            m.insert(key.to_string(), value);
            m
        };
        let without = |key: &str| {
            let mut m = config(base.clone());
            m.remove(key);
            m
        };
        let bad = [
            without("cname"),
            without("clevel"),
            with("cname", json!("LZ4")),
            with("cname", json!("lzma")),
            with("cname", json!(1)),
            with("clevel", json!(10)),
            with("clevel", json!(-1)),
            with("clevel", json!(5.0)),
            with("clevel", json!("5")),
            with("shuffle", json!(1)),
            with("shuffle", json!("byte")),
            with("shuffle", json!(null)),
            with("typesize", json!(0)),
            with("typesize", json!(-4)),
            with("typesize", json!(4.5)),
            with("typesize", json!(null)),
            with("blocksize", json!(-1)),
            with("blocksize", json!(1.5)),
            with("blocksize", json!("0")),
            with("extra", json!(0)),
            with("type_size", json!(4)),
        ];
        for m in bad {
            let r = BloscCodec::from_configuration(&m, 4);
            assert!(
                matches!(r, Err(CodecError::InvalidConfiguration { .. })),
                "{m:?} gave {r:?}"
            );
        }
        assert!(BloscCodec::new(BloscCompressor::Lz4, 10, BloscShuffle::Shuffle, 4, 0).is_err());
        assert!(BloscCodec::new(BloscCompressor::Lz4, 9, BloscShuffle::Shuffle, 0, 0).is_err());
    }

    #[test]
    fn snappy_is_unsupported_not_a_crash() {
        assert!(!BloscCompressor::Snappy.is_available());
        for name in AVAILABLE {
            assert!(
                BloscCompressor::from_name(name).unwrap().is_available(),
                "{name}"
            );
        }
        let r = BloscCodec::from_configuration(
            &config(
                json!({"cname": "snappy", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}),
            ),
            4,
        );
        match r {
            Err(CodecError::Unsupported(m)) => {
                assert_eq!(m, "blosc cname 'snappy' (not compiled in)")
            }
            other => panic!("{other:?}"),
        }
        // A snappy-compressed frame (lz4 frame relabelled: compressor format 2 in flag bits
        // 5-7) is reported as unsupported rather than as corrupt.
        let (_, _, mut enc) = numcodecs_vectors().swap_remove(0);
        enc[2] = (enc[2] & 0x1f) | (2 << 5);
        match any_codec().decode(enc, DecodedSize::Exact(2048)) {
            Err(CodecError::Unsupported(m)) => assert!(m.contains("snappy"), "{m}"),
            other => panic!("{other:?}"),
        }
        // An uncompressed (memcpy) frame labelled snappy needs no snappy to decode.
        let (_, want, mut enc) = numcodecs_vectors().swap_remove(4);
        enc[2] = (enc[2] & 0x1f) | (2 << 5);
        assert_eq!(
            any_codec().decode(enc, DecodedSize::Exact(32)).unwrap(),
            want
        );
    }

    #[test]
    fn rejects_truncated_and_trailing_data() {
        let c = codec("zstd", 5, "shuffle", 4, 4096);
        let input = ramp_i32(10_000);
        let enc = c.encode(input.clone()).unwrap();
        for cut in (0..64).chain((64..enc.len()).step_by(13)) {
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
        for tail in [&b"\0"[..], &b"garbage"[..]] {
            let mut t = enc.clone();
            t.extend_from_slice(tail);
            assert!(is_corrupt(
                c.decode(t.clone(), DecodedSize::Exact(input.len()))
            ));
            assert!(is_corrupt(c.decode(t, DecodedSize::AtMost(usize::MAX))));
        }
        // Two concatenated frames are not a blosc frame either.
        let mut two = enc.clone();
        two.extend_from_slice(&enc);
        assert!(is_corrupt(c.decode(two, DecodedSize::AtMost(usize::MAX))));
    }

    #[test]
    fn rejects_decoded_len_mismatch_before_allocating() {
        let c = any_codec();
        let enc = c.encode(ramp_i32(100)).unwrap();
        for wrong in [0, 399, 401, 1 << 30] {
            assert!(
                is_corrupt(c.decode(enc.clone(), DecodedSize::Exact(wrong))),
                "{wrong}"
            );
        }
        // A header claiming ~2 GiB: rejected from the header alone when 64 bytes are expected.
        let mut bomb = enc.clone();
        bomb[4..8].copy_from_slice(&0x7fff_ff00u32.to_le_bytes());
        assert!(is_corrupt(c.decode(bomb, DecodedSize::Exact(64))));
        // Over c-blosc's limit, or a negative int32: rejected even without a decoded size.
        for nbytes in [0x7fff_fff0u32, 0x8000_0000, 0xffff_ffff] {
            let mut bad = enc.clone();
            bad[4..8].copy_from_slice(&nbytes.to_le_bytes());
            assert!(
                is_corrupt(c.decode(bad, DecodedSize::AtMost(usize::MAX))),
                "{nbytes:#x}"
            );
        }
    }

    #[test]
    fn rejects_bad_headers() {
        let c = any_codec();
        let (_, want, enc) = numcodecs_vectors().swap_remove(0);
        // Unknown format version.
        for version in [0u8, 1, 3, 255] {
            let mut bad = enc.clone();
            bad[0] = version;
            assert!(
                is_corrupt(c.decode(bad, DecodedSize::Exact(want.len()))),
                "version {version}"
            );
        }
        // Reserved flag.
        let mut bad = enc.clone();
        bad[2] |= 0x08;
        assert!(is_corrupt(c.decode(bad, DecodedSize::Exact(want.len()))));
        // Unknown compressor format (7) and compressor version.
        let mut bad = enc.clone();
        bad[2] |= 7 << 5;
        assert!(is_corrupt(c.decode(bad, DecodedSize::Exact(want.len()))));
        let mut bad = enc.clone();
        bad[1] = 9;
        assert!(is_corrupt(c.decode(bad, DecodedSize::Exact(want.len()))));
        // Typesize 0 and block sizes 0 / larger than the data.
        for (pos, value) in [(3usize, 0u32), (8, 0), (8, 1 << 20)] {
            let mut bad = enc.clone();
            if pos == 3 {
                bad[3] = value as u8;
            } else {
                bad[pos..pos + 4].copy_from_slice(&value.to_le_bytes());
            }
            assert!(
                is_corrupt(c.decode(bad, DecodedSize::Exact(want.len()))),
                "{pos} {value}"
            );
        }
        // A memcpy frame whose size does not match its header.
        let (_, want, enc) = numcodecs_vectors().swap_remove(4);
        let mut bad = enc.clone();
        bad[4..8].copy_from_slice(&31u32.to_le_bytes());
        assert!(is_corrupt(c.decode(bad, DecodedSize::Exact(31))));
        let _ = want;
    }

    #[test]
    fn garbage_never_panics() {
        let c = any_codec();
        for seed in 1..500u64 {
            let len = (seed as usize * 7) % 300;
            let mut junk = data(len, seed, 255);
            if len >= 16 && seed % 2 == 0 {
                // A plausible header, so that c-blosc itself gets to look at the body.
                junk[0] = 2;
                junk[1] = 1;
                junk[12..16].copy_from_slice(&(len as u32).to_le_bytes());
                if seed % 4 == 0 {
                    junk[4..8].copy_from_slice(&((seed as u32 * 37) % 4096).to_le_bytes());
                    junk[8..12].copy_from_slice(&((seed as u32 * 11) % 1024).to_le_bytes());
                }
            }
            let _ = c.decode(junk.clone(), DecodedSize::AtMost(usize::MAX));
            let _ = c.decode(junk, DecodedSize::Exact(len));
        }
    }

    #[test]
    fn bit_flips_never_crash() {
        let c = codec("lz4", 5, "shuffle", 4, 512);
        let inputs = [ramp_i32(2000), data(3000, 5, 7)];
        for input in inputs {
            for cname in AVAILABLE {
                for shuffle in SHUFFLES {
                    let enc = codec(cname, 5, shuffle, 4, 512)
                        .encode(input.clone())
                        .unwrap();
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
        }
    }

    #[test]
    fn concurrent_use_is_safe() {
        let c = codec("zstd", 5, "bitshuffle", 4, 0);
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let c = &c;
                s.spawn(move || {
                    for i in 0..20 {
                        let input = data(10_000 + i * 100, t * 100 + i as u64, 30);
                        let enc = c.encode(input.clone()).unwrap();
                        assert_eq!(
                            c.decode(enc, DecodedSize::Exact(input.len())).unwrap(),
                            input
                        );
                    }
                });
            }
        });
    }
}
