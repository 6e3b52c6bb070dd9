//! The byte format of the `vlen-utf8` and `vlen-bytes` codecs (and numcodecs' `vlen-utf8` /
//! `vlen-bytes` of Zarr v2 `|O` arrays), as pure functions over Arrow-style buffers: the
//! elements of a chunk in C order are `data[offsets[i]..offsets[i + 1]]`.
//!
//! Encoded form: a `u32` little-endian element count, then for each element its length as
//! `u32` little-endian and its bytes.
//!
//! Not wired into the array layer yet (variable-length elements need their own read and
//! write paths); these functions are complete and checked on their own.
#![allow(dead_code)] // until the array layer reads and writes variable-length elements

use super::CodecError;

/// Which codec: UTF-8 text (validated both ways) or arbitrary bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VlenKind {
    Utf8,
    Bytes,
}

impl VlenKind {
    fn name(self) -> &'static str {
        match self {
            VlenKind::Utf8 => "vlen-utf8",
            VlenKind::Bytes => "vlen-bytes",
        }
    }
}

/// Decoded elements: element `i` is `data[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VlenElements {
    pub offsets: Vec<u64>,
    pub data: Vec<u8>,
}

impl VlenElements {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of element `i`.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let start = usize::try_from(*self.offsets.get(i)?).ok()?;
        let end = usize::try_from(*self.offsets.get(i + 1)?).ok()?;
        self.data.get(start..end)
    }
}

/// Encode the elements given by `offsets` (n + 1 non-decreasing values, the last at most
/// `data.len()`) and `data`. Fails on malformed offsets, on more than 2^32 - 1 elements or
/// an element longer than 2^32 - 1 bytes, and (utf8) on text that is not UTF-8.
pub fn encode(kind: VlenKind, offsets: &[u64], data: &[u8]) -> Result<Vec<u8>, CodecError> {
    let invalid = |message: String| CodecError::EncodeFailed {
        codec: kind.name().into(),
        message,
    };
    let count = offsets.len().saturating_sub(1);
    let count32 = u32::try_from(count)
        .map_err(|_| invalid(format!("{count} elements do not fit a u32 count")))?;
    let mut total = 4usize;
    for (i, pair) in offsets.windows(2).enumerate() {
        let (start, end) = (pair[0], pair[1]);
        if end < start || end > data.len() as u64 {
            return Err(invalid(format!(
                "offsets {start}..{end} of element {i} are not within the {} data bytes",
                data.len()
            )));
        }
        let len = u32::try_from(end - start)
            .map_err(|_| invalid(format!("element {i} is longer than 2^32 - 1 bytes")))?;
        if kind == VlenKind::Utf8
            && std::str::from_utf8(&data[start as usize..end as usize]).is_err()
        {
            return Err(invalid(format!("element {i} is not valid UTF-8")));
        }
        total = total
            .checked_add(4 + len as usize)
            .ok_or(CodecError::OutOfMemory(usize::MAX))?;
    }
    let mut out = super::try_vec_with_capacity(total)?;
    out.extend_from_slice(&count32.to_le_bytes());
    for pair in offsets.windows(2) {
        let bytes = &data[pair[0] as usize..pair[1] as usize];
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(bytes);
    }
    Ok(out)
}

