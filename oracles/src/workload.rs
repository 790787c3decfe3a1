//! The InferenceX benchmark's random workload: the per-request input and output lengths one
//! benchmark point draws (docs/upstream.md §2; INFX `utils/bench_serving/benchmark_serving.py`,
//! random dataset).

use crate::numpy::{RandintError, RandomState, SeedWords};
use std::fmt;

/// `--seed` defaults to 0 and the InferenceX recipes never pass it.
pub const INFERENCEX_SEED: u32 = 0;
/// RANDOM_RANGE_RATIO in the InferenceX workflow.
pub const INFERENCEX_RANGE_RATIO: f64 = 0.8;
/// num_prompts = 10 x concurrency.
pub const INFERENCEX_REQUESTS_PER_CONCURRENCY: u32 = 10;

/// One benchmark point: the workload's input and output lengths and the client concurrency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WorkloadPoint {
    pub isl: u32,
    pub osl: u32,
    pub concurrency: u32,
}

impl WorkloadPoint {
    /// `1k1k-c64` for 1024:1024 at concurrency 64; lengths that are not whole KiB stay numeric
    /// (`1000x1k-c1`).
    pub fn label(&self) -> String {
        format!("{}-c{}", self.workload_label(), self.concurrency)
    }

    /// `1k1k`, `1k8k`, `8k1k` (the labels InferenceX uses for 1024:1024, 1024:8192, 8192:1024).
    pub fn workload_label(&self) -> String {
        let short = |len: u32| {
            if len.is_multiple_of(1024) {
                format!("{}k", len / 1024)
            } else {
                len.to_string()
            }
        };
        let (i, o) = (short(self.isl), short(self.osl));
        if self.isl.is_multiple_of(1024) && self.osl.is_multiple_of(1024) {
            format!("{i}{o}")
        } else {
            format!("{i}x{o}")
        }
    }
}

impl fmt::Display for WorkloadPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// The draw's parameters: what one fixture file holds for all its points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    pub seed: u32,
    pub range_ratio: f64,
    pub requests_per_concurrency: u32,
}

impl Params {
    /// InferenceX's own parameters, with a chosen numpy seed.
    pub fn inferencex(seed: u32) -> Params {
        Params {
            seed,
            range_ratio: INFERENCEX_RANGE_RATIO,
            requests_per_concurrency: INFERENCEX_REQUESTS_PER_CONCURRENCY,
        }
    }

    pub fn num_prompts(&self, point: &WorkloadPoint) -> usize {
        self.requests_per_concurrency as usize * point.concurrency as usize
    }
}

/// Python's `int(length * ratio)`: the product is an IEEE double (the int converts exactly
/// below 2^53) and `int()` truncates toward zero, so `1024 * 0.8 = 819.2000000000001 -> 819`
/// and `100 * 0.57 = 56.99999999999999 -> 56` (not the 57 exact decimal arithmetic gives).
/// `None` where Python would raise (a non-finite product).
pub fn lower_bound(length: u32, ratio: f64) -> Option<i64> {
    let product = f64::from(length) * ratio;
    if !product.is_finite() {
        return None;
    }
    // `as` truncates toward zero, like int(); |product| < 2^32 * |ratio| keeps it in range for
    // any ratio a fixture accepts.
    Some(product.trunc() as i64)
}

/// The inclusive bounds `[int(len * ratio), len]` lengths are drawn from.
pub fn bounds(length: u32, ratio: f64) -> Option<(i64, i64)> {
    lower_bound(length, ratio).map(|low| (low, i64::from(length)))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lengths {
    pub input: Vec<i64>,
    pub output: Vec<i64>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DrawError {
    /// `int(len * ratio)` would raise in Python.
    Ratio {
        ratio: f64,
    },
    Randint(RandintError),
}

impl fmt::Display for DrawError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DrawError::Ratio { ratio } => write!(f, "range ratio {ratio} gives no integer bound"),
            DrawError::Randint(e) => write!(f, "randint: {e}"),
        }
    }
}

