"""edit_xml: build_xpath and insert_tree, saved as libxml2 saves (the documents and
messages were read off cf-agent 3.21 on the same policy)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cfpromise.promises.edit import xmldoc

POLICY = """
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  files:
    "{d}/a.xml" create => "true", edit_xml => ins("<Root/>");
    "{d}/b.xml" create => "true", edit_xml => bx("/Server/Service[@name='s']/Engine/Host");
    "{d}/a.xml" edit_xml => ins2("<x foo='bar'>y</x>", "//Root");
}}
bundle edit_xml ins(t) {{ insert_tree: '$(t)'; }}
bundle edit_xml ins2(t, x) {{ insert_tree: '$(t)' select_xpath => "$(x)"; }}
bundle edit_xml bx(x) {{ build_xpath: "$(x)"; }}
"""


def agent(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    policy = tmp_path / "p.cf"
    policy.write_text(POLICY.format(d=tmp_path))
    return subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-KI", "-f", str(policy),
                           "-w", str(tmp_path / "wd"), *args], capture_output=True, text=True,
                          timeout=60)


def test_build_xpath_and_insert_tree_then_kept(tmp_path: Path) -> None:
    first = agent(tmp_path)
    assert (tmp_path / "a.xml").read_text() == \
        '<?xml version="1.0"?>\n<Root><x foo="bar">y</x></Root>\n'
    assert (tmp_path / "b.xml").read_text() == (
        '<?xml version="1.0"?>\n<Server><Service name="s"><Engine><Host/></Engine></Service>'
        "</Server>\n")
    assert f"Inserted tree '<Root/>' into an empty XML document '{tmp_path}/a.xml'" in first.stdout
    assert f"Inserted tree '<x foo='bar'>y</x>' at XPath '//Root' in XML document " \
           f"'{tmp_path}/a.xml'" in first.stdout
    assert f"Edited xml file '{tmp_path}/b.xml'" in first.stdout
    before = {p: (tmp_path / p).read_bytes() for p in ("a.xml", "b.xml")}
    second = agent(tmp_path)
    assert {p: (tmp_path / p).read_bytes() for p in ("a.xml", "b.xml")} == before
    assert "Edited" not in second.stdout and "Built" not in second.stdout
    # cf-agent 3.21 too refuses the tree-less insert into the now non-empty document
    assert "however XML document is not empty" in second.stdout


def test_dry_run_changes_nothing_and_says_what_it_would_do(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_text("")
    (tmp_path / "b.xml").write_text("")
    proc = agent(tmp_path, "-n")
    assert (tmp_path / "a.xml").read_text() == "" and (tmp_path / "b.xml").read_text() == ""
    assert "Should build XPath '/Server/Service[@name='s']/Engine/Host'" in proc.stdout
    assert "Should insert the promised tree '<Root/>' into an empty XML document" in proc.stdout


def test_select_is_libxml2_xpath_without_a_context_node() -> None:
    doc, said = xmldoc.parse(b'<?xml version="1.0"?>\n<a><b k="1"/><b k="2"><c/></b></a>\n')
    assert doc is not None and said == ""
    assert [n.get("k") for n in xmldoc.select(doc, "/a/b")] == ["1", "2"]
    assert [n.tag for n in xmldoc.select(doc, "//c")] == ["c"]
    assert [n.get("k") for n in xmldoc.select(doc, "/a/b[@k='2']")] == ["2"]
    assert [n.get("k") for n in xmldoc.select(doc, "//c/..")] == ["2"]
    assert [n.get("k") for n in xmldoc.select(doc, "/a/b[position()=1]")] == ["1"]
    assert xmldoc.select(doc, "a/b") == [] and xmldoc.select(doc, ".") == []  # no context
    assert xmldoc.select(doc, "count(/a/b)") is None                 # not a node-set
    assert not xmldoc.convergent("/a/b[1]") and not xmldoc.convergent("/a/b[last()]")
    with pytest.raises(xmldoc.XPathFailure):
        xmldoc.select(doc, "/a/b[")
    assert xmldoc.parse(b"<a><b></a>", "/f")[0] is None                # not well-formed


def test_saved_as_libxml2_2_9_saves() -> None:
    """Character references in hexadecimal where there is no encoding, comments as they
    are; the declaration as the file had it."""
    doc, _ = xmldoc.parse("<r a='\xe9'>\xe9<!--\xe9--></r>".encode())
    assert doc is not None
    assert doc.dump() == '<?xml version="1.0"?>\n<r a="&#xE9;">&#xE9;<!--\xe9--></r>\n'.encode()
    doc, _ = xmldoc.parse(b'<?xml version="1.0" standalone="yes"?><r/>')
    assert doc is not None and doc.dump() == b'<?xml version="1.0" standalone="yes"?>\n<r/>\n'


def test_bad_document_fails_the_promise_and_keeps_the_file(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_text("<not xml")
    proc = agent(tmp_path)
    assert (tmp_path / "a.xml").read_text() == "<not xml"
    assert f"Unable to load XML document '{tmp_path}/a.xml'" in proc.stdout
    assert "parser error" in proc.stderr and "Traceback" not in proc.stderr
    assert os.path.exists(tmp_path / "b.xml")                           # the run went on


POTATOES = """<?xml version="1.0" encoding="ISO-8859-1"?>
<Potatoes>
  <Potato name="One" topping="cheese">Hot</Potato>
  <Potato name="Two">
    <Baby name="Four"/>
  </Potato>
</Potatoes>
"""

EDITS = """
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main {{ files: "{f}" edit_xml => e; }}
bundle edit_xml e
{{
  delete_tree:
    '<Baby name="Four"/>' select_xpath => "/Potatoes/Potato[@name='Two']";
  delete_attribute:
    "topping" select_xpath => "/Potatoes/Potato[@name='One']";
  set_attribute:
    "size" select_xpath => "/Potatoes/Potato[@name='Two']", attribute_value => "big";
  set_text:
    "Cold" select_xpath => "/Potatoes/Potato[@name='One']";
  insert_text:
    "!" build_xpath => "/Potatoes/Potato[@name='Three']",
      select_xpath => "/Potatoes/Potato[@name='Three']";
}}
"""


def test_the_other_edit_xml_types_then_kept(tmp_path: Path) -> None:
    doc = tmp_path / "p.xml"
    doc.write_text(POTATOES)
    policy = tmp_path / "e.cf"
    policy.write_text(EDITS.format(f=doc))
    argv = [sys.executable, "-m", "cfpromise.cli.agent", "-KI", "-f", str(policy),
            "-w", str(tmp_path / "wd")]
    first = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert doc.read_text() == (
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n<Potatoes>\n'
        '  <Potato name="One">Cold</Potato>\n'
        '  <Potato name="Two" size="big">\n    \n  </Potato>\n'
        '<Potato name="Three">!</Potato></Potatoes>\n'), first.stdout
    assert "Deleted attribute 'topping' at XPath" in first.stdout
    second = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert "Edited" not in second.stdout and doc.read_text().count("Cold") == 1
