//! The 8-bit floating-point formats (`float8_*`) and `bfloat16`: conversions between their
//! bit patterns and f64, used for fill values. Elements themselves are never converted:
//! a buffer holds the formats' bits as they are.

/// One of the 8-bit floating-point formats, named as zarrs and tensorstore name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Float8Format {
    /// `float8_e4m3`: IEEE-like, bias 7, with infinities (0x78) and NaN (0x7c).
    E4M3,
    /// `float8_e4m3fn`: bias 7, no infinities, NaN 0x7f (the OCP/ml_dtypes type; tensorstore).
    E4M3FN,
    /// `float8_e4m3fnuz`: bias 8, no infinities, no negative zero, NaN 0x80.
    E4M3FNUZ,
    /// `float8_e4m3b11fnuz`: bias 11, no infinities, no negative zero, NaN 0x80.
    E4M3B11FNUZ,
    /// `float8_e5m2`: IEEE-like, bias 15, infinities 0x7c, NaN 0x7e.
    E5M2,
    /// `float8_e5m2fnuz`: bias 16, no infinities, no negative zero, NaN 0x80.
    E5M2FNUZ,
    /// `float8_e3m4`: IEEE-like, bias 3, infinities 0x70, NaN 0x78.
    E3M4,
    /// `float8_e8m0fnu`: unsigned powers of two 2^(e-127), no zero, NaN 0xff.
    E8M0FNU,
}

/// How a format spends its special bit patterns.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Specials {
    /// IEEE 754: the top exponent holds the infinities and NaNs.
    Ieee,
    /// "fn": no infinities; only exponent and mantissa all ones is NaN.
    Fn,
    /// "fnuz": no infinities, no negative zero; the negative-zero pattern 0x80 is NaN.
    Fnuz,
    /// e8m0: no sign, no mantissa, 0xff is NaN.
    E8M0,
}

impl Float8Format {
    pub const ALL: [Float8Format; 8] = [
        Float8Format::E4M3,
        Float8Format::E4M3FN,
        Float8Format::E4M3FNUZ,
        Float8Format::E4M3B11FNUZ,
        Float8Format::E5M2,
        Float8Format::E5M2FNUZ,
        Float8Format::E3M4,
        Float8Format::E8M0FNU,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Float8Format::E4M3 => "float8_e4m3",
            Float8Format::E4M3FN => "float8_e4m3fn",
            Float8Format::E4M3FNUZ => "float8_e4m3fnuz",
            Float8Format::E4M3B11FNUZ => "float8_e4m3b11fnuz",
            Float8Format::E5M2 => "float8_e5m2",
            Float8Format::E5M2FNUZ => "float8_e5m2fnuz",
            Float8Format::E3M4 => "float8_e3m4",
            Float8Format::E8M0FNU => "float8_e8m0fnu",
        }
    }

    pub fn from_name(name: &str) -> Option<Float8Format> {
        Float8Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// (exponent bits, mantissa bits, bias, specials)
    fn layout(self) -> (u32, u32, i32, Specials) {
        match self {
            Float8Format::E4M3 => (4, 3, 7, Specials::Ieee),
            Float8Format::E4M3FN => (4, 3, 7, Specials::Fn),
            Float8Format::E4M3FNUZ => (4, 3, 8, Specials::Fnuz),
            Float8Format::E4M3B11FNUZ => (4, 3, 11, Specials::Fnuz),
            Float8Format::E5M2 => (5, 2, 15, Specials::Ieee),
            Float8Format::E5M2FNUZ => (5, 2, 16, Specials::Fnuz),
            Float8Format::E3M4 => (3, 4, 3, Specials::Ieee),
            Float8Format::E8M0FNU => (8, 0, 127, Specials::E8M0),
        }
    }

    /// The canonical NaN bit pattern (the one `"NaN"` means).
    pub fn nan(self) -> u8 {
        let (e, m, _, specials) = self.layout();
        match specials {
            // Exponent all ones, top mantissa bit set.
            Specials::Ieee => (((1u16 << e) - 1) << m | 1 << (m - 1)) as u8,
            Specials::Fn => 0x7f,
            Specials::Fnuz => 0x80,
            Specials::E8M0 => 0xff,
        }
    }

    /// Whether the format has infinities.
    pub fn has_infinity(self) -> bool {
        self.layout().3 == Specials::Ieee
    }

    /// The value of a bit pattern.
    pub fn to_f64(self, bits: u8) -> f64 {
        let (e_bits, m_bits, bias, specials) = self.layout();
        if specials == Specials::E8M0 {
            return if bits == 0xff {
                f64::NAN
            } else {
                2f64.powi(bits as i32 - bias)
            };
        }
        let sign = if bits & 0x80 != 0 { -1.0 } else { 1.0 };
        let exponent = ((bits >> m_bits) & ((1 << e_bits) - 1) as u8) as i32;
        let mantissa = (bits & ((1u16 << m_bits) - 1) as u8) as i32;
        let max_exponent = (1 << e_bits) - 1;
        match specials {
            Specials::Ieee if exponent == max_exponent => {
                return if mantissa == 0 {
                    sign * f64::INFINITY
                } else {
                    f64::NAN
                };
            }
            Specials::Fn if exponent == max_exponent && mantissa == (1 << m_bits) - 1 => {
                return f64::NAN
            }
            Specials::Fnuz if bits == 0x80 => return f64::NAN,
            _ => {}
        }
        let scale = 2f64.powi(-(m_bits as i32));
        if exponent == 0 {
            sign * mantissa as f64 * scale * 2f64.powi(1 - bias)
        } else {
            sign * (1.0 + mantissa as f64 * scale) * 2f64.powi(exponent - bias)
        }
    }

    /// The bit pattern nearest to `x`, rounding ties to the even pattern (IEEE rounding);
    /// values beyond the largest finite one (by half a step or more) become infinity where
    /// the format has one, NaN otherwise.
    pub fn from_f64(self, x: f64) -> u8 {
        if x.is_nan() {
            return self.nan();
        }
        let mut best: Option<(u8, f64)> = None;
        let mut max_finite = 0f64;
        let mut below_max = 0f64;
        for bits in 0..=255u8 {
            let v = self.to_f64(bits);
            if !v.is_finite() {
                continue;
            }
            if v > max_finite {
                below_max = max_finite.max(below_max);
                max_finite = v;
            } else if v > below_max && v < max_finite {
                below_max = v;
            }
            let distance = (v - x).abs();
            let better = match best {
                None => true,
                Some((b, d)) => {
                    distance < d
                        || (distance == d
                            && ((bits & 1 == 0 && b & 1 == 1)
                                // Of +0 and -0, keep the sign of x.
                                || (v == 0.0 && v.is_sign_negative() == x.is_sign_negative())))
                }
            };
            if better {
                best = Some((bits, distance));
            }
        }
        let half_step = (max_finite - below_max) / 2.0;
        if x.abs() >= max_finite + half_step && x.abs() > max_finite {
            if self.has_infinity() {
                let inf = self.infinity();
                return if x < 0.0 { inf | 0x80 } else { inf };
            }
            return self.nan();
        }
        best.map_or(self.nan(), |(bits, _)| bits)
    }

    fn infinity(self) -> u8 {
        let (e, m, _, _) = self.layout();
        (((1u16 << e) - 1) << m) as u8
    }
}

