"""DomainFilter: which DNS names are in scope (include / exclude lists or regexes), as external-dns.

Owner: the `endpoint/` helper completes it (reference 2.5).
"""

from __future__ import annotations


class DomainFilter:
    def __init__(self, include: tuple[str, ...] | list[str] = (), exclude: tuple[str, ...] | list[str] = (),
                 regex: str = "", regex_exclusion: str = "") -> None:
        self.include = [d for d in include if d]
        self.exclude = [d for d in exclude if d]
        self.regex = regex
        self.regex_exclusion = regex_exclusion

    def match(self, domain: str) -> bool:
        return True
