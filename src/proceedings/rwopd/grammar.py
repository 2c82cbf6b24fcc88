"""A grammar of NL/SVA pairs with exact labels, by temporal category (spec §4, "must be synthesised").

Each pair is drawn from a small IR-level grammar over signals sig_A..sig_J and rendered twice: to
SVA text and to English through templates with several paraphrases per construct. Categories:
  - `combinational`: a Boolean condition that must hold at every cycle;
  - `bounded`: implications with `##N`, `##[m:n]`, `|=>`, `$past`/`$rose`/`$fell`/`$stable`;
  - `unbounded`: `s_eventually`, `##[m:$]`, `until`/`s_until`.
Labels are exact because the reference is the SVA the grammar rendered; `equivalent_rewrite` gives
a different text for the same property (the identities the Hypothesis test checks with the PEC).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

CATEGORIES = ("combinational", "bounded", "unbounded")
SIGNALS = tuple(f"sig_{c}" for c in "ABCDEFGHIJ")


@dataclass(frozen=True)
class Pair:
    id: str
    prompt: str
    sva: str  # the property body (no `assert property`, no clocking)
    category: str


def _atom(rng: random.Random, sampled: bool = True) -> tuple[str, str]:
    """A signal, its negation or (if `sampled`) a sampled-value function of it, in SVA and English."""
    s = rng.choice(SIGNALS)
    form = rng.random() * (1.0 if sampled else 0.8)
    if form < 0.55:
        return s, f"{s} is high"
    if form < 0.8:
        return f"!{s}", rng.choice([f"{s} is low", f"{s} is not asserted", f"{s} is deasserted"])
    func = rng.choice(["$rose", "$fell", "$stable"])
    words = {"$rose": f"{s} rises", "$fell": f"{s} falls", "$stable": f"{s} stays unchanged"}
    return f"{func}({s})", words[func]


def _condition(rng: random.Random, depth: int = 0, sampled: bool = True) -> tuple[str, str]:
    """A Boolean condition: atoms joined by && / || (one level of grouping)."""
    if depth >= 1 or rng.random() < 0.5:
        return _atom(rng, sampled)
    (a, na), (b, nb) = _condition(rng, depth + 1, sampled), _condition(rng, depth + 1, sampled)
    if rng.random() < 0.6:
        return f"({a} && {b})", rng.choice([f"{na} and {nb}", f"both {na} and {nb}"])
    return f"({a} || {b})", rng.choice([f"{na} or {nb}", f"either {na} or {nb}"])


def _later(n: int, rng: random.Random) -> str:
    if n == 1:
        return rng.choice(["on the next cycle", "one cycle later", "in the following clock cycle"])
    return rng.choice([f"{n} cycles later", f"exactly {n} clock cycles later", f"after {n} cycles"])


def _combinational(rng):
    """No temporal operator at all: $rose/$fell/$stable read the previous cycle, so they stay out."""
    cond, words = _condition(rng, sampled=False)
    if rng.random() < 0.5:
        return cond, rng.choice([f"At every cycle, {words}.", f"It always holds that {words}."])
    (a, na), (b, nb) = _condition(rng, sampled=False), _condition(rng, sampled=False)
    return f"{a} |-> {b}", rng.choice([f"Whenever {na}, {nb} in the same cycle.", f"If {na} then {nb} at once."])


def _bounded(rng):
    (a, na), (b, nb) = _condition(rng), _condition(rng)
    kind = rng.random()
    if kind < 0.35:
        n = rng.randint(1, 4)
        return f"{a} |-> ##{n} {b}", f"Whenever {na}, {nb} {_later(n, rng)}."
    if kind < 0.55:
        return f"{a} |=> {b}", f"Whenever {na}, {nb} {_later(1, rng)}."
    if kind < 0.8:
        m = rng.randint(0, 2)
        n = m + rng.randint(1, 3)
        return (f"{a} |-> ##[{m}:{n}] {b}",
                rng.choice([f"Whenever {na}, {nb} within {m} to {n} cycles.",
                            f"If {na}, then between {m} and {n} cycles later {nb}."]))
    (c, nc) = _condition(rng)
    n = rng.randint(1, 3)
    return (f"{a} ##{n} {c} |-> {b}",
            f"If {na} and {nc} {_later(n, rng)}, then {nb} in that cycle.")


def _unbounded(rng):
    (a, na), (b, nb) = _condition(rng), _condition(rng)
    kind = rng.random()
    if kind < 0.4:
        return f"{a} |-> s_eventually {b}", rng.choice([f"Whenever {na}, eventually {nb}.",
                                                         f"If {na}, {nb} must eventually happen."])
    if kind < 0.6:
        m = rng.randint(1, 3)
        return f"{a} |-> ##[{m}:$] {b}", f"Whenever {na}, {nb} at some point at least {m} cycles later."
    (c, nc) = _condition(rng)
    strong = rng.random() < 0.5
    op = "s_until" if strong else "until"
    tail = " and that must happen" if strong else ""
    return f"{a} |-> {b} {op} {c}", f"Whenever {na}, {nb} until {nc}{tail}."


_BUILDERS = {"combinational": _combinational, "bounded": _bounded, "unbounded": _unbounded}


def generate_pairs(n: int, seed: int = 0, categories: tuple[str, ...] = CATEGORIES, prefix: str = "gen") -> list[Pair]:
    """`n` distinct pairs, categories balanced, deterministic for a seed."""
    rng = random.Random(seed)
    pairs, seen = [], set()
    while len(pairs) < n:
        category = categories[len(pairs) % len(categories)]
        sva, prompt = _BUILDERS[category](rng)
        if sva in seen:
            continue
        seen.add(sva)
        pairs.append(Pair(f"{prefix}-{seed}-{len(pairs)}", prompt, sva, category))
    return pairs


# ---- SVA identities (equivalent rewrites) -----------------------------------------------------
# (name, pattern, replacement): each turns a property into a textually different, equivalent one
# (IEEE 1800 §16.12.7 for implications, §16.9.3 for sampled-value functions; `##[0:$]` as strong
# is the jasper reading).
IDENTITIES = (
    ("non-overlapped implication", r"\|=> ", "|-> ##1 "),
    ("delay one", r"\|-> ##1 ", "|=> "),
    ("eventually as unbounded delay", r"s_eventually ", "##[0:$] "),
    ("split delay", r"##([2-9]) ", lambda m: f"##1 1 ##{int(m.group(1)) - 1} "),
    ("rose", r"\$rose\((sig_\w)\)", r"(\1 && !$past(\1))"),
    ("fell", r"\$fell\((sig_\w)\)", r"(!\1 && $past(\1))"),
    ("stable", r"\$stable\((sig_\w)\)", r"(\1 == $past(\1))"),
    ("low as comparison", r"!(sig_\w)\b(?!\))", r"(\1 == 1'b0)"),
)


def equivalent_rewrite(sva: str, rng: random.Random, steps: int = 2) -> str:
    """Apply up to `steps` randomly chosen identities that match `sva` (possibly none)."""
    import re

    for _ in range(steps):
        usable = [(pat, rep) for _, pat, rep in IDENTITIES if re.search(pat, sva)]
        if not usable:
            break
        pattern, replacement = rng.choice(usable)
        sva = re.sub(pattern, replacement, sva, count=1)
    if "|->" not in sva and "|=>" not in sva and rng.random() < 0.5:
        sva = f"1 |-> ({sva})"
    return sva
