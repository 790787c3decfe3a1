//! numpy's legacy global generator: what `np.random.seed(s)` followed by
//! `np.random.randint(low, high, size)` draws (docs/upstream.md §1).
//!
//! The word stream is MT19937 seeded with the reference `init_genrand` routine (Matsumoto and
//! Nishimura's mt19937ar.c; numpy `random/src/mt19937/mt19937.c`, `mt19937_seed`). It is written
//! here in block form, the whole state regenerated and tempered 624 words at a time, so the
//! loops vectorise; the unit tests compare it word for word with `rand_mt::Mt::new(u32)`, and
//! the known-answer tests (`numpy/known_answers.rs` and `harness/tests/it/numpy_known_answers.rs`
//! on `testdata/numpy/known_answers.json`, written by real numpy) prove it is numpy's.
//! The bounded-integer rules follow numpy `random/_bounded_integers.pyx` (`_rand_int64`) and
//! `random/src/distributions/distributions.c` (`random_bounded_uint64_fill`, masked branch: the
//! legacy `RandomState` always passes `use_masked=True`, never Lemire).

use std::fmt;

/// MT19937's state length and middle offset.
const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER: u32 = 0x8000_0000;
const LOWER: u32 = 0x7fff_ffff;

/// `np.random.RandomState` reduced to what `seed` + `randint` (int64 dtype) need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RandomState {
    /// The untempered state the next regeneration starts from.
    state: Box<[u32; N]>,
    /// The current block, tempered; `block[next..]` are the words still to come.
    block: Box<[u32; N]>,
    next: usize,
}

/// numpy's `ValueError`s from `randint`, with numpy's own messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RandintError {
    /// `low < -2^63`: "low is out of bounds for int64".
    LowOutOfBounds { low: i128 },
    /// `high - 1 > 2^63 - 1`: "high is out of bounds for int64".
    HighOutOfBounds { high: i128 },
    /// `low >= high`; numpy says "high <= 0" when low is 0 and "low >= high" otherwise.
    EmptyRange { low: i128, high: i128 },
}

impl fmt::Display for RandintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RandintError::LowOutOfBounds { .. } => f.write_str("low is out of bounds for int64"),
            RandintError::HighOutOfBounds { .. } => f.write_str("high is out of bounds for int64"),
            RandintError::EmptyRange { low: 0, .. } => f.write_str("high <= 0"),
            RandintError::EmptyRange { .. } => f.write_str("low >= high"),
        }
    }
}

impl std::error::Error for RandintError {}

impl RandomState {
    /// `np.random.seed(seed)` for an int seed: MT19937 `init_genrand`, not `init_by_array`.
    /// The first draw regenerates the state (position starts at 624).
    pub fn seed(seed: u32) -> RandomState {
        let mut state = Box::new([0u32; N]);
        state[0] = seed;
        for i in 1..N {
            let prev = state[i - 1];
            state[i] = 1_812_433_253u32.wrapping_mul(prev ^ (prev >> 30)).wrapping_add(i as u32);
        }
        RandomState { state, block: Box::new([0u32; N]), next: N }
    }

    /// The next 624 words: regenerate the state, then temper all of it.
    #[inline(never)]
    fn refill(&mut self) {
        next_block(&mut self.state, &mut self.block);
        self.next = 0;
    }

    /// One tempered MT19937 word (numpy `next_uint32`).
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        Words::next_u32(self)
    }

    /// Two words, the first one high (numpy `mt19937_next64`).
    pub fn next_u64(&mut self) -> u64 {
        Words::next_u64(self)
    }

    /// `randint(low, high, size)` with the default int64 dtype, `high` exclusive.
    ///
    /// Bounds are `i128` because Python's are unbounded and numpy's int64 range ends at an
    /// exclusive `high` of 2^63, which no `i64` holds.
    pub fn randint(&mut self, low: i128, high: i128, size: usize) -> Result<Vec<i64>, RandintError> {
        let mut out = Vec::with_capacity(size);
        self.randint_into(low, high, size, &mut out)?;
        Ok(out)
    }

    /// [`RandomState::randint`] appending to `out` (no allocation per call).
    pub fn randint_into(&mut self, low: i128, high: i128, size: usize, out: &mut Vec<i64>) -> Result<(), RandintError> {
        randint_into(self, low, high, size, out)
    }
}

