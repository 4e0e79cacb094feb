"""The flag parser: external-dns-compatible flags, each also settable from the environment.

Every flag `--some-flag` may come from `EXTERNAL_DNS_SOME_FLAG` when it is not on the command line.
Repeatable flags are given several times (`--managed-record-types=A --managed-record-types=CNAME`); a
comma-separated value is also accepted (also in the environment). Booleans take `--flag`, `--no-flag` and
`--flag=true|false`. Durations accept Go forms (`1m30s`, `500ms`, `2h`) or plain seconds.

Flag groups live in `cmd/flags_*.py`, each with `add_flags(parser)`, the frozen dataclass(es) its flags fill
(every field names its flag with `flag("--name")`; the default is declared once, at the flag) and an optional
`validate(config)`; the list of groups and the root `Config` are `cmd/config.py`.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn, TypeVar

from external_dns.durations import format_go_duration, parse_duration
from external_dns.errors import ConfigError
from external_dns.redact import redact_urls

__all__ = ["ConfigError", "FlagGroup", "FlagParser", "duration", "env_name", "flag", "flag_dest", "flag_group",
           "flag_values", "group_from", "one_of",
           "parse_bool", "parse_duration", "show_default", "show_value"]

ENV_PREFIX = "EXTERNAL_DNS_"
_G = TypeVar("_G")


def flag(name: str, *, secret: bool = False) -> Any:
    """A typed-config field filled from flag `name` (no default here: the flag declares it); a secret's value
    stays out of the group's repr."""
    return dataclasses.field(metadata={"flag": name}, repr=not secret)


class FlagGroup:
    """Base of the typed flag groups (declared with `@flag_group`): frozen (assigning or deleting a field
    raises FrozenInstanceError), with `__init__`, repr (secrets left out), equality and hash shared here.
    `@dataclass(frozen=True)` would generate and compile those methods for every group at import: ~50 M
    instructions, 6 % of a small `--once` run (callgrind), for the 19 classes."""

    __slots__ = ()

    def __init__(self, **values: Any) -> None:
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            object.__setattr__(self, field.name, values.pop(field.name))
        if values:
            raise TypeError(f"{type(self).__name__}: unexpected fields {', '.join(sorted(values))}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self))  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FlagGroup) and type(other) is type(self) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}"
                          for f in dataclasses.fields(self) if f.repr)  # type: ignore[arg-type]
        return f"{type(self).__qualname__}({shown})"


@typing.dataclass_transform(frozen_default=True, field_specifiers=(flag,))
def flag_group(cls: type[_G]) -> type[_G]:
    """A frozen dataclass with slots whose methods are FlagGroup's (`cls` derives from it)."""
    return dataclasses.dataclass(slots=True, init=False, repr=False, eq=False)(cls)


def flag_dest(name: str) -> str:
    """`--txt-owner-id` -> `txt_owner_id`, the parsed value's key."""
    return name.lstrip("-").replace("-", "_")


def group_from(cls: type[_G], values: Mapping[str, Any]) -> _G:
    """A flag group's frozen dataclass from the parsed values (lists become tuples)."""
    kwargs = {}
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        value = values[flag_dest(field.metadata["flag"])]
        kwargs[field.name] = tuple(value) if isinstance(value, list) else value
    return cls(**kwargs)


def flag_values(config: Any) -> dict[str, Any]:
    """The parsed value of every flag a typed config holds, by flag dest (for the start-up `config` line)."""
    out: dict[str, Any] = {}
    for group in dataclasses.fields(config):
        section = getattr(config, group.name)
        for field in dataclasses.fields(section):
            out[flag_dest(field.metadata["flag"])] = getattr(section, field.name)
    return out


def duration(text: str) -> float:
    """argparse type for durations."""
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def parse_bool(text: str) -> bool:
    low = text.strip().lower()
    if low in ("1", "t", "true", "yes", "y", "on"):
        return True
    if low in ("0", "f", "false", "no", "n", "off", ""):
        return False
    raise argparse.ArgumentTypeError(f"invalid boolean {text!r} (use true or false)")


def env_name(name: str) -> str:
    """`--txt-owner-id` -> `EXTERNAL_DNS_TXT_OWNER_ID`."""
    return ENV_PREFIX + flag_dest(name).upper()


