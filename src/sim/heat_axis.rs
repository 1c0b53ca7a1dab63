//! How the heatmap's key axis maps points to its height: linearly, or by rank.
//!
//! **Linear** spreads the points between the lowest and the highest in proportion: right
//! for the hash space, where neighbours are spread evenly. For the values of a ranged
//! key it misleads twice: a key of seven values gets seven hairlines, and a single insert
//! far from the rest stretches the axis so that everything else shares a few rows.
//!
//! **By rank** gives every distinct point on the axis (each chunk bound and each end of a
//! kept range, at most [`MAX_BANDS`], sampled evenly by rank beyond that) an equal band,
//! and places a point between two of them in proportion within their band. Seven values
//! become seven equal bands, and an outlier takes one band of its own instead of the whole
//! axis.

/// The most bands a ranked axis keeps (its points sampled evenly by rank beyond that).
pub const MAX_BANDS: usize = 4096;

/// How far inside a band its edge is taken, in rows, against rounding.
const EDGE: f64 = 1e-6;

/// A heat axis (see the module's notes).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Axis {
    /// Linear from the first point to the second.
    Linear(u64, u64),
    /// By rank over these sorted, distinct points (at least two).
    Ranked(Vec<u64>),
}

impl Axis {
    /// The axis by rank over `points` (any order, repeats allowed), or linear over them
    /// when fewer than two are distinct; `None` without any.
    pub(crate) fn ranked(mut points: Vec<u64>) -> Option<Axis> {
        points.sort_unstable();
        points.dedup();
        match points.len() {
            0 => None,
            1 => Some(Axis::Linear(points[0], points[0].saturating_add(1))),
            n if n > MAX_BANDS => Some(Axis::Ranked(
                (0..MAX_BANDS)
                    .map(|i| points[i * (n - 1) / (MAX_BANDS - 1)])
                    .collect(),
            )),
            _ => Some(Axis::Ranked(points)),
        }
    }

    /// The lowest and highest points drawn.
    pub(crate) fn ends(&self) -> (u64, u64) {
        match self {
            Axis::Linear(lo, hi) => (*lo, *hi),
            Axis::Ranked(k) => (k[0], k[k.len() - 1]),
        }
    }

    /// The number of bands when ranked (0 when linear).
    pub(crate) fn bands(&self) -> u32 {
        match self {
            Axis::Linear(..) => 0,
            Axis::Ranked(k) => k.len() as u32,
        }
    }

    /// Where point `p` sits, from 0 at the bottom to 1 at the top: for a ranked axis,
    /// the bottom of its band.
    pub(crate) fn at(&self, p: u64) -> f64 {
        match self {
            Axis::Linear(lo, hi) => (p.clamp(*lo, *hi) - lo) as f64 / ((hi - lo) as f64 + 1.0),
            Axis::Ranked(k) => {
                let n = k.len() as f64;
                let i = k.partition_point(|x| *x <= p);
                match (i.checked_sub(1), k.get(i)) {
                    (None, _) => 0.0,
                    (Some(j), Some(next)) => {
                        let t = (p - k[j]) as f64 / (next - k[j]) as f64;
                        (j as f64 + t) / n
                    }
                    (Some(j), None) if p == k[j] => j as f64 / n,
                    (Some(_), None) => 1.0,
                }
            }
        }
    }

    /// The rows, out of `rows`, that the points from `lo` to `hi` cover, first and last:
    /// on a ranked axis a point covers its whole band.
    pub(crate) fn rows(&self, lo: u64, hi: u64, rows: usize) -> (usize, usize) {
        let row = |f: f64| ((f * rows as f64) as usize).min(rows - 1);
        let b = match self {
            Axis::Linear(..) => row(self.at(hi)),
            Axis::Ranked(k) => {
                let top = match k.binary_search(&hi) {
                    Ok(i) => (i + 1) as f64 / k.len() as f64,
                    Err(_) => self.at(hi),
                };
                // A band's edges are exact fractions: rounding must not spill a row over.
                ((top * rows as f64 - EDGE).ceil() as usize).saturating_sub(1)
            }
        };
        let a = match self {
            Axis::Linear(..) => row(self.at(lo)),
            Axis::Ranked(_) => row(self.at(lo) + EDGE / rows as f64),
        };
        (a, b.clamp(a, rows - 1))
    }

    /// The point at fraction `f` of the axis (the inverse of [`Axis::at`]).
    pub(crate) fn point(&self, f: f64) -> u64 {
        match self {
            Axis::Linear(lo, hi) => lo + (f * (hi - lo) as f64) as u64,
            Axis::Ranked(k) => {
                let x = f.clamp(0.0, 1.0) * k.len() as f64;
                let j = (x as usize).min(k.len() - 1);
                match k.get(j + 1) {
                    Some(next) => k[j] + ((x - j as f64) * (next - k[j]) as f64) as u64,
                    None => k[j],
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Axis;

    #[test]
    fn seven_values_get_seven_equal_bands() {
        let axis = Axis::ranked(vec![10, 20, 30, 40, 50, 60, 70, 30]).expect("points");
        assert_eq!(axis.bands(), 7);
        let rows: Vec<(usize, usize)> =
            [10, 20, 70].iter().map(|p| axis.rows(*p, *p, 70)).collect();
        assert_eq!(rows, [(0, 9), (10, 19), (60, 69)]);
        assert_eq!(axis.at(0), 0.0);
        assert_eq!(axis.at(u64::MAX), 1.0);
    }

    #[test]
    fn an_outlier_takes_one_band_not_the_axis() {
        let mut points: Vec<u64> = (0..7).map(|i| 1000 + i).collect();
        points.push(u64::MAX / 2);
        let axis = Axis::ranked(points).expect("points");
        // The seven values still take seven eighths of the height.
        assert_eq!(axis.rows(1000, 1006, 80), (0, 69));
        assert_eq!(axis.rows(u64::MAX / 2, u64::MAX / 2, 80), (70, 79));
        let linear = Axis::Linear(1000, u64::MAX / 2);
        assert_eq!(linear.rows(1000, 1006, 80), (0, 0));
    }

    #[test]
    fn point_inverts_at() {
        let axis = Axis::ranked(vec![0, 100, 1000, 5000]).expect("points");
        for p in [0, 50, 100, 700, 1000, 4000] {
            let back = axis.point(axis.at(p));
            assert!(back.abs_diff(p) <= 1, "{p} -> {back}");
        }
        let many = Axis::ranked((0..10_000).map(|i| i * 3).collect()).expect("points");
        assert_eq!(many.bands(), super::MAX_BANDS as u32);
        assert_eq!(many.ends(), (0, 29_997));
    }
}
