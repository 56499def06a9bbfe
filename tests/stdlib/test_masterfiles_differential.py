"""The library against CFEngine's own (masterfiles lib/, from the cfengine3 package).

Masterfiles is the behavioural reference: a body that exists there under the
same type and name must have the same parameters and, per class-guard
context, the same attributes with the same values, so that policy written for
CFEngine resolves to the same attributes on cf-lite.  Bundles must have the
same parameters.  The comparison is on parsed structure (``parse_file`` of
both libraries), never on text: layout, comments, attribute order, quoting
(``"0"`` vs ``0``, ``"$(x)"`` vs a naked ``$(x)``) do not matter.

Every name we define must exist in masterfiles: CFEngine rejects a policy
that defines a body or bundle twice, so an extra name in our library would
break user policy that defines that name itself.

Skipped when /usr/share/cfengine3/masterfiles/lib is absent.
"""
from __future__ import annotations

from typing import Any

import pytest

from cfpromise.syntax import ast
from tests.stdlib.library import have_masterfiles, masterfiles_policy, our_policy

pytestmark = pytest.mark.skipif(not have_masterfiles(),
                                reason="masterfiles lib/ (Debian package cfengine3) not installed")

# (body type, name) -> {attribute: why ours differs}.  The test also checks that
# each listed attribute really differs, so this list stays true.
DELIBERATE_BODY_DIFFERENCES: dict[tuple[str, str], dict[str, str]] = {
    ("package_module", "apt_get"): {
        "interpreter": "masterfiles runs the module with $(sys.bindir)/cfengine-selected-python, "
                       "a wrapper cf-lite does not ship; without it the module runs through "
                       "its own #! line",
    },
    ("package_module", "yum"): {
        "interpreter": "as for apt_get: no cfengine-selected-python in cf-lite",
    },
    ("package_module", "zypper"): {
        "interpreter": "as for apt_get: no cfengine-selected-python in cf-lite",
    },
}

# Names we define although masterfiles 3.21 lib/ does not (each one needs a reason).
EXTRA_NAMES: dict[tuple[str, str, str], str] = {}


def _norm(rval: ast.Rval) -> Any:
    """A comparable form of an rval: quoting and naked-variable style are ignored."""
    if isinstance(rval, ast.Scalar):
        return rval.value
    if isinstance(rval, ast.List):
        return ("list", tuple(_norm(i) for i in rval.items))
    if isinstance(rval, ast.FnCall):
        return ("call", rval.name, tuple(_norm(a) for a in rval.args))
    if isinstance(rval, ast.Data):
        return ("data", rval.canonical)
    raise TypeError(rval)


def _guard(expr: str) -> str:
    return "".join(expr.split())


def body_shape(body: ast.Body) -> dict[str, dict[str, Any]]:
    """{class guard: {attribute: value}}; a repeated attribute keeps its last value."""
    shape: dict[str, dict[str, Any]] = {}
    for c in body.constraints:
        shape.setdefault(_guard(c.classes), {})[c.lval] = _norm(c.rval)
    return shape


def _bodies(policy: ast.Policy) -> dict[tuple[str, str], ast.Body]:
    return {(b.type, b.name): b for b in policy.bodies
            if b.name != "control" and b.namespace == "default"}


def _bundles(policy: ast.Policy) -> dict[tuple[str, str], ast.Bundle]:
    return {(b.type, b.name): b for b in policy.bundles if b.namespace == "default"}


@pytest.fixture(scope="module")
def ours() -> ast.Policy:
    return our_policy()


@pytest.fixture(scope="module")
def theirs() -> ast.Policy:
    return masterfiles_policy()


def _body_pairs() -> list[tuple[str, str]]:
    if not have_masterfiles():
        return []
    mine, ref = _bodies(our_policy()), _bodies(masterfiles_policy())
    return sorted(k for k in mine if k in ref)


def test_every_name_we_define_exists_in_masterfiles(ours: ast.Policy,
                                                    theirs: ast.Policy) -> None:
    ref_bodies, ref_bundles = _bodies(theirs), {b.name for b in theirs.bundles}
    extra = [("body", t, n) for (t, n) in _bodies(ours) if (t, n) not in ref_bodies]
    extra += [("bundle", t, n) for (t, n) in _bundles(ours) if n not in ref_bundles]
    unexplained = sorted(set(extra) - set(EXTRA_NAMES))
    assert not unexplained, f"names not in CFEngine's library (would collide with user " \
                            f"definitions): {unexplained}"


def test_no_duplicate_definitions(ours: ast.Policy) -> None:
    seen: set[tuple[str, str, str]] = set()
    dups = []
    for kind, blocks in (("body", ours.bodies), ("bundle", ours.bundles)):
        for b in blocks:
            if b.name == "control":
                continue
            key = (kind, b.type, b.name)
            if key in seen:
                dups.append(key)
            seen.add(key)
    assert not dups


@pytest.mark.parametrize("key", _body_pairs(), ids=lambda k: f"{k[0]}:{k[1]}")
def test_body_matches_masterfiles(key: tuple[str, str], ours: ast.Policy,
                                  theirs: ast.Policy) -> None:
    mine, ref = _bodies(ours)[key], _bodies(theirs)[key]
    assert mine.args == ref.args, "parameters (names and order) differ"
    deliberate = DELIBERATE_BODY_DIFFERENCES.get(key, {})
    got, want = body_shape(mine), body_shape(ref)
    for shape in (got, want):
        for attrs in shape.values():
            for lval in deliberate:
                attrs.pop(lval, None)
    got = {k: v for k, v in got.items() if v}
    want = {k: v for k, v in want.items() if v}
    assert sorted(got) == sorted(want), "class-guard contexts differ"
    for context in want:
        assert sorted(got[context]) == sorted(want[context]), \
            f"attribute names differ in context {context!r}"
        for lval, value in want[context].items():
            assert got[context][lval] == value, f"{lval} differs in context {context!r}"


@pytest.mark.parametrize("key", sorted(DELIBERATE_BODY_DIFFERENCES),
                         ids=lambda k: f"{k[0]}:{k[1]}")
def test_deliberate_differences_are_real(key: tuple[str, str], ours: ast.Policy,
                                         theirs: ast.Policy) -> None:
    mine, ref = _bodies(ours).get(key), _bodies(theirs).get(key)
    assert mine is not None and ref is not None, "listed difference names no common body"
    got, want = body_shape(mine), body_shape(ref)
    for lval in DELIBERATE_BODY_DIFFERENCES[key]:
        ours_values = {ctx: attrs.get(lval) for ctx, attrs in got.items() if lval in attrs}
        ref_values = {ctx: attrs.get(lval) for ctx, attrs in want.items() if lval in attrs}
        assert ours_values != ref_values, f"{lval} no longer differs: drop it from the list"


def test_bundle_parameters_match_masterfiles(ours: ast.Policy, theirs: ast.Policy) -> None:
    ref = _bundles(theirs)
    mismatched = []
    compared = 0
    for key, bundle in _bundles(ours).items():
        if key not in ref:
            continue
        compared += 1
        if bundle.args != ref[key].args:
            mismatched.append((key, bundle.args, ref[key].args))
    assert compared > 40
    assert not mismatched
