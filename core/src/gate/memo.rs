//! The parser's memo: the result of a memoised rule at a token position.
//!
//! Positions are dense (token indices) and hold a handful of entries each, so each position keeps a short list
//! threaded through one pool of entries: a look-up reads one slot and walks a few entries, with no hashing and no
//! rehashing as the memo grows (a hash map was a fifth of the parse's time).

/// Rules whose results are memoised (CPython's `(memo)` rules and a few left-recursive ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Memo {
    Expression,
    Disjunction,
    Conjunction,
    Inversion,
    BitwiseOr,
    Factor,
    AwaitPrimary,
    Primary,
    StarExpression,
    StarTarget,
    TargetWithStarAtom,
    DelTarget,
    TPrimary,
    Arguments,
    SimpleStmt,
    Block,
    Strings,
    InvalidNamedExpression,
    ClosedPattern,
    StarPattern,
    Slices,
}

/// No entry (the end of a list, or a position without one).
const NIL: u32 = u32::MAX;

/// One memoised result.
#[derive(Debug, Clone, Copy)]
struct Entry {
    rule: Memo,
    pos: u32,
    value: u32,
    end: u32,
    /// The next entry of the same position, or [`NIL`].
    next: u32,
}

/// Memoised results by rule and token position.
#[derive(Debug, Default)]
pub(super) struct MemoTable {
    /// Per position, its first entry in `entries`, or [`NIL`].
    heads: Vec<u32>,
    entries: Vec<Entry>,
}

impl MemoTable {
    /// How many results it holds.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The result of `rule` at `pos`: its value and the position after it.
    #[cfg_attr(not(target_family = "wasm"), inline)]
    pub(super) fn get(&self, rule: Memo, pos: usize) -> Option<(u32, u32)> {
        let mut at = *self.heads.get(pos)?;
        while at != NIL {
            let e = &self.entries[at as usize];
            if e.rule == rule {
                return Some((e.value, e.end));
            }
            at = e.next;
        }
        None
    }

    /// Records the result of `rule` at `pos`. It is put first in the position's list, so it hides any earlier result
    /// of the rule there ([`MemoTable::get`] finds the first): replacing costs no walk of the list.
    #[cfg_attr(not(target_family = "wasm"), inline)]
    pub(super) fn insert(&mut self, rule: Memo, pos: usize, value: u32, end: u32) {
        if pos >= self.heads.len() {
            self.heads.resize(pos + 1, NIL);
        }
        self.link(Entry { rule, pos: pos as u32, value, end, next: NIL });
    }

    fn link(&mut self, mut entry: Entry) {
        let head = &mut self.heads[entry.pos as usize];
        entry.next = *head;
        *head = self.entries.len() as u32;
        self.entries.push(entry);
    }

    /// Keeps only the results for which `keep(rule, pos)` holds.
    /// The entries are filtered in place, so the pool keeps its allocation from one pruning to the next.
    pub(super) fn retain(&mut self, keep: impl Fn(Memo, usize) -> bool) {
        let mut entries = std::mem::take(&mut self.entries);
        for e in &entries {
            self.heads[e.pos as usize] = NIL;
        }
        entries.retain(|e| keep(e.rule, e.pos as usize));
        for (i, e) in entries.iter_mut().enumerate() {
            let head = &mut self.heads[e.pos as usize];
            e.next = *head;
            *head = i as u32;
        }
        self.entries = entries;
    }

    /// Forgets every result.
    pub(super) fn clear(&mut self) {
        self.retain(|_, _| false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_found_by_rule_and_position_and_replaced() {
        let mut m = MemoTable::default();
        m.insert(Memo::Expression, 3, 7, 5);
        m.insert(Memo::Primary, 3, 8, 4);
        m.insert(Memo::Block, 0, 1, 9);
        assert_eq!(m.get(Memo::Expression, 3), Some((7, 5)));
        assert_eq!(m.get(Memo::Primary, 3), Some((8, 4)));
        assert_eq!(m.get(Memo::Primary, 2), None);
        assert_eq!(m.get(Memo::Primary, 100), None);
        m.insert(Memo::Primary, 3, 9, 6);
        assert_eq!(m.get(Memo::Primary, 3), Some((9, 6)), "the latest result hides the earlier one");
        m.retain(|rule, pos| rule == Memo::Block || pos >= 4);
        assert_eq!((m.get(Memo::Expression, 3), m.get(Memo::Block, 0), m.len()), (None, Some((1, 9)), 1));
        m.insert(Memo::Expression, 3, 1, 4);
        assert_eq!(m.get(Memo::Expression, 3), Some((1, 4)));
        m.clear();
        assert_eq!((m.get(Memo::Block, 0), m.len()), (None, 0));
    }
}
