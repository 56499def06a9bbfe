"""Built-ins that read files (and strings) into values, lists, arrays and data.

The text readers follow cf-agent's helpers:

* ``CfReadFile`` (:func:`.files.read_text_file`): ``maxsize`` 0 means the
  whole file, a single-line file loses its newline;
* ``StripPatterns``: every match of the comment regex is cut out of the whole
  text, repeatedly, before splitting;
* ``readstringlist`` & co. split on a regex and drop empty fields, validating
  ints/reals but keeping the text;
* ``readstringarray`` & co. (and the ``parse*array`` twins, which read a
  string) define ``array[key][column]`` (``array[line][column]`` for the
  ``idx`` forms) through :meth:`FunctionContext.define_variable` and return the
  number of lines; ``data_readstringarray(idx)`` build the same as data;
* ``readjson``/``readyaml``/``readcsv``/``readenvfile``/``readdata`` give data
  containers (a file larger than the size limit is an error for JSON/YAML, and
  reading stops at the limit for CSV/ENV).
"""
from __future__ import annotations

from cfpromise.eval.functions import jsondata, messages, pcre
from cfpromise.eval.functions.api import FunctionError, builtin
from cfpromise.eval.functions.common import (
    CF_INFINITY, CF_NOINT, argv, boolean, calling, check_qualified, double_from_string,
    int_arg, int_from_string, to_bytes, to_text)
from cfpromise.eval.functions.files import cf_read_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value


def _read(ctx: FunctionContext, fn: str, path: str, maxsize: int) -> str:
    text = cf_read_file(ctx, path, maxsize)
    if text is None:
        raise FunctionError(f"Function '{fn}' failed to read file: {path}")
    return text


def strip_patterns(text: str, pattern: str, where: str, ctx: FunctionContext | None = None
                   ) -> str:
    """CFEngine's StripPatterns: cut out every match of ``pattern``."""
    if not pattern:
        return text
    try:
        rx = pcre.compile_regex(pattern)
    except pcre.RegexError as exc:          # the text as it is, once said
        if ctx is not None:
            messages.say(ctx, "regex.compile", message=str(exc))
        return text
    data = to_bytes(text)
    original = len(data)
    count = 0
    while True:
        m = rx.search(data)
        if m is None:
            break
        data = data[:m.start()] + data[m.end():]
        if m.start() == m.end():
            if ctx is not None:
                messages.say(ctx, "regex.comment_empty", pattern=pattern, where=where)
            break
        count += 1
        if count > original:
            break
    return to_text(data)


# ---------------------------------------------------------------------------
# readfile and lists


