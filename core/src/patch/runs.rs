//! Finding a run of lines in a file in linear time (Knuth-Morris-Pratt over whole lines), so a long original
//! against a long file of repeated lines costs the sum of their lengths, never their product.

/// The failure table of `pattern`: for each prefix, the length of its longest proper prefix that is also a suffix.
fn failure<T: PartialEq>(pattern: &[T]) -> Vec<usize> {
    let mut table = vec![0usize; pattern.len()];
    let mut k = 0usize;
    for i in 1..pattern.len() {
        while k > 0 && pattern[i] != pattern[k] {
            k = table[k - 1];
        }
        if pattern[i] == pattern[k] {
            k += 1;
        }
        table[i] = k;
    }
    table
}

/// Every start index of `pattern` in `text` (overlapping occurrences included), in order.
pub(super) fn occurrences<T: PartialEq>(text: &[T], pattern: &[T]) -> Vec<usize> {
    let mut found = Vec::new();
    if pattern.is_empty() || pattern.len() > text.len() {
        return found;
    }
    let table = failure(pattern);
    let mut q = 0usize;
    for (i, item) in text.iter().enumerate() {
        while q > 0 && *item != pattern[q] {
            q = table[q - 1];
        }
        if *item == pattern[q] {
            q += 1;
        }
        if q == pattern.len() {
            found.push(i + 1 - q);
            q = table[q - 1];
        }
    }
    found
}

/// The longest prefix of `pattern` that occurs in `text`: its length and its first start (`(0, 0)` when nothing
/// matches).
pub(super) fn longest_prefix<T: PartialEq>(text: &[T], pattern: &[T]) -> (usize, usize) {
    if pattern.is_empty() {
        return (0, 0);
    }
    let table = failure(pattern);
    let (mut q, mut best) = (0usize, (0usize, 0usize));
    for (i, item) in text.iter().enumerate() {
        while q > 0 && (q == pattern.len() || *item != pattern[q]) {
            q = table[q - 1];
        }
        if *item == pattern[q] {
            q += 1;
        }
        if q > best.0 {
            best = (q, i + 1 - q);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_found_with_overlaps() {
        assert_eq!(occurrences(&[1, 1, 1, 2, 1, 1], &[1, 1]), vec![0, 1, 4]);
        assert_eq!(occurrences(&[1, 2], &[1, 2, 3]), Vec::<usize>::new());
        assert_eq!(longest_prefix(&[5, 1, 2, 9, 1, 2, 3, 7], &[1, 2, 3, 4]), (3, 4));
        assert_eq!(longest_prefix(&[5, 6], &[1]), (0, 0));
    }

    #[test]
    fn repeated_lines_cost_linear_time() {
        let text = vec![0u8; 200_000];
        let mut pattern = vec![0u8; 100_000];
        pattern.push(1);
        assert!(occurrences(&text, &pattern).is_empty());
        assert_eq!(longest_prefix(&text, &pattern), (100_000, 0));
    }
}
