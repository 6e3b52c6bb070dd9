//! The registry's sub-byte types: the integers `int2`, `int4`, `uint2`, `uint4` and the
//! floating-point formats `float4_e2m1fn`, `float6_e2m3fn`, `float6_e3m2fn`.
//!
//! In host buffers (and stored by the `bytes` codec) each element is one byte holding its
//! 2-, 4- or 6-bit code in the low bits with the upper bits zero: numpy with ml_dtypes and
//! tensorstore lay them out so (ml_dtypes' int4 -1 is the byte `0x0f`, int2 -2 is `0x02`).
//! Integer codes are two's complement within the width, so a host byte is *not* the
//! sign-extended value: [`SubByteInt::to_i8`] and [`SubByteInt::from_i8`] convert.
//!
//! The float formats (OCP Microscaling E2M1, E2M3, E3M2) have a sign bit, no infinities and
//! no NaN: every code is a finite number, and converting a number rounds to the nearest code
//! (ties to the even code) and saturates beyond the largest magnitude, as ml_dtypes does.

/// One of the sub-byte integer types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubByteInt {
    Int2,
    Int4,
    UInt2,
    UInt4,
}

impl SubByteInt {
    pub const ALL: [SubByteInt; 4] = [
        SubByteInt::Int2,
        SubByteInt::Int4,
        SubByteInt::UInt2,
        SubByteInt::UInt4,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SubByteInt::Int2 => "int2",
            SubByteInt::Int4 => "int4",
            SubByteInt::UInt2 => "uint2",
            SubByteInt::UInt4 => "uint4",
        }
    }

    pub fn from_name(name: &str) -> Option<SubByteInt> {
        SubByteInt::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The width of a code in bits (2 or 4).
    pub fn bits(self) -> u32 {
        match self {
            SubByteInt::Int2 | SubByteInt::UInt2 => 2,
            SubByteInt::Int4 | SubByteInt::UInt4 => 4,
        }
    }

    pub fn signed(self) -> bool {
        matches!(self, SubByteInt::Int2 | SubByteInt::Int4)
    }

    /// The smallest and largest values (int4: -8 and 7; uint2: 0 and 3).
    pub fn range(self) -> (i8, i8) {
        let bits = self.bits();
        if self.signed() {
            (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        } else {
            (0, ((1u16 << bits) - 1) as i8)
        }
    }

    /// The value of a code; bits above the width are ignored (the registry's "upper bits
    /// ignored"), so `0x1f` as int4 is -1 like `0x0f`.
    pub fn to_i8(self, code: u8) -> i8 {
        let bits = self.bits();
        let code = code & mask(bits);
        if self.signed() {
            // Move the code's sign bit to bit 7, then shift back arithmetically.
            ((code << (8 - bits)) as i8) >> (8 - bits)
        } else {
            code as i8
        }
    }

    /// The code of a value, `None` when the value is outside [`SubByteInt::range`].
    pub fn from_i8(self, value: i8) -> Option<u8> {
        let (min, max) = self.range();
        (min..=max)
            .contains(&value)
            .then_some(value as u8 & mask(self.bits()))
    }
}

/// The low `bits` bits of a byte.
pub fn mask(bits: u32) -> u8 {
    ((1u16 << bits) - 1) as u8
}

/// One of the sub-byte floating-point formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubByteFloat {
    /// `float4_e2m1fn`: sign, 2 exponent bits (bias 1), 1 mantissa bit; largest 6.
    E2M1FN,
    /// `float6_e2m3fn`: sign, 2 exponent bits (bias 1), 3 mantissa bits; largest 7.5.
    E2M3FN,
    /// `float6_e3m2fn`: sign, 3 exponent bits (bias 3), 2 mantissa bits; largest 28.
    E3M2FN,
}

