//! Typed physical units.
//!
//! Engines keep time as integer picoseconds ([`Time`]) so that event ordering is exact and runs
//! are bit-reproducible; seconds as `f64` appear only at the Python boundary. Configured link
//! rates are integer bits per second ([`Rate`]); *allocated* rates (the oracle's output) are
//! fractional and kept as `f64` bits per second.
//!
//! Every unit parses from a human string with an explicit suffix (`"100Gbps"`, `"1us"`,
//! `"32MB"`), the form scenario files use. Decimal prefixes are powers of 1000 (`KB` = 1000 B),
//! binary ones powers of 1024 (`KiB`); rates are bits unless the suffix says bytes (`GBps`).

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};
use std::str::FromStr;

/// A point in (or span of) simulated time, in integer picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A number of bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

/// A configured rate (link capacity, NIC line rate), in integer bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Time {
    /// Zero time.
    pub const ZERO: Time = Time(0);
    /// One picosecond.
    pub const PS: u64 = 1;
    /// Picoseconds per nanosecond.
    pub const NS: u64 = 1_000;
    /// Picoseconds per microsecond.
    pub const US: u64 = 1_000_000;
    /// Picoseconds per millisecond.
    pub const MS: u64 = 1_000_000_000;
    /// Picoseconds per second.
    pub const S: u64 = 1_000_000_000_000;

    /// From nanoseconds.
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns * Self::NS)
    }
    /// From microseconds.
    pub const fn from_us(us: u64) -> Time {
        Time(us * Self::US)
    }
    /// From milliseconds.
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms * Self::MS)
    }
    /// From seconds as a float (rounded to the nearest picosecond).
    pub fn from_secs_f64(s: f64) -> Time {
        Time((s * Self::S as f64).round() as u64)
    }
    /// As seconds.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / Self::S as f64
    }
}

impl Rate {
    /// From gigabits per second.
    pub const fn gbps(g: u64) -> Rate {
        Rate(g * 1_000_000_000)
    }
    /// As bits per second in floating point.
    pub fn bps(self) -> f64 {
        self.0 as f64
    }
    /// Time to serialize `bytes` at this rate, rounded up to a whole picosecond.
    pub fn tx_time(self, bytes: Bytes) -> Time {
        let bits = bytes.0 as u128 * 8 * Time::S as u128;
        Time(bits.div_ceil(self.0 as u128) as u64)
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, o: Time) -> Time {
        Time(self.0 + o.0)
    }
}
impl AddAssign for Time {
    fn add_assign(&mut self, o: Time) {
        self.0 += o.0
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        Time(self.0 - o.0)
    }
}

/// Error from parsing a unit string; the message says what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitError(pub String);

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for UnitError {}

/// Splits `"12.5Gbps"` into `(12.5, "Gbps")`.
fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .find(|c: char| {
            !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')
        })
        .unwrap_or(s.len());
    // An exponent marker directly followed by a letter is the unit (e.g. "1e" never happens, but
    // "5E" alone is not a number), so let f64 parsing be the judge.
    let (num, unit) = s.split_at(end);
    let v: f64 = num.parse().ok()?;
    Some((v, unit.trim()))
}

fn scaled(value: f64, factor: f64, what: &str, input: &str) -> Result<u64, UnitError> {
    let v = value * factor;
    if !v.is_finite() || v < 0.0 || v > u64::MAX as f64 {
        return Err(UnitError(format!("{what} out of range: {input:?}")));
    }
    Ok(v.round() as u64)
}

impl FromStr for Time {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Time, UnitError> {
        let expected = || {
            UnitError(format!(
                "expected a duration like \"1us\" (units ps, ns, us, ms, s), got {s:?}"
            ))
        };
        let (v, unit) = split_number(s).ok_or_else(expected)?;
        let factor = match unit {
            "ps" => 1.0,
            "ns" => Time::NS as f64,
            "us" | "µs" => Time::US as f64,
            "ms" => Time::MS as f64,
            "s" => Time::S as f64,
            _ => return Err(expected()),
        };
        Ok(Time(scaled(v, factor, "duration", s)?))
    }
}

impl FromStr for Bytes {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Bytes, UnitError> {
        let expected = || {
            UnitError(format!(
                "expected a size like \"32MB\" (units B, KB, MB, GB, KiB, MiB, GiB), got {s:?}"
            ))
        };
        let (v, unit) = split_number(s).ok_or_else(expected)?;
        let factor = match unit {
            "B" => 1.0,
            "KB" | "kB" => 1e3,
            "MB" => 1e6,
            "GB" => 1e9,
            "KiB" => 1024.0,
            "MiB" => 1024.0 * 1024.0,
            "GiB" => 1024.0 * 1024.0 * 1024.0,
            _ => return Err(expected()),
        };
        Ok(Bytes(scaled(v, factor, "size", s)?))
    }
}

