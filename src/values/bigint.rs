//! A minimal unsigned big integer, for the few places that need exact arithmetic past
//! 128 bits: comparing a Decimal128 with a double (`decimal.rs`) and correctly rounded
//! decimal-to-double parsing (`float.rs`).

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

    /// Divides by 2, dropping the remainder.
    fn shr1(&mut self) {
        let mut carry = 0u32;
        for limb in self.limbs.iter_mut().rev() {
            let next = *limb << 31;
            *limb = (*limb >> 1) | carry;
            carry = next;
        }
    }

    /// The number of significant bits (0 for zero).
    pub(crate) fn bits(&self) -> u64 {
        match self.significant() {
            0 => 0,
            n => (n as u64 - 1) * 32 + u64::from(32 - self.limbs[n - 1].leading_zeros()),
        }
    }

    /// `self -= other`, where `other ≤ self`.
    fn sub(&mut self, other: &BigUint) {
        let mut borrow = 0i64;
        for (i, limb) in self.limbs.iter_mut().enumerate() {
            let v = i64::from(*limb) - i64::from(other.limbs.get(i).copied().unwrap_or(0)) - borrow;
            borrow = i64::from(v < 0);
            *limb = v.rem_euclid(1 << 32) as u32;
        }
    }

    /// `(self / den, self % den != 0)` for a quotient known to be below 2^67: restoring
    /// division, one quotient bit at a time.
    pub(crate) fn div_small_quotient(mut self, den: &BigUint) -> (u128, bool) {
        let mut shifted = den.clone();
        shifted.shl(66);
        let mut q = 0u128;
        for _ in 0..=66 {
            q <<= 1;
            if self >= shifted {
                self.sub(&shifted);
                q |= 1;
            }
            shifted.shr1();
        }
        (q, self.significant() > 0)
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
