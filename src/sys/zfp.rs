//! Calls into zfp's C library (the `zfp` and `numcodecs.zfpy` codecs).
//!
//! One [`Stream`] describes a chunk (its values' scalar type and zfp dimensions) and the
//! compression parameters; [`compress`] and [`decompress`] run zfp on it with every object
//! allocated, checked and freed here. zfp keeps no global state: concurrent calls are safe.

use std::ffi::c_void;
use zfp_sys as sys;

/// A compression mode of zfp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    Reversible,
    FixedRate(f64),
    FixedPrecision(u32),
    FixedAccuracy(f64),
    Expert {
        minbits: u32,
        maxbits: u32,
        maxprec: u32,
        minexp: i32,
    },
}

/// The four scalar types zfp compresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    Int32,
    Int64,
    Float,
    Double,
}

impl Scalar {
    fn zfp_type(self) -> sys::zfp_type {
        match self {
            Scalar::Int32 => sys::zfp_type_zfp_type_int32,
            Scalar::Int64 => sys::zfp_type_zfp_type_int64,
            Scalar::Float => sys::zfp_type_zfp_type_float,
            Scalar::Double => sys::zfp_type_zfp_type_double,
        }
    }

    /// Bytes of one value.
    pub fn size(self) -> usize {
        match self {
            Scalar::Int32 | Scalar::Float => 4,
            Scalar::Int64 | Scalar::Double => 8,
        }
    }
}

/// What is compressed, and how.
#[derive(Clone, Debug)]
pub struct Stream {
    pub mode: Mode,
    pub scalar: Scalar,
    /// zfp's dimensions (nx first: the fastest varying), 1 to 4 of them.
    pub dims: Vec<usize>,
    /// The dimensions fixed-rate mode counts its bits per block of.
    pub rate_dims: u32,
    /// Whether a full zfp header precedes the stream (numcodecs' zfpy writes one).
    pub header: bool,
}

/// Why zfp failed.
#[derive(Debug)]
pub enum ZfpError {
    OutOfMemory(usize),
    InvalidParameters(String),
    Failed(String),
    Corrupt(String),
}

/// Compress `values` (native-endian values of `stream.scalar`, as many as the dimensions
/// hold).
pub fn compress(stream: &Stream, values: &[u8]) -> Result<Vec<u8>, ZfpError> {
    let count = value_count(stream)?;
    if values.len() != count * stream.scalar.size() {
        return Err(ZfpError::Failed(format!(
            "{} bytes of values for {count} values of {} bytes",
            values.len(),
            stream.scalar.size()
        )));
    }
    let mut session = Session::new(stream)?;
    // zfp wants the values word-aligned.
    let mut value_words = word_buffer(values.len())?;
    copy_into_words(values, &mut value_words);
    let mut out_words = word_buffer(session.maximum_size())?;
    session.attach(&mut out_words)?;
    // SAFETY: the field describes `count` values of the stream's scalar type (checked
    // above against `values`, copied into `value_words`, which outlives the calls); the
    // stream writes into `out_words`, sized by zfp_stream_maximum_size plus a spare word.
    let size = unsafe {
        sys::zfp_field_set_pointer(session.field, value_words.as_mut_ptr().cast::<c_void>());
        let header_ok = !stream.header
            || sys::zfp_write_header(session.stream, session.field, sys::ZFP_HEADER_FULL) != 0;
        let size = if header_ok {
            sys::zfp_compress(session.stream, session.field)
        } else {
            0
        };
        sys::zfp_field_set_pointer(session.field, std::ptr::null_mut());
        size
    };
    if size == 0 {
        return Err(ZfpError::Failed("zfp_compress failed".into()));
    }
    drop(session);
    let mut out = words_as_bytes(&out_words);
    out.truncate(size);
    Ok(out)
}