impl FromStr for Rate {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Rate, UnitError> {
        let expected = || {
            UnitError(format!(
                "expected a rate like \"100Gbps\" (units bps, Kbps, Mbps, Gbps, Tbps, or Bps forms for bytes), got {s:?}"
            ))
        };
        let (v, unit) = split_number(s).ok_or_else(expected)?;
        let factor = match unit {
            "bps" => 1.0,
            "Kbps" | "kbps" => 1e3,
            "Mbps" => 1e6,
            "Gbps" => 1e9,
            "Tbps" => 1e12,
            "Bps" => 8.0,
            "KBps" => 8e3,
            "MBps" => 8e6,
            "GBps" => 8e9,
            _ => return Err(expected()),
        };
        Ok(Rate(scaled(v, factor, "rate", s)?))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        if ps % Time::S == 0 && ps > 0 {
            write!(f, "{}s", ps / Time::S)
        } else if ps % Time::MS == 0 && ps > 0 {
            write!(f, "{}ms", ps / Time::MS)
        } else if ps % Time::US == 0 && ps > 0 {
            write!(f, "{}us", ps / Time::US)
        } else if ps % Time::NS == 0 && ps > 0 {
            write!(f, "{}ns", ps / Time::NS)
        } else {
            write!(f, "{ps}ps")
        }
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        for (div, unit) in [
            (1_000_000_000_000, "Tbps"),
            (1_000_000_000, "Gbps"),
            (1_000_000, "Mbps"),
            (1_000, "Kbps"),
        ] {
            if b >= div && b % div == 0 {
                return write!(f, "{}{unit}", b / div);
            }
        }
        write!(f, "{b}bps")
    }
}

/// Units serialize as their human string and deserialize from either that string or a plain
/// number in the base unit (picoseconds, bytes, bits per second).
macro_rules! serde_unit {
    ($t:ty, $what:literal, $name:literal, $pattern:literal, $example:literal, $base:literal) => {
        // The JSON Schema (`fairnet schema`): the human string, or a number in the base unit.
        impl schemars::JsonSchema for $t {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                $name.into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "description": concat!($what, " (", $base, " when a number)"),
                    "oneOf": [
                        {"type": "string", "pattern": $pattern, "examples": [$example]},
                        {"type": "number", "minimum": 0}
                    ]
                })
            }
        }
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl de::Visitor<'_> for V {
                    type Value = $t;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$t, E> {
                        v.parse().map_err(|e: UnitError| E::custom(e.0))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$t, E> {
                        Ok(<$t>::from_base(v))
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$t, E> {
                        u64::try_from(v)
                            .map(<$t>::from_base)
                            .map_err(|_| E::custom(concat!("a negative ", $what)))
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$t, E> {
                        if v.is_finite() && v >= 0.0 {
                            Ok(<$t>::from_base(v.round() as u64))
                        } else {
                            Err(E::custom(concat!("an invalid ", $what)))
                        }
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

impl Time {
    fn from_base(v: u64) -> Time {
        Time(v)
    }
}
impl Bytes {
    fn from_base(v: u64) -> Bytes {
        Bytes(v)
    }
}
impl Rate {
    fn from_base(v: u64) -> Rate {
        Rate(v)
    }
}

serde_unit!(
    Time,
    "a duration such as \"1us\" or integer picoseconds",
    "Duration",
    "^[0-9.eE+-]+ *(ps|ns|us|µs|ms|s)$",
    "1us",
    "picoseconds"
);
serde_unit!(
    Bytes,
    "a size such as \"32MB\" or integer bytes",
    "Size",
    "^[0-9.eE+-]+ *(B|KB|kB|MB|GB|KiB|MiB|GiB)$",
    "32MB",
    "bytes"
);
serde_unit!(
    Rate,
    "a rate such as \"100Gbps\" or integer bits per second",
    "Rate",
    "^[0-9.eE+-]+ *(bps|Kbps|kbps|Mbps|Gbps|Tbps|Bps|KBps|MBps|GBps)$",
    "100Gbps",
    "bits per second"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_human_units() {
        assert_eq!("1us".parse::<Time>().unwrap(), Time(1_000_000));
        assert_eq!("2.5ns".parse::<Time>().unwrap(), Time(2_500));
        assert_eq!("100Gbps".parse::<Rate>().unwrap(), Rate(100_000_000_000));
        assert_eq!("32MB".parse::<Bytes>().unwrap(), Bytes(32_000_000));
        assert_eq!("1KiB".parse::<Bytes>().unwrap(), Bytes(1024));
        assert!("12 parsecs".parse::<Time>().is_err());
        assert!("-1Gbps".parse::<Rate>().is_err());
    }

    #[test]
    fn display_round_trips() {
        for s in ["1us", "10ms", "3ps", "100Gbps", "25Gbps", "1500B"] {
            let shown = if s.ends_with("bps") {
                s.parse::<Rate>().unwrap().to_string()
            } else if s.ends_with('B') {
                s.parse::<Bytes>().unwrap().to_string()
            } else {
                s.parse::<Time>().unwrap().to_string()
            };
            assert_eq!(shown, s);
        }
    }

    #[test]
    fn serialization_time_at_line_rate() {
        // 1500 B at 100 Gb/s is 120 ns.
        assert_eq!(Rate::gbps(100).tx_time(Bytes(1500)), Time::from_ns(120));
    }
}
