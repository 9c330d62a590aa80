//! The one scrolling engine of the screens that show items of lazily known height (the panes, the
//! transcript, the compare screen): a position is an item and a row within it, so wrapping the
//! items above what is shown never moves it, and only the rows walked over or shown are wrapped.

/// A screen row: an item and a row within it (0 = its first row).
pub type Position = (usize, usize);

/// Items whose rows are worked out as they are needed.
pub trait RowSource {
    /// Items that can be scrolled to (those revealed at the cursor).
    fn count(&self) -> usize;
    /// Works out item `item` until its first `rows` rows are known (or all are); its height,
    /// exact once complete, else at least the rows known.
    fn ensure_rows(&mut self, item: usize, rows: usize) -> usize;
    /// Whether every row of item `item` is known.
    fn complete(&self, item: usize) -> bool;
}

/// The row `rows` above `from`, working out the items passed over completely (their ends show).
pub fn walk_up(source: &mut impl RowSource, from: Position, rows: usize) -> Position {
    let (mut item, mut row) = from;
    let mut up = rows;
    loop {
        if up <= row {
            return (item, row - up);
        }
        up -= row;
        if item == 0 {
            return (0, 0);
        }
        item -= 1;
        row = source.ensure_rows(item, usize::MAX);
    }
}

/// The row `rows` below `from`, working out only as far as it goes; `(len, 0)` past the end.
pub fn walk_down(source: &mut impl RowSource, from: Position, rows: usize) -> Position {
    let (mut item, mut row) = from;
    let mut down = rows;
    while item < source.count() {
        let height = source.ensure_rows(item, row + down + 1);
        if row + down < height {
            return (item, row + down);
        }
        down -= height - row;
        item += 1;
        row = 0;
    }
    (source.count(), 0)
}

/// The top row that shows the last `viewport` rows of the items exactly.
pub fn tail_top(source: &mut impl RowSource, viewport: usize) -> Position {
    walk_up(source, (source.count(), 0), viewport)
}

/// Works out the rows from `top` to the bottom of a viewport of `viewport` rows: the top (its row
/// clamped to its item's height) and whether the items end before the viewport is full (exactly
/// full at the end of a complete last item counts as the end).
pub fn fill_from(source: &mut impl RowSource, top: Position, viewport: usize) -> (Position, bool) {
    let (mut item, mut row) = top;
    if item >= source.count() {
        return (top, true);
    }
    let height = source.ensure_rows(item, row + 1);
    row = row.min(height.saturating_sub(1));
    let start = (item, row);
    let mut filled = 0;
    while item < source.count() {
        let height = source.ensure_rows(item, row + (viewport - filled));
        filled += height.saturating_sub(row);
        if filled >= viewport {
            return (start, filled == viewport && item + 1 == source.count() && source.complete(item));
        }
        item += 1;
        row = 0;
    }
    (start, true)
}

/// Where a scroll by `delta` rows from `from` goes.
pub fn scrolled(source: &mut impl RowSource, from: Position, delta: isize) -> Position {
    if delta < 0 {
        walk_up(source, from, delta.unsigned_abs())
    } else {
        walk_down(source, from, delta as usize)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Items of known heights, revealed one row at a time as asked (as wrapping does).
    struct Items {
        heights: Vec<usize>,
        known: Vec<usize>,
    }

    impl Items {
        fn new(heights: Vec<usize>) -> Self {
            let known = vec![0; heights.len()];
            Items { heights, known }
        }

        /// The absolute row of a position.
        fn row_of(&self, (item, row): Position) -> usize {
            self.heights[..item].iter().sum::<usize>() + row
        }
    }

    impl RowSource for Items {
        fn count(&self) -> usize {
            self.heights.len()
        }
        fn ensure_rows(&mut self, item: usize, rows: usize) -> usize {
            self.known[item] = self.known[item].max(rows.min(self.heights[item]));
            // An estimate before the item is complete: never less than what is known.
            if self.complete(item) { self.heights[item] } else { self.known[item].max(1) + 1 }
        }
        fn complete(&self, item: usize) -> bool {
            self.known[item] >= self.heights[item]
        }
    }

    proptest! {
        /// Walking down then up by the same rows comes back, within the items.
        #[test]
        fn walking_down_and_up_is_symmetric(
            heights in proptest::collection::vec(1usize..30, 1..20),
            start in 0usize..200,
            rows in 0usize..200,
        ) {
            let mut items = Items::new(heights);
            let total: usize = items.heights.iter().sum();
            let start = walk_down(&mut items, (0, 0), start.min(total - 1));
            let down = walk_down(&mut items, start, rows);
            if down.0 < items.count() {
                prop_assert_eq!(items.row_of(down), items.row_of(start) + rows);
                prop_assert_eq!(walk_up(&mut items, down, rows), start);
            } else {
                prop_assert!(items.row_of(start) + rows >= total);
            }
        }

        /// The tail top shows exactly the last `viewport` rows (or all of them, from the top).
        #[test]
        fn the_tail_top_shows_the_last_rows(
            heights in proptest::collection::vec(1usize..30, 1..20),
            viewport in 1usize..100,
        ) {
            let mut items = Items::new(heights);
            let total: usize = items.heights.iter().sum();
            let top = tail_top(&mut items, viewport);
            prop_assert_eq!(items.row_of(top), total.saturating_sub(viewport));
            let (start, reaches_end) = fill_from(&mut items, top, viewport);
            prop_assert_eq!(start, top);
            prop_assert!(reaches_end);
        }

        /// Filling from any top reaches the end exactly when the rows below it fit.
        #[test]
        fn filling_says_whether_the_end_is_shown(
            heights in proptest::collection::vec(1usize..30, 1..20),
            top in 0usize..300,
            viewport in 1usize..100,
        ) {
            let mut items = Items::new(heights);
            let total: usize = items.heights.iter().sum();
            let top = walk_down(&mut items, (0, 0), top.min(total - 1));
            let (start, reaches_end) = fill_from(&mut items, top, viewport);
            prop_assert_eq!(start, top);
            prop_assert_eq!(reaches_end, total - items.row_of(top) <= viewport);
        }
    }

    #[test]
    fn only_the_rows_walked_over_are_worked_out() {
        let mut items = Items::new(vec![1000, 1000, 1000]);
        walk_down(&mut items, (0, 0), 10);
        assert_eq!(items.known, vec![11, 0, 0]);
        let top = tail_top(&mut items, 5);
        assert_eq!(top, (2, 995));
        assert_eq!(items.known, vec![11, 0, 1000], "the last item, passed over, is worked out whole");
    }
}