class _Repeat(argparse.Action):
    """Repeatable flag: the first use replaces the default; comma-separated values are split."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        seen: set[str] = namespace.__dict__.setdefault("_repeat_seen", set())
        current = [] if self.dest not in seen else list(getattr(namespace, self.dest) or [])
        seen.add(self.dest)
        current.extend(values)
        setattr(namespace, self.dest, current)


class _Bool(argparse.Action):
    """`--flag`, `--flag=true|false`, `--no-flag`."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        if option_string and option_string.startswith("--no-"):
            setattr(namespace, self.dest, False)
        elif values is None:
            setattr(namespace, self.dest, True)
        else:
            try:
                setattr(namespace, self.dest, parse_bool(str(values)))
            except argparse.ArgumentTypeError as exc:
                # a usage error naming the flag (exit 2), not a traceback: `--force now`, or `plan plan.json`
                # where the word after a boolean flag is taken as its value
                raise argparse.ArgumentError(None, f"argument {option_string}: {exc}") from None


def _list_type(item_type: Callable[[str], Any]) -> Callable[[str], list[Any]]:
    def convert(text: str) -> list[Any]:
        return [item_type(part.strip()) for part in text.split(",") if part.strip() != ""] or (
            [item_type("")] if text == "" else []
        )

    return convert


def _single_list(item_type: Callable[[str], Any]) -> Callable[[str], list[Any]]:
    def convert(text: str) -> list[Any]:
        return [item_type(text)]

    return convert


def show_value(action: argparse.Action, value: Any) -> str:
    """A flag value as external-dns (kingpin) shows it: Go durations (`1m0s`), lists comma-separated,
    `true`/`false`, whole numbers without `.0`; "" for none."""
    if value is None or value == "" or value == [] or value is argparse.SUPPRESS:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if action.type is duration and isinstance(value, int | float):
        return format_go_duration(float(value))
    if isinstance(value, list | tuple):
        return ",".join(show_value(action, v) if not isinstance(v, str) else v for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def show_default(action: argparse.Action) -> str:
    """A flag's default as --help shows it ("" for no default: nothing is shown then)."""
    return show_value(action, action.default)


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Appends `(default: X)` in external-dns's style, and nothing when there is no default. Secrets (whose
    help holds `%(default).0s`) never show a default, even one taken from the environment. Descriptions
    keep their own line breaks (the command lists)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if "%(default" in text or not action.option_strings:
            return text
        shown = show_default(action)
        if action.default is False:
            return text  # a boolean flag is off unless given (kingpin's --[no-]flag shows no default either)
        return f"{text} (default: {shown.replace('%', '%%')})" if shown else text


class _OneLineErrorParser(argparse.ArgumentParser):
    """argparse, but a bad command line gives one line (`external-dns: error: <message>, try --help`, exit 2)
    instead of the whole usage text, as external-dns (kingpin) does."""

    def error(self, message: str) -> NoReturn:
        if message.startswith("unrecognized arguments:"):
            # a mistyped secret flag (`--rfc2136-tsig-secrett=...`) must not echo the secret: names only
            names = [a.split("=", 1)[0] for a in message.split(":", 1)[1].split() if a.startswith("-")]
            shown = [f"{n} (did you mean {match}?)" if (match := self.closest_flag(n)) else n for n in names]
            message = "unrecognized arguments: " + (" ".join(shown) or "(values not shown)")
        self.exit(2, f"{self.prog}: error: {redact_urls(message)}, try --help\n")

    def closest_flag(self, name: str) -> str | None:
        """The known flag closest to a mistyped one (`--polcy` -> `--policy`), if any is close."""
        import difflib  # only for a mistyped flag: not on every start-up

        known = [s for s in self._option_string_actions if s.startswith("--")]
        matches = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
        return matches[0] if matches else None


