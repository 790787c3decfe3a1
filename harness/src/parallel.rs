//! Spreading independent items over a few threads: the simulator's points (`blis`) and the
//! fixture files (`fixtures::check`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `f` over every item on at most `workers` threads; results in item order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], workers: usize, f: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    let order: Vec<usize> = (0..items.len()).collect();
    parallel_map_in_order(items, &order, workers, f)
}

/// `parallel_map`, the workers taking the items in `order` (a permutation of the indices):
/// longest first, so the last worker is not left alone with the longest item. Results are
/// still in item order.
pub fn parallel_map_in_order<T: Sync, R: Send>(
    items: &[T],
    order: &[usize],
    workers: usize,
    f: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    assert_eq!(order.len(), items.len(), "the order is a permutation of the items");
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let workers = workers.clamp(1, items.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let r = f(i, &items[i]);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every item was taken by a worker"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_worker_takes_the_items_in_the_given_order_and_results_stay_in_item_order() {
        let taken = Mutex::new(Vec::new());
        let out = parallel_map_in_order(&[10, 20, 30], &[2, 0, 1], 1, |i, x| {
            taken.lock().unwrap().push(i);
            x + 1
        });
        assert_eq!(out, [11, 21, 31]);
        assert_eq!(taken.into_inner().unwrap(), [2, 0, 1]);
    }
}