impl Words for RandomState {
    #[inline]
    fn pending(&mut self) -> &[u32] {
        if self.next == N {
            self.refill();
        }
        &self.block[self.next..]
    }

    #[inline]
    fn advance(&mut self, n: usize) {
        self.next += n;
    }
}

/// The words `RandomState::seed(seed)` gives, kept once drawn. Every `np.random.seed(seed)`
/// restarts the same stream, so a loop that reseeds before each point (as InferenceX does, one
/// process per point) can replay the kept words instead of seeding and regenerating again.
#[derive(Clone, Debug)]
pub struct SeedWords {
    source: RandomState,
    /// `kept[..len]` are the words drawn; the storage beyond is scratch kept across reseeds.
    kept: Vec<u32>,
    len: usize,
}

impl SeedWords {
    pub fn new(seed: u32) -> SeedWords {
        SeedWords { source: RandomState::seed(seed), kept: Vec::new(), len: 0 }
    }

    /// [`SeedWords::new`] for `seed` in place, keeping the storage of the kept words.
    pub fn reseed(&mut self, seed: u32) {
        self.source = RandomState::seed(seed);
        self.len = 0;
    }

    /// `np.random.seed(seed)` again: a generator at the start of the stream that draws
    /// exactly what a fresh [`RandomState::seed`] would.
    pub fn restart(&mut self) -> Replay<'_> {
        Replay { words: self, at: 0 }
    }

    /// The stream's first `len` words (drawn in whole blocks, kept for the next call).
    pub fn prefix(&mut self, len: usize) -> &[u32] {
        while self.len < len {
            let before = self.len;
            self.grow();
            assert!(self.len > before, "a block drawn added no word: the generator is broken");
        }
        &self.kept[..len]
    }

    /// Draws the next block straight into the kept words. The source only ever gives whole
    /// blocks here, so its own block is never used.
    fn grow(&mut self) {
        let end = self.len + N;
        self.kept.resize(self.kept.len().max(end), 0);
        let block: &mut [u32; N] = (&mut self.kept[self.len..end]).try_into().expect("N words");
        next_block(&mut self.source.state, block);
        self.len = end;
    }
}

/// A generator replaying [`SeedWords`] from the start, extending them when it runs past.
#[derive(Debug)]
pub struct Replay<'a> {
    words: &'a mut SeedWords,
    at: usize,
}

impl Replay<'_> {
    pub fn next_u32(&mut self) -> u32 {
        Words::next_u32(self)
    }

    /// [`RandomState::randint_into`] on the replayed stream.
    pub fn randint_into(&mut self, low: i128, high: i128, size: usize, out: &mut Vec<i64>) -> Result<(), RandintError> {
        randint_into(self, low, high, size, out)
    }
}

impl Words for Replay<'_> {
    #[inline]
    fn pending(&mut self) -> &[u32] {
        let words = &mut *self.words;
        if self.at == words.len {
            words.grow();
        }
        &words.kept[self.at..words.len]
    }

    #[inline]
    fn advance(&mut self, n: usize) {
        self.at += n;
    }
}