class FlagParser:
    """Wraps argparse with external-dns flag conventions; remembers secrets (masked in the config log) and
    which flags were set explicitly."""

    def __init__(self, prog: str = "external-dns", description: str = "", usage: str | None = None) -> None:
        self.parser = _OneLineErrorParser(prog=prog, description=description, usage=usage,
                                          formatter_class=_HelpFormatter,
                                          allow_abbrev=False)
        self.secrets: set[str] = set()
        self._env_flags: dict[str, tuple[str, Callable[[str], Any], bool]] = {}
        self._group: argparse._ArgumentGroup | None = None
        self._builtin_defaults: dict[str, Any] = {}

    def group(self, title: str) -> FlagParser:
        self._group = self.parser.add_argument_group(title)
        return self

    def add(self, flag: str, *, default: Any = None, help: str = "", type: Callable[[str], Any] = str,
            repeat: bool = False, choices: Sequence[str] | None = None, secret: bool = False,
            aliases: Sequence[str] = (), metavar: str | None = None, split: bool = True) -> None:
        """Add `--flag`. `type=bool` makes a boolean flag; `repeat=True` a repeatable list flag (values are
        split on commas unless `split=False`, for values that may contain commas, e.g. templates)."""
        target: Any = self._group or self.parser
        dest = flag_dest(flag)
        names = [flag, *aliases]
        if choices:
            help = f"{help} (one of: {', '.join(c for c in choices if c)})" if help else \
                f"one of: {', '.join(choices)}"
        if secret and "%(default)" not in help:
            help += "%(default).0s"  # renders empty and keeps --help from printing an env-supplied secret
        if type is bool:
            neg = ["--no-" + n.lstrip("-") for n in names]
            target.add_argument(*names, *neg, dest=dest, action=_Bool, nargs="?", default=bool(default),
                                help=help, metavar="BOOL")
            conv: Callable[[str], Any] = parse_bool
        elif repeat:
            item = _choice(type, choices) if choices else type
            conv = _list_type(item) if split else _single_list(item)
            target.add_argument(*names, dest=dest, action=_Repeat, type=conv,
                                default=list(default or []), help=help, metavar=metavar or dest.upper())
        else:
            conv = _choice(type, choices) if choices else type
            target.add_argument(*names, dest=dest, type=conv, default=default, help=help,
                                metavar=metavar or dest.upper())
        if secret:
            self.secrets.add(dest)
        self._builtin_defaults[dest] = bool(default) if type is bool else (
            tuple(default or ()) if repeat else default)
        for name in names:
            self._env_flags[env_name(name)] = (dest, conv, repeat)

    def parse(self, argv: Sequence[str], environ: Mapping[str, str] | None = None) -> argparse.Namespace:
        """Parse the command line over defaults taken from the environment."""
        environ = os.environ if environ is None else environ
        env_defaults: dict[str, Any] = {}
        for var, (dest, conv, _repeat) in self._env_flags.items():
            if var in environ:
                try:
                    env_defaults[dest] = conv(environ[var])
                except (argparse.ArgumentTypeError, ValueError) as exc:
                    raise ConfigError(f"environment variable {var}: {exc}") from None
        self.parser.set_defaults(**env_defaults)
        ns = self.parser.parse_args(list(argv))
        ns.__dict__.pop("_repeat_seen", None)
        return ns

    def config_fields(self, config: Any, prefixes: Sequence[str] = ()) -> dict[str, str]:
        """The start-up `config` log line's fields: `flag-name=value` for every flag of the typed `config`
        not at its built-in default (from the command line or the environment), shown as --help shows values,
        secrets masked (`******`); `prefixes` limits it to flags starting with one of them."""
        values = flag_values(config)
        out: dict[str, str] = {}
        for action in self.parser._actions:
            if not action.option_strings or action.dest not in values:
                continue
            name = action.option_strings[0].lstrip("-")
            value = values[action.dest]
            if value == self._builtin_defaults.get(action.dest) or (
                    prefixes and not name.startswith(tuple(prefixes))):
                continue
            out[name] = "******" if action.dest in self.secrets and value else redact_urls(show_value(action, value))
        return dict(sorted(out.items()))

    def masked(self, config: Any) -> dict[str, Any]:
        """The typed `config`'s flag values by dest, secrets replaced by `******`."""
        return {key: "******" if key in self.secrets and value else value
                for key, value in sorted(flag_values(config).items())}


def one_of(value: str, choices: Sequence[str]) -> str:
    """`(one of: a, b, c)`, with `did you mean b?` when `value` is close to one of them."""
    import difflib  # only for an error message: not on every start-up

    close = difflib.get_close_matches(value, list(choices), n=1, cutoff=0.6) or [
        c for c in choices if c.lower() == value.lower()]
    hint = f"; did you mean {close[0]}?" if close else ""
    return f"(one of: {', '.join(c for c in choices if c)}{hint})"


def _choice(conv: Callable[[str], Any], choices: Sequence[str]) -> Callable[[str], Any]:
    def check(text: str) -> Any:
        value = conv(text)
        if value not in choices:  # argparse names the flag; the environment's error names the variable
            raise argparse.ArgumentTypeError(f"invalid value {text!r} {one_of(str(text), choices)}")
        return value

    return check
