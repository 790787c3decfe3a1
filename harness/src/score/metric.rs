//! The four error figures of a headline row and one arm's errors on one sweep.

/// The four error lists of one arm on one sweep; each entry is (concurrency, signed %).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArmErrors {
    pub tpot_shape: Vec<(u32, f64)>,
    pub tpot_mape: Vec<(u32, f64)>,
    pub ttft_shape: Vec<(u32, f64)>,
    pub ttft_mape: Vec<(u32, f64)>,
}

/// The four error figures of a headline row, in table order: a latency metric
/// (`oracles::accuracy::Metric`) scored by shape error or by MAPE.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ErrorMetric {
    TpotShape,
    TpotMape,
    TtftShape,
    TtftMape,
}

impl ErrorMetric {
    pub const ALL: [ErrorMetric; 4] =
        [ErrorMetric::TpotShape, ErrorMetric::TpotMape, ErrorMetric::TtftShape, ErrorMetric::TtftMape];
    pub fn key(self) -> &'static str {
        match self {
            ErrorMetric::TpotShape => "tpot_shape",
            ErrorMetric::TpotMape => "tpot_mape",
            ErrorMetric::TtftShape => "ttft_shape",
            ErrorMetric::TtftMape => "ttft_mape",
        }
    }
    /// The value key of the count behind the metric's figure (comparisons or points), as the
    /// headline names it: `<tier>.n_shape`, `n_mape`, `n_ttft_shape`, `n_ttft_mape`.
    pub fn count_key(self) -> &'static str {
        match self {
            ErrorMetric::TpotShape => "n_shape",
            ErrorMetric::TpotMape => "n_mape",
            ErrorMetric::TtftShape => "n_ttft_shape",
            ErrorMetric::TtftMape => "n_ttft_mape",
        }
    }
    pub fn title(self) -> &'static str {
        match self {
            ErrorMetric::TpotShape => "TPOT shape",
            ErrorMetric::TpotMape => "TPOT mape",
            ErrorMetric::TtftShape => "TTFT shape",
            ErrorMetric::TtftMape => "TTFT mape",
        }
    }
}

impl ArmErrors {
    pub fn get(&self, m: ErrorMetric) -> &[(u32, f64)] {
        match m {
            ErrorMetric::TpotShape => &self.tpot_shape,
            ErrorMetric::TpotMape => &self.tpot_mape,
            ErrorMetric::TtftShape => &self.ttft_shape,
            ErrorMetric::TtftMape => &self.ttft_mape,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value keys harness/figures.yaml names (`all.aisimulate.tpot_shape`, `all.n_shape`),
    /// the report's column titles, and which list each metric reads.
    #[test]
    fn each_metric_has_its_key_count_key_title_and_list() {
        let e = ArmErrors {
            tpot_shape: vec![(2, 1.0)],
            tpot_mape: vec![(2, 2.0)],
            ttft_shape: vec![(2, 3.0)],
            ttft_mape: vec![(2, 4.0)],
        };
        let names: Vec<_> =
            ErrorMetric::ALL.iter().map(|&m| (m.key(), m.count_key(), m.title(), e.get(m)[0].1)).collect();
        assert_eq!(
            names,
            [
                ("tpot_shape", "n_shape", "TPOT shape", 1.0),
                ("tpot_mape", "n_mape", "TPOT mape", 2.0),
                ("ttft_shape", "n_ttft_shape", "TTFT shape", 3.0),
                ("ttft_mape", "n_ttft_mape", "TTFT mape", 4.0),
            ]
        );
    }
}
