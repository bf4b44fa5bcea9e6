"""Kernel families and candidates: the schedules a tactic may move a kernel between (docs/harness.md, section
"Tactics").

A family is a JSON file (format "cake-family", e.g. kernels/gemm/family_hopper_bf16.json) that lists CAKE files
computing the same thing with the same tensor parameters but different schedules - its members - each with
the schedule features it implements ("warp-specialized", "persistent", "tma-store-epilogue", ...), and the
legal values of the compile-time parameters the members share ("parameters"; a member's own "parameters"
narrow them where its `requires` is stricter).  A member's source path is relative to the family file; a
member whose file defines several kernels names the one it is ("kernel"), and its candidates' text is that
file without the other kernels' definitions (single_kernel: the `fn`s and the rest stay), so every stage
sees one kernel and needs only its shape variables.  A structural tactic moves a candidate to the member that adds one feature, carrying over the parameter values
both members declare; the files themselves are never rewritten.

A candidate is one CAKE file plus -D values (and the family member it is, when the file belongs to one).  Its
compile-time parameters and their defaults are read from the kernel header `kernel NAME<P = V, ...>(`
(comments stripped, brackets balanced), and its defines are kept normalised: a value equal to the
parameter's default is dropped, so one schedule has one identity however it was reached."""

from __future__ import annotations

import glob
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

_KERNEL_HEAD = re.compile(r"^\s*kernel\s+([A-Za-z_][A-Za-z0-9_]*)\s*<", re.MULTILINE)
_COMMENT = re.compile(r"//[^\n]*")


def _strip_comments(text: str) -> str:
    return _COMMENT.sub("", text)