impl SubByteFloat {
    pub const ALL: [SubByteFloat; 3] = [
        SubByteFloat::E2M1FN,
        SubByteFloat::E2M3FN,
        SubByteFloat::E3M2FN,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SubByteFloat::E2M1FN => "float4_e2m1fn",
            SubByteFloat::E2M3FN => "float6_e2m3fn",
            SubByteFloat::E3M2FN => "float6_e3m2fn",
        }
    }

    pub fn from_name(name: &str) -> Option<SubByteFloat> {
        SubByteFloat::ALL.into_iter().find(|t| t.name() == name)
    }

    /// (exponent bits, mantissa bits, bias)
    fn layout(self) -> (u32, u32, i32) {
        match self {
            SubByteFloat::E2M1FN => (2, 1, 1),
            SubByteFloat::E2M3FN => (2, 3, 1),
            SubByteFloat::E3M2FN => (3, 2, 3),
        }
    }

    /// The width of a code in bits (4 or 6).
    pub fn bits(self) -> u32 {
        let (e, m, _) = self.layout();
        1 + e + m
    }

    fn sign_bit(self) -> u8 {
        1 << (self.bits() - 1)
    }

    /// The value of a code (always finite); bits above the width are ignored.
    pub fn to_f64(self, code: u8) -> f64 {
        let (e_bits, m_bits, bias) = self.layout();
        let code = code & mask(self.bits());
        let sign = if code & self.sign_bit() != 0 {
            -1.0
        } else {
            1.0
        };
        let exponent = ((code >> m_bits) & mask(e_bits)) as i32;
        let mantissa = (code & mask(m_bits)) as f64 / f64::from(1u32 << m_bits);
        if exponent == 0 {
            // Subnormal: no implicit leading one, the smallest exponent.
            sign * mantissa * 2f64.powi(1 - bias)
        } else {
            sign * (1.0 + mantissa) * 2f64.powi(exponent - bias)
        }
    }

    /// The code nearest to `x`, ties to the even code, keeping the sign of zero; beyond the
    /// largest magnitude (infinities included) the largest magnitude of `x`'s sign, as
    /// ml_dtypes saturates. `None` for NaN, which the format cannot hold.
    pub fn from_f64(self, x: f64) -> Option<u8> {
        if x.is_nan() {
            return None;
        }
        let sign = if x.is_sign_negative() {
            self.sign_bit()
        } else {
            0
        };
        let magnitude = x.abs();
        // Magnitudes grow with the code, so the nearest is found by a walk over the (at most
        // 32) non-negative codes; the first code at or above `magnitude` and its predecessor
        // are the candidates.
        let top = self.sign_bit() - 1;
        let mut code = 0u8;
        while code < top && self.to_f64(code) < magnitude {
            code += 1;
        }
        if code > 0 {
            let (below, above) = (self.to_f64(code - 1), self.to_f64(code));
            if magnitude < above {
                let (d_below, d_above) = (magnitude - below, above - magnitude);
                if d_below < d_above || (d_below == d_above && (code - 1) & 1 == 0) {
                    code -= 1;
                }
            }
        }
        Some(sign | code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The non-negative values of every code, from ml_dtypes 0.6.0 (build/interop-venv):
    /// `np.arange(2**(bits-1), dtype=np.uint8).view(ml_dtypes.<name>).astype(np.float64)`.
    /// The negative codes (sign bit set) are their negatives.
    const VALUES: [(SubByteFloat, &[f64]); 3] = [
        (
            SubByteFloat::E2M1FN,
            &[0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0],
        ),
        (
            SubByteFloat::E2M3FN,
            &[
                0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0, 1.125, 1.25, 1.375, 1.5,
                1.625, 1.75, 1.875, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75, 4.0, 4.5, 5.0, 5.5,
                6.0, 6.5, 7.0, 7.5,
            ],
        ),
        (
            SubByteFloat::E3M2FN,
            &[
                0.0, 0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0.4375, 0.5, 0.625, 0.75, 0.875,
                1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 12.0,
                14.0, 16.0, 20.0, 24.0, 28.0,
            ],
        ),
    ];

    /// What ml_dtypes 0.6.0 rounds these float64 probes to (the same from float32): for
    /// each pair of neighbouring magnitudes a < b, the midpoint, a + (b-a)/4 and
    /// a + 3(b-a)/4; then 1.01 x and 2 x the largest, 1e300 and 1e-300. Made with
    /// `np.array(probes, dtype=np.float64).astype(ml_dtypes.<name>).view(np.uint8)`.
    const ROUNDED: [(SubByteFloat, &[u8]); 3] = [
        (
            SubByteFloat::E2M1FN,
            &[
                0, 0, 1, 2, 1, 2, 2, 2, 3, 4, 3, 4, 4, 4, 5, 6, 5, 6, 6, 6, 7, 7, 7, 7, 0,
            ],
        ),
        (
            SubByteFloat::E2M3FN,
            &[
                0, 0, 1, 2, 1, 2, 2, 2, 3, 4, 3, 4, 4, 4, 5, 6, 5, 6, 6, 6, 7, 8, 7, 8, 8, 8, 9,
                10, 9, 10, 10, 10, 11, 12, 11, 12, 12, 12, 13, 14, 13, 14, 14, 14, 15, 16, 15, 16,
                16, 16, 17, 18, 17, 18, 18, 18, 19, 20, 19, 20, 20, 20, 21, 22, 21, 22, 22, 22, 23,
                24, 23, 24, 24, 24, 25, 26, 25, 26, 26, 26, 27, 28, 27, 28, 28, 28, 29, 30, 29, 30,
                30, 30, 31, 31, 31, 31, 0,
            ],
        ),
        (
            SubByteFloat::E3M2FN,
            &[
                0, 0, 1, 2, 1, 2, 2, 2, 3, 4, 3, 4, 4, 4, 5, 6, 5, 6, 6, 6, 7, 8, 7, 8, 8, 8, 9,
                10, 9, 10, 10, 10, 11, 12, 11, 12, 12, 12, 13, 14, 13, 14, 14, 14, 15, 16, 15, 16,
                16, 16, 17, 18, 17, 18, 18, 18, 19, 20, 19, 20, 20, 20, 21, 22, 21, 22, 22, 22, 23,
                24, 23, 24, 24, 24, 25, 26, 25, 26, 26, 26, 27, 28, 27, 28, 28, 28, 29, 30, 29, 30,
                30, 30, 31, 31, 31, 31, 0,
            ],
        ),
    ];

    #[test]
    fn every_code_against_ml_dtypes() {
        for (format, values) in VALUES {
            let half = 1u8 << (format.bits() - 1);
            assert_eq!(values.len(), half as usize);
            for (code, &value) in values.iter().enumerate() {
                let code = code as u8;
                assert_eq!(format.to_f64(code), value, "{format:?} {code:#x}");
                let negative = format.to_f64(code | half);
                assert_eq!(negative, -value, "{format:?} {:#x}", code | half);
                assert!(negative.is_sign_negative());
                // Every code converts back to itself, -0 included.
                assert_eq!(format.from_f64(value), Some(code));
                assert_eq!(format.from_f64(-value), Some(code | half));
                // Upper bits are ignored.
                assert_eq!(format.to_f64(code | !mask(format.bits())), value);
            }
        }
    }

    #[test]
    fn rounding_against_ml_dtypes() {
        for ((format, values), (_, rounded)) in VALUES.into_iter().zip(ROUNDED) {
            let mut probes = Vec::new();
            for pair in values.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                probes.extend([(a + b) / 2.0, a + (b - a) * 0.25, a + (b - a) * 0.75]);
            }
            let largest = values[values.len() - 1];
            probes.extend([largest * 1.01, largest * 2.0, 1e300, 1e-300]);
            assert_eq!(probes.len(), rounded.len(), "{format:?}");
            let half = 1u8 << (format.bits() - 1);
            for (probe, &code) in probes.iter().zip(rounded) {
                assert_eq!(format.from_f64(*probe), Some(code), "{format:?} {probe}");
                assert_eq!(
                    format.from_f64(-probe),
                    Some(code | half),
                    "{format:?} -{probe}"
                );
            }
            // Infinities saturate like the finite values beyond the largest; NaN has no code.
            assert_eq!(format.from_f64(f64::INFINITY), Some(half - 1));
            assert_eq!(format.from_f64(f64::NEG_INFINITY), Some(2 * half - 1));
            assert_eq!(format.from_f64(f64::NAN), None);
        }
    }

    #[test]
    fn integers() {
        use SubByteInt::*;
        assert_eq!(Int4.range(), (-8, 7));
        assert_eq!(Int2.range(), (-2, 1));
        assert_eq!(UInt4.range(), (0, 15));
        assert_eq!(UInt2.range(), (0, 3));
        // ml_dtypes: int4 -1 is 0x0f, int2 -2 is 0x02, -1 is 0x03.
        assert_eq!(Int4.from_i8(-1), Some(0x0f));
        assert_eq!(Int2.from_i8(-2), Some(0x02));
        assert_eq!(Int2.from_i8(-1), Some(0x03));
        assert_eq!(Int4.from_i8(8), None);
        assert_eq!(Int4.from_i8(-9), None);
        assert_eq!(UInt2.from_i8(4), None);
        assert_eq!(UInt4.from_i8(-1), None);
        for t in SubByteInt::ALL {
            let (min, max) = t.range();
            for v in min..=max {
                let code = t.from_i8(v).unwrap();
                assert_eq!(code & !mask(t.bits()), 0);
                assert_eq!(t.to_i8(code), v, "{t:?} {v}");
                // A writer that sign-extends (0xff for int4 -1) reads the same.
                assert_eq!(t.to_i8(v as u8), v, "{t:?} {v} sign-extended");
            }
        }
        assert_eq!(Int4.to_i8(0x1f), -1);
        assert_eq!(UInt4.to_i8(0xf3), 3);
    }
}
