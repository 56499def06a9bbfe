"""Generated cases for ``edit_xml`` bundles: documents x XPaths x promise types x
(present, absent, not unique, not an element...) x how the agent runs (fixing, under
``action_policy => "warn"``, under ``-n``), each run twice on the same file.

cf-agent 3.21 edits XML with libxml2: XPath 1.0 in ``select_xpath`` (functions,
``and``/``or``, ``..``, attribute tests, namespaces by ``local-name()``), its own
refusal of positions on a sibling axis (``[1]``, ``[last()]``: "not convergent"), its own
parser for ``build_xpath``, libxml2's parser for the file and its serialization when
saving, and checks before each promise's lock that are made again in each of the
bundle's three passes.  Real-world policy (tomcat and jboss configurations) uses such
paths, so each case is one files promise with one edit promise on one document, run by
both agents twice (the second run must repair nothing more than cf-agent's does); what is
compared (:func:`observe`): exit code, the output (``-I``: errors, warnings and the change
messages) and standard error (libxml2's own complaints), the outcome classes of both
promises, and the file's bytes after each run.
"""
from __future__ import annotations

from typing import Any

TOMCAT = """<?xml version="1.0" encoding="UTF-8"?>
<!-- tomcat -->
<Server port="8005" shutdown="SHUTDOWN">
  <Service name="Catalina">
    <Connector port="8080" protocol="HTTP/1.1" connectionTimeout="20000"/>
    <Connector port="8009" protocol="AJP/1.3" redirectPort="8443"/>
    <Engine name="Catalina" defaultHost="localhost">
      <Host name="localhost" appBase="webapps">
        <Valve className="AccessLogValve" prefix="access"/>
      </Host>
    </Engine>
  </Service>
</Server>
"""
JBOSS = """<?xml version='1.0' encoding='UTF-8'?>
<server xmlns="urn:jboss:domain:1.7">
    <profile>
        <subsystem xmlns="urn:jboss:domain:logging:1.5">
            <console-handler name="CONSOLE"><level name="INFO"/></console-handler>
        </subsystem>
    </profile>
</server>
"""
PLAIN = """<?xml version="1.0"?>
<root>
  <a k="1">t1</a>
  <a k="2">t2<!-- c --></a>
  <b/>
</root>
"""
MIXED = ('<root><a>text<b/>more</a><c><!--note-->x<d/></c><e><![CDATA[<raw> & ]]></e>'
         '<f/><g></g></root>')
LATIN = ('<?xml version="1.0" encoding="ISO-8859-1"?>\n<root lang="fr">caf\xe9'
         '<item name="\xe9t\xe9"/></root>\n')
NOENC = '<root a="\xe9">\xe9 \u20ac<!-- \xe9 --><?pi \xe9?><x/></root>'
DTD = ('<?xml version="1.0" standalone="yes"?>\n<!DOCTYPE root [\n<!ENTITY e "ent">\n]>\n'
       '<?top data?>\n<root>&e; &#233;<a/></root>\n<!-- end -->\n')

DOCS: dict[str, str] = {"tomcat": TOMCAT, "jboss": JBOSS, "plain": PLAIN, "mixed": MIXED,
                        "latin": LATIN, "noenc": NOENC, "dtd": DTD}

# document -> XPaths to select with (an element; several; none; not an element; refused...)
XPATHS: dict[str, list[str]] = {
    "tomcat": ["/Server/Service/Connector[@port='8080']",
               "//Connector[contains(@protocol,'AJP')]",
               "//Connector[@port='8080' and @protocol='HTTP/1.1']",
               "//Host[@name='localhost']/Valve/..",
               "//Connector", "//Connector[@port='9999']", "/Server/@port",
               "/Server/Service/Connector[1]", "Server/Service"],
    "jboss": ["/*[local-name()='server']/*[local-name()='profile']",
              "//*[local-name()='level' and @name='INFO']", "/server/profile",
              "//*[local-name()='console-handler'][@name='CONSOLE']"],
    "plain": ["/root/a[@k='2']", "//a[text()='t1']", "/root/b", "/root/a[last()]",
              "/root/a[", "//b/text()", "/root/a[@k='1' or @k='3']", "count(/root/a)",
              "/root/a[nosuch()]", "//*[starts-with(name(),'b')]"],
    "mixed": ["/root/a", "/root/c", "/root/e", "/root/f", "/root/g", "//d"],
    "latin": ["/root", "//item[@name]"],
    "noenc": ["/root", "/root/x"],
    "dtd": ["/root", "/root/a"],
}

