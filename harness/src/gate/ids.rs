//! Figure ids as a user types them: the ids and groups (`a/`) nearest to one that selects
//! nothing, so a typo is answered with what was meant (`reproduce --only`, `explain`).

use super::manifest::Manifest;

/// The three figure ids or groups (`a/`) nearest to `wanted` by edit distance.
pub fn nearest_ids(manifest: &Manifest, wanted: &str) -> Vec<String> {
    let mut ids = std::collections::BTreeSet::new();
    for f in &manifest.figures {
        ids.insert(f.id.clone());
        ids.extend(f.id.match_indices('/').map(|(i, _)| f.id[..=i].to_string()));
    }
    let mut ranked: Vec<(usize, String)> = ids.into_iter().map(|id| (edit_distance(wanted, &id), id)).collect();
    ranked.sort();
    ranked.into_iter().take(3).map(|(_, id)| id).collect()
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != *cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(super::edit_distance("headline/al", "headline/all"), 1);
        assert_eq!(super::edit_distance("", "abc"), 3);
        assert_eq!(super::edit_distance("kitten", "sitting"), 3);
    }
}
