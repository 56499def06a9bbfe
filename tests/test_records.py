"""@record builds typing.NamedTuple-style classes on collections.namedtuple (cfpromise.records)."""
from __future__ import annotations

import pickle

import pytest

from cfpromise.records import record
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
