//! A model's parameters: declared with their units and defaults ([`ParamSpec`]), given in a
//! scenario's `[engine.params]` table like every other field (`capacity = "10Gbps"`,
//! `rtt = "100us"`, `k = "65KB"`), parsed and checked once ([`Params::parse`]).
//!
//! Values are kept in base units as `f64`: seconds, bits per second, bytes. As elsewhere in a
//! scenario, a bare number for a dimensioned parameter is in the scenario's base unit
//! (picoseconds, bit/s, bytes); a string carries its unit.

use crate::error::{Error, Result};
use crate::units::{Bytes, Rate, Time};
use serde_json::Value;

/// The unit of a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamUnit {
    /// A duration (`"100us"`); kept in seconds.
    Seconds,
    /// A rate (`"10Gbps"`); kept in bits per second.
    BitsPerSecond,
    /// A size (`"65KB"`); kept in bytes.
    Bytes,
    /// A whole number (`flows = 10`).
    Count,
    /// A real number without unit (`g = 0.0625`).
    Number,
    /// Real numbers without unit, one per entry of something the model has several of
    /// (`weights = [1, 2, 3, 4]`, one per flow), or one number for every entry
    /// (`weights = 1`); read with [`Params::per_entry`]. Its default is one number for every
    /// entry.
    Numbers,
}

impl ParamUnit {
    /// The unit's name in listings.
    pub fn name(self) -> &'static str {
        match self {
            ParamUnit::Seconds => "duration",
            ParamUnit::BitsPerSecond => "rate",
            ParamUnit::Bytes => "size",
            ParamUnit::Count => "count",
            ParamUnit::Number => "number",
            ParamUnit::Numbers => "numbers",
        }
    }
}

/// One parameter a model takes.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSpec {
    /// Key in `[engine.params]`.
    pub name: &'static str,
    /// Its unit.
    pub unit: ParamUnit,
    /// Default in base units (`None`: required).
    pub default: Option<f64>,
    /// What it is, with the source of its default.
    pub doc: &'static str,
}

/// Parsed parameter values in base units, in the order of the model's [`ParamSpec`] list.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    values: Vec<(&'static str, f64)>,
    /// The [`ParamUnit::Numbers`] parameters, as given (one or several values).
    lists: Vec<(&'static str, Vec<f64>)>,
}

impl Params {
    /// Parses `given` (the `[engine.params]` table) against `specs`: unknown keys, missing
    /// required ones and malformed values are errors naming `engine.params.<key>`.
    pub fn parse(
        model: &str,
        specs: &[ParamSpec],
        given: &serde_json::Map<String, Value>,
    ) -> Result<Params> {
        for key in given.keys() {
            if !specs.iter().any(|s| s.name == key) {
                let known: Vec<_> = specs.iter().map(|s| s.name).collect();
                return Err(Error::invalid(
                    format!("engine.params.{key}"),
                    format!(
                        "model {model:?} has no parameter {key:?} (its parameters: {})",
                        known.join(", ")
                    ),
                ));
            }
        }
        let mut values = Vec::with_capacity(specs.len());
        let mut lists = Vec::new();
        for s in specs {
            let at = format!("engine.params.{}", s.name);
            if s.unit == ParamUnit::Numbers {
                let list = match (given.get(s.name), s.default) {
                    (Some(v), _) => parse_numbers(v).map_err(|m| Error::invalid(&at, m))?,
                    (None, Some(d)) => vec![d],
                    (None, None) => {
                        return Err(Error::invalid(
                            at,
                            format!("model {model:?} needs this parameter ({})", s.doc),
                        ))
                    }
                };
                lists.push((s.name, list));
                continue;
            }
            let v = match (given.get(s.name), s.default) {
                (Some(v), _) => parse_value(s.unit, v).map_err(|m| Error::invalid(&at, m))?,
                (None, Some(d)) => d,
                (None, None) => {
                    return Err(Error::invalid(
                        at,
                        format!(
                            "model {model:?} needs this parameter ({}, a {})",
                            s.doc,
                            s.unit.name()
                        ),
                    ))
                }
            };
            values.push((s.name, v));
        }
        Ok(Params { values, lists })
    }

