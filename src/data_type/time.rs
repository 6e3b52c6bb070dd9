//! The unit of `numpy.datetime64` and `numpy.timedelta64`: a base unit and a scale factor
//! (`10ms` is ten milliseconds).

use crate::metadata_error::MetadataError;
use serde_json::{Map, Value};

/// The base units numpy knows, spelled as the registry spells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeUnitName {
    Years,
    Months,
    Weeks,
    Days,
    Hours,
    Minutes,
    Seconds,
    Milliseconds,
    Microseconds,
    /// `μs`: microseconds with the Greek letter (zarr-python accepts it; kept as written).
    MicrosecondsMu,
    Nanoseconds,
    Picoseconds,
    Femtoseconds,
    Attoseconds,
    Generic,
}

const NAMES: [(TimeUnitName, &str); 15] = [
    (TimeUnitName::Years, "Y"),
    (TimeUnitName::Months, "M"),
    (TimeUnitName::Weeks, "W"),
    (TimeUnitName::Days, "D"),
    (TimeUnitName::Hours, "h"),
    (TimeUnitName::Minutes, "m"),
    (TimeUnitName::Seconds, "s"),
    (TimeUnitName::Milliseconds, "ms"),
    (TimeUnitName::Microseconds, "us"),
    (TimeUnitName::MicrosecondsMu, "μs"),
    (TimeUnitName::Nanoseconds, "ns"),
    (TimeUnitName::Picoseconds, "ps"),
    (TimeUnitName::Femtoseconds, "fs"),
    (TimeUnitName::Attoseconds, "as"),
    (TimeUnitName::Generic, "generic"),
];

impl TimeUnitName {
    pub fn as_str(self) -> &'static str {
        NAMES
            .iter()
            .find(|(u, _)| *u == self)
            .map_or("generic", |(_, s)| s)
    }

    pub fn parse(text: &str) -> Option<TimeUnitName> {
        NAMES.iter().find(|(_, s)| *s == text).map(|(u, _)| *u)
    }
}

/// A unit of time: `scale_factor` (1 to 2^31 - 1) times `unit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeUnit {
    pub unit: TimeUnitName,
    pub scale_factor: u32,
}

impl TimeUnit {
    /// `{"unit": "ms", "scale_factor": 10}`, both required.
    pub fn from_configuration(
        name: &str,
        configuration: Option<&Map<String, Value>>,
    ) -> Result<TimeUnit, MetadataError> {
        let configuration = configuration.ok_or_else(|| {
            MetadataError::Invalid(format!(
                "data type '{name}' needs a configuration with \"unit\" and \"scale_factor\""
            ))
        })?;
        if let Some(key) = configuration
            .keys()
            .find(|k| !matches!(k.as_str(), "unit" | "scale_factor"))
        {
            return Err(MetadataError::Invalid(format!(
                "data type '{name}': unknown configuration key \"{key}\""
            )));
        }
        let unit = match configuration.get("unit") {
            Some(Value::String(text)) => TimeUnitName::parse(text).ok_or_else(|| {
                MetadataError::Invalid(format!(
                    "data type '{name}': unknown unit \"{text}\" (expected one of Y, M, W, D, \
                     h, m, s, ms, us, μs, ns, ps, fs, as, generic)"
                ))
            })?,
            _ => {
                return Err(MetadataError::Invalid(format!(
                    "data type '{name}': \"unit\" must be a string"
                )))
            }
        };
        let scale_factor = configuration
            .get("scale_factor")
            .and_then(Value::as_u64)
            .filter(|s| (1..1 << 31).contains(s))
            .ok_or_else(|| {
                MetadataError::Invalid(format!(
                    "data type '{name}': \"scale_factor\" must be an integer from 1 to 2^31 - 1"
                ))
            })?;
        Ok(TimeUnit {
            unit,
            scale_factor: scale_factor as u32,
        })
    }

    pub fn to_configuration(self) -> Map<String, Value> {
        let mut configuration = Map::new();
        configuration.insert("unit".into(), Value::from(self.unit.as_str()));
        configuration.insert("scale_factor".into(), Value::from(self.scale_factor));
        configuration
    }

    /// Parse the part of a numpy dtype string after `M8`/`m8`: empty (generic) or
    /// `[<k><unit>]` with an optional positive multiple `k`.
    pub fn from_numpy(suffix: &str) -> Option<TimeUnit> {
        if suffix.is_empty() {
            return Some(TimeUnit {
                unit: TimeUnitName::Generic,
                scale_factor: 1,
            });
        }
        let inner = suffix.strip_prefix('[')?.strip_suffix(']')?;
        let digits = inner.bytes().take_while(u8::is_ascii_digit).count();
        let scale_factor = if digits == 0 {
            1
        } else {
            inner[..digits]
                .parse::<u32>()
                .ok()
                .filter(|s| (1..1 << 31).contains(s))?
        };
        let unit = TimeUnitName::parse(&inner[digits..])?;
        if unit == TimeUnitName::Generic {
            return None;
        }
        Some(TimeUnit { unit, scale_factor })
    }

    /// The suffix numpy writes after `M8`/`m8`: `""` for generic, `[ms]`, `[10ms]`.
    pub fn numpy_suffix(self) -> String {
        let unit = match self.unit {
            TimeUnitName::Generic => return String::new(),
            TimeUnitName::MicrosecondsMu => "us",
            other => other.as_str(),
        };
        if self.scale_factor == 1 {
            format!("[{unit}]")
        } else {
            format!("[{}{unit}]", self.scale_factor)
        }
    }
}
