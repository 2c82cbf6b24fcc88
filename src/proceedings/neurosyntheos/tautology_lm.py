"""The autoregressive tautology model (paper §3; spec §2.3, model 2): a small causal transformer in the
manner of nanoGPT over a token language for clauses, conditioned on the spec's literal table.

A training sequence is `<bos> literal ; literal ; ... <sep> clause <eos>`: the spec's own literals
(SMT-LIB s-expressions) as the prompt, then one tautology CEGRES added on its trace, literal by literal
(`pos`/`neg`, then the literal's tokens; `|` between literals). Variables are written by role
(`sys0`, `env0`, `y.sys0` for the fetched copy) and numbers by their place among the spec's constants
(`C2`, `C2+1`, `-C2-1`; small numbers `N-2..N2` as themselves), so a clause learnt on one spec can be
written for another, including new quantifier-elimination literals such as `(>= g (+ C1 1))`.
The loss is next-token cross-entropy on the clause part only (teacher forcing). At inference the
model samples clauses for the spec; they are only *proposals*: `predictor.inject` verifies each
with z3 before it reaches the abstraction. Sizes are chosen for the CPU [inf]; the paper's decoder
has 4 layers, d = 256.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import asdict, dataclass

import torch
from torch import nn
from torch.nn import functional as F

from proceedings.neurosyntheos.spec import Spec

SPECIAL = ["<pad>", "<bos>", "<sep>", "<eos>", "<unk>", ";", "|", "pos", "neg"]
PAD, BOS, SEP, EOS, UNK = range(5)
SMALL = range(-2, 3)  # numbers written as themselves (N-2 .. N2) when they are no constant's neighbour
TOKEN = re.compile(r"\(- (\d+)\)|\(|\)|[^\s()]+")


@dataclass
class LMConfig:
    vocab: list[str]
    block: int = 256  # longest context; longer prompts keep their end
    d: int = 32
    heads: int = 2
    layers: int = 2


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg: LMConfig):
        super().__init__()
        self.heads = cfg.heads
        self.qkv = nn.Linear(cfg.d, 3 * cfg.d)
        self.proj = nn.Linear(cfg.d, cfg.d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))  # (b, heads, t, dh)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, cfg: LMConfig):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(cfg.d), nn.LayerNorm(cfg.d)
        self.attn = CausalSelfAttention(cfg)
        self.mlp = nn.Sequential(nn.Linear(cfg.d, 4 * cfg.d), nn.GELU(), nn.Linear(4 * cfg.d, cfg.d))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TautologyLM(nn.Module):
    """Token + position embeddings, pre-norm blocks, a head tied to the token embedding (as nanoGPT)."""

    def __init__(self, cfg: LMConfig):
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(len(cfg.vocab), cfg.d)
        self.pos = nn.Embedding(cfg.block, cfg.d)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.layers))
        self.ln = nn.LayerNorm(cfg.d)
        self.head = nn.Linear(cfg.d, len(cfg.vocab), bias=False)
        self.head.weight = self.tok.weight
        for module in self.modules():  # small initial weights (as nanoGPT): the tied head starts near uniform
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, std=0.02)
                if getattr(module, "bias", None) is not None:
                    nn.init.zeros_(module.bias)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))  # (b, t, d)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))  # (b, t, vocab)


class Codec:
    """Spec-relative writing of literals: variables by role, numbers by their place among the constants."""

    def __init__(self, spec: Spec):
        import z3
        from proceedings.neurosyntheos.spec import numbers_in
        from proceedings.neurosyntheos.theory import free_variable_names
        # template positions (they align across template-equivalent specs), with the variables of their literal
        places = [(c, free_variable_names(lit.expr)) for lit in spec.literals if lit.origin == "spec"
                  for c in numbers_in(lit.text) if isinstance(c, int)]
        self.constants = [c for c, _ in places]
        self.context = [names for _, names in places]
        roles = Counter()
        self.var_token = {}
        for name, var in spec.variables.items():
            role = "sys" if var.owner == "system" else "env"
            self.var_token[name] = f"{role}{roles[role]}"
            self.var_token[f"y_{name}"] = f"y.{role}{roles[role]}"
            roles[role] += 1
        self.var_name = {t: n for n, t in self.var_token.items()}
        self.prompt = [tok for lit in spec.literals if lit.origin == "spec"
                       for tok in self.literal(z3.simplify(lit.expr).sexpr()) + [";"]]

    def number(self, n: int, names: set) -> str:
        """The first place holding n (or ±n ± 1), preferring places in literals over the same variables."""
        order = sorted(range(len(self.constants)), key=lambda k: not (self.context[k] & names))
        for sign, prefix in ((1, ""), (-1, "-")):
            for offset, suffix in ((0, ""), (-1, "+1"), (1, "-1")):
                for k in order:
                    if self.constants[k] == sign * (n + offset):
                        return f"{prefix}C{k}{suffix}"
        return f"N{n}" if n in SMALL else "<unk>"

    def literal(self, smt: str) -> list[str]:
        out = []
        names = {w for w in re.findall(r"[A-Za-z_][\w.]*", smt) if w in self.var_token}
        for m in TOKEN.finditer(smt):
            if m.group(1) is not None:
                out.append(self.number(-int(m.group(1)), names))
            elif m.group(0).isdigit():
                out.append(self.number(int(m.group(0)), names))
            else:
                out.append(self.var_token.get(m.group(0), m.group(0)))
        return out

    def clause(self, clause) -> list[str]:
        """(SMT text, polarity) pairs -> tokens, literals sorted so that equal clauses read alike."""
        parts = [["pos" if pol else "neg"] + self.literal(smt) for smt, pol in sorted(clause)]
        return [tok for k, part in enumerate(parts) for tok in (["|"] if k else []) + part]

    def decode(self, tokens: list[str]):
        """Tokens -> a clause of (SMT text, polarity), or None when they are not one."""
        literals, current = [], None
        for tok in tokens + ["|"]:
            if tok == "|":
                if not current or len(current) < 2:
                    return None
                literals.append(current)
                current = None
            elif current is None:
                if tok not in ("pos", "neg"):
                    return None
                current = [tok]
            else:
                current.append(tok)
        out = []
        for sign, *body in literals:
            words = [self._word(tok) for tok in body]
            if None in words:
                return None
            out.append((" ".join(words).replace("( ", "(").replace(" )", ")"), sign == "pos"))
        return tuple(sorted(set(out)))

    def _word(self, tok: str) -> str | None:
        if tok in self.var_name:
            return self.var_name[tok]
        m = re.fullmatch(r"(-?)C(\d+)([+-]1)?|N(-?\d+)", tok)
        if m is None:
            return None if tok in SPECIAL or tok.startswith(("sys", "env", "y.")) else tok
        if m.group(4) is not None:
            value = int(m.group(4))
        elif int(m.group(2)) < len(self.constants):
            value = (-1 if m.group(1) else 1) * self.constants[int(m.group(2))] + int(m.group(3) or 0)
        else:
            return None
        return str(value) if value >= 0 else f"(- {-value})"


def sequence(spec: Spec, clause) -> list[str]:
    codec = Codec(spec)
    return ["<bos>"] + codec.prompt + ["<sep>"] + codec.clause(clause) + ["<eos>"]


def train(examples: list[tuple[Spec, list]], steps: int = 200, seed: int = 0, lr: float = 3e-3, batch: int = 16):
    """Teacher forcing on (spec, clause) pairs of the training traces, `batch` random ones a step; loss on
    the clause tokens only. Returns the model and the loss curve."""
    torch.manual_seed(seed)
    seqs = [sequence(spec, clause) for spec, clause in examples]
    vocab = SPECIAL + sorted({tok for s in seqs for tok in s} - set(SPECIAL))
    cfg = LMConfig(vocab=vocab)
    index = {tok: k for k, tok in enumerate(vocab)}
    rows = [[index[tok] for tok in s][-cfg.block - 1:] for s in seqs]
    width = max(len(r) for r in rows)
    data = torch.full((len(rows), width), PAD)
    target_mask = torch.zeros(len(rows), width - 1, dtype=torch.bool)
    for k, r in enumerate(rows):
        data[k, :len(r)] = torch.tensor(r)
        target_mask[k, r.index(SEP):len(r) - 1] = True  # predict the tokens after <sep>
    model = TautologyLM(cfg)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    losses = []
    for _ in range(steps):
        pick = torch.randperm(len(rows))[:batch]
        width = int((data[pick] != PAD).sum(1).max())
        x, y, mask = data[pick, :width - 1], data[pick, 1:width], target_mask[pick, :width - 1]
        logits = model(x)  # (batch, width - 1, vocab)
        loss = F.cross_entropy(logits[mask], y[mask])
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        losses.append(float(loss.detach()))
    return model.eval(), losses


@torch.no_grad()
def sample(model: TautologyLM, spec: Spec, samples: int = 32, keep: int = 16, max_tokens: int = 48,
           temperature: float = 1.0) -> tuple[list[tuple], int]:
    """`samples` clauses drawn for `spec` (a generator seeded by the spec's name: repeatable); the
    `keep` most frequent distinct well-formed ones, and how many draws were malformed."""
    cfg = model.cfg
    index = {tok: k for k, tok in enumerate(cfg.vocab)}
    codec = Codec(spec)
    prompt = [index.get(tok, UNK) for tok in ["<bos>"] + codec.prompt + ["<sep>"]]
    idx = torch.tensor([prompt] * samples)  # (samples, t)
    generator = torch.Generator().manual_seed(int.from_bytes(spec.name.encode()[-8:].rjust(8, b"\0"), "big") % 2**62)
    done = torch.zeros(samples, dtype=torch.bool)
    for _ in range(max_tokens):
        logits = model(idx[:, -cfg.block:])[:, -1] / temperature  # (samples, vocab)
        logits[:, [PAD, BOS, SEP, UNK]] = -math.inf
        nxt = torch.multinomial(F.softmax(logits, dim=-1), 1, generator=generator).squeeze(1)
        nxt[done] = PAD
        idx = torch.cat([idx, nxt[:, None]], dim=1)
        done |= nxt == EOS
        if done.all():
            break
    counts, malformed = Counter(), 0
    for row in idx[:, len(prompt):].tolist():
        if EOS not in row:
            malformed += 1
            continue
        clause = codec.decode([cfg.vocab[k] for k in row[:row.index(EOS)]])
        if clause is None:
            malformed += 1
        else:
            counts[clause] += 1
    return [clause for clause, _ in counts.most_common(keep)], malformed


def state(model: TautologyLM) -> dict:
    return {"config": asdict(model.cfg), "weights": model.state_dict()}


def from_state(saved: dict) -> TautologyLM:
    model = TautologyLM(LMConfig(**saved["config"]))
    model.load_state_dict(saved["weights"])
    return model.eval()
