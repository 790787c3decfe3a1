//! `--shard I/N`: a deterministic 1/N of the points, chosen by content key so the assignment
//! does not move when the corpus is reordered or grows. I counts from 1 (CI matrices do).

use anyhow::{bail, Result};

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

    /// Whether the point with this hex content key belongs to this shard: the key's first 16
    /// hex digits as a number, modulo N.
    pub fn owns(&self, key: &str) -> bool {
        let prefix = u64::from_str_radix(&key[..16], 16).expect("content keys are hex");
        prefix % u64::from(self.count) == u64::from(self.index - 1)
    }
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

    #[test]
    fn every_key_has_exactly_one_owner() {
        for k in 0..200u32 {
            let inputs = super::super::cache::KeyInputs { workload: k.to_string(), ..Default::default() };
            let key = inputs.key();
            let owners = (1..=3).filter(|i| Shard { index: *i, count: 3 }.owns(&key)).count();
            assert_eq!(owners, 1);
        }
    }
}
