"""The problem format (spec 6.3) and its loader.

One folder per problem:

    problem.toml            id, library + exact version, import names, env, scope, docs, seed, bugs
    docs/*.md               what the agent reads (cut from the clean library's own docs)
    existing_tests/*.py     example tests shown to the agent; they must pass with every bug applied
    bugs/<bug>.patch        unified diffs, paths relative to site-packages
    reference/props.py      hidden reference properties: annotated functions, one per bug
    reference/strategies.py STRATEGIES = {property name: {parameter: strategy}}
    bugs.lock.json          measured admission gates (written by `validate`)

The loader never imports the reference code (that happens only inside the sandbox); it parses it
to check that every bug's property exists and is annotated. A malformed problem raises
`ProblemFormatError` naming the file and the field.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator

from proceedings.core.errors import ProceedingsError

LEVELS = ("L1", "L2", "L3")
PROBLEMS_DIR = Path(__file__).parent / "problems"
_PINNED = re.compile(r"\d+(\.\d+)*([a-z]+\d+)?")
_ID = re.compile(r"[a-z0-9][a-z0-9-]*")


class ProblemFormatError(ProceedingsError):
    """A problem folder does not follow the format; the message names the file and the field."""


@dataclass(frozen=True)
class Bug:
    id: str
    level: str
    patch: Path
    property: str  # name of the reference property that detects it
    location: str  # module:function the patch changes (hidden from the agent)
    invariant_doc: str
    invariant_quote: str
    trigger: str  # hidden description of the trigger region
    tags: tuple[str, ...] = ()
    refused: str = ""  # why the realism audit refuses this bug (an artificial gate, not a plausible mistake)

    @property
    def patch_text(self) -> str:
        return self.patch.read_text()

    @property
    def patch_sha256(self) -> str:
        return hashlib.sha256(self.patch.read_bytes()).hexdigest()


@dataclass(frozen=True)
class Problem:
    id: str
    title: str
    library: str  # distribution name on the package index
    version: str  # exact pin
    import_names: tuple[str, ...]
    env: dict[str, str]
    scope: tuple[str, ...]
    docs: tuple[Path, ...]
    seed: int
    bugs: tuple[Bug, ...]
    root: Path
    # property name -> ((parameter, annotation source), ...), parsed from reference/props.py
    property_params: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)

    def restricted(self, bug_ids: tuple[str, ...]) -> "Problem":
        """The same problem with only `bug_ids`: a smaller instance, every configuration (ALL, ALL-i, the
        overlays) holds only these bugs; their admission records are the full problem's."""
        return replace(self, bugs=tuple(self.bug(b) for b in bug_ids))

    def bug(self, bug_id: str) -> Bug:
        for bug in self.bugs:
            if bug.id == bug_id:
                return bug
        raise ProceedingsError(f"problem '{self.id}' has no bug '{bug_id}'; its bugs: "
                               f"{', '.join(b.id for b in self.bugs)}")

    @property
    def props_file(self) -> Path:
        return self.root / "reference" / "props.py"

    @property
    def strategies_file(self) -> Path:
        return self.root / "reference" / "strategies.py"

    @property
    def lock_file(self) -> Path:
        return self.root / "bugs.lock.json"

    @property
    def measured_sha256(self) -> str:
        """Digest of what `validate` measures besides the patches: properties, strategies, example tests."""
        digest = hashlib.sha256()
        for path in (self.props_file, self.strategies_file, *self.existing_tests):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        return digest.hexdigest()

    @property
    def existing_tests(self) -> tuple[Path, ...]:
        return tuple(sorted((self.root / "existing_tests").glob("*.py")))

    def lock(self) -> dict[str, Any] | None:
        """The measured admission record, or None before `validate` ran."""
        if not self.lock_file.exists():
            return None
        return json.loads(self.lock_file.read_text())

    def admitted_bugs(self) -> tuple[Bug, ...]:
        """Bugs whose gates all held at the last validation of exactly these patches (spec 2.3) and
        that the realism audit did not refuse (the audit in problem.toml outranks an older lock)."""
        lock = self.lock()
        if lock is None:
            raise ProceedingsError(f"problem '{self.id}' has no {self.lock_file.name}; "
                                   f"run `proceedings pbtbench validate {self.id}` first")
        if lock.get("measured_sha256", self.measured_sha256) != self.measured_sha256:  # absent before round 4
            raise ProceedingsError(f"{self.lock_file} is stale: the reference properties, strategies or example "
                                   f"tests changed since it was measured; run `proceedings pbtbench validate {self.id}`")
        for bug in self.bugs:
            record = lock["bugs"].get(bug.id)
            if record is None or record.get("patch_sha256") != bug.patch_sha256:
                raise ProceedingsError(f"{self.lock_file} is stale for bug '{bug.id}' (missing or its patch "
                                       f"changed); run `proceedings pbtbench validate {self.id}`")
        return tuple(b for b in self.bugs if lock["bugs"][b.id]["admitted"] and not b.refused)