impl std::error::Error for DrawError {}

/// The lengths one benchmark process draws for `point`: a fresh `np.random.seed(seed)`, the
/// prefix draw of size 0 (nothing), all input lengths, then all output lengths. The token-id
/// draws that follow do not affect lengths and are not made.
pub fn draw(params: &Params, point: &WorkloadPoint) -> Result<Lengths, DrawError> {
    let mut lengths = Lengths { input: Vec::new(), output: Vec::new() };
    draw_into(params, point, &mut lengths)?;
    Ok(lengths)
}

/// [`draw`] into `lengths`, replacing what it held but keeping its allocations, so a loop over
/// many points allocates once.
pub fn draw_into(params: &Params, point: &WorkloadPoint, lengths: &mut Lengths) -> Result<(), DrawError> {
    let ratio = params.range_ratio;
    let n = params.num_prompts(point);
    lengths.input.clear();
    lengths.output.clear();
    let mut rs = RandomState::seed(params.seed);
    // prefix token ids: randint(0, vocab, size=prefix_len) with prefix_len 0 draws nothing.
    rs.randint(0, 1, 0).map_err(DrawError::Randint)?;
    let mut lengths_of = |len: u32, out: &mut Vec<i64>| -> Result<(), DrawError> {
        let low = lower_bound(len, ratio).ok_or(DrawError::Ratio { ratio })?;
        rs.randint_into(i128::from(low), i128::from(len) + 1, n, out).map_err(DrawError::Randint)
    };
    lengths_of(point.isl, &mut lengths.input)?;
    lengths_of(point.osl, &mut lengths.output)?;
    Ok(())
}

/// [`draw_into`] for many points of one seed: each point still starts from `np.random.seed`,
/// but the words that seed gives are drawn once and replayed ([`SeedWords`]), not regenerated
/// per point. The lengths are the same as [`draw`]'s.
#[derive(Clone, Debug)]
pub struct Drawer {
    params: Params,
    words: SeedWords,
}

impl Drawer {
    pub fn new(params: Params) -> Drawer {
        Drawer { params, words: SeedWords::new(params.seed) }
    }