def _split_top_level(text: str) -> List[str]:
    """text split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "(<[":
            depth += 1
        elif char in ")>]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


def kernel_parameters(text: str) -> Tuple[str, Dict[str, str]]:
    """(first kernel's name, {compile-time parameter: default text}) in declaration order; ("", {}) when the
    first kernel has no <...> list.  A type parameter `T: type = bf16` maps to "bf16"."""
    source = _strip_comments(text)
    match = _KERNEL_HEAD.search(source)
    if not match:
        return "", {}
    depth, index = 1, match.end()
    while index < len(source) and depth:
        depth += {"<": 1, ">": -1}.get(source[index], 0)
        index += 1
    params: Dict[str, str] = {}
    for entry in _split_top_level(source[match.end():index - 1]):
        name, _, default = entry.partition("=")
        params[name.split(":")[0].strip()] = default.strip()
    return match.group(1), params


_ANY_KERNEL_HEAD = re.compile(r"^kernel\s+([A-Za-z_][A-Za-z0-9_]*)\b", re.MULTILINE)


def single_kernel(text: str, name: str) -> str:
    """text without the definitions of the kernels other than `name` (each from its `kernel` line at the start
    of a line to the brace that closes its body; the header's brackets hold no braces).  Raises ValueError
    when the text defines no kernel `name`."""
    heads = list(_ANY_KERNEL_HEAD.finditer(text))
    if name not in [head.group(1) for head in heads]:
        raise ValueError("no kernel %r in the text (kernels: %s)" % (name, ", ".join(h.group(1) for h in heads)))
    for head in reversed(heads):
        if head.group(1) == name:
            continue
        cleaned = _COMMENT.sub(lambda m: " " * len(m.group(0)), text[head.start():])   # offsets kept
        body = cleaned.index("{")
        depth, index = 0, body
        while True:
            depth += {"{": 1, "}": -1}.get(cleaned[index], 0)
            if depth == 0:
                break
            index += 1
        end = head.start() + index + 1
        end += 1 if text[end:end + 1] == "\n" else 0
        text = text[:head.start()] + text[end:]
    return text


def integer(text: Any) -> Optional[int]:
    """text as an integer literal (decimal or 0x), else None."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    try:
        return int(str(text).strip(), 0)
    except ValueError:
        return None


@dataclass
class Member:
    name: str
    source: str                     # absolute path
    features: List[str]
    schedule: str = ""
    parameters: Dict[str, List[int]] = field(default_factory=dict)   # legal values that differ from the family's
    kernel: str = ""                # the member's kernel when its file defines several ("": the first)


@dataclass
class Family:
    name: str
    path: str
    computes: str
    parameters: Dict[str, List[int]]
    members: List[Member]

    @staticmethod
    def load(path: str) -> "Family":
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
        if doc.get("format") != "cake-family":
            raise ValueError("%s is not a kernel family (format 'cake-family')" % path)
        folder = os.path.dirname(os.path.abspath(path))
        members = [Member(m["name"], os.path.normpath(os.path.join(folder, m["source"])), list(m.get("features", [])),
                          m.get("schedule", ""), {k: [int(v) for v in vs] for k, vs in m.get("parameters", {}).items()},
                          m.get("kernel", ""))
                   for m in doc["members"]]
        return Family(doc["name"], os.path.abspath(path), doc.get("computes", ""),
                      {k: [int(v) for v in vs] for k, vs in doc.get("parameters", {}).items()}, members)

    def member(self, name: str) -> Member:
        for member in self.members:
            if member.name == name:
                return member
        raise KeyError("family %s has no member %r" % (self.name, name))

    def member_for(self, source: str) -> Optional[Member]:
        real = os.path.realpath(source)
        for member in self.members:
            if os.path.realpath(member.source) == real:
                return member
        return None

    def legal(self, member: Optional[Member], name: str) -> Optional[List[int]]:
        """The legal values of a parameter in a member: the member's own list, else the family's (None: neither
        lists it)."""
        if member is not None and name in member.parameters:
            return list(member.parameters[name])
        return list(self.parameters[name]) if name in self.parameters else None

    def with_feature(self, member: Member, feature: str) -> Optional[Member]:
        """The member with every feature of `member` plus `feature` and the fewest others (None: no such)."""
        wanted = set(member.features) | {feature}
        fits = [m for m in self.members if wanted <= set(m.features)]
        return min(fits, key=lambda m: len(m.features)) if fits else None


def family_files(source: str) -> List[str]:
    """The family files of the source tree a .cake file sits in: kernels/*/family_*.json of the nearest
    ancestor folder that has a kernels/ folder."""
    folder = os.path.dirname(os.path.abspath(source))
    while True:
        if os.path.isdir(os.path.join(folder, "kernels")):
            return sorted(glob.glob(os.path.join(folder, "kernels", "*", "family_*.json")))
        parent = os.path.dirname(folder)
        if parent == folder:
            return []
        folder = parent


def find_family(source: str) -> Tuple[Optional[Family], Optional[Member]]:
    """The family that lists `source` as a member, and that member ((None, None) when none does)."""
    for path in family_files(source):
        family = Family.load(path)
        member = family.member_for(source)
        if member is not None:
            return family, member
    return None, None


@dataclass
class Candidate:
    """One CAKE file with -D values; `family`/`member` when the file is a family member."""
    source: str
    text: str
    defines: Dict[str, Any] = field(default_factory=dict)
    family: Optional[Family] = None
    member: Optional[Member] = None
    kernel: str = ""
    params: Dict[str, str] = field(default_factory=dict)

    @staticmethod
    def from_file(source: str, defines: Optional[Dict[str, Any]] = None, family: Optional[Family] = None,
                  text: Optional[str] = None) -> "Candidate":
        """Reads the file (unless its text is given) and finds its family (unless given); a member that names
        its kernel gets the file without the other kernels."""
        member = family.member_for(source) if family else None
        if family is None:
            family, member = find_family(source)
        if text is None:
            with open(source, encoding="utf-8") as handle:
                text = handle.read()
            if member is not None and member.kernel:
                text = single_kernel(text, member.kernel)
        kernel, params = kernel_parameters(text)
        candidate = Candidate(os.path.abspath(source), text, {}, family, member, kernel, params)
        candidate.defines = candidate.normalised(defines or {})
        return candidate

    def normalised(self, defines: Dict[str, Any]) -> Dict[str, Any]:
        """defines without the names this kernel does not declare and the values equal to their default."""
        kept = {}
        for name, value in defines.items():
            if name not in self.params:
                continue
            default = integer(self.params[name])
            if default is not None and integer(value) == default:
                continue
            kept[name] = value
        return dict(sorted(kept.items()))

    def value(self, name: str) -> Any:
        """The effective value of a compile-time parameter: its define, else its default (an int when the
        default is an integer literal, else the default's text)."""
        if name in self.defines:
            return self.defines[name]
        default = self.params.get(name, "")
        number = integer(default)
        return number if number is not None else default

    def with_defines(self, changes: Dict[str, Any]) -> "Candidate":
        merged = dict(self.defines)
        merged.update(changes)
        return Candidate(self.source, self.text, self.normalised(merged), self.family, self.member, self.kernel,
                         self.params)

    def switched_to(self, member: Member, changes: Optional[Dict[str, Any]] = None) -> "Candidate":
        """The same schedule parameters in another member of the family: every integer parameter both declare
        keeps this candidate's effective value, then `changes` apply."""
        target = Candidate.from_file(member.source, {}, self.family)
        carried = {name: self.value(name) for name in target.params
                   if name in self.params and integer(self.value(name)) is not None}
        carried.update(changes or {})
        target.defines = target.normalised(carried)
        return target

    def key(self) -> Tuple[str, str]:
        """The identity of the candidate: the file's real path and the normalised defines."""
        return os.path.realpath(self.source), json.dumps(self.defines, sort_keys=True)

    def label(self) -> str:
        name = self.member.name if self.member else os.path.basename(self.source)
        return name + "".join(" %s=%s" % item for item in sorted(self.defines.items()))

    def describe(self) -> Dict[str, Any]:
        return {"source": self.source, "kernel": self.kernel, "defines": dict(self.defines),
                "family": self.family.name if self.family else None,
                "member": self.member.name if self.member else None,
                "features": list(self.member.features) if self.member else []}