# promise type -> promiser and attributes (the XPath as {x})
OPERATIONS: dict[str, tuple[str, str]] = {
    "set_attribute": ('"port"', 'attribute_value => "9090", select_xpath => "{x}"'),
    "set_attribute_new": ('"secure"', 'attribute_value => "tr\u00fce & <yes>", '
                                      'select_xpath => "{x}"'),
    "delete_attribute": ('"name"', 'select_xpath => "{x}"'),
    "set_text": ('"hello"', 'select_xpath => "{x}"'),
    "insert_text": ('"more"', 'select_xpath => "{x}"'),
    "delete_text": ('"t"', 'select_xpath => "{x}"'),
    "insert_tree": ('"<Valve className=\\"Remote\\" allow=\\"127\\">v</Valve>"',
                    'select_xpath => "{x}"'),
    "delete_tree": ('"<Connector port=\\"8009\\"/>"', 'select_xpath => "{x}"'),
    "delete_tree_b": ('"<b/>"', 'select_xpath => "{x}"'),
    "delete_tree_d": ('"<d/>"', 'select_xpath => "{x}"'),
}


def _ptype(op: str) -> str:
    return op.rsplit("_", 1)[0] if op.endswith(("_new", "_b", "_d")) else op


POLICY = """body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  files:
    "$(sys.workdir)/t.xml" edit_xml => x{files}, classes => oc("F");
  vars:
    "c" slist => {{ "kept", "repaired", "failed", "denied", "timeout" }};
  reports:
    "F_$(c)" if => "F_$(c)";
    "P_$(c)" if => "P_$(c)";
}}
bundle edit_xml x
{{
{body}
}}
body classes oc(p)
{{
  promise_kept => {{ "$(p)_kept" }};
  promise_repaired => {{ "$(p)_repaired" }};
  repair_failed => {{ "$(p)_failed" }};
  repair_denied => {{ "$(p)_denied" }};
  repair_timeout => {{ "$(p)_timeout" }};
}}
body action warn {{ action_policy => "warn"; }}
body edit_defaults empty {{ empty_file_before_editing => "true"; }}
body edit_defaults bak {{ edit_backup => "true"; }}
"""

# name -> (start document (text, or bytes as they are) or None, edit_xml bundle body,
# files promise attributes, args)
CASES: dict[str, tuple[str | bytes | None, str, str, tuple[str, ...]]] = {}


def case(name: str, doc: str | bytes | None, body: str, files: str = "", *args: str) -> None:
    CASES[name] = (doc, body, files, args)


def _promise(op: str, xpath: str, more: str = "") -> str:
    promiser, attrs = OPERATIONS[op]
    attrs = attrs.replace("{x}", xpath.replace('"', '\\"'))
    return f'  {_ptype(op)}:\n    {promiser} {attrs}{more}, classes => oc("P");'


# every document x its XPaths x the operations, taken in turn so that each XPath meets
# several types and each type every document
_OPS = list(OPERATIONS)
_n = 0
for _doc, _paths in XPATHS.items():
    for _i, _x in enumerate(_paths):
        for _k in range(4):
            _op = _OPS[(_n + _k * 3) % len(_OPS)]
            case(f"{_doc}_{_i}_{_op}", DOCS[_doc], _promise(_op, _x))
        _n += 1

# the change under warn and under -n (the files promise says "Should edit file")
for _op in ("set_attribute", "set_text", "insert_text", "delete_text", "insert_tree",
            "delete_attribute"):
    _x = "/Server/Service/Connector[@port='8080']" if _op != "insert_tree" else "//Host"
    case(f"warn_{_op}", TOMCAT, _promise(_op, _x, ", action => warn"))
    case(f"dry_{_op}", TOMCAT, _promise(_op, _x), "", "-n")
case("warn_files", PLAIN, _promise("set_text", "/root/b"), ", action => warn")

# build_xpath: in an empty file, beside what is there, partly there, refused syntax
BUILDS = ["/Server/Service[@name='Catalina']/Connector[@port='8443' | @scheme='https']",
          "/Server/Service/Engine/Host[@name='other']/Alias",
          "/root/a[@k='1']", "/root/a[k='1']/b", "/root/new[@x='1' | y = 2]/z",
          "/other/x", "/root/a[1]/c", "/root//b", "/root/a[@k=\"3\"]"]
for _i, _b in enumerate(BUILDS):
    _body = '  build_xpath:\n    "%s" classes => oc("P");' % _b.replace('"', '\\"')
    for _doc in ("tomcat", "plain"):
        case(f"build_{_doc}_{_i}", DOCS[_doc], _body)
    if _i in (0, 4, 6):
        case(f"build_empty_{_i}", "", _body)
        case(f"build_warn_{_i}", "", _body.replace(" classes", " action => warn, classes"))
