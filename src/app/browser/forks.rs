//! Forks listed under their parents.

use std::collections::HashMap;

/// Orders items so that each fork follows its parent (depth-first, in the
/// original order otherwise); a fork whose parent is not here stays a root.
/// `ids` gives an item's (id, parent id).
pub(super) fn forks_under_parents<T>(
    items: Vec<T>,
    ids: impl Fn(&T) -> (&str, Option<&str>),
) -> Vec<(T, usize)> {
    // Maps, not scans: a directory index has thousands of rows. The first of equal ids is the parent.
    let mut index_of: HashMap<&str, usize> = HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        index_of.entry(ids(item).0).or_insert(i);
    }
    let parent_of: Vec<Option<usize>> =
        items.iter().map(|item| ids(item).1.and_then(|p| index_of.get(p).copied())).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
    for (child, parent) in parent_of.iter().enumerate() {
        if let Some(parent) = parent {
            children[*parent].push(child);
        }
    }
    let mut order = Vec::with_capacity(items.len());
    let mut seen = vec![false; items.len()];
    // Depth-first with an explicit stack, so a long chain of forks cannot overflow the call stack.
    let mut visit = |root: usize, order: &mut Vec<(usize, usize)>| {
        let mut stack = vec![(root, 0)];
        while let Some((i, depth)) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            order.push((i, depth));
            stack.extend(children[i].iter().rev().map(|&c| (c, depth + 1)));
        }
    };
    for (i, parent) in parent_of.iter().enumerate() {
        // Roots: no parent here (or a parent cycle, broken at the first seen).
        if parent.is_none() {
            visit(i, &mut order);
        }
    }
    for i in 0..items.len() {
        visit(i, &mut order);
    }
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    order.into_iter().filter_map(|(i, depth)| slots[i].take().map(|e| (e, depth))).collect()
}
