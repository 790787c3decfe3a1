//! The strict-JSON pieces every corpus reader shares: parsing with the JSON path in the error,
//! maps that reject a key given twice (serde's own keep the last), a whole-document duplicate-key
//! walk, finite numbers, and AISimulate's status vocabulary read into `oracles::accuracy`'s
//! types.

use anyhow::Result as AnyResult;
use oracles::accuracy::{Status, StatusCounts};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::marker::PhantomData;

/// Deserializes with serde_path_to_error so the error carries the JSON path of the bad value.
pub fn parse_json<T: serde::de::DeserializeOwned>(text: &str) -> AnyResult<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|err| {
        let path = err.path().to_string();
        anyhow::anyhow!("at `{path}`: {}", err.into_inner())
    })?;
    de.end().map_err(|err| anyhow::anyhow!("after the top-level value: {err}"))?;
    Ok(value)
}

/// The largest magnitude a corpus number may have. No latency (ms), relative or percentage
/// comes near it, and sums and ratios over a corpus of such numbers stay finite: a value near
/// 1e308 would give `inf` cells, so it is refused like a non-finite one.
pub const MAX_MAGNITUDE: f64 = 1e15;

pub fn check_finite<E: serde::de::Error>(x: f64) -> Result<f64, E> {
    if !x.is_finite() {
        Err(E::custom(format!("expected a finite number, found {x}")))
    } else if x.abs() > MAX_MAGNITUDE {
        Err(E::custom(format!("expected a number of magnitude at most {MAX_MAGNITUDE:e}, found {x:e}")))
    } else {
        Ok(x)
    }
}

pub fn check_pct<E: serde::de::Error>(x: f64) -> Result<f64, E> {
    let x = check_finite(x)?;
    if x < 0.0 {
        return Err(E::custom(format!("expected a non-negative percentage, found {x}")));
    }
    Ok(x)
}

pub fn opt_finite<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Option::<f64>::deserialize(d)?.map(check_finite).transpose()
}

pub fn opt_finite_pct<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Option::<f64>::deserialize(d)?.map(check_pct).transpose()
}

pub fn finite_pct<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    check_pct(f64::deserialize(d)?)
}

/// A map from concurrency to `V`, read from JSON object keys that must be distinct positive
/// integers.
#[derive(Clone, Debug, PartialEq)]
pub struct ConcurrencyMap<V>(pub BTreeMap<u32, V>);

impl<V> ConcurrencyMap<V> {
    pub fn get(&self, concurrency: u32) -> Option<&V> {
        self.0.get(&concurrency)
    }
    pub fn iter(&self) -> impl Iterator<Item = (&u32, &V)> {
        self.0.iter()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for ConcurrencyMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V_<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for V_<V> {
            type Value = ConcurrencyMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object keyed by concurrency (\"1\", \"2\", ...)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = BTreeMap::new();
                while let Some(key) = map.next_key::<String>()? {
                    let c: u32 = key.parse().ok().filter(|c| *c > 0).ok_or_else(|| {
                        de::Error::custom(format!("concurrency key {key:?} is not a positive integer"))
                    })?;
                    let value = map.next_value::<V>()?;
                    if out.insert(c, value).is_some() {
                        return Err(de::Error::custom(format!("duplicate concurrency key {key:?}")));
                    }
                }
                Ok(ConcurrencyMap(out))
            }
        }
        d.deserialize_map(V_(PhantomData))
    }
}

/// A string-keyed map that rejects a key given twice (serde's own maps keep the last).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UniqueMap<V>(pub BTreeMap<String, V>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for UniqueMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V_<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for V_<V> {
            type Value = UniqueMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = BTreeMap::new();
                while let Some(key) = map.next_key::<String>()? {
                    let value = map.next_value::<V>()?;
                    if out.contains_key(&key) {
                        return Err(de::Error::custom(format!("duplicate key {key:?}")));
                    }
                    out.insert(key, value);
                }
                Ok(UniqueMap(out))
            }
        }
        d.deserialize_map(V_(PhantomData))
    }
}

/// A finite f64.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Finite(pub f64);

impl<'de> Deserialize<'de> for Finite {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let x = f64::deserialize(d)?;
        if !x.is_finite() {
            return Err(de::Error::custom(format!("expected a finite number, found {x}")));
        }
        Ok(Finite(x))
    }
}

/// Any JSON value, walked whole; a key given twice in any object is an error at its path.
pub struct NoDuplicates;

impl<'de> Deserialize<'de> for NoDuplicates {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NoDuplicates)
    }
}

impl<'de> Visitor<'de> for NoDuplicates {
    type Value = NoDuplicates;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self, E> {
        Ok(NoDuplicates)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self, E> {
        Ok(NoDuplicates)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self, E> {
        Ok(NoDuplicates)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self, E> {
        Ok(NoDuplicates)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self, E> {
        Ok(NoDuplicates)
    }
    fn visit_unit<E>(self) -> Result<Self, E> {
        Ok(NoDuplicates)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<NoDuplicates>()?.is_some() {}
        Ok(NoDuplicates)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self, A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(format!("duplicate key `{key}`")));
            }
            map.next_value::<NoDuplicates>()?;
        }
        Ok(NoDuplicates)
    }
}

/// `aisimulate_status` / a point's `status`: one of the three statuses AISimulate writes; any
/// other string is rejected with the list of accepted values.
pub fn status<'de, D: Deserializer<'de>>(d: D) -> Result<Status, D::Error> {
    let text = String::deserialize(d)?;
    Status::parse(&text).ok_or_else(|| de::Error::unknown_variant(&text, &["success", "unsupported", "failed"]))
}

/// `status_counts` as published, read strictly into `oracles::accuracy::StatusCounts`.
#[derive(Deserialize)]
#[serde(remote = "StatusCounts", deny_unknown_fields)]
struct PublishedStatusCounts {
    success: u64,
    unsupported: u64,
    failed: u64,
    unknown: u64,
}

/// An optional `status_counts` object (see [`PublishedStatusCounts`]).
pub fn opt_status_counts<'de, D: Deserializer<'de>>(d: D) -> Result<Option<StatusCounts>, D::Error> {
    #[derive(Deserialize)]
    struct Wrapped(#[serde(with = "PublishedStatusCounts")] StatusCounts);
    Ok(Option::<Wrapped>::deserialize(d)?.map(|Wrapped(c)| c))
}