/// Decompress `encoded` into native-endian values of `stream.scalar`. With a header, it
/// must describe the same scalar type and dimensions; zfp never reads past `encoded` (it
/// reads a zero-padded copy sized for the largest stream the parameters allow, and a
/// stream that needed bytes past `encoded` is reported truncated).
pub fn decompress(stream: &Stream, encoded: &[u8]) -> Result<Vec<u8>, ZfpError> {
    let count = value_count(stream)?;
    // zfp spends at least one bit on each block of 4^d values: a stream too short to hold
    // the chunk's blocks is corrupt before the chunk's memory is allocated.
    let block = 4usize.pow(stream.dims.len() as u32);
    if count / block > encoded.len().saturating_mul(8) {
        return Err(ZfpError::Corrupt(format!(
            "{} bytes of zfp data cannot hold {count} values",
            encoded.len()
        )));
    }
    let mut session = Session::new(stream)?;
    let mut input = word_buffer(encoded.len().max(session.maximum_size()) + 64)?;
    copy_into_words(encoded, &mut input);
    session.attach(&mut input)?;
    if stream.header {
        let read = session.read_header(stream)?;
        // The header's parameters rule now: make the buffer hold the largest stream they
        // allow, and read the header again from the new buffer.
        let needed = session.maximum_size() + 64;
        if needed > input.len() * 8 {
            let mut bigger = word_buffer(needed)?;
            bigger[..input.len()].copy_from_slice(&input);
            input = bigger;
            session.attach(&mut input)?;
            if session.read_header(stream)? != read {
                return Err(ZfpError::Corrupt(
                    "zfp header changed on a second read".into(),
                ));
            }
        }
    }
    let mut values = word_buffer(count * stream.scalar.size())?;
    // SAFETY: the field describes exactly `count` values of the scalar type, and `values`
    // holds at least that many bytes; the stream reads from `input`, padded beyond the
    // largest stream the parameters allow.
    let consumed = unsafe {
        sys::zfp_field_set_pointer(session.field, values.as_mut_ptr().cast::<c_void>());
        let consumed = sys::zfp_decompress(session.stream, session.field);
        sys::zfp_field_set_pointer(session.field, std::ptr::null_mut());
        consumed
    };
    drop(session);
    if consumed == 0 {
        return Err(ZfpError::Corrupt("zfp_decompress failed".into()));
    }
    if consumed > encoded.len() {
        return Err(ZfpError::Corrupt(format!(
            "the stream is truncated: decoding needs {consumed} bytes, the chunk has {}",
            encoded.len()
        )));
    }
    let mut bytes = words_as_bytes(&values);
    bytes.truncate(count * stream.scalar.size());
    Ok(bytes)
}

fn value_count(stream: &Stream) -> Result<usize, ZfpError> {
    if stream.dims.is_empty() || stream.dims.len() > 4 {
        return Err(ZfpError::InvalidParameters(format!(
            "zfp compresses 1 to 4 dimensions, not {}",
            stream.dims.len()
        )));
    }
    stream
        .dims
        .iter()
        .try_fold(1usize, |a, n| a.checked_mul(*n))
        .ok_or(ZfpError::OutOfMemory(usize::MAX))
}

/// The zfp objects of one call, freed on drop.
struct Session {
    stream: *mut sys::zfp_stream,
    field: *mut sys::zfp_field,
    bits: *mut sys::bitstream,
}

impl Drop for Session {
    fn drop(&mut self) {
        // SAFETY: each pointer is null or was returned by the matching zfp allocator and is
        // freed exactly once, here.
        unsafe {
            if !self.stream.is_null() {
                sys::zfp_stream_close(self.stream);
            }
            if !self.field.is_null() {
                sys::zfp_field_free(self.field);
            }
            if !self.bits.is_null() {
                sys::stream_close(self.bits);
            }
        }
    }
}

impl Session {
    /// A zfp stream with `stream`'s parameters, and a field of its dimensions with no data.
    fn new(stream: &Stream) -> Result<Session, ZfpError> {
        let zfp_type = stream.scalar.zfp_type();
        let dims = &stream.dims;
        // SAFETY: zfp_stream_open(NULL) and zfp_field_alloc() allocate or return NULL; the
        // setters only write into the objects just allocated (checked non-null).
        unsafe {
            let session = Session {
                stream: sys::zfp_stream_open(std::ptr::null_mut()),
                field: sys::zfp_field_alloc(),
                bits: std::ptr::null_mut(),
            };
            if session.stream.is_null() || session.field.is_null() {
                return Err(ZfpError::OutOfMemory(0));
            }
            let field = &mut *session.field;
            field.type_ = zfp_type;
            field.nx = dims.first().copied().unwrap_or(0);
            field.ny = dims.get(1).copied().unwrap_or(0);
            field.nz = dims.get(2).copied().unwrap_or(0);
            field.nw = dims.get(3).copied().unwrap_or(0);
            match stream.mode {
                Mode::Reversible => sys::zfp_stream_set_reversible(session.stream),
                Mode::FixedRate(rate) => {
                    sys::zfp_stream_set_rate(session.stream, rate, zfp_type, stream.rate_dims, 0);
                }
                Mode::FixedPrecision(precision) => {
                    sys::zfp_stream_set_precision(session.stream, precision);
                }
                Mode::FixedAccuracy(tolerance) => {
                    sys::zfp_stream_set_accuracy(session.stream, tolerance);
                }
                Mode::Expert {
                    minbits,
                    maxbits,
                    maxprec,
                    minexp,
                } => {
                    if sys::zfp_stream_set_params(session.stream, minbits, maxbits, maxprec, minexp)
                        == 0
                    {
                        return Err(ZfpError::InvalidParameters(
                            "invalid expert parameters (zfp_stream_set_params refused them)".into(),
                        ));
                    }
                }
            }
            Ok(session)
        }
    }