/// bfloat16 helpers (the top half of a float32).
pub fn bf16_from_f64(x: f64) -> u16 {
    half::bf16::from_f64(x).to_bits()
}

pub fn bf16_to_f64(bits: u16) -> f64 {
    half::bf16::from_bits(bits).to_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_patterns() {
        use Float8Format::*;
        assert_eq!(E4M3FN.to_f64(0x7e), 448.0);
        assert!(E4M3FN.to_f64(0x7f).is_nan());
        assert_eq!(E4M3.to_f64(0x78), f64::INFINITY);
        assert_eq!(E4M3.to_f64(0x77), 240.0);
        assert_eq!(E5M2.to_f64(0x7b), 57344.0);
        assert_eq!(E5M2.to_f64(0x7c), f64::INFINITY);
        assert!(E5M2FNUZ.to_f64(0x80).is_nan());
        assert_eq!(E4M3FNUZ.to_f64(0x7f), 240.0);
        assert_eq!(E4M3B11FNUZ.to_f64(0x7f), 30.0);
        assert_eq!(E3M4.to_f64(0x6f), 15.5);
        assert_eq!(E8M0FNU.to_f64(127), 1.0);
        assert_eq!(E8M0FNU.to_f64(0), 2f64.powi(-127));
        assert_eq!(E4M3.to_f64(0x01), 2f64.powi(-9));
        for (format, nan) in [
            (E4M3, 0x7c),
            (E5M2, 0x7e),
            (E3M4, 0x78),
            (E4M3FN, 0x7f),
            (E4M3FNUZ, 0x80),
            (E8M0FNU, 0xff),
        ] {
            assert_eq!(format.nan(), nan, "{format:?}");
            assert!(format.to_f64(nan).is_nan());
        }
    }

    #[test]
    fn round_trips_and_rounding() {
        for format in Float8Format::ALL {
            for bits in 0..=255u8 {
                let v = format.to_f64(bits);
                if v.is_nan() {
                    continue;
                }
                assert_eq!(format.to_f64(format.from_f64(v)), v, "{format:?} {bits:#x}");
            }
        }
        use Float8Format::*;
        assert_eq!(E4M3FN.from_f64(1.0), 0x38);
        assert_eq!(E4M3FN.from_f64(1e9), E4M3FN.nan());
        assert_eq!(E5M2.from_f64(1e9), 0x7c);
        assert_eq!(E5M2.from_f64(-1e9), 0xfc);
        // 1.0625 lies halfway between 1.0 (0x38, even) and 1.125 (0x39): ties to even.
        assert_eq!(E4M3FN.from_f64(1.0625), 0x38);
        assert_eq!(E4M3.from_f64(-0.0), 0x80);
        assert_eq!(E4M3FNUZ.from_f64(-0.0), 0x00);
        assert_eq!(bf16_from_f64(1.0), 0x3f80);
        assert_eq!(bf16_to_f64(0xc000), -2.0);
    }
}
