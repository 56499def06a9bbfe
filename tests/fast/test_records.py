"""@record builds typing.NamedTuple-style classes that behave as collections.namedtuple's
(cfpromise.fast.records)."""
from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given, strategies as st

from cfpromise.fast.records import record
from cfpromise.syntax.errors import Coord


@record
class Point:
    """A point."""

    x: int
    y: int
    label: str = "p"

    def norm1(self) -> int:
        return abs(self.x) + abs(self.y)


def test_fields_defaults_and_methods_as_typing_namedtuple_has_them() -> None:
    p = Point(1, -2)
    assert p == (1, -2, "p") and isinstance(p, tuple)
    assert Point._fields == ("x", "y", "label") and Point._field_defaults == {"label": "p"}
    assert (p.x, p.y, p.label, p.norm1()) == (1, -2, "p", 3)
    assert repr(p) == "Point(x=1, y=-2, label='p')"
    assert type(p._replace(x=5)) is Point and p._asdict() == {"x": 1, "y": -2, "label": "p"}
    assert Point.__doc__ == "A point." and Point.__qualname__ == "Point"
    assert Point.__annotations__ == {"x": "int", "y": "int", "label": "str"}
    with pytest.raises(AttributeError):
        p.x = 3                       # type: ignore[misc]
    assert not hasattr(p, "__dict__")


def test_pickled_by_class_name() -> None:
    c = Coord("f.cf", 3, 4, 2)
    back = pickle.loads(pickle.dumps(c, protocol=pickle.HIGHEST_PROTOCOL))
    assert type(back) is Coord and back == c and back.cfline == 2


def test_a_field_without_default_after_one_with_a_default_is_refused() -> None:
    with pytest.raises(TypeError, match="'b' without a default"):
        @record
        class Bad:
            a: int = 0
            b: int


def _pair(count: int, defaults: int) -> tuple[type, type]:
    """A record and the collections.namedtuple with the same fields and defaults."""
    from collections import namedtuple
    names = [f"f{i}" for i in range(count)]
    values = list(range(100, 100 + defaults))
    body: dict = {"__annotations__": dict.fromkeys(names, "int"), "__module__": __name__}
    body.update(zip(names[count - defaults:], values))
    return record(type("R", (), body)), namedtuple("R", names, defaults=values)


def _outcome(make) -> object:
    try:
        value = make()
    except Exception as exc:           # the same error, with the same message
        return (type(exc).__name__, str(exc).replace("R.__new__()", "__new__()"))
    return (type(value).__name__, tuple(value), repr(value))


@given(st.integers(1, 10), st.data())
def test_construction_as_collections_namedtuple_does(count: int, data: st.DataObject) -> None:
    defaults = data.draw(st.integers(0, count))
    mine, theirs = _pair(count, defaults)
    assert mine._fields == theirs._fields and mine._field_defaults == theirs._field_defaults
    assert mine.__match_args__ == theirs.__match_args__
    positional = data.draw(st.lists(st.integers(), max_size=count + 1))
    keywords = data.draw(st.dictionaries(st.sampled_from([*mine._fields, "other"]),
                                         st.integers(), max_size=3))
    assert _outcome(lambda: mine(*positional, **keywords)) == \
        _outcome(lambda: theirs(*positional, **keywords))
    assert _outcome(lambda: mine._make(positional)) == _outcome(lambda: theirs._make(positional))
    full = tuple(range(count))
    a, b = mine(*full), theirs(*full)
    assert a == b and hash(a) == hash(b) and a._asdict() == b._asdict()
    assert _outcome(lambda: a._replace(**keywords)) == _outcome(lambda: b._replace(**keywords))
    assert copy.copy(a) == a and type(copy.deepcopy(a)) is mine


@pytest.mark.fast_path
def test_small_records_are_built_without_namedtuple_and_large_ones_on_it() -> None:
    small, _ = _pair(8, 2)
    large, _ = _pair(9, 2)
    assert small.__bases__ == (tuple,) and small.__new__.__defaults__ == (100, 101)
    assert large.__bases__[0].__bases__ == (tuple,)            # the namedtuple base
    assert Coord.__bases__ == (tuple,) and Coord("f", 1, 2).cf == 0


def test_field_names_namedtuple_would_refuse_are_refused() -> None:
    with pytest.raises(ValueError, match="'_hidden' cannot be a field name"):
        @record
        class Hidden:
            _hidden: int