    /// The largest stream the parameters allow for the field, header included.
    fn maximum_size(&self) -> usize {
        // SAFETY: both objects are live; the function only reads them.
        unsafe { sys::zfp_stream_maximum_size(self.stream, self.field) }
    }

    /// Attach `words` (zero-padded) as the stream's bit stream, at its start.
    fn attach(&mut self, words: &mut [u64]) -> Result<(), ZfpError> {
        // SAFETY: callers keep `words` alive until the session is dropped or attached to
        // another buffer, and its length is passed in bytes.
        unsafe {
            if !self.bits.is_null() {
                sys::stream_close(self.bits);
            }
            self.bits = sys::stream_open(words.as_mut_ptr().cast::<c_void>(), words.len() * 8);
            if self.bits.is_null() {
                return Err(ZfpError::OutOfMemory(words.len() * 8));
            }
            sys::zfp_stream_set_bit_stream(self.stream, self.bits);
            sys::zfp_stream_rewind(self.stream);
        }
        Ok(())
    }

    /// Read a full header, which must describe `stream`'s scalar type and dimensions; the
    /// stream's parameters become the header's. Returns the header's size in bits.
    fn read_header(&mut self, stream: &Stream) -> Result<usize, ZfpError> {
        let dims = &stream.dims;
        // SAFETY: the field and stream are live; zfp_read_header reads at most the header's
        // bits from the padded buffer and writes into the stream and the temporary field,
        // which is freed before returning.
        let (read, same) = unsafe {
            let header = sys::zfp_field_alloc();
            if header.is_null() {
                return Err(ZfpError::OutOfMemory(0));
            }
            let read = sys::zfp_read_header(self.stream, header, sys::ZFP_HEADER_FULL);
            let h = &*header;
            let same = h.type_ == stream.scalar.zfp_type()
                && [h.nx, h.ny, h.nz, h.nw]
                    == [
                        dims.first().copied().unwrap_or(0),
                        dims.get(1).copied().unwrap_or(0),
                        dims.get(2).copied().unwrap_or(0),
                        dims.get(3).copied().unwrap_or(0),
                    ];
            sys::zfp_field_free(header);
            (read, same)
        };
        if read == 0 {
            return Err(ZfpError::Corrupt("no valid zfp header".into()));
        }
        if !same {
            return Err(ZfpError::Corrupt(format!(
                "the zfp header describes another array than the chunk ({:?} of {:?})",
                stream.dims, stream.scalar
            )));
        }
        Ok(read)
    }
}

/// A zeroed, word-aligned buffer of at least `bytes` bytes plus one spare word.
fn word_buffer(bytes: usize) -> Result<Vec<u64>, ZfpError> {
    let words = bytes
        .div_ceil(8)
        .checked_add(1)
        .ok_or(ZfpError::OutOfMemory(bytes))?;
    let mut buffer = Vec::new();
    buffer
        .try_reserve_exact(words)
        .map_err(|_| ZfpError::OutOfMemory(bytes))?;
    buffer.resize(words, 0u64);
    Ok(buffer)
}

/// Copy bytes into the start of a word buffer (native-endian words).
fn copy_into_words(bytes: &[u8], words: &mut [u64]) {
    for (w, b) in words.iter_mut().zip(bytes.chunks(8)) {
        let mut word = [0u8; 8];
        word[..b.len()].copy_from_slice(b);
        *w = u64::from_ne_bytes(word);
    }
}

fn words_as_bytes(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_ne_bytes()).collect()
}
