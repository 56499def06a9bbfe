"""Property: random edit_line bundles applied to random files converge.

A bundle is drawn from promise families that are convergent by construction
(as any sane policy is): inserted lines, deleted lines, replaced text and edited
fields live in separate name spaces, so no promise undoes another.  Running the
files promise twice, the second run must change nothing (no ``info:`` line, the
same bytes) -- every promise kept.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from tests.edit.cases import BODIES
from tests.files.agentrun import lines, run_agent

KEEP = [f"keep-{i}" for i in range(5)]
FILE_LINE = st.one_of(
    st.sampled_from(KEEP),
    st.builds(lambda n: f"del-{n}", st.integers(0, 4)),
    st.builds(lambda n: f"old-{n}", st.integers(0, 4)),
    st.builds(lambda a, b: f"f:{a}:{b}", st.sampled_from(["x", "x,y", ""]),
              st.sampled_from(["z", ""])),
    st.sampled_from(["", "  spaced  line ", "BEGIN", "END"]),
)

INSERT_TEXT = st.builds(lambda n: f"ins-{n}", st.integers(0, 6))
LOCATION = st.one_of(
    st.builds(lambda k: f'location => before("{k}")', st.sampled_from(KEEP)),
    st.builds(lambda k: f'location => after_first("{k}")', st.sampled_from(KEEP)),
    st.builds(lambda k: f'location => after_last("{k}")', st.sampled_from(KEEP)),
    st.just("location => start"),
)
REGION = st.sampled_from(['select_region => between("BEGIN", "END")',
                          'select_region => from("BEGIN")'])


@st.composite
def insert_promise(draw: st.DrawFn) -> str:
    texts = draw(st.lists(INSERT_TEXT, min_size=1, max_size=3, unique=True))
    promiser = "\n".join(texts) if draw(st.booleans()) else texts[0]
    attributes = []
    where = draw(st.one_of(st.none(), LOCATION, REGION))
    if where:
        attributes.append(where)
    if draw(st.booleans()):
        attributes.append('whitespace_policy => { "ignore_leading" }')
    return f'  "{promiser}" ' + ", ".join(attributes) + ";"


@st.composite
def delete_promise(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["literal", "regex", "not", "region"]))
    n = draw(st.integers(0, 4))
    if kind == "literal":
        return f'  "del-{n}";'
    if kind == "regex":
        return '  "del-[0-9]+";'
    if kind == "region":
        return '  "del-.*" select_region => between("BEGIN", "END");'
    return ('  "(keep|ins|old|new|f:|BEGIN|END|  spaced).*|" '
            'not_matching => "true";')


@st.composite
def replace_promise(draw: st.DrawFn) -> str:
    n = draw(st.integers(0, 4))
    if draw(st.booleans()):
        return f'  "old-{n}" replace_with => value("new-{n}");'
    return '  "old-([0-9])" replace_with => value("new-$(match.1)");'


@st.composite
def field_promise(draw: st.DrawFn) -> str:
    op = draw(st.sampled_from(["append", "prepend", "set", "delete", "alphanum"]))
    value = draw(st.sampled_from(["v", "w"]))
    column = draw(st.sampled_from(["2", "3"]))
    return f'  "f:.*" edit_field => col(":", "{column}", "{value}", "{op}");'


@st.composite
def bundle(draw: st.DrawFn) -> str:
    sections = []
    for name, strategy in (("delete_lines", delete_promise()), ("field_edits", field_promise()),
                           ("insert_lines", insert_promise()),
                           ("replace_patterns", replace_promise())):
        # at most one field_edits promise per field: two on the same field may undo each
        # other (delete "v" then append "v" reorders the field on every run, in cf-agent too)
        unique_by = (lambda p: p.split('col(":", "')[1][0]) if name == "field_edits" \
            else (lambda p: p)
        promises = draw(st.lists(strategy, max_size=3, unique_by=unique_by))
        if promises:
            sections.append(f"{name}:\n" + "\n".join(promises))
    return "\n".join(sections) or 'insert_lines:\n  "ins-0";'


def _policy(path: Path, body: str) -> str:
    return f"""
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  files:
    "{path}" create => "true", edit_line => e;
}}
bundle edit_line e
{{
{body}
}}
{BODIES}
"""


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(content=st.lists(FILE_LINE, max_size=12), body=bundle(),
       final_newline=st.booleans())
def test_random_bundles_converge(content: list[str], body: str, final_newline: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        target = base / "file.txt"
        text = "\n".join(content)
        if content and final_newline:
            text += "\n"
        target.write_text(text)
        policy = _policy(target, body)
        code, first = run_agent(base, policy)
        assert code == 0, first
        after_first = target.read_bytes()
        code, second = run_agent(base, policy)
        assert code == 0, second
        assert target.read_bytes() == after_first, (body, first, second)
        assert lines(second, "info") == [], (body, second)
        assert "Traceback" not in first + second