    /// The value of `name` in base units.
    ///
    /// # Panics
    /// If the model did not declare `name` (a bug in the model, caught by its tests).
    pub fn get(&self, name: &str) -> f64 {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("parameter {name:?} is not declared by the model"))
    }

    /// The values of the [`ParamUnit::Numbers`] parameter `name`, one for each of `entries`
    /// (a single value given is repeated); another count is an error naming the field.
    ///
    /// # Panics
    /// If the model did not declare `name` as [`ParamUnit::Numbers`] (a bug in the model).
    pub fn per_entry(&self, name: &str, entries: usize) -> Result<Vec<f64>> {
        let list = self
            .lists
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
            .unwrap_or_else(|| panic!("parameter {name:?} is not declared as numbers"));
        match list.len() {
            1 => Ok(vec![list[0]; entries]),
            n if n == entries => Ok(list.clone()),
            n => Err(Error::invalid(
                format!("engine.params.{name}"),
                format!("expected one number or {entries} (one per entry), got {n}"),
            )),
        }
    }

    /// The value of `name`, which must be positive: else an error naming the field.
    pub fn positive(&self, name: &str) -> Result<f64> {
        let v = self.get(name);
        if v > 0.0 && v.is_finite() {
            Ok(v)
        } else {
            Err(Error::invalid(
                format!("engine.params.{name}"),
                format!("must be positive, got {v}"),
            ))
        }
    }

    /// Every value, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        self.values.iter().copied()
    }
}

/// A [`ParamUnit::Numbers`] value: one finite number or a non-empty list of them.
fn parse_numbers(v: &Value) -> std::result::Result<Vec<f64>, String> {
    let one = |x: &Value| x.as_f64().filter(|x| x.is_finite());
    match v {
        Value::Array(xs) if !xs.is_empty() => xs
            .iter()
            .enumerate()
            .map(|(i, x)| one(x).ok_or_else(|| format!("entry {i}: expected a number, got {x}")))
            .collect(),
        _ => one(v)
            .map(|x| vec![x])
            .ok_or_else(|| format!("expected a number or a list of numbers, got {v}")),
    }
}

fn parse_value(unit: ParamUnit, v: &Value) -> std::result::Result<f64, String> {
    let negative = match v {
        Value::String(s) => s.trim_start().starts_with('-'),
        Value::Number(n) => n.as_f64().is_some_and(|x| x < 0.0),
        _ => false,
    };
    if negative && unit != ParamUnit::Number {
        return Err(format!("must not be negative, got {v}"));
    }
    let number = |what: &str| {
        v.as_f64()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("expected {what}, got {v}"))
    };
    match unit {
        ParamUnit::Number | ParamUnit::Numbers => number("a number"),
        ParamUnit::Count => v
            .as_u64()
            .map(|n| n as f64)
            .ok_or_else(|| format!("expected a whole number, got {v}")),
        ParamUnit::Seconds => {
            with_unit::<Time>(v, "a duration such as \"100us\"").map(|t| t.as_secs_f64())
        }
        ParamUnit::BitsPerSecond => {
            with_unit::<Rate>(v, "a rate such as \"10Gbps\"").map(|r| r.bps())
        }
        ParamUnit::Bytes => with_unit::<Bytes>(v, "a size such as \"64KB\"").map(|b| b.0 as f64),
    }
}

/// A unit value given as a string with its unit or a number in the base unit, parsed by the
/// same code as every other scenario field.
fn with_unit<T: serde::de::DeserializeOwned>(
    v: &Value,
    what: &str,
) -> std::result::Result<T, String> {
    match v {
        Value::String(_) | Value::Number(_) => {
            serde_json::from_value(v.clone()).map_err(|e| e.to_string())
        }
        _ => Err(format!("expected {what}, got {v}")),
    }
}
