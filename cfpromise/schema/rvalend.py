"""Where cf-promises' parser stands once it has read a constraint's rval.

3.21's parser checks a constraint (and warns of a deprecated one) as it reduces it: its
position is then just past the last character it read -- the rval's closing quote, brace
or parenthesis, or, for a bare word, the token after it (the ``;`` or ``,``, which the
grammar must read to know the word is no function call), blanks, line breaks and
comments skipped.

Its lexer counts that position its own way: the line counts every line break, but the
column and the source line it shows only restart at a line break read between tokens
(its ``eat_line`` rule).  A quoted string spanning lines is one token: past it, the line
is the string's last, the column counts on from where the string's first line began
(line breaks included) and the source line shown is that first line.
"""
from __future__ import annotations

from cfpromise.syntax import ast
from cfpromise.syntax.errors import Coord, file_lines

Lines = dict  # file -> its lines (None: unreadable), read once per check


class _Cursor:
    """A walk over the file's lines keeping the lexer's own column base."""

    def __init__(self, text: list[str], line: int) -> None:
        self.text = text
        self.eaten = line       # the line the lexer shows (its last line break read)
        self.width = 0          # characters from that line's start to this row's start

    def next_row(self, line: int, in_token: bool) -> None:
        if in_token:
            self.width += len(self.text[line]) + 1
        else:
            self.eaten, self.width = line + 1, 0


def after_rval(constraint: ast.Constraint, lines: Lines) -> tuple[Coord, str | None]:
    """The parser's position once it has read ``constraint``'s rval, and the source line
    it shows there (``constraint.coord`` and None when the file cannot be read)."""
    coord = constraint.coord
    text = file_lines(coord.file, lines)
    if text is None or coord.line < 1:
        return coord, None
    line, col = coord.line - 1, coord.col - 1
    cur = _Cursor(text, line)
    while line < len(text) and "=>" not in text[line][col:]:
        cur.next_row(line, False)
        line, col = line + 1, 0
    if line == len(text):
        return coord, None
    col = text[line].index("=>", col) + 2
    depth, quote, started = 0, "", False

    def past(line: int, col: int) -> tuple[Coord, str | None]:
        return _coord(coord, line, cur.width + col + 1), text[cur.eaten]

    while line < len(text):
        row = text[line]
        while col < len(row):
            ch = row[col]
            if quote:
                if ch == "\\":
                    col += 1
                elif ch == quote:
                    quote = ""
                    if depth == 0:
                        return past(line, col + 1)
            elif ch == "#":
                if depth == 0 and started:
                    return _after_next_token(coord, cur, line, col)
                break
            elif ch in "\"'`":
                quote, started = ch, True
            elif ch in "({":
                depth, started = depth + 1, True
            elif ch in ")}":
                depth -= 1
                if depth == 0:
                    return past(line, col + 1)
            elif depth == 0 and started and not (ch.isalnum() or ch in "_.:$@[]"):
                return _after_next_token(coord, cur, line, col)
            elif depth == 0 and not started and not ch.isspace():
                started = True
            col += 1
        if depth == 0 and started and not quote:
            cur.next_row(line, False)
            return _after_next_token(coord, cur, line + 1, 0)
        cur.next_row(line, bool(quote))
        line, col = line + 1, 0
    return coord, None


def _after_next_token(coord: Coord, cur: _Cursor, line: int,
                      col: int) -> tuple[Coord, str | None]:
    """Past the one-character token after a bare word (blanks and comments skipped)."""
    text = cur.text
    while line < len(text):
        row = text[line]
        while col < len(row) and row[col].isspace():
            col += 1
        if col < len(row) and row[col] != "#":
            return _coord(coord, line, cur.width + col + 2), text[cur.eaten]
        cur.next_row(line, False)
        line, col = line + 1, 0
    return coord, None


def _coord(coord: Coord, line: int, col: int) -> Coord:
    return Coord(coord.file, line + 1, col, coord.cf and coord.cf + line + 1 - coord.line)
