"""An insertion tracks its cursors by identity: a copy equals its original until a line
moves one of them, and releasing the copy must not stop the original from moving."""
from __future__ import annotations

from cfpromise.promises.edit.insert_lines import Cursor, Insertion


def test_releasing_a_copy_keeps_the_equal_original_tracked() -> None:
    ins = Insertion.__new__(Insertion)
    ins.lines, ins.cursors = ["a", "b"], []
    original = Cursor(0, 1, 1, 0)
    copy = original.copy()
    ins.cursors += [original, copy]
    assert copy == original and copy is not original
    ins.release(copy)
    assert len(ins.cursors) == 1 and ins.cursors[0] is original
    ins._insert(0, "new")
    assert (original.begin, original.end, original.location, original.prev) == (1, 2, 2, 1)
    assert (copy.begin, copy.end) == (0, 1)                      # no longer moved
    ins.release(copy)                                            # not tracked: nothing to do
    assert ins.cursors == [original]
