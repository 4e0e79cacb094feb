"""A safe `--fqdn-template` engine: a tiny subset of Go text/template, parsed up front, never evaluated as code.

Grammar (anything else is a `TemplateError` naming the position and what was found):

    template := (text | "{{" ["-" ] pipeline [ "-" ] "}}")*
    pipeline := command ("|" command)*          the value on the left is the last argument on the right
    command  := operand | FUNC operand*
    operand  := "." | .Field(.Field)* | "string" | `raw string`
    FUNC     := index | toLower | toUpper | trim | trimPrefix | trimSuffix | replace

Data (the view external-dns's unstructured retry uses): `.Name`, `.Namespace`, `.Kind`, `.APIVersion`,
`.Labels`, `.Annotations`, `.Metadata`, `.Spec`, `.Status`. Field access on a missing key is an error
(missingkey=error); `index .Labels "k"` gives "" for a missing key (as Go's `index` on a map).
`trimPrefix s prefix`, `trimSuffix s suffix`, `replace old new s` follow external-dns's functions.

The output is split on `,`; items are trimmed, one trailing dot removed, empty ones dropped, de-duplicated
and sorted: `{{.Name}}.example.org,{{.Name}}.example.net` gives two host names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


class TemplateError(ValueError):
    """A template that does not parse, or that fails on an object (missing field, wrong type)."""


_FUNCS: dict[str, tuple[int, Callable[..., str]]] = {
    # name -> (number of arguments, implementation); arguments are strings except index's first.
    "toLower": (1, lambda s: s.lower()),
    "toUpper": (1, lambda s: s.upper()),
    "trim": (1, lambda s: s.strip()),
    "trimPrefix": (2, lambda s, p: s[len(p):] if p and s.startswith(p) else s),
    "trimSuffix": (2, lambda s, p: s[: -len(p)] if p and s.endswith(p) else s),
    "replace": (3, lambda old, new, s: s.replace(old, new)),
}
_TOP_FIELDS = ("Name", "Namespace", "Kind", "APIVersion", "Labels", "Annotations", "Metadata", "Spec", "Status")


@dataclass(frozen=True)
class _Field:
    path: tuple[str, ...]  # () is "."


@dataclass(frozen=True)
class _Str:
    value: str


_Operand = _Field | _Str


@dataclass(frozen=True)
class _Command:
    func: str  # "" for a bare operand
    args: tuple[_Operand, ...]


@dataclass(frozen=True)
class _Action:
    commands: tuple[_Command, ...]
    source: str


_Node = str | _Action

_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "r": "\r"}


def _lex_action(text: str, start: int, full: str) -> list[tuple[str, str]]:
    """Tokens of one action body: ("field", ".A.B"), ("str", value), ("ident", name), ("|", "|")."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(text)

    def err(msg: str) -> TemplateError:
        return TemplateError(f"template {full!r}: {msg} at position {start + i}")

    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == "|":
            out.append(("|", "|"))
            i += 1
        elif c == '"':
            j = i + 1
            buf: list[str] = []
            while j < n and text[j] != '"':
                if text[j] == "\\":
                    if j + 1 >= n or text[j + 1] not in _ESCAPES:
                        raise err("unsupported escape in string")
                    buf.append(_ESCAPES[text[j + 1]])
                    j += 2
                else:
                    buf.append(text[j])
                    j += 1
            if j >= n:
                raise err("unterminated string")
            out.append(("str", "".join(buf)))
            i = j + 1
        elif c == "`":
            j = text.find("`", i + 1)
            if j < 0:
                raise err("unterminated raw string")
            out.append(("str", text[i + 1 : j]))
            i = j + 1
        elif c == ".":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in "_."):
                j += 1
            word = text[i:j]
            if word != "." and (word.endswith(".") or ".." in word or not word[1:2].isalpha()):
                raise err(f"bad field {word!r}")
            out.append(("field", word))
            i = j
        elif c.isalpha():
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            out.append(("ident", text[i:j]))
            i = j
        else:
            raise err(f"unexpected {c!r} (only fields, strings, '|' and the functions "
                      f"index, {', '.join(_FUNCS)} are allowed)")
    return out


def _parse_action(body: str, start: int, full: str) -> _Action:
    tokens = _lex_action(body, start, full)
    if not tokens:
        raise TemplateError(f"template {full!r}: empty action at position {start}")
    commands: list[_Command] = []
    current: list[tuple[str, str]] = []
    groups: list[list[tuple[str, str]]] = []
    for tok in tokens:
        if tok[0] == "|":
            groups.append(current)
            current = []
        else:
            current.append(tok)
    groups.append(current)
    for idx, group in enumerate(groups):
        if not group:
            raise TemplateError(f"template {full!r}: missing command around '|' in action at position {start}")
        head_kind, head = group[0]
        args = group[1:]
        piped = 1 if idx > 0 else 0
        if head_kind == "ident":
            if head == "index":
                if len(args) + piped < 2:
                    raise TemplateError(f"template {full!r}: index needs a map and at least one key")
            elif head in _FUNCS:
                want = _FUNCS[head][0]
                if len(args) + piped != want:
                    raise TemplateError(
                        f"template {full!r}: {head} takes {want} argument(s), got {len(args) + piped}")
            else:
                raise TemplateError(
                    f"template {full!r}: function {head!r} is not allowed (allowed: index, "
                    f"{', '.join(_FUNCS)})")
            func = head
        else:
            if args or piped:
                raise TemplateError(f"template {full!r}: {head!r} is not a function and takes no arguments")
            func = ""
            args = group
        operands: list[_Operand] = []
        for kind, text in args:
            if kind == "field":
                path = tuple(p for p in text.split(".") if p)
                if path and path[0] not in _TOP_FIELDS:
                    raise TemplateError(
                        f"template {full!r}: unknown field .{path[0]} (known: "
                        f"{', '.join('.' + f for f in _TOP_FIELDS)})")
                operands.append(_Field(path))
            elif kind == "str":
                operands.append(_Str(text))
            else:
                raise TemplateError(f"template {full!r}: {text!r} can only be used as the first word of a command")
        commands.append(_Command(func, tuple(operands)))
    return _Action(tuple(commands), body.strip())


