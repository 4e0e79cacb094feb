"""Runs a parsed template on JSON data, with Go's text/template semantics and hard limits: at most
MAX_VALUE_BYTES of output (and per value), MAX_ITERATIONS range iterations, MAX_STEPS evaluation steps
and MAX_TEMPLATE_DEPTH nested `{{template}}` calls per run, so no object (and no recursive template) can make
a template loop or grow without bound. Reads only dict keys, list items and the getters the data declares
(values.Methods).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from external_dns.sources.gotemplate.funcs import CALL, FUNCS, LAZY, arity_problem
from external_dns.sources.gotemplate.lexer import TemplateError
from external_dns.sources.gotemplate.parse import (
    Action,
    Break,
    Command,
    Continue,
    Control,
    Field,
    Ident,
    Literal,
    Node,
    Operand,
    Paren,
    Pipeline,
    TemplateCall,
    Text,
    Variable,
    show,
)
from external_dns.sources.gotemplate.values import (
    MAX_VALUE_BYTES,
    Missing,
    lookup,
    printable,
    truth,
    type_name,
)

MAX_ITERATIONS = 10_000
MAX_STEPS = 200_000
MAX_TEMPLATE_DEPTH = 100  # Go allows 100,000 nested calls; a DNS name needs no deep recursion
_NO_ARG = object()


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


@dataclass
class State:
    root: Any
    source: str = ""
    vars: list[tuple[str, Any]] = field(default_factory=list)
    out: list[str] = field(default_factory=list)
    size: int = 0
    steps: int = 0
    iterations: int = 0
    templates: Mapping[str, tuple[Node, ...]] = field(default_factory=dict)
    depth: int = 0

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise TemplateError(f"more than {MAX_STEPS} evaluation steps")

    def write(self, text: str) -> None:
        self.size += len(text)
        if self.size > MAX_VALUE_BYTES:
            raise TemplateError(f"output larger than {MAX_VALUE_BYTES} bytes")
        self.out.append(text)

    def var(self, name: str) -> Any:
        for key, value in reversed(self.vars):
            if key == name:
                return value
        if name == "$":
            return self.root
        raise TemplateError(f"undefined variable {name!r}")  # the parser checks; kept for safety

    def assign(self, name: str, value: Any) -> None:
        for i in range(len(self.vars) - 1, -1, -1):
            if self.vars[i][0] == name:
                self.vars[i] = (name, value)
                return
        raise TemplateError(f"undefined variable {name!r}")


def run(nodes: tuple[Node, ...], data: Any, source: str = "",
        templates: Mapping[str, tuple[Node, ...]] | None = None) -> str:
    """The output of `nodes` on `data`; `templates` are the named ones `{{template}}` may run."""
    state = State(data, source, templates=templates or {})
    try:
        _walk(state, nodes, data)
    except RecursionError:  # nested controls in nested template calls: bounded, but deeper than Python's stack
        raise TemplateError("templates nested too deeply") from None
    return "".join(state.out)


def _template(st: State, node: TemplateCall, dot: Any) -> None:
    """`{{template "name" pipeline}}`: the named template with the pipeline's value as dot and as `$`, and no
    other variables (Go: a template call starts a new variable scope)."""
    body = st.templates.get(node.name)
    if body is None:
        raise TemplateError(f"template {json.dumps(node.name)} not defined")
    value = _pipeline(st, node.pipe, dot) if node.pipe is not None else None
    if st.depth >= MAX_TEMPLATE_DEPTH:
        raise TemplateError(f"exceeded maximum template depth ({MAX_TEMPLATE_DEPTH})")
    saved, st.vars = st.vars, [("$", value)]
    st.depth += 1
    try:
        _walk(st, body, value)
    finally:
        st.depth -= 1
        st.vars = saved


def _walk(st: State, nodes: tuple[Node, ...], dot: Any) -> None:
    for node in nodes:
        st.step()
        if isinstance(node, Text):
            st.write(node.text)
        elif isinstance(node, Action):
            value = _pipeline(st, node.pipe, dot)
            if not node.pipe.decl:
                st.write(printable(value))
        elif isinstance(node, Control):
            _control(st, node, dot)
        elif isinstance(node, TemplateCall):
            _template(st, node, dot)
        elif isinstance(node, Break):
            raise _Break
        elif isinstance(node, Continue):
            raise _Continue


def _control(st: State, node: Control, dot: Any) -> None:
    mark = len(st.vars)
    try:
        if node.kind == "range":
            _range(st, node, dot)
            return
        value = _pipeline(st, node.pipe, dot)
        if truth(value):
            _walk(st, node.body, value if node.kind == "with" else dot)
        else:
            _walk(st, node.orelse, dot)
    finally:
        del st.vars[mark:]


def _items(value: Any) -> list[tuple[Any, Any]]:
    if value is None or isinstance(value, Missing):
        return []  # Go: ranging over nil runs the else branch
    if isinstance(value, list | tuple):
        return list(enumerate(value))
    if isinstance(value, Mapping):
        return [(k, value[k]) for k in sorted(value)]  # Go visits map keys in sorted order
    if isinstance(value, int) and not isinstance(value, bool):
        return [(i, i) for i in range(max(value, 0))]
    raise TemplateError(f"range can't iterate over {type_name(value)}")


def _range(st: State, node: Control, dot: Any) -> None:
    items = _items(_pipeline(st, node.pipe, dot, declare=False))
    if not items:
        _walk(st, node.orelse, dot)
        return
    mark = len(st.vars)
    for key, elem in items:
        st.iterations += 1
        if st.iterations > MAX_ITERATIONS:
            raise TemplateError(f"more than {MAX_ITERATIONS} range iterations")
        del st.vars[mark:]
        if len(node.pipe.decl) == 1:
            st.vars.append((node.pipe.decl[0], elem))
        elif len(node.pipe.decl) == 2:
            st.vars.extend(((node.pipe.decl[0], key), (node.pipe.decl[1], elem)))
        try:
            _walk(st, node.body, elem)
        except _Continue:
            continue
        except _Break:
            break


def _pipeline(st: State, pipe: Pipeline, dot: Any, declare: bool = True) -> Any:
    value: Any = _NO_ARG
    for cmd in pipe.commands:
        value = _command(st, cmd, dot, value)
    if declare and pipe.decl:
        if pipe.assign:
            st.assign(pipe.decl[0], value)
        else:
            st.vars.append((pipe.decl[0], value))
    return value


def _command(st: State, cmd: Command, dot: Any, piped: Any) -> Any:
    head = cmd.operands[0]
    if not isinstance(head, Ident):
        return _operand(st, head, dot)
    return _call(st, head.name, cmd.operands[1:], dot, piped)


def _call(st: State, name: str, arg_nodes: tuple[Operand, ...], dot: Any, piped: Any) -> Any:
    st.step()
    problem = arity_problem(name, len(arg_nodes) + (piped is not _NO_ARG))
    if problem is not None:
        raise TemplateError(problem)  # the parser refuses these; kept so no body reads a missing argument
    if name in LAZY:
        return _and_or(st, name, arg_nodes, dot, piped)
    if name == CALL:
        return _call_function(st, arg_nodes, dot, piped)
    args = [_operand(st, a, dot) for a in arg_nodes]
    if piped is not _NO_ARG:
        args.append(piped)
    try:
        return FUNCS[name][0](st, args)
    except TemplateError as exc:
        message = str(exc)
        raise TemplateError(message if message.startswith(name) else f"error calling {name}: {message}") from None


def _and_or(st: State, name: str, arg_nodes: tuple[Operand, ...], dot: Any, piped: Any) -> Any:
    # Go evaluates and/or lazily: the first false (and) / true (or) argument, else the last one
    value: Any = None
    pending: list[Any] = [*arg_nodes, *([] if piped is _NO_ARG else [_Ready(piped)])]
    for node in pending:
        value = node.value if isinstance(node, _Ready) else _operand(st, node, dot)
        if truth(value) != (name == "and"):
            return value
    return value


def _call_function(st: State, arg_nodes: tuple[Operand, ...], dot: Any, piped: Any) -> Any:
    """Go's `call fn args...`: fn must be a function value. Template data holds none (JSON values; the
    objects' getters run when named, `.GetName`), so this fails as Go does for what it is given."""
    fn = _operand(st, arg_nodes[0], dot) if arg_nodes else piped
    if fn is None or isinstance(fn, Missing):
        raise TemplateError("error calling call: call of nil")
    what = show(arg_nodes[0]) if arg_nodes else "value"
    raise TemplateError(f"error calling call: non-function {what} of type {type_name(fn)}")


@dataclass(frozen=True)
class _Ready:
    value: Any


def _operand(st: State, op: Operand, dot: Any) -> Any:
    st.step()
    if isinstance(op, Literal):
        return op.value
    if isinstance(op, Field):
        return _chain(dot, op.names)
    if isinstance(op, Variable):
        return _chain(st.var(op.name), op.names)
    if isinstance(op, Paren):
        return _chain(_pipeline(st, op.pipe, dot), op.names)
    return _call(st, op.name, (), dot, _NO_ARG)  # a function as an argument is called without arguments


def _chain(value: Any, names: tuple[str, ...]) -> Any:
    for name in names:
        value = lookup(value, name)
    return value
