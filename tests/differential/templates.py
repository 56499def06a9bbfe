"""Generated cases for file templates, above all those whose source is missing.

Methods: ``cfengine`` (edit_template), ``mustache`` (edit_template with
template_method mustache, with and without template_data / datastate()) and
``inline_mustache`` (edit_template_string).  Sources: present, missing, empty, a
directory, malformed; the promiser missing, missing with ``create => "true"``, or an
existing file.  Each case reports its outcome classes and what the file ends up as
(``<missing>`` or its content), as ``@@name@@outcome|content@@``.
"""
from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

SOURCES = {
    "ok.tmpl": "first $(tmpl.x)\n[%CFEngine any:: %]\nfor any\n[%CFEngine nosuch:: %]\n"
               "for nosuch\n[%CFEngine BEGIN %]\nitem $(tmpl.list)\n[%CFEngine END %]\n"
               "undefined $(tmpl.nosuch)\nlast\n",
    "ok.mustache": "x={{vars.tmpl.x}}\n{{#vars.tmpl.list}}- {{.}}\n{{/vars.tmpl.list}}"
                   "{{#classes.any}}any{{/classes.any}}{{^classes.nosuch}} no{{/classes.nosuch}}\n"
                   "[{{vars.tmpl.nosuch}}][{{a}}][{{#b}}{{.}};{{/b}}]\n",
    "empty.tmpl": "",
    "bad.mustache": "{{#vars.tmpl.list}}unclosed\n",
    "plain.tmpl": "no variables here\n",
    "blocks.tmpl": "head\n[%CFEngine BEGIN %]\nitem $(tmpl.list)\n[%CFEngine END %]\n"
                   "[%CFEngine nosuch:: %]\nhidden\n[%CFEngine any:: %]\n"
                   "undefined $(tmpl.nosuch) and $(tmpl.x)\n[%CFEngine linux|nosuch:: %]\n"
                   "or-class\n[%CFEngine any:: %]\ntail $(tmpl.list)\n",
    "nonl.tmpl": "single $(tmpl.x)",
    "sections.mustache": "{{#vars.tmpl.d}}{{a}}{{/vars.tmpl.d}}|{{#vars.tmpl.d.b}}<{{.}}>"
                         "{{/vars.tmpl.d.b}}|{{^vars.tmpl.d.z}}noz{{/vars.tmpl.d.z}}|"
                         "{{#vars.tmpl.d.c}}{{@}}={{.}}{{/vars.tmpl.d.c}}|{{$vars.tmpl.d.c}}|"
                         "{{#vars.tmpl.n}}{{.}}{{/vars.tmpl.n}}|{{vars.tmpl.t}}\n",
    "nonl.mustache": "x={{vars.tmpl.x}}",
}
# (name, attributes): @@SRC@@ is the template folder
METHODS = (
    ("cf_ok", 'edit_template => "@@SRC@@/ok.tmpl"'),
    ("cf_missing", 'edit_template => "@@SRC@@/nosuch.tmpl"'),
    ("cf_empty", 'edit_template => "@@SRC@@/empty.tmpl"'),
    ("cf_dir", 'edit_template => "@@SRC@@/adir"'),
    ("cf_plain", 'edit_template => "@@SRC@@/plain.tmpl"'),
    ("cf_explicit", 'edit_template => "@@SRC@@/plain.tmpl", template_method => "cfengine"'),
    ("cf_blocks", 'edit_template => "@@SRC@@/blocks.tmpl"'),
    ("cf_nonl", 'edit_template => "@@SRC@@/nonl.tmpl"'),
    ("mu_sections", 'edit_template => "@@SRC@@/sections.mustache", template_method => "mustache"'),
    ("mu_nonl", 'edit_template => "@@SRC@@/nonl.mustache", template_method => "mustache"'),
    ("mu_ok", 'edit_template => "@@SRC@@/ok.mustache", template_method => "mustache"'),
    ("mu_missing", 'edit_template => "@@SRC@@/nosuch.mustache", template_method => "mustache"'),
    ("mu_empty", 'edit_template => "@@SRC@@/empty.tmpl", template_method => "mustache"'),
    ("mu_dir", 'edit_template => "@@SRC@@/adir", template_method => "mustache"'),
    ("mu_bad", 'edit_template => "@@SRC@@/bad.mustache", template_method => "mustache"'),
    ("mu_data", 'edit_template => "@@SRC@@/ok.mustache", template_method => "mustache", '
                'template_data => parsejson(\'{"a": "A", "b": [1, "two", true]}\')'),
    ("mu_datastate", 'edit_template => "@@SRC@@/ok.mustache", template_method => "mustache", '
                     "template_data => datastate()"),
    ("mu_data_var", 'edit_template => "@@SRC@@/ok.mustache", template_method => "mustache", '
                    "template_data => @(tmpl.d)"),
    ("mu_missing_data", 'edit_template => "@@SRC@@/nosuch.mustache", template_method => '
                        '"mustache", template_data => @(tmpl.d)'),
    ("in_ok", 'edit_template_string => "x={{vars.tmpl.x}};{{#vars.tmpl.list}}{{.}},'
              '{{/vars.tmpl.list}}", template_method => "inline_mustache"'),
    ("in_empty", 'edit_template_string => "", template_method => "inline_mustache"'),
    ("in_data", 'edit_template_string => "{{a}}/{{#b}}<{{.}}>{{/b}}/{{c.d}}", '
                'template_method => "inline_mustache", template_data => @(tmpl.d)'),
    ("in_top", 'edit_template_string => "{{%-top-}}", template_method => "inline_mustache", '
               "template_data => @(tmpl.d)"),
    ("in_undef", 'edit_template_string => "[{{vars.tmpl.nosuch}}][{{#vars.nosuch}}x'
                 '{{/vars.nosuch}}]", template_method => "inline_mustache"'),
    ("in_nostring", 'template_method => "inline_mustache"'),
    ("mu_nosource", 'template_method => "mustache"'),
)
PROMISERS = ("new", "create", "old")
OLD_CONTENT = "old content\n"