def _parse(text: str) -> list[_Node]:
    nodes: list[_Node] = []
    i = 0
    n = len(text)
    pending = ""
    while i < n:
        j = text.find("{{", i)
        close_check = text.find("}}", i)
        if close_check >= 0 and (j < 0 or close_check < j):
            raise TemplateError(f"template {text!r}: unexpected '}}}}' at position {close_check}")
        if j < 0:
            pending += text[i:]
            break
        pending += text[i:j]
        k = j + 2
        trim_left = text.startswith("-", k) and k + 1 < n and text[k + 1].isspace()
        if trim_left:
            pending = pending.rstrip()
            k += 1
        # find the closing braces outside string literals
        m = k
        quote = ""
        while m < n:
            c = text[m]
            if quote:
                if c == "\\" and quote == '"':
                    m += 2
                    continue
                if c == quote:
                    quote = ""
            elif c in "\"`":
                quote = c
            elif text.startswith("}}", m):
                break
            m += 1
        if m >= n:
            raise TemplateError(f"template {text!r}: unclosed action starting at position {j}")
        end = m
        trim_right = end - 1 >= k and text[end - 1] == "-" and end - 2 >= k and text[end - 2].isspace()
        body = text[k : end - 1] if trim_right else text[k:end]
        if pending:
            nodes.append(pending)
            pending = ""
        nodes.append(_parse_action(body, k, text))
        i = end + 2
        if trim_right:
            while i < n and text[i].isspace():
                i += 1
    if pending:
        nodes.append(pending)
    return nodes


def object_view(obj: Mapping[str, Any], kind: str = "") -> dict[str, Any]:
    """The data a template sees for a raw Kubernetes object."""
    meta = obj.get("metadata") or {}
    return {
        "Name": meta.get("name", ""),
        "Namespace": meta.get("namespace", ""),
        "Kind": obj.get("kind") or kind,
        "APIVersion": obj.get("apiVersion", ""),
        "Labels": dict(meta.get("labels") or {}),
        "Annotations": dict(meta.get("annotations") or {}),
        "Metadata": meta,
        "Spec": obj.get("spec") or {},
        "Status": obj.get("status") or {},
    }


def _to_text(value: Any, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    if value is None:
        return "<no value>"
    raise TemplateError(f"{where} is a {type(value).__name__}, not a string")


class FQDNTemplate:
    """A parsed `--fqdn-template`. `render(obj)` -> host names; TemplateError on a field the object lacks."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._nodes = _parse(text)

    def __repr__(self) -> str:
        return f"FQDNTemplate({self.text!r})"

    def _field(self, view: Mapping[str, Any], f: _Field) -> Any:
        value: Any = view
        walked = ""
        for part in f.path:
            walked += "." + part
            if not isinstance(value, Mapping):
                raise TemplateError(f"template {self.text!r}: {walked} : cannot read a field of a "
                                    f"{type(value).__name__}")
            if part not in value:
                raise TemplateError(f"template {self.text!r}: map has no entry for key {part!r} ({walked})")
            value = value[part]
        return value

    def _operand(self, view: Mapping[str, Any], op: _Operand) -> Any:
        if isinstance(op, _Str):
            return op.value
        return self._field(view, op)

    def _run(self, view: Mapping[str, Any], action: _Action) -> str:
        piped: Any = None
        for i, cmd in enumerate(action.commands):
            args = [self._operand(view, a) for a in cmd.args]
            if i > 0:
                args.append(piped)
            where = f"template {self.text!r}: {{{{{action.source}}}}}"
            if cmd.func == "":
                piped = args[0]
            elif cmd.func == "index":
                value = args[0]
                for key in args[1:]:
                    if not isinstance(value, Mapping):
                        raise TemplateError(f"{where}: index of a {type(value).__name__}")
                    value = value.get(_to_text(key, where), "")
                piped = value
            else:
                fn = _FUNCS[cmd.func][1]
                piped = fn(*[_to_text(a, where) for a in args])
        return _to_text(piped, f"template {self.text!r}: {{{{{action.source}}}}}")

    def execute(self, obj: Mapping[str, Any], kind: str = "") -> str:
        """The raw template output for `obj`."""
        view = object_view(obj, kind)
        return "".join(n if isinstance(n, str) else self._run(view, n) for n in self._nodes)

    def render(self, obj: Mapping[str, Any], kind: str = "") -> list[str]:
        """Host names: output split on `,`, trimmed, trailing dot removed, de-duplicated, sorted."""
        out: set[str] = set()
        for item in self.execute(obj, kind).split(","):
            name = item.strip()
            if name.endswith("."):
                name = name[:-1]
            if name:
                out.add(name)
        return sorted(out)


def parse_fqdn_template(text: str | None) -> FQDNTemplate | None:
    """None for an empty/blank template, else the parsed template (TemplateError when it does not parse)."""
    if text is None or not text.strip():
        return None
    return FQDNTemplate(text)