def load_problem(root: Path | str) -> Problem:
    """Read and check one problem folder."""
    root = Path(root)
    toml_path = root / "problem.toml"
    if not toml_path.is_file():
        raise ProblemFormatError(f"{toml_path}: missing (every problem folder has a problem.toml)")
    try:
        raw = tomllib.loads(toml_path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise ProblemFormatError(f"{toml_path}: not valid TOML ({err})") from None
    read = _FieldReader(toml_path, raw)
    pid = read.text("id", pattern=_ID)
    if pid != root.name:
        raise ProblemFormatError(f"{toml_path}: field 'id' is '{pid}' but the folder is '{root.name}'")
    params = _property_parameters(root / "reference" / "props.py")
    _check_strategies_file(root / "reference" / "strategies.py")
    _check_one_namespace(root / "reference" / "props.py", root / "reference" / "strategies.py")
    bugs = tuple(_read_bug(toml_path, root, i, entry, params) for i, entry in enumerate(read.items("bugs")))
    ids = [b.id for b in bugs]
    if len(set(ids)) != len(ids):
        raise ProblemFormatError(f"{toml_path}: field 'bugs' repeats an id: {sorted(ids)}")
    properties = [b.property for b in bugs]
    if len(set(properties)) != len(properties):
        raise ProblemFormatError(f"{toml_path}: two bugs share one property; each bug needs its own")
    docs = tuple(root / d for d in read.strings("docs"))
    for i, doc in enumerate(docs):
        if not doc.is_file():
            raise ProblemFormatError(f"{toml_path}: field 'docs[{i}]' names '{doc.name}', which does not exist")
    return Problem(
        id=pid, title=read.text("title"), library=read.text("library"),
        version=read.text("version", pattern=_PINNED), import_names=tuple(read.strings("import_names")),
        env={str(k): str(v) for k, v in read.table("env").items()}, scope=tuple(read.strings("scope")),
        docs=docs, seed=read.integer("seed"), bugs=bugs, root=root, property_params=params,
    )


def _read_bug(toml_path: Path, root: Path, index: int, entry: Any, params: dict[str, Any]) -> Bug:
    where = f"bugs[{index}]"
    if not isinstance(entry, dict):
        raise ProblemFormatError(f"{toml_path}: field '{where}' must be a table")
    read = _FieldReader(toml_path, entry, prefix=f"{where}.")
    level = read.text("level")
    if level not in LEVELS:
        raise ProblemFormatError(f"{toml_path}: field '{where}.level' must be one of {', '.join(LEVELS)} "
                                 f"(got '{level}')")
    patch = root / read.text("patch")
    if not patch.is_file():
        raise ProblemFormatError(f"{toml_path}: field '{where}.patch' names '{patch}', which does not exist")
    prop = read.text("property")
    if prop not in params:
        raise ProblemFormatError(f"{toml_path}: field '{where}.property' names '{prop}', which is not an "
                                 f"annotated function in reference/props.py")
    invariant = read.table("invariant")
    inv = _FieldReader(toml_path, invariant, prefix=f"{where}.invariant.")
    if not (root / inv.text("doc")).is_file():
        raise ProblemFormatError(f"{toml_path}: field '{where}.invariant.doc' names a missing file")
    quote = inv.text("quote")
    if " ".join(quote.split()) not in " ".join((root / inv.text("doc")).read_text().split()):
        raise ProblemFormatError(f"{toml_path}: field '{where}.invariant.quote' is not quoted verbatim "
                                 f"from {inv.text('doc')}")
    return Bug(id=read.text("id", pattern=_ID), level=level, patch=patch, property=prop,
               location=read.text("location"), invariant_doc=inv.text("doc"), invariant_quote=quote,
               trigger=read.text("trigger"), tags=tuple(read.strings("tags", required=False)),
               refused=str(entry.get("refused", "")))


def _property_parameters(props: Path) -> dict[str, tuple[tuple[str, str], ...]]:
    """Top-level `prop_*` functions of props.py -> their (parameter, annotation source) pairs."""
    if not props.is_file():
        raise ProblemFormatError(f"{props}: missing (the hidden reference properties)")
    try:
        tree = ast.parse(props.read_text(), filename=str(props))
    except SyntaxError as err:
        raise ProblemFormatError(f"{props}: line {err.lineno}: {err.msg}") from None
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("prop_"):
            args = node.args.args
            if not args or any(a.annotation is None for a in args):
                raise ProblemFormatError(f"{props}: property '{node.name}' needs type annotations on every "
                                         "parameter (the default strategy is st.from_type of each)")
            if _has_return(node):
                raise ProblemFormatError(f"{props}: property '{node.name}' returns early; state preconditions with "
                                         "assume(...) so the reach rate counts the examples they reject")
            found[node.name] = tuple((a.arg, ast.unparse(a.annotation)) for a in args)
    return found


def _has_return(function: ast.FunctionDef) -> bool:
    """A `return` in the function's own body (nested functions and lambdas may return)."""
    todo = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return False


def _check_strategies_file(path: Path) -> None:
    if not path.is_file():
        raise ProblemFormatError(f"{path}: missing (STRATEGIES for the reference properties)")
    tree = ast.parse(path.read_text(), filename=str(path))
    if not any(isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "STRATEGIES" for t in n.targets)
               for n in tree.body):
        raise ProblemFormatError(f"{path}: field 'STRATEGIES' is not assigned at top level")


