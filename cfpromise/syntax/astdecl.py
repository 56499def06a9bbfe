"""The policy AST declared once: each node, its fields, what its equality and repr use.

Why a table: the node classes (:mod:`cfpromise.syntax.ast`) and the policy cache's
codec (:mod:`cfpromise.fast.astcodec`, the tree as nested tuples for ``marshal``)
must agree field for field; written by hand they were two lists to keep in step.
Both are generated from this declaration by :mod:`cfpromise.syntax.astgen`
(``make tables``), as pycparser generates ``c_ast.py`` from ``_c_ast.cfg``;
``tests/syntax/test_astgen.py`` fails when a generated file is not what this table
gives.  Adding a field or a node is an edit here, then ``make tables``.

Each node is ``(name, fields, options)``.  ``fields`` lists ``name:kind`` in
constructor order, ``=default`` (Python source) for an optional one.  Kinds:

* ``str``, ``int``, ``any`` (a plain value; ``any`` is Data's JSON value),
  ``str?`` (or None), ``str*`` (a tuple of strings);
* ``coord``: a :class:`~cfpromise.syntax.errors.Coord` (the codec keeps its 4-tuple);
* ``Rval``, ``Rval?``, ``Rval*``: one of the nodes marked ``rval`` (the codec tags
  it with its index among them), or None, or a tuple of them;
* ``Node*``: a tuple of that node.

Options: ``eq`` the fields equality and hashing use (coordinates never do, so a
policy laid out differently compares equal), ``repr`` those the repr shows (``eq``
by default), ``rval`` a member of the Rval union, ``base`` a class of
:mod:`cfpromise.syntax.astbase` giving methods, ``slots`` extra slots (memos),
``doc`` the docstring.
"""
from __future__ import annotations

NODES: tuple[tuple[str, str, dict[str, object]], ...] = (
    ("Scalar", "value:str kind:str=QUOTED coord:coord=NO_COORD quote:str='\"'",
     dict(eq="value kind", rval=True,
          doc="A quoted string, a bare identifier or a naked ``$(var)`` / ``@(list)`` "
              "(``kind``: QUOTED, BARE or NAKED; ``quote``: the quote character).")),
    ("FnCall", "name:str args:Rval* coord:coord=NO_COORD",
     dict(eq="name args", rval=True, doc="A function call: ``name(args...)``.")),
    ("List", "items:Rval* coord:coord=NO_COORD",
     dict(eq="items", rval=True, doc="A list: ``{ items... }``.")),
    ("Data", "value:any text:str=\"\" coord:coord=NO_COORD canonical:str=\"\"",
     dict(eq="canonical", repr="value canonical", rval=True,
          doc="An inline data container: ``data => '{ \"a\": 1 }'``.  Equality is on the "
              "canonical JSON, so {\"a\":1} and { \"a\" : 1 } compare equal.")),
    ("Constraint", "lval:str rval:Rval coord:coord=NO_COORD line:int=0 classes:str=\"any\" "
                   "varclass:str?=None",
     dict(eq="lval rval classes varclass",
          doc="``lval => rval``.  ``line`` is where the rval ends (what cf-promises "
              "reports); ``classes`` is the class guard, for body constraints; "
              "``varclass`` a quoted one over a body's attribute (a parser error).")),
    ("Promise", "promiser:str constraints:Constraint*=() promisee:Rval?=None "
                "classes:str=\"any\" varclass:str?=None coord:coord=NO_COORD",
     dict(eq="promiser constraints promisee classes varclass", base="_PromiseMethods",
          slots="_index", doc="One promise; ``varclass`` is a quoted guard: \"$(x)\"::")),
    ("PromiseSection", "name:str promises:Promise* coord:coord=NO_COORD",
     dict(eq="name promises",
          doc="All promises of one promise type in a bundle (sections of the same type "
              "merge).")),
    ("Bundle", "type:str name:str args:str*=() sections:PromiseSection*=() "
               "namespace:str=\"default\" coord:coord=NO_COORD",
     dict(eq="type name args sections namespace", base="_BundleMethods",
          doc="``bundle TYPE NAME(ARGS) { sections }``.")),
    ("Body", "type:str name:str args:str*=() constraints:Constraint*=() "
             "namespace:str=\"default\" coord:coord=NO_COORD",
     dict(eq="type name args constraints namespace", base="_Qualified",
          doc="``body TYPE NAME(ARGS) { constraints }`` (each constraint with its "
              "``classes``).")),
    ("PromiseBlock", "type:str name:str constraints:Constraint*=() namespace:str=\"default\" "
                     "coord:coord=NO_COORD",
     dict(eq="type name constraints namespace",
          doc="A custom promise type declaration: ``promise agent NAME { path => ...; }``.")),
    ("Policy", "bundles:Bundle*=() bodies:Body*=() promise_blocks:PromiseBlock*=() "
               "path:str=\"\"",
     dict(eq="bundles bodies promise_blocks", repr="bundles bodies promise_blocks path",
          base="_PolicyMethods", doc="One parsed file (or several merged).")),
)
