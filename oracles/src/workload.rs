//! The InferenceX benchmark's random workload: the per-request input and output lengths one
//! benchmark point draws (docs/upstream.md §2; INFX `utils/bench_serving/benchmark_serving.py`,
//! random dataset).

use crate::numpy::{self, RandintError, RandomState, Rule, SeedWords};
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

/// Every point of one seed as slices of shared sequences: a point reseeds, so its inputs start
/// at word 0 and its outputs where its inputs ended; under the masked rule a draw starting at
/// word `p` keeps exactly the words at or after `p` that the same bounds keep from the whole
/// stream. So all draws of one pair of bounds are slices of one sequence of kept values (a
/// [`Run`]), made once per seed however many points use it.
///
/// What a run stores of its values is the [`Keep`]er's choice: the values themselves
/// (`Vec<i64>`, [`SeedDraws::values`]) or anything made from them (the fixture check keeps
/// their text). Positions stay here: the count of values kept before each [`CHUNK`] of words,
/// from which a draw's start and end are found by recounting at most one chunk.
///
/// The slices equal [`draw`]'s vectors (tested point by point). Bounds under rule 5 (64-bit
/// draws, only for spans beyond 2^32) pair words from wherever the draw starts and are not
/// slices: [`SeedDraws::draw`] answers `None` for them.
#[derive(Clone, Debug)]
pub struct SeedDraws<K = Vec<i64>> {
    params: Params,
    words: SeedWords,
    /// `runs[..used]` are this seed's; the rest are emptied ones kept for their allocations.
    runs: Vec<Run<K>>,
    used: usize,
}

/// What a run stores of the values its rule keeps.
pub trait Keep: Default {
    /// Appends what `rule` keeps of `words`, in order. `words` are whole [`CHUNK`]s;
    /// `kept_before[c]` counts the run's values kept before chunk `c` of them, and the last
    /// entry all of them (one more entry than chunks).
    fn masked(&mut self, rule: &numpy::Masked32, words: &[u32], kept_before: &[usize]);
    /// Appends `n` copies of `value` (rule 3 draws no word).
    fn constant(&mut self, value: i64, n: usize);
    /// Forgets every value (the storage may stay).
    fn clear(&mut self);
}

impl Keep for Vec<i64> {
    fn masked(&mut self, rule: &numpy::Masked32, words: &[u32], _kept_before: &[usize]) {
        rule.keep_into(words, self);
    }

    fn constant(&mut self, value: i64, n: usize) {
        self.extend(std::iter::repeat_n(value, n));
    }

    fn clear(&mut self) {
        Vec::clear(self);
    }
}

/// Words to read for the values a run lacks (`count` wanted, `kept` so far): the expected
/// count and a little more, so one pass nearly always suffices without drawing much that no
/// point needs; whole [`CHUNK`]s, at least one. Only the work depends on it: the scan reads on
/// until it has enough.
fn lookahead(count: usize, kept: usize, words_per_value: f64) -> usize {
    let missing = count.saturating_sub(kept);
    let more = ((missing as f64 * words_per_value * 1.02) as usize).min(64 * missing) + CHUNK;
    more.div_ceil(CHUNK) * CHUNK
}

/// Words per position checkpoint of a [`Run`].
pub const CHUNK: usize = 64;

/// What one pair of bounds keeps from the seed's stream, in order, as far as scanned.
#[derive(Clone, Debug)]
pub struct Run<K> {
    bounds: (i64, i64),
    rule: Rule,
    keep: K,
    kept: usize,
    /// Masked rule: `kept_before[c]`, the values kept from the words before chunk `c`, for
    /// every chunk scanned and the one after.
    kept_before: Vec<usize>,
}

impl<K> Run<K> {
    /// What the keeper holds: the first [`Run::kept`] values of the run.
    pub fn keep(&self) -> &K {
        &self.keep
    }

    pub fn kept(&self) -> usize {
        self.kept
    }

    fn scanned(&self) -> usize {
        (self.kept_before.len() - 1) * CHUNK
    }
}

/// One vector of a point: `len` values of run `run` from `start` (an empty one names no run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    pub run: usize,
    pub start: usize,
    pub len: usize,
}

/// A point's two vectors as slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointSlices {
    pub input: Slice,
    pub output: Slice,
}

impl SeedDraws<Vec<i64>> {
    /// A slice's values.
    pub fn values(&self, slice: Slice) -> &[i64] {
        if slice.len == 0 {
            return &[];
        }
        &self.runs[slice.run].keep[slice.start..slice.start + slice.len]
    }
}