    /// [`Drawer::new`] in place, keeping its allocations (for a loop over seeds).
    pub fn reset(&mut self, params: Params) {
        self.params = params;
        self.words.reseed(params.seed);
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// [`draw_into`] for `point`.
    pub fn draw_into(&mut self, point: &WorkloadPoint, lengths: &mut Lengths) -> Result<(), DrawError> {
        let ratio = self.params.range_ratio;
        let n = self.params.num_prompts(point);
        lengths.input.clear();
        lengths.output.clear();
        let mut rs = self.words.restart();
        rs.randint_into(0, 1, 0, &mut lengths.input).map_err(DrawError::Randint)?;
        let mut lengths_of = |len: u32, out: &mut Vec<i64>| -> Result<(), DrawError> {
            let low = lower_bound(len, ratio).ok_or(DrawError::Ratio { ratio })?;
            rs.randint_into(i128::from(low), i128::from(len) + 1, n, out).map_err(DrawError::Randint)
        };
        lengths_of(point.isl, &mut lengths.input)?;
        lengths_of(point.osl, &mut lengths.output)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P1K1K_C1: WorkloadPoint = WorkloadPoint { isl: 1024, osl: 1024, concurrency: 1 };

    #[test]
    fn lower_bound_is_pythons_float_truncation() {
        assert_eq!(lower_bound(1024, 0.8), Some(819));
        assert_eq!(lower_bound(8192, 0.8), Some(6553));
        // Exact decimal arithmetic would say 57; Python's float says 56.
        assert_eq!(lower_bound(100, 0.57), Some(56));
        assert_eq!(lower_bound(10, f64::NAN), None);
    }

    #[test]
    fn draw_into_reuses_buffers_and_equals_draw() {
        let params = Params::inferencex(3);
        let mut reused = Lengths { input: vec![7; 5000], output: vec![7; 3] };
        for point in [WorkloadPoint { isl: 8192, osl: 1024, concurrency: 64 }, P1K1K_C1] {
            draw_into(&params, &point, &mut reused).unwrap();
            assert_eq!(reused, draw(&params, &point).unwrap(), "{point}");
        }
    }

    #[test]
    fn the_drawer_replays_what_draw_gives_point_by_point() {
        let points = [
            WorkloadPoint { isl: 8192, osl: 1024, concurrency: 64 },
            P1K1K_C1,
            WorkloadPoint { isl: 1024, osl: 8192, concurrency: 256 },
            WorkloadPoint { isl: 3, osl: 1 << 30, concurrency: 5 },
        ];
        for params in [Params::inferencex(0), Params { seed: 9, range_ratio: 0.05, requests_per_concurrency: 3 }] {
            let mut drawer = Drawer::new(params);
            let mut lengths = Lengths { input: Vec::new(), output: Vec::new() };
            for point in points.iter().chain(points.iter().rev()) {
                drawer.draw_into(point, &mut lengths).unwrap();
                assert_eq!(lengths, draw(&params, point).unwrap(), "{point}");
            }
            // A reset drawer is a new one.
            let other = Params { seed: params.seed + 1, ..params };
            drawer.reset(other);
            drawer.draw_into(&points[0], &mut lengths).unwrap();
            assert_eq!(lengths, draw(&other, &points[0]).unwrap());
        }
    }

    #[test]
    fn labels_follow_inferencex() {
        assert_eq!(P1K1K_C1.label(), "1k1k-c1");
        assert_eq!(WorkloadPoint { isl: 1024, osl: 8192, concurrency: 64 }.label(), "1k8k-c64");
        assert_eq!(WorkloadPoint { isl: 8192, osl: 1024, concurrency: 512 }.label(), "8k1k-c512");
        assert_eq!(WorkloadPoint { isl: 1000, osl: 1024, concurrency: 2 }.label(), "1000x1k-c2");
    }

    #[test]
    fn first_inputs_at_1k1k_are_numpys_seed0_draws() {
        // docs/upstream.md §1: the first ten at 1024:1024.
        let point = WorkloadPoint { isl: 1024, osl: 1024, concurrency: 1 };
        let lengths = draw(&Params::inferencex(0), &point).unwrap();
        assert_eq!(lengths.input, vec![991, 866, 936, 1011, 886, 1014, 922, 828, 840, 855]);
        assert_eq!(lengths.output.len(), 10);
    }

    #[test]
    fn outputs_start_after_all_inputs_so_they_depend_on_concurrency() {
        let params = Params::inferencex(0);
        let c1 = draw(&params, &P1K1K_C1).unwrap();
        let c2 = draw(&params, &WorkloadPoint { concurrency: 2, ..P1K1K_C1 }).unwrap();
        assert_eq!(c1.input[..], c2.input[..10], "same seed, same input prefix");
        assert_ne!(c1.output[..], c2.output[..10]);
        let mut rs = RandomState::seed(0);
        rs.randint(819, 1025, 10).unwrap();
        assert_eq!(c1.output, rs.randint(819, 1025, 10).unwrap());
    }

    #[test]
    fn lengths_stay_inside_the_inclusive_bounds() {
        let point = WorkloadPoint { isl: 8192, osl: 1024, concurrency: 64 };
        let lengths = draw(&Params::inferencex(3), &point).unwrap();
        assert!(lengths.input.iter().all(|l| (6553..=8192).contains(l)));
        assert!(lengths.output.iter().all(|l| (819..=1024).contains(l)));
        assert_eq!(lengths.input.len(), 640);
    }
}