case("build_attr_set", PLAIN, _promise("set_attribute", "/root/c/d", ", build_xpath => \"/root/c/d\""))
case("build_attr_text", TOMCAT, _promise(
    "set_text", "/Server/Listener[@className='x']",
    ", build_xpath => \"/Server/Listener[@className='x']\""))
case("build_with_select", PLAIN, '  build_xpath:\n    "/root/z" select_xpath => "/root", '
                                 'classes => oc("P");')

# the document itself: empty, made by create, emptied first, not XML, backups
case("tree_empty", "", '  insert_tree:\n    "<root><a k=\\"1\\"/></root>" classes => oc("P");')
case("tree_create", None, '  insert_tree:\n    "<root/>" classes => oc("P");',
     ', create => "true"')
case("tree_same_root", PLAIN.replace("\n  ", "").replace("\n", ""),
     '  insert_tree:\n    "<root/>" classes => oc("P");')
case("tree_select_empty", "", _promise("insert_tree", "/root"))
case("emptied", PLAIN, '  insert_tree:\n    "<new/>" classes => oc("P");',
     ", edit_defaults => empty")
case("not_xml", "garbage <a>\n", _promise("set_text", "/root"))
case("backup", PLAIN, _promise("set_text", "/root/b"), ", edit_defaults => bak")
case("no_select", PLAIN, '  set_text:\n    "x" classes => oc("P");')
case("twice_text", PLAIN, _promise("set_text", "/root/b") + "\n" +
     _promise("insert_text", "/root/b").replace("  insert_text:\n", "  insert_text:\n"))

# how a file is written and read back: line ends, encodings and their names, a BOM,
# a DOCTYPE after a comment, namespaces, an entity reference leading a node's text
_SET = ('  set_attribute:\n    "n" attribute_value => "v\u00e9", select_xpath => "/root", '
        'classes => oc("P");')
case("file_crlf", '<?xml version="1.0"?>\r\n<root>\r\n  <a>x\r\ny</a>\r\n</root>\r\n', _SET)
case("file_lower_utf8", '<?xml version="1.0" encoding="utf-8"?>\n<root>\u00e9</root>\n', _SET)
case("file_utf16", '<?xml version="1.0" encoding="UTF-16"?>\n<root>\u00e9</root>\n'
     .encode("utf-16"), _SET)
case("file_comment_doctype", '<?xml version="1.0"?>\n<!-- c -->\n<!DOCTYPE root SYSTEM '
     '"x.dtd">\n<root/>\n', _SET)
case("file_single_quotes", "<?xml version='1.0' encoding='ISO-8859-1' standalone='no'?>\n"
     "<root/>\n", _SET)
case("file_bom", '\ufeff<?xml version="1.0" encoding="UTF-8"?><root/>'.encode("utf-8"), _SET)
case("file_attr_refs", '<root a="x&#10;y&#9;z"/>', _SET)
case("ns_tree", '<root xmlns:p="urn:p"/>', '  insert_tree:\n    "<q xmlns=\\"urn:q\\"><r/></q>" '
     'select_xpath => "/root", classes => oc("P");')
case("ns_default_text", '<root xmlns="urn:d"><a/></root>', '  set_text:\n    "t" select_xpath '
     '=> "/*[local-name()=\'root\']/*", classes => oc("P");')
case("entity_leads", '<!DOCTYPE root [<!ENTITY e "ent">]><root>&e;x<a/></root>',
     '  insert_text:\n    "ent" select_xpath => "/root", classes => oc("P");')


def start_bytes(doc: str | bytes) -> bytes:
    if isinstance(doc, bytes):
        return doc
    return doc.encode("latin-1" if "ISO-8859-1" in doc else "utf-8")


def policy(name: str) -> str:
    _doc, body, files, _args = CASES[name]
    return POLICY.format(body=body, files=files)


def observe(run: Any, workdir: Any, file: Any) -> tuple[Any, ...]:
    """(exit code, output lines, standard error lines, the file's bytes or None, its
    backup's)."""
    wd = str(workdir)
    out = [line.replace(wd, "WORKDIR") for line in run.stdout.splitlines()]
    err = [line.replace(wd, "WORKDIR") for line in run.stderr.splitlines()]
    data = file.read_bytes() if file.exists() else None
    backup = file.with_name(file.name + ".cf-before-edit")
    return run.returncode, out, err, data, backup.read_bytes() if backup.exists() else None