@builtin("readfile")
def readfile(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    values = argv("readfile", args, 1, 2)
    maxsize = int_arg(values[1]) if len(values) > 1 else CF_INFINITY
    if maxsize == CF_INFINITY:
        maxsize = 0
    if maxsize < 0:
        raise messages.fail("file.negative_size", fn="readfile", size=maxsize)
    return _read(ctx, "readfile", values[0], maxsize)


def _read_list(fn: str, ctx: FunctionContext, args: Sequence[Value], kind: str) -> list[str]:
    path, comment, split, maxent, maxsize = argv(fn, args, 5)
    text = strip_patterns(_read(ctx, fn, path, int_arg(maxsize)), comment, path, ctx)
    items = pcre.split(text, split, max(int_arg(maxent), 0), False)
    bad = []
    for item in items:                     # each one said, then the call fails
        if kind == "int" and int_from_string(item) == CF_NOINT:
            messages.say_number(ctx, "int", item)
            messages.say(ctx, "list.int", item=item, path=path)
            bad.append(item)
        if kind == "real" and double_from_string(item) is None:
            messages.say_number(ctx, "real", item)
            messages.say(ctx, "list.real", item=item, path=path)
            bad.append(item)
    if bad:
        raise FunctionError(messages.text(f"list.{kind}", item=bad[-1], path=path))
    return items


@builtin("readstringlist")
def readstringlist(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _read_list("readstringlist", ctx, args, "string")


@builtin("readintlist")
def readintlist(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _read_list("readintlist", ctx, args, "int")


@builtin("readreallist")
def readreallist(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _read_list("readreallist", ctx, args, "real")


# ---------------------------------------------------------------------------
# Arrays


def split_escaped_lines(text: str) -> list[str]:
    """RlistFromSplitString(text, '\\n'): ``\\`` before a newline escapes it (the pair
    becomes a newline inside the line); a newline ending the text ends the last line.
    (str.split, not a loop over characters: /proc files and /etc/services are read this
    way on every pass.)"""
    if not text:
        return []
    out: list[str] = []
    cur: list[str] = []
    segments = text.split("\n")
    for seg in segments[:-1]:
        if seg.endswith("\\"):          # an escaped newline: the line goes on
            cur.append(seg[:-1])
            cur.append("\n")
        else:
            cur.append(seg)
            out.append("".join(cur))
            cur = []
    last = segments[-1]
    if last or cur:                   # not a text that ends with a plain newline
        cur.append(last)
        out.append("".join(cur))
    return out


def build_line_array(ctx: FunctionContext, fn: str, array: str, text: str, split: str,
                     maxent: int, kind: str, int_index: bool) -> int:
    """CFEngine's BuildLineArray: define the array entries, return the line count."""
    count = 0
    for line in split_escaped_lines(text):
        if count >= maxent:
            break
        if line in ("", "\r"):
            continue
        if line.endswith("\r"):
            line = line[:-1]
        first: str | None = None
        for column, token in enumerate(pcre.split(line, split, 99999, True)):
            if kind == "int":
                number = int_from_string(token)
                if number == CF_NOINT:
                    raise FunctionError(f"{fn}: Could not convert token '{token}' to int")
                token = str(number)
            elif kind == "real" and double_from_string(token) is None:
                raise FunctionError(f"{fn}: Could not convert token '{token}' to double")
            if first is None:
                first = token
            key = str(count) if int_index else first
            ctx.define_variable(f"{array}[{key}][{column}]", kind, token,
                                ("source=function", "function=buildlinearray"))
        count += 1
    return count


def _read_array(fn: str, ctx: FunctionContext, args: Sequence[Value], kind: str,
                int_index: bool) -> str:
    array, path, comment, split, maxent, maxsize = argv(fn, args, 6)
    text = cf_read_file(ctx, path, int_arg(maxsize))
    if text is None:
        return "0"
    text = strip_patterns(text, comment, path, ctx)
    return str(build_line_array(ctx, fn, array, text, split, int_arg(maxent), kind, int_index))


def _parse_array(fn: str, ctx: FunctionContext, args: Sequence[Value], kind: str,
                 int_index: bool) -> str:
    array, text, comment, split, maxent, maxsize = argv(fn, args, 6)
    limit = int_arg(maxsize)
    data = to_bytes(text)
    text = to_text(data[:max(limit, 0)])
    text = strip_patterns(text, comment, "string argument 2", ctx)
    return str(build_line_array(ctx, fn, array, text, split, int_arg(maxent), kind, int_index))


# readstringarray & co. (from a file) and parsestringarray & co. (from a string):
# name -> (reader, element kind, integer index)
ARRAY_BUILTINS = {
    "readstringarray": (_read_array, "string", False),
    "readstringarrayidx": (_read_array, "string", True),
    "readintarray": (_read_array, "int", False),
    "readrealarray": (_read_array, "real", False),
    "parsestringarray": (_parse_array, "string", False),
    "parsestringarrayidx": (_parse_array, "string", True),
    "parseintarray": (_parse_array, "int", False),
    "parserealarray": (_parse_array, "real", False),
}


def _array_builtin(name: str) -> Callable[[FunctionContext, Sequence[Value]], Value]:
    reader, kind, int_index = ARRAY_BUILTINS[name]

    def impl(ctx: FunctionContext, args: Sequence[Value]) -> Value:
        return reader(name, ctx, args, kind, int_index)
    impl.__name__ = name
    return impl


for _name in ARRAY_BUILTINS:
    builtin(_name)(_array_builtin(_name))


def _data_read(fn: str, ctx: FunctionContext, args: Sequence[Value], as_array: bool) -> Any:
    path, comment, split, maxent_text, maxsize = argv(fn, args, 5)
    text = cf_read_file(ctx, path, int_arg(maxsize))
    if text is None:
        raise messages.fail("file.data_array", fn=fn, path=path)
    text = strip_patterns(text, comment, path, ctx)
    maxent = int_arg(maxent_text)
    result: Any = [] if as_array else {}
    count = 0
    for line in text.split("\n"):
        if count >= maxent:
            break
        if line in ("", "\r"):
            continue
        if line.endswith("\r"):
            line = line[:-1]
        tokens = pcre.split(line, split, 99999, True)
        if not tokens:
            continue
        if as_array:
            result.append(tokens)
        else:
            result.pop(tokens[0], None)
            result[tokens[0]] = tokens[1:]
        count += 1
    return result


@builtin("data_readstringarray")
def data_readstringarray(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _data_read("data_readstringarray", ctx, args, False)


@builtin("data_readstringarrayidx")
def data_readstringarrayidx(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _data_read("data_readstringarrayidx", ctx, args, True)


# ---------------------------------------------------------------------------
# Line matching


def _lines(path: str, errors: list[str] | None = None) -> list[str] | None:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        if errors is not None:
            errors.append(exc.strerror or "")
        return None
    text = raw.decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


@builtin("countlinesmatching")
def countlinesmatching(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    regex, path = argv("countlinesmatching", args, 2)
    rx = pcre.compile_regex(regex)
    errors: list[str] = []
    lines = _lines(path, errors)
    if lines is None:
        messages.say(ctx, "lines.countlinesmatching", path=path, err=errors[0])
        return "0"
    return str(sum(1 for line in lines if pcre.full_match(rx, line)))


@builtin("regline")
def regline(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    regex, path = argv("regline", args, 2)
    rx = pcre.compile_regex(regex)
    lines = _lines(path)
    return lines is not None and any(pcre.full_match(rx, line) for line in lines)


@builtin("getfields")
def getfields(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """Split the first line matching ``regex`` into ``array[1]``, ``array[2]``...;
    return how many lines matched."""
    regex, path, split, array = argv("getfields", args, 4)
    rx = pcre.compile_regex(regex)
    errors: list[str] = []
    lines = _lines(path, errors)
    if lines is None:
        raise messages.fail("lines.getfields", path=path, err=errors[0])
    count = 0
    for line in lines:
        if not pcre.full_match(rx, line):
            continue
        if count == 0:
            if calling(ctx):   # (its first field's name; cf-agent names the regex)
                check_qualified(ctx, array, "caller.fields", shown=regex)
            for n, field in enumerate(pcre.split(line, split, 31, True), 1):
                ctx.define_variable(f"{array}[{n}]", "string", field,
                                    ("source=function", "function=getfields"))
        count += 1
    return str(count)


# ---------------------------------------------------------------------------
# Data files


def _size_limit(values: list[str], index: int) -> int:
    return int_arg(values[index]) if len(values) > index else CF_INFINITY


def read_data_file(fn: str, path: str, mode: str, size_max: int) -> Any:
    """:func:`read_data` for callers with no promise to say its errors against."""
    try:
        return read_data(fn, path, mode, size_max)
    except FunctionError as exc:
        raise FunctionError(str(exc)) if getattr(exc, "said", None) else exc from None


def read_data(fn: str, path: str, mode: str, size_max: int) -> Any:
    """JsonReadDataFile: a data container from a JSON, YAML, CSV or ENV file."""
    if mode in ("CSV", "ENV"):
        try:
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8", "surrogateescape")
        except OSError as exc:
            raise messages.fail("data.open_csv", fn=fn, kind=mode.lower(), path=path,
                                err=exc.strerror) from None
        return parse_csv(text, size_max) if mode == "CSV" else parse_env(text, size_max)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(size_max + 1 if size_max >= 0 else -1)
    except OSError as exc:
        # JsonParseErrorToString(JSON_PARSE_ERROR_NO_SUCH_FILE), whatever the cause
        raise messages.fail("data.open", fn=fn, mode=mode, path=path,
                            err="No such file or directory") from None
    if size_max >= 0 and len(raw) > size_max:
        raise messages.fail("data.parse", fn=fn, mode=mode, path=path,
                            err="Unable to parse JSON without truncating")
    text = raw.decode("utf-8", "surrogateescape")
    try:
        data = jsondata.from_yaml(text) if mode == "YAML" else jsondata.loads(text)
    except jsondata.JsonError as exc:
        raise messages.fail("data.parse", fn=fn, mode=mode, path=path, err=exc) from None
    if not isinstance(data, (dict, list)):
        raise messages.fail("data.non_container", fn=fn, mode=mode, path=path)
    return data


def parse_csv_line(record: str) -> list[str] | None:
    """SeqParseCsvString: comma separated fields, a field may be quoted with
    ``"`` (``""`` inside is a quote); None if the record is malformed (a quote
    inside an unquoted field, text after a closing quote, no closing quote)."""
    fields: list[str] = []
    i, n = 0, len(record)
    while True:
        if i < n and record[i] == '"':
            i += 1
            buf: list[str] = []
            while True:
                if i >= n:
                    return None
                if record[i] == '"':
                    if i + 1 < n and record[i + 1] == '"':
                        buf.append('"')
                        i += 2
                        continue
                    i += 1
                    break
                buf.append(record[i])
                i += 1
            fields.append("".join(buf))
            if i >= n:
                return fields
            if record[i] != ",":
                return None
            i += 1
        else:
            comma = record.find(",", i)
            end = n if comma < 0 else comma
            field = record[i:end]
            if '"' in field:
                return None
            fields.append(field)
            if comma < 0:
                return fields
            i = comma + 1


def csv_records(text: str) -> list[str]:
    """GetCsvLineNext: records end with CRLF outside quotes (a lone LF is data);
    a last record without CRLF counts too."""
    records: list[str] = []
    start = 0
    quoted = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            quoted = not quoted
        elif ch == "\r" and not quoted and text.startswith("\r\n", i):
            records.append(text[start:i])
            i += 2
            start = i
            continue
        i += 1
    if start < len(text):
        records.append(text[start:])
    return records


def parse_csv(text: str, size_max: int = CF_INFINITY) -> list[list[str]]:
    out: list[list[str]] = []
    used = 0
    for record in csv_records(text):
        used += len(to_bytes(record))
        if used > size_max:
            break
        fields = parse_csv_line(record)
        if fields is not None:
            out.append(fields)
    return out


def _filtered_copy(value: str) -> str | None:
    quote = ""
    i = 0
    if value[:1] in ("'", '"'):
        quote = value[0]
        i = 1
    out: list[str] = []
    while i < len(value) and value[i] != quote:
        ch = value[i]
        if not quote and ch in "'\"":
            return None
        if ch == "\\":
            i += 1
            if i < len(value) and value[i] == "n":
                out.append("\n")
                i += 1
                continue
            if i >= len(value):
                break
            ch = value[i]
        out.append(ch)
        i += 1
    return "".join(out)


def parse_env(text: str, size_max: int = CF_INFINITY) -> dict[str, str]:
    """JsonParseEnvFile: ``KEY=value`` lines, quotes and ``\\`` escapes."""
    out: dict[str, str] = {}
    used = 0
    for raw in text.split("\n"):
        used += len(to_bytes(raw))
        if used > size_max:
            break
        line = raw.strip(" \t\n\r\f\v")
        if not line or line.startswith("#") or "=" not in line or line.startswith("="):
            continue
        key, value = line.split("=", 1)
        key = key.strip(" \t\n\r\f\v")
        parsed = _filtered_copy(value.strip(" \t\n\r\f\v"))
        if parsed is not None:
            out.pop(key, None)
            out[key] = parsed
    return out


def _read_typed(fn: str, args: Sequence[Value], mode: str) -> Any:
    values = argv(fn, args, 1, 2)
    return read_data(fn, values[0], mode, _size_limit(values, 1))


@builtin("readjson")
def readjson(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _read_typed("readjson", args, "JSON")


@builtin("readyaml")
def readyaml(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _read_typed("readyaml", args, "YAML")


@builtin("readcsv")
def readcsv(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _read_typed("readcsv", args, "CSV")


@builtin("readenvfile")
def readenvfile(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _read_typed("readenvfile", args, "ENV")


def data_type_from_suffix(path: str) -> str:
    lower = path.lower()
    if lower.endswith(".csv"):
        return "CSV"
    if lower.endswith((".yaml", ".yml")):
        return "YAML"
    if lower.endswith(".env"):
        return "ENV"
    return "JSON"


@builtin("readdata")
def readdata(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    path, mode = argv("readdata", args, 2)
    if mode == "auto":
        mode = data_type_from_suffix(path)
    return read_data("readdata", path, mode, CF_INFINITY)


@builtin("classfiltercsv")
def classfiltercsv(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """Rows of a CSV file whose class-expression column is true, as objects
    keyed by the heading (or by column number), optionally sorted."""
    values = argv("classfiltercsv", args, 3, 4)
    path, heading_flag, index_text = values[0], values[1], values[2]
    has_heading = boolean(heading_flag)
    class_index = int_arg(index_text)
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", "surrogateescape")
    except OSError as exc:
        raise messages.fail("csv.classfilter_read", path=path, err=exc.strerror) from None
    heading: list[str] | None = None
    columns = 0
    rows: list[dict[str, str]] = []
    for number, record in enumerate(csv_records(text), 1):
        if record.startswith("#"):
            continue
        fields = parse_csv_line(record)
        if fields is None:
            messages.say(ctx, "csv.classfilter_parse", line=number)
            continue
        if len(fields) == 1 and fields[0] == "":
            continue
        if columns == 0:
            columns = len(fields)
            if class_index >= columns or class_index < 0:
                raise messages.fail("csv.classfilter_index", columns=columns,
                                    index=class_index)
        elif len(fields) != columns:
            messages.say(ctx, "csv.classfilter_columns", line=number, have=len(fields),
                         want=columns)
            continue
        if has_heading and heading is None:
            heading = fields[:class_index] + fields[class_index + 1:]
            continue
        expr = fields[class_index]
        if not (expr == "any" or expr != "!any" and ctx.eval_class_expr(expr)):
            continue
        rest = fields[:class_index] + fields[class_index + 1:]
        keys = heading if heading is not None else [str(i) for i in range(len(rest))]
        row: dict[str, str] = {}
        for k, v in zip(keys, rest):
            row.pop(k, None)
            row[k] = v
        rows.append(row)
    if len(values) > 3:
        sort_index = int_arg(values[3])
        if sort_index == class_index:
            messages.say(ctx, "csv.classfilter_sort_same", index=sort_index, cls=class_index)
        elif sort_index >= columns or sort_index < 0:
            messages.say(ctx, "csv.classfilter_sort_range", index=sort_index)
        else:
            if sort_index > class_index:
                sort_index -= 1
            rows = _stable_sort_rows(rows, sort_index)
    return rows


def _stable_sort_rows(rows: list[dict[str, str]], index: int) -> list[dict[str, str]]:
    def key(row: dict[str, str]) -> bytes:
        values = list(row.values())
        return to_bytes(values[index]) if index < len(values) else b""
    return sorted(rows, key=key)