def _check_one_namespace(props: Path, strategies: Path) -> None:
    """The reference test file is props.py and strategies.py in one module: a name both define would let the
    second shadow the first (semver-precedence's `_word` helper, shadowed by its `_word` strategy, made its
    reference property fail on the clean library)."""
    shared = sorted(_defined_names(props) & _defined_names(strategies))
    if shared:
        raise ProblemFormatError(f"{strategies}: defines {', '.join(shared)}, also defined in {props.name} "
                                 f"(both become one module in the reference test file)")


def _defined_names(path: Path) -> set[str]:
    """Top-level functions, classes and assignment targets of a module (imports may repeat harmlessly)."""
    names = set()
    for node in ast.parse(path.read_text(), filename=str(path)).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


class _FieldReader:
    """Typed access to a TOML table with errors that name the file and the field."""

    def __init__(self, path: Path, table: dict[str, Any], prefix: str = ""):
        self.path, self.values, self.prefix = path, table, prefix

    def _get(self, key: str, kind: type, required: bool = True) -> Any:
        if key not in self.values:
            if required:
                raise ProblemFormatError(f"{self.path}: field '{self.prefix}{key}' is missing")
            return kind()
        value = self.values[key]
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            raise ProblemFormatError(f"{self.path}: field '{self.prefix}{key}' must be a {kind.__name__} "
                                     f"(got {type(value).__name__})")
        return value

    def text(self, key: str, pattern: re.Pattern | None = None) -> str:
        value = self._get(key, str)
        if not value.strip() or (pattern is not None and not pattern.fullmatch(value)):
            raise ProblemFormatError(f"{self.path}: field '{self.prefix}{key}' has a malformed value '{value}'")
        return value

    def integer(self, key: str) -> int:
        return self._get(key, int)

    def table(self, key: str) -> dict[str, Any]:
        return self._get(key, dict, required=key == "invariant")

    def strings(self, key: str, required: bool = True) -> list[str]:
        values = self._get(key, list, required)
        if not all(isinstance(v, str) for v in values) or (required and not values):
            raise ProblemFormatError(f"{self.path}: field '{self.prefix}{key}' must be a non-empty list of strings")
        return values

    def items(self, key: str) -> list[Any]:
        values = self._get(key, list)
        if not values:
            raise ProblemFormatError(f"{self.path}: field '{self.prefix}{key}' must list at least one entry")
        return values


class Benchmark:
    """A set of problems: the shipped ones, or any folder of problem folders."""

    def __init__(self, problems: dict[str, Problem]):
        self.problems = problems

    @classmethod
    def load(cls, root: Path | str = PROBLEMS_DIR) -> "Benchmark":
        root = Path(root)
        if not root.is_dir():
            raise ProceedingsError(f"problem folder '{root}' does not exist")
        found = sorted(p for p in root.iterdir() if (p / "problem.toml").is_file())
        return cls({p.name: load_problem(p) for p in found})

    def __getitem__(self, problem_id: str) -> Problem:
        try:
            return self.problems[problem_id]
        except KeyError:
            raise ProceedingsError(f"unknown problem '{problem_id}'; `proceedings pbtbench list` shows "
                                   f"the {len(self.problems)} problems") from None

    def __iter__(self) -> Iterator[Problem]:
        return iter(self.problems.values())

    def __len__(self) -> int:
        return len(self.problems)

    def select(self, ids: list[str] | None) -> list[Problem]:
        """Problems by id, all when `ids` is empty; `problem/bug` keeps only the bugs so named of that problem."""
        if not ids:
            return list(self)
        chosen: dict[str, list[str]] = {}
        for item in ids:
            problem_id, _, bug_id = item.partition("/")
            chosen.setdefault(problem_id, []).extend([bug_id] if bug_id else [])
        return [self[pid].restricted(tuple(bugs)) if bugs else self[pid] for pid, bugs in chosen.items()]