/// Decode a chunk that must hold exactly `expected_count` elements. Every length is checked
/// against the bytes that remain, bytes after the last element are an error, and (utf8)
/// every element must be UTF-8. Allocations are bounded by the input's size.
pub fn decode(
    kind: VlenKind,
    encoded: &[u8],
    expected_count: u64,
) -> Result<VlenElements, CodecError> {
    let corrupt = |message: String| CodecError::corrupt(kind.name(), message);
    let header: [u8; 4] = encoded
        .get(..4)
        .and_then(|h| h.try_into().ok())
        .ok_or_else(|| {
            corrupt(format!(
                "{} bytes cannot hold the element count",
                encoded.len()
            ))
        })?;
    let count = u32::from_le_bytes(header) as u64;
    if count != expected_count {
        return Err(corrupt(format!(
            "the chunk holds {count} elements but {expected_count} are expected"
        )));
    }
    // Each element takes at least its 4-byte length: a count the input cannot hold is
    // corrupt before anything is allocated for it.
    let rest = &encoded[4..];
    if count > (rest.len() / 4) as u64 {
        return Err(corrupt(format!(
            "{count} elements cannot fit in {} bytes",
            rest.len()
        )));
    }
    let mut offsets = Vec::new();
    offsets
        .try_reserve_exact(count as usize + 1)
        .map_err(|_| CodecError::OutOfMemory((count as usize + 1) * 8))?;
    let mut data = super::try_vec_with_capacity(rest.len() - 4 * count as usize)?;
    offsets.push(0u64);
    let mut at = 0usize;
    for i in 0..count {
        let len_bytes: [u8; 4] = rest
            .get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| corrupt(format!("element {i}: its length is cut off")))?;
        at += 4;
        let len = u32::from_le_bytes(len_bytes) as usize;
        let bytes = rest.get(at..at.saturating_add(len)).ok_or_else(|| {
            corrupt(format!(
                "element {i} claims {len} bytes but {} remain",
                rest.len() - at
            ))
        })?;
        if kind == VlenKind::Utf8 && std::str::from_utf8(bytes).is_err() {
            return Err(corrupt(format!("element {i} is not valid UTF-8")));
        }
        at += len;
        data.extend_from_slice(bytes);
        offsets.push(data.len() as u64);
    }
    if at != rest.len() {
        return Err(corrupt(format!(
            "{} bytes follow the last element",
            rest.len() - at
        )));
    }
    Ok(VlenElements { offsets, data })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_exact_bytes() {
        let data = "hello\u{00e9}t\u{1f600}".as_bytes();
        // "hello", "" and "\u{00e9}t\u{1f600}".
        let offsets_utf8 = [0u64, 5, 5, data.len() as u64];
        let encoded = encode(VlenKind::Utf8, &offsets_utf8, data).unwrap();
        assert_eq!(&encoded[..4], &3u32.to_le_bytes());
        assert_eq!(&encoded[4..8], &5u32.to_le_bytes());
        assert_eq!(&encoded[8..13], b"hello");
        assert_eq!(&encoded[13..17], &0u32.to_le_bytes());
        let decoded = decode(VlenKind::Utf8, &encoded, 3).unwrap();
        assert_eq!(decoded.offsets, offsets_utf8);
        assert_eq!(decoded.data, data);
        assert_eq!(decoded.get(2).unwrap(), "\u{00e9}t\u{1f600}".as_bytes());
        // Bytes need not be UTF-8; text must be.
        let raw = [0xffu8, 0x00, 0xfe];
        let encoded = encode(VlenKind::Bytes, &[0, 3], &raw).unwrap();
        assert_eq!(decode(VlenKind::Bytes, &encoded, 1).unwrap().data, raw);
        assert!(encode(VlenKind::Utf8, &[0, 3], &raw).is_err());
        assert!(matches!(
            decode(VlenKind::Utf8, &encoded, 1),
            Err(CodecError::Corrupt { .. })
        ));
        assert!(
            encode(VlenKind::Bytes, &offsets_utf8, &data[..4]).is_err(),
            "offsets past the data"
        );
        assert!(
            encode(VlenKind::Bytes, &[3, 1], data).is_err(),
            "decreasing offsets"
        );
        // Empty chunk.
        let empty = encode(VlenKind::Bytes, &[0], &[]).unwrap();
        assert_eq!(empty, 0u32.to_le_bytes());
        assert!(decode(VlenKind::Bytes, &empty, 0).unwrap().is_empty());
    }

    #[test]
    fn hostile_input_is_corrupt_never_a_panic_or_a_huge_allocation() {
        let good = encode(VlenKind::Bytes, &[0, 2, 5], b"abcde").unwrap();
        for (what, bytes, count) in [
            ("no header", vec![1u8, 0], 0u64),
            ("wrong count", good.clone(), 3),
            (
                "huge count",
                u32::MAX.to_le_bytes().to_vec(),
                u32::MAX as u64,
            ),
            ("truncated", good[..good.len() - 1].to_vec(), 2),
            ("trailing bytes", [good.clone(), vec![0]].concat(), 2),
            (
                "length past the end",
                {
                    let mut b = good.clone();
                    b[4..8].copy_from_slice(&1000u32.to_le_bytes());
                    b
                },
                2,
            ),
            (
                "length cut off",
                vec![2, 0, 0, 0, 1, 0, 0, 0, b'x', 1, 0],
                2,
            ),
        ] {
            assert!(
                matches!(
                    decode(VlenKind::Bytes, &bytes, count),
                    Err(CodecError::Corrupt { .. })
                ),
                "{what}"
            );
        }
    }
}