/// How `randint(low, high, size)` with `size > 0` turns words into values (int64 dtype, the
/// rules of [`RandomState::randint_into`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Rule 3: one possible value; no word is drawn.
    Constant(i64),
    /// Rule 4: one word per candidate, `off + (word & mask)`, kept when `word & mask <= rng`.
    /// A draw starting at word `p` keeps exactly the words at or after `p` that
    /// [`Masked32::keep_into`] keeps from the whole stream, so every such draw of one seed is a
    /// slice of one sequence.
    Masked32(Masked32),
    /// Rule 5: two words per candidate, the first one high, `off + (draw & mask)` kept when at
    /// most `rng` (a span of 2^64 - 1 takes the draw as is). Which pairs are formed depends on
    /// where the draw starts, so draws are not slices of one sequence.
    Wide { off: u64, rng: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Masked32 {
    off: u64,
    rng: u32,
    mask: u32,
}

/// The rule `randint(low, high, size)` follows for `size > 0`, or numpy's error for the bounds.
pub fn rule(low: i128, high: i128) -> Result<Rule, RandintError> {
    // Rule 2: the generator works on the closed interval [low, high - 1].
    let closed_high = high - 1;
    if low < i128::from(i64::MIN) {
        return Err(RandintError::LowOutOfBounds { low });
    }
    if closed_high > i128::from(i64::MAX) {
        return Err(RandintError::HighOutOfBounds { high });
    }
    if low > closed_high {
        return Err(RandintError::EmptyRange { low, high });
    }
    // Both ends are now inside int64, so the span fits a u64 (at most 2^64 - 1).
    let rng = (closed_high - low) as u64;
    let off = low as i64 as u64;
    Ok(if rng == 0 {
        Rule::Constant(low as i64)
    } else if rng <= u64::from(u32::MAX) {
        // A full 32-bit span takes the word as is, which the mask 0xFFFFFFFF does anyway.
        let rng = rng as u32;
        Rule::Masked32(Masked32 { off, rng, mask: smallest_all_ones_at_least(u64::from(rng)) as u32 })
    } else {
        Rule::Wide { off, rng }
    })
}

impl Masked32 {
    /// Whether the rule keeps `word`.
    #[inline]
    pub fn keeps(&self, word: u32) -> bool {
        word & self.mask <= self.rng
    }

    /// The candidate `word` gives, kept or not.
    #[inline]
    pub fn candidate(&self, word: u32) -> i64 {
        self.off.wrapping_add(u64::from(word & self.mask)) as i64
    }

    /// How many of `words` the rule keeps (a loop the compiler vectorises).
    pub fn count_kept(&self, words: &[u32]) -> usize {
        // Summed as u32 lanes, four to a vector, in blocks whose count cannot overflow them.
        words.chunks(1 << 16).map(|block| block.iter().map(|&w| u32::from(self.keeps(w))).sum::<u32>() as usize).sum()
    }

    /// Appends what the rule keeps of `words`, in order. Branch-free: every candidate is
    /// written and the length advances only for kept ones.
    pub fn keep_into(&self, words: &[u32], values: &mut Vec<i64>) {
        let start = values.len();
        // A slot per word: the i-th word is written at `kept <= i`.
        values.resize(start + words.len(), 0);
        let slots = &mut values[start..];
        let mut kept = 0;
        for &word in words {
            slots[kept] = self.candidate(word);
            kept += usize::from(self.keeps(word));
        }
        values.truncate(start + kept);
    }

    /// `entry(value)` for each kept masked word and `rejected` for the others, indexed by
    /// `word & mask`: [`Masked32::index`] looks a word up. `None` when the mask is wider than
    /// `max_len` entries.
    pub fn table<T: Copy>(&self, max_len: usize, entry: impl Fn(i64) -> T, rejected: T) -> Option<Vec<T>> {
        let len = self.mask as usize + 1;
        (len <= max_len)
            .then(|| (0..len as u32).map(|v| if v <= self.rng { entry(self.candidate(v)) } else { rejected }).collect())
    }

    /// A word's index in [`Masked32::table`].
    #[inline]
    pub fn index(&self, word: u32) -> usize {
        (word & self.mask) as usize
    }

    /// Words drawn per value kept, on average: the masked range over the span.
    pub fn words_per_value(&self) -> f64 {
        (f64::from(self.mask) + 1.0) / (f64::from(self.rng) + 1.0)
    }
}

/// A stream of tempered words: what the bounded draws are made from.
trait Words {
    /// The next words, at least one; taking some is [`Words::advance`].
    fn pending(&mut self) -> &[u32];
    fn advance(&mut self, n: usize);

    #[inline]
    fn next_u32(&mut self) -> u32 {
        let word = self.pending()[0];
        self.advance(1);
        word
    }

    fn next_u64(&mut self) -> u64 {
        let high = u64::from(self.next_u32());
        let low = u64::from(self.next_u32());
        (high << 32) + low
    }
}

/// Rule 4's loop: `size` values `off + (word & mask)`, each from the first word whose masked
/// value is at most `rng`, in word order. Block by block, without a branch on the outcome:
/// every candidate is written and the length only advances when it is kept.
const CHUNK: usize = 32;

fn masked_u32_into(words: &mut impl Words, rule: Masked32, size: usize, out: &mut Vec<i64>) {
    let start = out.len();
    let target = start + size;
    // One slot beyond the target, so a rejected candidate after the last kept one has room.
    out.resize(target + 1, 0);
    let slots = &mut out[..target + 1];
    let mut filled = start;
    let mut drawn = 0usize;
    while filled < target {
        let block = words.pending();
        let mut used = 0;
        // Whole chunks while neither the block nor the wanted count can run out inside one:
        // no exit test per word there.
        while block.len() - used >= CHUNK && target - filled >= CHUNK {
            let chunk: &[u32; CHUNK] = block[used..used + CHUNK].try_into().expect("CHUNK words");
            let dst: &mut [i64; CHUNK + 1] =
                (&mut slots[filled..filled + CHUNK + 1]).try_into().expect("CHUNK + 1 slots");
            let mut kept = 0;
            for &word in chunk {
                dst[kept] = rule.candidate(word);
                kept += usize::from(rule.keeps(word));
            }
            filled += kept;
            used += CHUNK;
        }
        for &word in &block[used..] {
            if filled == target {
                break;
            }
            slots[filled] = rule.candidate(word);
            filled += usize::from(rule.keeps(word));
            used += 1;
        }
        words.advance(used);
        drawn += used;
        assert!(used > 0 && drawn <= BROKEN_WORDS_PER_VALUE * size + N, "{}", broken_stream(drawn, size));
    }
    out.truncate(target);
}

/// A masked rule keeps each word with probability above 1/2 (its mask is less than twice its
/// span), so drawing this many words per value asked happens with probability below 2^-64 for
/// a working generator: a stream that does is broken (a bug, never an input), and the draw stops
/// instead of looping for ever as numpy's own loop would.
const BROKEN_WORDS_PER_VALUE: usize = 64;

fn broken_stream(drawn: usize, size: usize) -> String {
    format!("the word stream is broken: {drawn} words drawn for {size} values, or a block with none")
}

/// numpy's `randint(low, high, size)` rules (int64 dtype) over any word stream.
fn randint_into(
    words: &mut impl Words,
    low: i128,
    high: i128,
    size: usize,
    out: &mut Vec<i64>,
) -> Result<(), RandintError> {
    // Rule 1: an empty size returns before any check and draws nothing.
    if size == 0 {
        return Ok(());
    }
    out.reserve(size);
    match rule(low, high)? {
        // Rule 3: a single value; nothing is drawn.
        Rule::Constant(value) => out.extend(std::iter::repeat_n(value, size)),
        Rule::Masked32(masked) => masked_u32_into(words, masked, size, out),
        Rule::Wide { off, rng } => {
            let push = |out: &mut Vec<i64>, value: u64| out.push(off.wrapping_add(value) as i64);
            if rng == u64::MAX {
                // Rule 5, the full int64 span: the 64-bit draw as is.
                for _ in 0..size {
                    let v = words.next_u64();
                    push(out, v);
                }
            } else {
                // Rule 5: masked rejection on 64-bit draws.
                let mask = smallest_all_ones_at_least(rng);
                for _ in 0..size {
                    let value = (0..BROKEN_WORDS_PER_VALUE)
                        .map(|_| words.next_u64() & mask)
                        .find(|&v| v <= rng)
                        .unwrap_or_else(|| panic!("{}", broken_stream(2 * BROKEN_WORDS_PER_VALUE, 1)));
                    push(out, value);
                }
            }
        }
    }
    Ok(())
}

/// Regenerates `state` and writes its 624 tempered words to `out`: a [`RandomState`]'s own
/// block, or straight into the words [`SeedWords`] keeps.
fn next_block(state: &mut [u32; N], out: &mut [u32; N]) {
    regenerate(state);
    for (out, &y) in out.iter_mut().zip(state.iter()) {
        *out = temper(y);
    }
}

/// One MT19937 regeneration of all 624 words, in place. Word i mixes the top bit of word i with
/// the low 31 bits of word i + 1 and is xored into word i + 397 (indices mod 624), where words
/// below i are already the new ones. Split at 227 (= 624 - 397) and 454 so that each loop reads
/// only words another loop finished: each one vectorises.
fn regenerate(state: &mut [u32; N]) {
    #[inline(always)]
    fn mix(own: u32, next: u32, far: u32) -> u32 {
        let y = (own & UPPER) + (next & LOWER);
        far ^ (y >> 1) ^ ((y & 1).wrapping_neg() & MATRIX_A)
    }
    let old = *state;
    for i in 0..N - M {
        state[i] = mix(old[i], old[i + 1], old[i + M]);
    }
    {
        let (done, rest) = state.split_at_mut(N - M);
        for i in N - M..2 * (N - M) {
            rest[i - (N - M)] = mix(old[i], old[i + 1], done[i - (N - M)]);
        }
    }
    {
        let (done, rest) = state.split_at_mut(2 * (N - M));
        for i in 2 * (N - M)..N - 1 {
            rest[i - 2 * (N - M)] = mix(old[i], old[i + 1], done[i - (N - M)]);
        }
    }
    state[N - 1] = mix(old[N - 1], state[0], state[M - 1]);
}

/// MT19937's output tempering.
#[inline(always)]
fn temper(mut y: u32) -> u32 {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c_5680;
    y ^= (y << 15) & 0xefc6_0000;
    y ^ (y >> 18)
}

/// numpy `gen_mask`: the smallest 2^k - 1 that is >= `max`.
fn smallest_all_ones_at_least(max: u64) -> u64 {
    let mut mask = max;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    mask
}

#[cfg(test)]
mod known_answers;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_masked_rule_draws_mask_plus_one_words_per_rng_plus_one_values() {
        // randint(0, 5): rng 4, mask 7: 8 masked values of which 5 are kept.
        let Ok(Rule::Masked32(m)) = rule(0, 5) else { panic!("a 32-bit masked rule") };
        assert_eq!(m.words_per_value(), 1.6);
        // Words 0..8 as masked values: 0..=4 kept (off 0), 5..=7 rejected, order kept.
        let mut out = vec![-1];
        m.keep_into(&[3, 7, 0, 5, 4, 6], &mut out);
        assert_eq!(out, [-1, 3, 0, 4]);
    }

    /// A stream that gives the same word for ever (one every rule of 0..5 rejects), and
    /// stops the test itself long after the draw's own check should have.
    struct Stuck {
        given: usize,
        words: [u32; N],
    }

    impl Words for Stuck {
        fn pending(&mut self) -> &[u32] {
            assert!(self.given < 1 << 24, "the draw went on past its bound of words per value");
            &self.words
        }
        fn advance(&mut self, n: usize) {
            self.given += n;
        }
    }

    #[test]
    #[should_panic(expected = "the word stream is broken: 2496 words drawn for 25 values, or a block with none")]
    fn a_stream_that_rejects_every_word_stops_the_draw_at_its_bound() {
        // Every word is 7 under the mask, above 4: 64 x 25 + 624 words is the bound, crossed at
        // the fourth block of 624 (2496 > 2224).
        let mut out = Vec::new();
        let _ = randint_into(&mut Stuck { given: 0, words: [7; N] }, 0, 5, 25, &mut out);
    }

    #[test]
    fn a_seeds_prefix_is_the_words_asked_drawn_in_whole_blocks_and_no_more() {
        let mut words = SeedWords::new(0);
        let mut fresh = RandomState::seed(0);
        let first: Vec<u32> = (0..N + 1).map(|_| fresh.next_u32()).collect();
        assert_eq!(words.prefix(1), &first[..1]);
        assert_eq!(words.len, N);
        assert_eq!(words.prefix(N).len(), N);
        assert_eq!(words.len, N, "a block drawn is enough for its words");
        assert_eq!(words.prefix(N + 1), &first[..]);
        assert_eq!(words.len, 2 * N);
    }

    // The check values docs/upstream.md §1 quotes from numpy.
    #[test]
    fn seed0_randint_819_1025_matches_numpy() {
        let mut rs = RandomState::seed(0);
        assert_eq!(rs.randint(819, 1025, 5).unwrap(), vec![991, 866, 936, 1011, 886]);
        let mut rs = RandomState::seed(0);
        assert_eq!(rs.randint(819, 1025, 10).unwrap(), vec![991, 866, 936, 1011, 886, 1014, 922, 828, 840, 855]);
    }

    #[test]
    fn size_zero_draws_nothing_and_skips_every_check() {
        let mut rs = RandomState::seed(0);
        assert_eq!(rs.randint(5, 5, 0).unwrap(), Vec::<i64>::new());
        assert_eq!(rs.randint(i128::MIN, i128::MAX, 0).unwrap(), Vec::<i64>::new());
        assert_eq!(rs, RandomState::seed(0));
    }

    #[test]
    fn single_value_range_draws_nothing() {
        let mut rs = RandomState::seed(7);
        assert_eq!(rs.randint(-3, -2, 4).unwrap(), vec![-3; 4]);
        assert_eq!(rs, RandomState::seed(7));
    }

    #[test]
    fn empty_and_out_of_int64_ranges_are_numpys_errors() {
        let mut rs = RandomState::seed(0);
        assert_eq!(rs.randint(5, 5, 1).unwrap_err().to_string(), "low >= high");
        assert_eq!(rs.randint(0, 0, 1).unwrap_err().to_string(), "high <= 0");
        let below = i128::from(i64::MIN) - 1;
        assert_eq!(rs.randint(below, 0, 1).unwrap_err().to_string(), "low is out of bounds for int64");
        let above = i128::from(i64::MAX) + 2;
        assert_eq!(rs.randint(0, above, 1).unwrap_err().to_string(), "high is out of bounds for int64");
        // high = 2^63 is still legal: high - 1 is int64's maximum.
        assert!(rs.randint(0, i128::from(i64::MAX) + 1, 1).is_ok());
    }

    #[test]
    fn masked_rejection_discards_words_above_the_range() {
        // range [0, 4]: mask 7; a word whose low 3 bits exceed 4 is thrown away, so the result
        // is the first acceptable masked word, not a modulo or a multiply-shift.
        let mut words = RandomState::seed(123);
        let expected: Vec<i64> = std::iter::from_fn(|| Some(words.next_u32() & 7))
            .take(1000)
            .filter(|v| *v <= 4)
            .take(50)
            .map(i64::from)
            .collect();
        assert_eq!(expected.len(), 50, "1000 words keep 50 values of a rule that keeps 5 of 8");
        let mut rs = RandomState::seed(123);
        assert_eq!(rs.randint(0, 5, 50).unwrap(), expected);
        let modulo: Vec<i64> = {
            let mut w = RandomState::seed(123);
            (0..50).map(|_| i64::from(w.next_u32() % 5)).collect()
        };
        assert_ne!(expected, modulo, "the wrong definition must be distinguishable");
    }

    #[test]
    fn wide_ranges_use_64_bit_draws_high_word_first() {
        let mut words = RandomState::seed(9);
        let (a, b) = (u64::from(words.next_u32()), u64::from(words.next_u32()));
        let mut rs = RandomState::seed(9);
        let full = rs.randint(i128::from(i64::MIN), i128::from(i64::MAX) + 1, 1).unwrap();
        assert_eq!(full[0], (i64::MIN as u64).wrapping_add((a << 32) | b) as i64);
    }

    #[test]
    fn block_generator_equals_the_reference_word_for_word() {
        // rand_mt is an independent implementation of the reference routine; several
        // regenerations and seeds, including 0 and u32::MAX.
        for seed in [0u32, 1, 5489, 123_456_789, u32::MAX] {
            let mut reference = rand_mt::Mt::new(seed);
            let mut rs = RandomState::seed(seed);
            for i in 0..5 * N + 17 {
                assert_eq!(rs.next_u32(), reference.next_u32(), "seed {seed}, word {i}");
            }
        }
    }

    #[test]
    fn block_rejection_equals_one_word_at_a_time() {
        // The branch-free block loop against the plain definition, across block boundaries,
        // several spans and sizes, appending after existing values.
        for (low, high, size) in [(819i128, 1025i128, 3000usize), (6553, 8193, 700), (0, 5, 1), (-7, 1 << 31, 900)] {
            let mut plain = RandomState::seed(42);
            let rng = (high - 1 - low) as u64;
            let mask = smallest_all_ones_at_least(rng);
            let mut expected = vec![-1i64];
            for _ in 0..3 {
                for _ in 0..size {
                    let v = loop {
                        let v = u64::from(plain.next_u32()) & mask;
                        if v <= rng {
                            break v;
                        }
                    };
                    expected.push((low as i64).wrapping_add(v as i64));
                }
            }
            let mut rs = RandomState::seed(42);
            let mut got = vec![-1i64];
            for _ in 0..3 {
                rs.randint_into(low, high, size, &mut got).unwrap();
            }
            assert_eq!(got, expected, "randint({low}, {high}, {size})");
            assert_eq!(rs.next_u32(), plain.next_u32(), "the same words consumed");
        }
    }

    #[test]
    fn a_replay_draws_what_a_fresh_seed_draws() {
        // Restarts of different lengths, in an order that makes a later one both replay kept
        // words and extend them; every range class, including 64-bit draws and a size 0.
        let calls: [&[(i128, i128, usize)]; 4] = [
            &[(819, 1025, 10), (819, 1025, 10)],
            &[(0, 1, 0), (6553, 8193, 2000), (819, 1025, 2000)],
            &[(-5, 1 << 40, 300), (3, 4, 5), (i128::from(i64::MIN), i128::from(i64::MAX) + 1, 7), (0, 5, 900)],
            &[(819, 1025, 1)],
        ];
        let mut kept = SeedWords::new(11);
        for _ in 0..2 {
            for sequence in calls {
                let mut fresh = RandomState::seed(11);
                let mut replay = kept.restart();
                for &(low, high, size) in sequence {
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    fresh.randint_into(low, high, size, &mut a).unwrap();
                    replay.randint_into(low, high, size, &mut b).unwrap();
                    assert_eq!(a, b, "randint({low}, {high}, {size}) in {sequence:?}");
                }
                assert_eq!(fresh.next_u32(), replay.next_u32(), "the same position after {sequence:?}");
            }
        }
    }

    #[test]
    fn a_masked_draw_from_any_word_is_a_slice_of_what_the_rule_keeps_from_the_stream() {
        let Ok(Rule::Masked32(rule)) = rule(819, 1025) else { panic!("819..1025 is masked") };
        let mut words = SeedWords::new(4);
        let stream = words.prefix(3000).to_vec();
        let mut values = Vec::new();
        // In two pieces: keeping appends.
        rule.keep_into(&stream[..1000], &mut values);
        rule.keep_into(&stream[1000..], &mut values);
        assert_eq!(values.len(), rule.count_kept(&stream));
        let table = rule.table(256, |v| v, -1).unwrap();
        let by_table: Vec<i64> = stream.iter().map(|&w| table[rule.index(w)]).filter(|&v| v >= 0).collect();
        assert_eq!(by_table, values);
        for start in [0usize, 1, 623, 624, 1000, 1777] {
            // randint after `start` words: skip them with a 32-bit draw that keeps every word.
            let mut rs = RandomState::seed(4);
            rs.randint(0, 1 << 32, start).unwrap();
            let drawn = rs.randint(819, 1025, 500).unwrap();
            let first = rule.count_kept(&stream[..start]);
            assert_eq!(drawn, values[first..first + 500], "from word {start}");
        }
        assert_eq!(rule.table(255, |v| v, -1), None, "the mask is 255: 256 entries");
        // 64-bit draws pair words from where they start: no such sequence exists for them.
        assert_eq!(super::rule(0, 1 << 40), Ok(Rule::Wide { off: 0, rng: (1 << 40) - 1 }));
        assert_eq!(super::rule(7, 8), Ok(Rule::Constant(7)));
        assert_eq!(super::rule(7, 7), Err(RandintError::EmptyRange { low: 7, high: 7 }));
    }

    #[test]
    fn mask_is_the_smallest_all_ones_value_covering_the_range() {
        assert_eq!(smallest_all_ones_at_least(1), 1);
        assert_eq!(smallest_all_ones_at_least(205), 255);
        assert_eq!(smallest_all_ones_at_least(256), 511);
        assert_eq!(smallest_all_ones_at_least(u64::from(u32::MAX) + 1), (1u64 << 33) - 1);
    }
}
