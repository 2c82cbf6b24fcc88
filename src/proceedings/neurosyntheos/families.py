"""Parametric LTLt benchmark families, re-authored from the public problem descriptions (spec §4:
elevator, thermostat, robot-to-target, patrolling), each with realizable and unrealizable instances whose verdict
is known by construction (derivations in each docstring), written as Syntheos YAML.

Constants vary within a family at fixed structure, so instances of one (family, structure) are
template-equivalent (spec §2.3): equal ASTs once numbers are replaced by placeholders.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.neurosyntheos.spec import Spec, load_spec, parse_spec


def thermostat(zones: int, base: int, gap: int, overlap: int) -> Spec:
    """Zone j of the temperature t (owned by the environment) demands heater level h == j.

    Zone j = [t >= base + j*gap] & [t <= base + (j+1)*gap - 1 + overlap] (first zone unbounded below,
    last unbounded above). With overlap <= 0 zones are disjoint, a level always exists:
    REALIZABLE. With overlap >= 1 the temperature t = base + (j+1)*gap lies in zones j and j+1,
    which demand h == j and h == j+1 at once: UNREALIZABLE (the environment holds t there).
    """
    if zones < 2 or gap < 1:
        raise ProceedingsError("thermostat needs zones >= 2 and gap >= 1")
    parts = []
    for j in range(zones):
        low = f"[t >= {base + j * gap}]" if j > 0 else ""
        high = f"[t <= {base + (j + 1) * gap - 1 + overlap}]" if j < zones - 1 else ""
        zone = " & ".join(x for x in (low, high) if x)
        parts.append(f"({zone} -> [h == {j}])")
    prop = "G(" + " & ".join(parts) + f" & [h >= 0] & [h <= {zones - 1}])"
    return parse_spec(prop, [{"name": "h", "type": "Int", "owner": "system"},
                             {"name": "t", "type": "Int", "owner": "environment"}],
                      name=f"thermostat-z{zones}-b{base}-g{gap}-o{overlap}", family=f"thermostat-z{zones}",
                      params={"zones": zones, "base": base, "gap": gap, "overlap": overlap},
                      expected="REALIZABLE" if overlap <= 0 else "UNREALIZABLE")


def robot_target(dist: int, reach: int) -> Spec:
    """A robot at x in [0, dist] must stay within `reach` of the target g the environment names
    (while g is in [0, dist]) and visit both ends 0 and dist infinitely often.

    reach >= dist: [g - reach, g + reach] covers [0, dist] for every g, so alternating 0, dist works:
    REALIZABLE. reach < dist: the environment keeps g = 0, so x <= reach < dist forever and
    F[x == dist] fails: UNREALIZABLE. CEGRES must find the quantifier-elimination literals
    [g <= reach] / [g >= dist - reach] to see either.
    """
    if dist < 1 or reach < 0:
        raise ProceedingsError("robot-target needs dist >= 1 and reach >= 0")
    prop = (f"G(([g >= 0] & [g <= {dist}]) -> ([x >= g - {reach}] & [x <= g + {reach}])) & "
            f"G([x >= 0] & [x <= {dist}]) & G(F([x == 0])) & G(F([x == {dist}]))")
    return parse_spec(prop, [{"name": "x", "type": "Int", "owner": "system"},
                             {"name": "g", "type": "Int", "owner": "environment"}],
                      name=f"robot-target-d{dist}-r{reach}", family="robot-target",
                      params={"dist": dist, "reach": reach},
                      expected="REALIZABLE" if reach >= dist else "UNREALIZABLE")


def visits(targets: tuple[int, ...], low: int, high: int) -> Spec:
    """Unordered visits (patrolling): x stays in [low, high] and visits every target infinitely often.

    All targets inside [low, high]: cycling through them works, REALIZABLE. One target outside:
    F[x == c] contradicts G([x >= low] & [x <= high]), UNREALIZABLE. The Boolean abstraction lets
    the system claim several [x == c_j] at once; CEGRES learns their pairwise exclusion one per call.
    """
    targets = tuple(targets)
    if len(targets) < 2 or len(set(targets)) != len(targets):
        raise ProceedingsError("visits needs at least two distinct targets")
    prop = f"G([x >= {low}] & [x <= {high}]) & " + " & ".join(f"G(F([x == {c}]))" for c in targets)
    inside = all(low <= c <= high for c in targets)
    return parse_spec(prop, [{"name": "x", "type": "Int", "owner": "system"}],
                      name=f"visits-{'-'.join(map(str, targets))}-in{low}-{high}", family=f"visits-k{len(targets)}",
                      params={"targets": list(targets), "low": low, "high": high},
                      expected="REALIZABLE" if inside else "UNREALIZABLE")


def elevator(floors: int, lock_low: int = 2, lock_high: int | None = None) -> Spec:
    """An elevator car at floor f (system) stays within floors [1, N], serves the lobby (1) and the top
    floor (N) infinitely often, and never stops at the floor l the environment has locked for
    maintenance while l names a floor in [lock_low, lock_high] (default: the inner floors 2..N-1).

    Floors 1 and N both outside the lock range: shuttling 1, N, 1, ... never meets a locked floor,
    REALIZABLE with two states. The range holds 1 or N: the environment keeps that floor locked
    forever and it is never served, UNREALIZABLE. CEGRES must find the quantifier-elimination literals
    [l == 1] / [l == N] (where [f != l] and [f == 1] clash). This is elevator-simple-N without the
    one-floor-per-step move, which needs y(f) and the temporal tautologies not built here (README).
    """
    lock_high = floors - 1 if lock_high is None else lock_high
    if floors < 2:
        raise ProceedingsError("elevator needs floors >= 2")
    prop = (f"G(([l >= {lock_low}] & [l <= {lock_high}]) -> [f != l]) & G([f >= 1] & [f <= {floors}]) & "
            f"G(F([f == 1])) & G(F([f == {floors}]))")
    served_locked = any(lock_low <= end <= lock_high for end in (1, floors))
    return parse_spec(prop, [{"name": "f", "type": "Int", "owner": "system"},
                             {"name": "l", "type": "Int", "owner": "environment"}],
                      name=f"elevator-{floors}-lock{lock_low}-{lock_high}", family="elevator",
                      params={"floors": floors, "lock_low": lock_low, "lock_high": lock_high},
                      expected="UNREALIZABLE" if served_locked else "REALIZABLE")


FAMILIES = {"elevator": elevator, "thermostat": thermostat, "robot-target": robot_target, "visits": visits}


def template(spec: Spec) -> str:
    """The spec's text with every number replaced by a placeholder: equal templates align."""
    return re.sub(r"\d+", "#", spec.text)


def write_yaml(spec: Spec, folder: Path) -> Path:
    import yaml
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{spec.name}.yaml"
    data = {"property": spec.text, "family": spec.family, "params": spec.params, "expected": spec.expected,
            "variables": [{"name": v.name, "type": v.sort, "owner": v.owner} for v in spec.variables.values()]}
    path.write_text(yaml.safe_dump(data, sort_keys=False, width=1000))
    return path


def read_bench(folder: str | Path) -> list[Spec]:
    """Every *.yaml spec under `folder` (user Syntheos specs included), sorted by name."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ProceedingsError(f"bench directory '{folder}' does not exist")
    specs = [load_spec(p) for p in sorted(folder.rglob("*.yaml"))]
    if not specs:
        raise ProceedingsError(f"bench directory '{folder}' holds no *.yaml spec")
    return specs


def instances(family: str, settings: list[dict]) -> Iterator[Spec]:
    for params in settings:
        yield FAMILIES[family](**params)