# Known differences, each with its reason (the test fails when one starts agreeing).
EXPECTED_DIFFERENCES: dict[str, str] = {
    "tree_bad": "what libxml2's xmlParseBalancedChunkMemory prints on standard error of a "
                "tree that is not well-balanced ('Entity: line 1: parser error : ...') is "
                "not reproduced (lxml has no balanced-chunk parser); the promise's own "
                "messages, classes and the file agree",
}

# neighbours: texts that are empty or hold markup characters, trees of several nodes and
# with children, a prefixed namespace, whitespace-only and DOCTYPE-only files
PREFIXED = '<p:root xmlns:p="urn:p"><p:a p:k="v">x</p:a><b/></p:root>'
case("text_empty_set", PLAIN, '  set_text:\n    "" select_xpath => "/root/b", classes => oc("P");')
case("text_empty_delete", PLAIN, '  delete_text:\n    "" select_xpath => "/root/a[@k=\'1\']", '
                                 'classes => oc("P");')
case("text_markup", PLAIN, '  set_text:\n    "a < b & c" select_xpath => "/root/b", '
                           'classes => oc("P");')
case("text_mixed_insert", MIXED, _promise("insert_text", "/root/c"))
case("text_mixed_set", MIXED, _promise("set_text", "/root/a"))
case("text_mixed_delete", MIXED, '  delete_text:\n    "text" select_xpath => "/root/a", '
                                 'classes => oc("P");')
case("tree_two_nodes", PLAIN, '  insert_tree:\n    "<x/><y/>" select_xpath => "/root/b", '
                              'classes => oc("P");')
case("tree_children", TOMCAT, '  insert_tree:\n    "<Host name=\\"h2\\"><Alias>a</Alias></Host>" '
                              'select_xpath => "//Engine", classes => oc("P");')
case("tree_delete_children", TOMCAT, '  delete_tree:\n    "<Host name=\\"localhost\\"><Valve '
                                     'className=\\"AccessLogValve\\" prefix=\\"access\\"/></Host>" '
                                     'select_xpath => "//Engine", classes => oc("P");')
case("tree_bad", PLAIN, '  insert_tree:\n    "<x>" select_xpath => "/root/b", classes => oc("P");')
case("prefixed_select", PREFIXED, _promise("set_attribute", "/*[local-name()='root']/*[@*='v']"))
case("prefixed_name", PREFIXED, _promise("set_text", "/p:root"))
case("whitespace_file", "  \n", _promise("set_text", "/root"))
case("attr_delete_present", PLAIN, '  delete_attribute:\n    "k" select_xpath => '
                                   '"/root/a[@k=\'2\']", classes => oc("P");')
case("attr_same_value", TOMCAT, '  set_attribute:\n    "port" attribute_value => "8005", '
                                'select_xpath => "/Server", classes => oc("P");')
case("union_select", PLAIN, _promise("set_text", "/root/b | /root/nosuch"))
case("three_types", TOMCAT, '  set_attribute:\n    "port" attribute_value => "1", select_xpath => '
                            '"//Host/..", classes => oc("P");\n  set_text:\n    "t" select_xpath => '
                            '"//Alias", classes => oc("P");\n  build_xpath:\n    "/Server/Service/'
                            'Engine/Host/Alias" classes => oc("P");')

# the order of the three passes and the dry run around build_xpath; attributes missing
_D = '<?xml version="1.0"?>\n<root>\n  <a k="1">t1</a>\n  <b/>\n</root>\n'
case("pass_dry_build", _D, '  build_xpath:\n    "/root/c[@x=\'1\']/d" classes => oc("P");', "", "-n")
case("pass_dry_build_attr", _D, '  set_text:\n    "x" build_xpath => "/root/c", select_xpath => '
     '"/root/c", classes => oc("P");', "", "-n")
case("pass_warn_delete_tree", _D, '  delete_tree:\n    "<b/>" select_xpath => "/root", '
     'action => warn, classes => oc("P");')
case("pass_emptied_build", _D, '  build_xpath:\n    "/root/z" classes => oc("P");',
     ", edit_defaults => empty")
case("pass_dry_insert_empty", "", '  insert_tree:\n    "<r/>" classes => oc("P");', "", "-n")
case("pass_built_later", _D, '  set_text:\n    "x" select_xpath => "/root/c", classes => oc("P");'
     '\n  build_xpath:\n    "/root/c" classes => oc("P");')
case("pass_no_select", _D, '  delete_attribute:\n    "k" classes => oc("P");')
case("pass_no_value", _D, '  set_attribute:\n    "k" select_xpath => "/root/b", classes => oc("P");')
NAMES = sorted(CASES)
