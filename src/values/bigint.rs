//! A minimal unsigned big integer, for exact arithmetic past 128 bits: comparing a
//! Decimal128 with a double (`decimal.rs`).

use std::cmp::Ordering;

/// A non-negative integer in little-endian 32-bit limbs (leading zero limbs allowed).
#[derive(Debug, Clone)]
pub(crate) struct BigUint {
    limbs: Vec<u32>,
}

impl BigUint {
    /// Builds a big integer from a `u128`.
    pub(crate) fn from_u128(mut v: u128) -> Self {
        let mut limbs = Vec::with_capacity(8);
        while v > 0 {
            // Keeping the low 32 bits is the intent of this cast.
            limbs.push(v as u32);
            v >>= 32;
        }
        BigUint { limbs }
    }

    /// `self = self × factor + add`.
    pub(crate) fn mul_add(&mut self, factor: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.limbs {
            let product = u64::from(*limb) * u64::from(factor) + carry;
            *limb = product as u32;
            carry = product >> 32;
        }
        if carry > 0 {
            self.limbs.push(carry as u32);
        }
    }

    /// Multiplies by `10^n`, nine digits at a time.
    pub(crate) fn mul_pow10(&mut self, mut n: u64) {
        while n > 0 {
            let step = n.min(9);
            self.mul_add(10u32.pow(step as u32), 0);
            n -= step;
        }
    }

    /// Multiplies by `2^n`.
    pub(crate) fn shl(&mut self, n: u64) {
        if self.limbs.is_empty() {
            return;
        }
        let whole = (n / 32) as usize;
        let bits = (n % 32) as u32;
        if bits > 0 {
            let mut carry = 0u32;
            for limb in &mut self.limbs {
                let next = *limb >> (32 - bits);
                *limb = (*limb << bits) | carry;
                carry = next;
            }
            if carry > 0 {
                self.limbs.push(carry);
            }
        }
        self.limbs.splice(0..0, std::iter::repeat_n(0, whole));
    }

    /// The number of limbs up to the highest nonzero one.
    fn significant(&self) -> usize {
        self.limbs
            .iter()
            .rposition(|&x| x != 0)
            .map_or(0, |p| p + 1)
    }
}

eq_from_ord!(BigUint);

impl Ord for BigUint {
    fn cmp(&self, other: &Self) -> Ordering {
        // Leading zero limbs carry no value, so they are ignored; the significant
        // lengths then decide, and equal lengths compare limb by limb from the top.
        let (la, lb) = (self.significant(), other.significant());
        la.cmp(&lb).then_with(|| {
            self.limbs[..la]
                .iter()
                .rev()
                .cmp(other.limbs[..lb].iter().rev())
        })
    }
}
