//! Division for the bottleneck rate `b = (c − SumE) / NumB`: exact, or approximated by a lookup
//! table as in the s-PERC hardware prototype (§7.1 "Division in hardware", §8.1.2 "Imprecise
//! rate calculations").
//!
//! The paper's prototype splits the work in two (§7.1): the link state is updated from the exact
//! comparison `(c − SumE) < e · NumB` (a multiplication), and only the propagated bottleneck rate
//! goes through the table. We tried exactly that and it does not settle: the link classifies a
//! flow against the exact quotient but allocates and propagates the table's, the two disagree
//! near ties, and with a 320 KB table final rates were up to 40% off (random sparse matrices,
//! 60 rounds). The numerical simulations of §8.1.2 do not say which they did; we classify with
//! the same table quotient the link propagates ([`Divider::less_than_quotient`]), which gives
//! the paper's outcome (320 KB within 10%; in our runs ≈1%, while 20 KB tables leave some
//! flows 30–50% off).
//!
//! The paper does not describe its table's layout (only its size: 20, 80, 320 KB in §8.1.2, an
//! 84 KB exact-match + TCAM table in the prototype). Ours is a two-dimensional table of quotients
//! of mantissas: both operands are split into a power of two and a mantissa in `[1, 2)`, the
//! mantissas are truncated to `k` bits, and the table holds `(1 + i/2^k) / (1 + j/2^k)` as an
//! `f32` (4 bytes) for every pair `(i, j)`, so a table of `S` bytes has `k = ⌊log₂(S/4) / 2⌋`
//! (20 KB → 6 bits, 80 KB → 7, 320 KB → 8). Truncation rounds the dividend down: integers up to
//! `2^(k+1)` divide exactly; truncating the dividend makes a quotient up to `2^-k` low, truncating
//! the divisor up to `2^-k` high.

use crate::error::{Error, Result};

/// Relative tolerance of the exact-arithmetic comparisons `e < b` and `b < MaxE`: two rates
/// that are equal in exact arithmetic (say `c/n` of two links with the same capacity and flow
/// count, reached through different sums) can differ in the last bits of an `f64`, and a strict
/// comparison then flips a flow between B and E or sets an ignore bit for nothing. On dense
/// matrices with equal capacities that made s-PERC cycle forever (4 of 200 Fig. 6b matrices).
/// `e < b` is evaluated as `e < b·(1 − TIE)`: rates within `TIE` count as equal.
pub const TIE: f64 = 1e-12;

/// How links divide.
#[derive(Clone, Debug, PartialEq)]
pub enum Divider {
    /// IEEE double division.
    Exact,
    /// A lookup table of mantissa quotients (see the [module docs](self)).
    Table(LookupDivision),
}

impl Divider {
    /// A table of `bytes` bytes, or exact division for `None`.
    pub fn new(table_bytes: Option<u64>) -> Result<Divider> {
        Ok(match table_bytes {
            None => Divider::Exact,
            Some(b) => Divider::Table(LookupDivision::new(b)?),
        })
    }

    /// `num / den` (`den ≥ 1`), 0 when `num ≤ 0`.
    #[inline]
    pub fn div(&self, num: f64, den: f64) -> f64 {
        match self {
            Divider::Exact => num / den,
            Divider::Table(t) => t.div(num, den),
        }
    }

    /// `e < num / den`, the comparison that classifies a flow into E (Algorithm 3 line 13,
    /// Algorithm 4 line 18), against the same quotient the link propagates (see the
    /// [module docs](self) for why not the exact product comparison of §7.1).
    #[inline]
    pub fn less_than_quotient(&self, e: f64, num: f64, den: f64) -> bool {
        match self {
            Divider::Exact => e < num / den * (1.0 - TIE),
            Divider::Table(t) => e < t.div(num, den),
        }
    }
}

/// A division lookup table (see the [module docs](self)).
#[derive(Clone, Debug, PartialEq)]
pub struct LookupDivision {
    bits: u32,
    table: Vec<f32>,
}

impl LookupDivision {
    /// A table of at most `bytes` bytes (at least 16: a 2 × 2 table).
    pub fn new(bytes: u64) -> Result<LookupDivision> {
        let entries = bytes / 4;
        if entries < 4 {
            return Err(Error::invalid(
                "engine.division_table",
                format!(
                    "expected at least 16 bytes (a 2 x 2 table of 4-byte entries), got {bytes}"
                ),
            ));
        }
        let bits = ((entries as f64).log2() / 2.0).floor().min(12.0) as u32;
        let side = 1usize << bits;
        let mut table = Vec::with_capacity(side * side);
        for i in 0..side {
            for j in 0..side {
                let a = 1.0 + i as f64 / side as f64;
                let b = 1.0 + j as f64 / side as f64;
                table.push((a / b) as f32);
            }
        }
        Ok(LookupDivision { bits, table })
    }

    /// Mantissa bits per operand.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Bytes the table occupies.
    pub fn bytes(&self) -> usize {
        self.table.len() * 4
    }

    #[inline]
    fn split(&self, x: f64) -> (usize, i32) {
        // x = 2^exp · (1 + frac), frac in [0, 1); index = top `bits` bits of frac.
        let raw = x.to_bits();
        let exp = ((raw >> 52) & 0x7ff) as i32 - 1023;
        let idx = ((raw >> (52 - self.bits)) & ((1u64 << self.bits) - 1)) as usize;
        (idx, exp)
    }

    /// `num / den` through the table; 0 when `num ≤ 0`.
    #[inline]
    pub fn div(&self, num: f64, den: f64) -> f64 {
        if num <= 0.0 || !num.is_normal() {
            return if num.is_infinite() {
                f64::INFINITY
            } else {
                0.0
            };
        }
        let (i, ea) = self.split(num);
        let (j, eb) = self.split(den);
        f64::from(self.table[(i << self.bits) | j]) * 2f64.powi(ea - eb)
    }
}