def cases() -> list[tuple[str, str, str]]:
    return [(f"{m}_{p}", attrs, p) for (m, attrs), p in itertools.product(METHODS, PROMISERS)]


CASES = cases()


def write_sources(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in SOURCES.items():
        (folder / name).write_text(text)
    (folder / "adir").mkdir(exist_ok=True)


def prepare_outputs(workdir: Path) -> None:
    """The promisers' folder, before an agent's run: the ``old`` files exist."""
    out = workdir / "out"
    out.mkdir(parents=True, exist_ok=True)
    for f in out.iterdir():
        f.unlink()
    for name, _attrs, promiser in CASES:
        if promiser == "old":
            (out / name).write_text(OLD_CONTENT)


def policy_text(sources: Path) -> str:
    lines = ["body common control", "{", '  bundlesequence => { "tmpl", "show" };', "}", "",
             "body classes outcome(n)", "{",
             '  promise_repaired => { "$(n)_repaired" };', '  promise_kept => { "$(n)_kept" };',
             '  repair_failed => { "$(n)_failed" };', '  repair_denied => { "$(n)_denied" };',
             '  repair_timeout => { "$(n)_timeout" };', '  scope => "namespace";', "}", "",
             "bundle agent tmpl", "{", "  vars:", '      "x" string => "ex";',
             '      "list" slist => { "one", "two" };',
             """      "d" data => '{"a": "A", "b": ["p", 2], "c": {"d": "cd"}}';""",
             """      "n" data => '[1, 2.5, true, null, "s"]';""",
             '      "t" string => "<&>";',
             "  files:"]
    for name, attrs, promiser in CASES:
        create = ', create => "true"' if promiser == "create" else ""
        text = attrs.replace("@@SRC@@", str(sources))
        lines.append(f'      "$(sys.workdir)/out/{name}" {text}{create}, '
                     f'classes => outcome("{name}");')
    lines += ["}", "", "bundle agent show", "{", "  vars:"]
    for name, _attrs, _p in CASES:
        lines.append(f'      "o_{name}" string => join(",", sort(classesmatching('
                     f'"{name}_(repaired|kept|failed|denied|timeout)"), "lex"));')
        lines.append(f'      "c_{name}" string => readfile("$(sys.workdir)/out/{name}", 0), '
                     f'if => "e_{name}";')
    lines.append("  classes:")
    for name, _attrs, _p in CASES:
        lines.append(f'      "e_{name}" expression => fileexists("$(sys.workdir)/out/{name}");')
    lines.append("  reports:")
    for name, _attrs, _p in CASES:
        lines.append(f'      "@@{name}@@$(o_{name})|$(c_{name})@@" if => "e_{name}";')
        lines.append(f'      "@@{name}@@$(o_{name})|<missing>@@" unless => "e_{name}";')
    lines += ["}", ""]
    return "\n".join(lines)


_LINE = re.compile(r"^R: @@([^@]+)@@(.*?)@@$", re.S | re.M)


def parse_reports(stdout: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in _LINE.finditer(stdout)}
