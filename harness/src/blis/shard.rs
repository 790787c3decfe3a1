//! `--shard I/N`: a deterministic share of the points, planned so that the N shards finish
//! together. I counts from 1 (CI matrices do).
//!
//! The plan is longest-processing-time first over the points' estimated costs
//! (`super::estimated_cost`): distinct content keys sorted by cost, largest first, ties by key,
//! each given to the shard with the least estimated work so far (ties: the lowest shard). It is
//! a function of the planned points alone, so every shard job and the merge compute the same
//! plan from the same inputs; a point keeps its content key, so a plan that moves it to another
//! shard when the corpus grows still finds it in any cache that holds it.

use anyhow::{bail, Result};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: u32,
    pub count: u32,
}

impl Shard {
    pub fn parse(text: &str) -> Result<Shard> {
        let Some((i, n)) = text.split_once('/') else { bail!("--shard {text:?}: expected I/N, e.g. 2/4") };
        let (Ok(index), Ok(count)) = (i.trim().parse::<u32>(), n.trim().parse::<u32>()) else {
            bail!("--shard {text:?}: I and N must be positive integers")
        };
        if count == 0 || index == 0 || index > count {
            bail!("--shard {text:?}: need 1 <= I <= N");
        }
        Ok(Shard { index, count })
    }
}

/// Which shard runs each distinct key, and each shard's estimated work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Key -> 0-based shard.
    owner: BTreeMap<String, u32>,
    /// Estimated work per shard (sum of its points' costs).
    loads: Vec<u128>,
}

impl Plan {
    /// The longest-first plan of `points` (content key, estimated cost) over `count` shards.
    /// A key listed more than once is one point (its largest cost counts).
    pub fn new(points: &[(String, u64)], count: u32) -> Plan {
        let count = count.max(1);
        let mut distinct: BTreeMap<&str, u64> = BTreeMap::new();
        for (key, cost) in points {
            let c = distinct.entry(key.as_str()).or_insert(0);
            *c = (*c).max(*cost);
        }
        let mut order: Vec<(&str, u64)> = distinct.into_iter().collect();
        order.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        let mut loads = vec![0u128; count as usize];
        let mut owner = BTreeMap::new();
        for (key, cost) in order {
            // The least loaded shard, the lowest on a tie: deterministic.
            let s = (0..loads.len()).min_by_key(|&s| (loads[s], s)).expect("count >= 1");
            loads[s] += u128::from(cost);
            owner.insert(key.to_string(), s as u32);
        }
        Plan { owner, loads }
    }

    /// Whether `shard` runs the point with this key. A key the plan does not hold (a point
    /// whose key could not be made) belongs to no shard.
    pub fn owns(&self, shard: Shard, key: &str) -> bool {
        self.owner.get(key) == Some(&(shard.index - 1))
    }

    /// 0-based shard of a key.
    pub fn shard_of(&self, key: &str) -> Option<u32> {
        self.owner.get(key).copied()
    }

    pub fn loads(&self) -> &[u128] {
        &self.loads
    }

    /// Points (distinct keys) in the plan, and those of one 0-based shard.
    pub fn points(&self) -> usize {
        self.owner.len()
    }

    pub fn points_of(&self, shard0: u32) -> usize {
        self.owner.values().filter(|&&s| s == shard0).count()
    }

    /// The largest shard's estimated work over the ideal (the total over N): 1 is perfect.
    pub fn makespan_over_ideal(&self) -> f64 {
        makespan_over_ideal(&self.loads.iter().map(|&l| l as f64).collect::<Vec<_>>())
    }

    /// The line a shard job prints: its points and its share of the estimated work.
    pub fn share_line(&self, shard: Shard) -> String {
        let total: u128 = self.loads.iter().sum();
        let mine = self.loads.get(shard.index as usize - 1).copied().unwrap_or(0);
        let pct = |x: u128| if total == 0 { 0.0 } else { 100.0 * x as f64 / total as f64 };
        let largest = self.loads.iter().copied().max().unwrap_or(0);
        format!(
            "blis: shard {}/{}: {} of {} planned points, {:.1}% of the estimated work (largest shard {:.1}%, ideal {:.1}%)",
            shard.index,
            shard.count,
            self.points_of(shard.index - 1),
            self.points(),
            pct(mine),
            pct(largest),
            100.0 / shard.count as f64
        )
    }
}

/// The largest load over the mean load (1 for no work at all).
pub fn makespan_over_ideal(loads: &[f64]) -> f64 {
    let total: f64 = loads.iter().sum();
    if total <= 0.0 || loads.is_empty() {
        return 1.0;
    }
    loads.iter().copied().fold(0.0, f64::max) / (total / loads.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 2, count: 4 });
        for bad in ["0/4", "5/4", "1/0", "x/2", "3"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    fn keyed(costs: &[u64]) -> Vec<(String, u64)> {
        costs
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let inputs = super::super::cache::KeyInputs { workload: i.to_string(), ..Default::default() };
                (inputs.key(), c)
            })
            .collect()
    }

    #[test]
    fn every_key_has_exactly_one_owner_and_the_plan_ignores_input_order() {
        let points = keyed(&(0..200u64).map(|i| (i * 7919) % 97 + 1).collect::<Vec<_>>());
        let plan = Plan::new(&points, 3);
        for (key, _) in &points {
            let owners = (1..=3).filter(|i| plan.owns(Shard { index: *i, count: 3 }, key)).count();
            assert_eq!(owners, 1);
        }
        let mut reversed = points.clone();
        reversed.reverse();
        assert_eq!(Plan::new(&reversed, 3), plan);
        assert!(!plan.owns(Shard { index: 1, count: 3 }, "not planned"));
    }

    #[test]
    fn longest_first_balances_what_key_hashing_does_not() {
        // One large point and many small ones of unequal sizes: longest first puts the large one
        // alone and fills the others around it.
        let mut costs = vec![600u64];
        costs.extend((1..=60u64).map(|i| i * 3));
        let plan = Plan::new(&keyed(&costs), 8);
        let total: u64 = costs.iter().sum();
        assert_eq!(plan.loads().iter().sum::<u128>(), u128::from(total));
        // The largest point (600) is below the ideal (6090 / 8), so the longest-first bound
        // holds: the fullest shard is within one small point (at most 180) of the ideal.
        let largest = *plan.loads().iter().max().unwrap() as f64;
        assert!(largest <= total as f64 / 8.0 + 180.0, "{:?}", plan.loads());
        assert!(plan.makespan_over_ideal() < 1.1, "{}", plan.makespan_over_ideal());
    }

    #[test]
    fn equal_costs_are_ordered_by_key_and_duplicates_count_once() {
        let mut points = keyed(&[5, 5, 5, 5]);
        points.push(points[0].clone());
        let plan = Plan::new(&points, 2);
        assert_eq!(plan.points(), 4);
        assert_eq!(plan.loads(), &[10, 10]);
        // Ties broken by key: the smallest key goes first, to shard 0.
        let smallest = points.iter().map(|(k, _)| k).min().unwrap();
        assert_eq!(plan.shard_of(smallest), Some(0));
    }

    #[test]
    fn the_share_line_states_points_and_work() {
        let plan = Plan::new(&keyed(&[3, 1]), 2);
        let line = plan.share_line(Shard { index: 1, count: 2 });
        assert_eq!(
            line,
            "blis: shard 1/2: 1 of 2 planned points, 75.0% of the estimated work (largest shard 75.0%, ideal 50.0%)"
        );
    }
}