impl<K: Keep> SeedDraws<K> {
    pub fn new(params: Params) -> SeedDraws<K> {
        SeedDraws { params, words: SeedWords::new(params.seed), runs: Vec::new(), used: 0 }
    }

    /// [`SeedDraws::new`] in place, keeping the allocations (for a loop over seeds).
    pub fn reset(&mut self, params: Params) {
        self.params = params;
        self.words.reseed(params.seed);
        self.used = 0;
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The runs made so far; [`Slice::run`] indexes them.
    pub fn runs(&self) -> &[Run<K>] {
        &self.runs[..self.used]
    }

    /// `point`'s vectors as slices of this seed's runs, or `None` where they are not slices
    /// (see [`SeedDraws`]); the error is [`draw`]'s.
    pub fn draw(&mut self, point: &WorkloadPoint) -> Result<Option<PointSlices>, DrawError> {
        let n = self.params.num_prompts(point);
        let mut consumed = 0usize;
        let Some(input) = self.take(point.isl, n, &mut consumed)? else { return Ok(None) };
        let Some(output) = self.take(point.osl, n, &mut consumed)? else { return Ok(None) };
        Ok(Some(PointSlices { input, output }))
    }

    /// `randint(int(len * ratio), len + 1, size=n)` on the stream after `consumed` words.
    fn take(&mut self, len: u32, n: usize, consumed: &mut usize) -> Result<Option<Slice>, DrawError> {
        let ratio = self.params.range_ratio;
        let low = lower_bound(len, ratio).ok_or(DrawError::Ratio { ratio })?;
        // Rule 1: a size of 0 draws nothing and checks nothing.
        if n == 0 {
            return Ok(Some(Slice { run: 0, start: 0, len: 0 }));
        }
        let high = i64::from(len) + 1;
        let rule = numpy::rule(i128::from(low), i128::from(high)).map_err(DrawError::Randint)?;
        if let Rule::Wide { .. } = rule {
            return Ok(None);
        }
        let run = self.run_for((low, high), rule);
        let start = match rule {
            Rule::Wide { .. } => unreachable!("answered above"),
            Rule::Constant(value) => {
                // The run holds at least `n` copies afterwards: only the missing ones are added.
                let r = &mut self.runs[run];
                r.keep.constant(value, n.saturating_sub(r.kept));
                r.kept = r.kept.max(n);
                0
            }
            Rule::Masked32(masked) => {
                let start = self.kept_before(run, masked, *consumed);
                self.scan(run, masked, start + n);
                *consumed = self.end_of(run, masked, start + n - 1);
                start
            }
        };
        Ok(Some(Slice { run, start, len: n }))
    }

    /// The run for `bounds`, made empty if this seed has none yet.
    fn run_for(&mut self, bounds: (i64, i64), rule: Rule) -> usize {
        if let Some(i) = self.runs[..self.used].iter().position(|r| r.bounds == bounds) {
            return i;
        }
        if self.used == self.runs.len() {
            self.runs.push(Run { bounds, rule, keep: K::default(), kept: 0, kept_before: vec![0] });
        }
        let run = &mut self.runs[self.used];
        (run.bounds, run.rule, run.kept) = (bounds, rule, 0);
        run.keep.clear();
        run.kept_before.clear();
        run.kept_before.push(0);
        self.used += 1;
        self.used - 1
    }

    /// How many values run `run` keeps from the words before `position`.
    fn kept_before(&mut self, run: usize, masked: numpy::Masked32, position: usize) -> usize {
        let chunk = position / CHUNK;
        // Scanned to the chunk's start at least (nothing more when it is already).
        self.scan_words(run, masked, (chunk * CHUNK).max(self.runs[run].scanned()));
        let words = self.words.prefix(position);
        self.runs[run].kept_before[chunk] + masked.count_kept(&words[chunk * CHUNK..position])
    }

    /// The position + 1 of the word run `run` kept as its value `index` (scanned already):
    /// the words a draw ending on that value has consumed.
    fn end_of(&mut self, run: usize, masked: numpy::Masked32, index: usize) -> usize {
        let r = &self.runs[run];
        // The last chunk with fewer than `index + 1` values kept before it holds the value.
        let chunk = r.kept_before.partition_point(|&k| k <= index) - 1;
        let mut left = index - r.kept_before[chunk];
        let from = chunk * CHUNK;
        let words = self.words.prefix(from + CHUNK);
        for (i, &word) in words[from..from + CHUNK].iter().enumerate() {
            if masked.keeps(word) {
                if left == 0 {
                    return from + i + 1;
                }
                left -= 1;
            }
        }
        unreachable!("chunk {chunk} keeps value {index} by its counts")
    }

    /// Scans run `run` until it has kept at least `count` values.
    fn scan(&mut self, run: usize, masked: numpy::Masked32, count: usize) {
        while self.runs[run].kept < count {
            let r = &self.runs[run];
            let before = r.scanned();
            let upto = before + lookahead(count, r.kept, masked.words_per_value());
            self.scan_words(run, masked, upto);
            // Every pass reads on, and a working rule keeps more than half of what it reads
            // (numpy::BROKEN_WORDS_PER_VALUE): anything else is a bug, stopped, never a loop.
            let scanned = self.runs[run].scanned();
            assert!(
                scanned == upto && scanned > before && scanned <= 64 * count + 1024 * CHUNK,
                "run {run} read {scanned} words for {count} values (from {before}, up to {upto} asked): the scan is broken"
            );
        }
    }

    /// Scans run `run`'s words up to `upto` (a multiple of [`CHUNK`]).
    fn scan_words(&mut self, run: usize, masked: numpy::Masked32, upto: usize) {
        let r = &mut self.runs[run];
        let from = r.scanned();
        let words = &self.words.prefix(upto)[from..upto];
        let first_chunk = r.kept_before.len() - 1;
        for chunk in words.chunks_exact(CHUNK) {
            r.kept += masked.count_kept(chunk);
            r.kept_before.push(r.kept);
        }
        r.keep.masked(&masked, words, &r.kept_before[first_chunk..]);
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

    /// [`SeedDraws`] against [`draw`], point by point: `None` only where the bounds take
    /// 64-bit draws, the same error where `draw` errs, else the same vectors.
    fn assert_slices_are_draws(params: Params, points: &[WorkloadPoint]) {
        let mut draws = SeedDraws::<Vec<i64>>::new(params);
        // Twice, the second time after a reset to InferenceX's draw of another seed and back:
        // kept storage must not leak values between seeds or bounds.
        for round in 0..2 {
            if round == 1 {
                // Another seed's draws after a reset are that seed's, not the kept ones.
                let other = Params::inferencex(params.seed ^ 1);
                draws.reset(other);
                for point in points {
                    if let (Ok(Some(slices)), Ok(lengths)) = (draws.draw(point), draw(&other, point)) {
                        assert_eq!(draws.values(slices.input), &lengths.input[..], "{point} after a reset");
                    }
                }
                draws.reset(params);
            }
            for point in points {
                let expected = draw(&params, point);
                match (draws.draw(point), expected) {
                    (Ok(Some(slices)), Ok(lengths)) => {
                        assert_eq!(draws.values(slices.input), &lengths.input[..], "{point} inputs");
                        assert_eq!(draws.values(slices.output), &lengths.output[..], "{point} outputs");
                    }
                    (Ok(None), Ok(_)) => {
                        let wide = |len: u32| {
                            let low = lower_bound(len, params.range_ratio).unwrap();
                            matches!(numpy::rule(low.into(), i128::from(len) + 1), Ok(Rule::Wide { .. }))
                        };
                        assert!(wide(point.isl) || wide(point.osl), "{point}: no slices but no 64-bit draw");
                    }
                    // By text: a NaN ratio is unequal to itself.
                    (Err(got), Err(want)) => assert_eq!(got.to_string(), want.to_string(), "{point}"),
                    (got, want) => panic!("{point}: slices {got:?}, draw {want:?}"),
                }
            }
        }
    }

    #[test]
    fn seed_draws_are_the_draws_for_inferencex_points_in_any_order() {
        let mut points: Vec<WorkloadPoint> = Vec::new();
        for (isl, osl) in [(1024, 1024), (1024, 8192), (8192, 1024)] {
            for concurrency in [1, 2, 4, 64, 256, 512] {
                points.push(WorkloadPoint { isl, osl, concurrency });
            }
        }
        for seed in [0, 3] {
            assert_slices_are_draws(Params::inferencex(seed), &points);
            points.reverse();
            assert_slices_are_draws(Params::inferencex(seed), &points);
        }
    }

    #[test]
    fn seed_draws_follow_every_rule_of_randint() {
        let points = [
            WorkloadPoint { isl: 5, osl: 3, concurrency: 7 },
            WorkloadPoint { isl: 1, osl: 1 << 31, concurrency: 2 },
            WorkloadPoint { isl: 1 << 31, osl: 1, concurrency: 3 },
            WorkloadPoint { isl: 8192, osl: 8192, concurrency: 40 },
            WorkloadPoint { isl: 3, osl: 1 << 30, concurrency: 5 },
        ];
        // ratio 1: one possible value (no words drawn); 0.5: narrow spans and full-ish masks;
        // -3: spans beyond 2^32 for the largest lengths (64-bit draws); NaN: no bound at all;
        // 0 requests: nothing drawn and nothing checked.
        for (range_ratio, requests_per_concurrency) in [(1.0, 10), (0.5, 3), (-3.0, 2), (f64::NAN, 1), (0.8, 0)] {
            assert_slices_are_draws(Params { seed: 5, range_ratio, requests_per_concurrency }, &points);
        }
        // Spans beyond 2^32 are the case with no slices; it must occur above.
        let mut draws = SeedDraws::<Vec<i64>>::new(Params { seed: 5, range_ratio: -3.0, requests_per_concurrency: 2 });
        assert_eq!(draws.draw(&points[1]), Ok(None));
    }

    /// A keeper that checks what every `masked` call is told against the words it is given:
    /// one count per chunk boundary, starting at what it already holds.
    #[derive(Default)]
    struct Counts {
        kept: usize,
    }

    impl Keep for Counts {
        fn masked(&mut self, rule: &numpy::Masked32, words: &[u32], kept_before: &[usize]) {
            assert_eq!(kept_before.len(), words.len() / CHUNK + 1, "one entry per chunk and one after");
            assert_eq!(kept_before[0], self.kept, "the count before the first chunk is what was kept");
            for (c, chunk) in words.chunks(CHUNK).enumerate() {
                assert_eq!(kept_before[c + 1] - kept_before[c], rule.count_kept(chunk), "chunk {c}");
            }
            self.kept = kept_before[kept_before.len() - 1];
        }
        fn constant(&mut self, _: i64, n: usize) {
            self.kept += n;
        }
        fn clear(&mut self) {
            self.kept = 0;
        }
    }

    #[test]
    fn every_keeper_is_told_the_counts_of_the_words_it_is_given() {
        let mut draws = SeedDraws::<Counts>::new(Params::inferencex(0));
        for (isl, osl, concurrency) in [(1024, 1024, 64), (8192, 1024, 256), (1024, 8192, 4), (1024, 1024, 512)] {
            draws.draw(&WorkloadPoint { isl, osl, concurrency }).unwrap().unwrap();
        }
        for run in draws.runs() {
            assert_eq!(run.keep().kept, run.kept(), "{:?}", run.bounds);
        }
        // A constant rule (ratio 1: one possible length) keeps exactly what was asked.
        let mut constant =
            SeedDraws::<Vec<i64>>::new(Params { seed: 1, range_ratio: 1.0, requests_per_concurrency: 2 });
        for concurrency in [3, 1, 5] {
            constant.draw(&WorkloadPoint { isl: 7, osl: 7, concurrency }).unwrap().unwrap();
        }
        assert_eq!((constant.runs()[0].kept(), constant.runs()[0].keep().len()), (10, 10));
    }

    #[test]
    fn a_run_is_shared_only_by_equal_bounds() {
        let mut draws = SeedDraws::<Vec<i64>>::new(Params::inferencex(0));
        let a = draws.draw(&WorkloadPoint { isl: 1024, osl: 8192, concurrency: 2 }).unwrap().unwrap();
        let b = draws.draw(&WorkloadPoint { isl: 8192, osl: 1024, concurrency: 1 }).unwrap().unwrap();
        assert_eq!((a.input.run, a.output.run), (b.output.run, b.input.run));
        assert_ne!(a.input.run, a.output.run);
        assert_eq!(draws.runs().len(), 2);
        // Inputs start at the stream's start; outputs after the inputs' words.
        assert_eq!((a.input.start, b.input.start), (0, 0));
        assert!(a.output.start > 0 && b.output.start > 0);
    }

    #[test]
    fn a_point_and_a_draw_error_say_what_they_are() {
        assert_eq!(WorkloadPoint { isl: 8192, osl: 1024, concurrency: 64 }.to_string(), "8k1k-c64");
        assert_eq!(DrawError::Ratio { ratio: f64::NAN }.to_string(), "range ratio NaN gives no integer bound");
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
