"""The N-vium model: a decoder-only transformer whose next-token distribution is a mixture over exits.

Paper: "N-vium: a mixture-of-exits transformer" (NeurIPS 2026, abstract); reconstruction in
specs/nvium.md §2.1. Prediction heads sit after chosen layers l_1 < ... < l_N = L. An exit is its own
RMSNorm followed by the shared (tied) unembedding, so it costs one vector of parameters. A halting
router, one linear unit per non-final exit, decides token by token how much mass each exit gets:

    g_e  = sigmoid(w_e . norm_e(h_{l_e}) + b_e)
    pi_e = g_e * prod_{j<e} (1 - g_j),      pi_N = prod_{j<N} (1 - g_j)
    p(y | x) = sum_e pi_e * p_e(y | x)

pi_e only needs layers up to l_e, so the exit can be sampled before deeper layers exist (sampler.py).
With every b_e at -inf the mixture *is* the plain transformer: the strict generalisation the paper
claims (tested to 1e-5). The layers are Llama's (RMSNorm, RoPE, SwiGLU, grouped-query attention), so
a pretrained Llama such as SmolLM2 loads into this class unchanged (retrofit.py).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from proceedings.core.errors import ProceedingsError
from proceedings.nvium.mixture import MixtureLoss, log_mixture_weights, mixture_loss

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"


@dataclass
class NviumConfig:
    """Shape of an N-vium model. `exits` are layer counts; the last one must be `n_layer`."""

    vocab_size: int = 256  # bytes
    n_layer: int = 8
    d_model: int = 256
    n_head: int = 4
    n_kv_head: int | None = None  # grouped-query attention; None = n_head
    head_dim: int | None = None  # None = d_model // n_head
    d_ff: int = 768  # SwiGLU hidden width
    max_seq_len: int = 2048
    exits: tuple[int, ...] = (2, 4, 6, 8)  # "Quadrivium": L/4, L/2, 3L/4, L (spec §2.1)
    # Initial halting bias: sigmoid(-2) = 0.12 per gate, pi = (0.12, 0.10, 0.09, 0.68) with 4 exits. The
    # spec's -6 (pi_N = 0.99) starves the shallow heads of gradient: measured, the router never opened.
    gate_bias_init: float = -2.0
    rope_theta: float = 10000.0
    norm_eps: float = 1e-5
    tie_embeddings: bool = True
    tokenizer: str = "bytes"  # "bytes" or a model spec whose tokenizer this model uses
    # Retrofit (spec §2.4): a low-rank residual adapter of this rank before each intermediate exit's norm,
    # so a frozen pretrained model's early exits can be trained; 0 = none (models pretrained with exits).
    exit_adapter_rank: int = 0
    extra: dict = field(default_factory=dict)  # provenance (retrofit source, tokens seen, ...)

    def __post_init__(self) -> None:
        self.exits = tuple(int(e) for e in self.exits)
        self.n_kv_head = self.n_kv_head or self.n_head
        self.head_dim = self.head_dim or self.d_model // self.n_head
        check_exits(self.exits, self.n_layer)
        if self.exit_adapter_rank < 0:
            raise ProceedingsError(f"exit_adapter_rank must be >= 0, got {self.exit_adapter_rank}")
        if self.n_head % self.n_kv_head:
            raise ProceedingsError(f"n_head={self.n_head} is not a multiple of n_kv_head={self.n_kv_head}")

    @property
    def n_exits(self) -> int:
        return len(self.exits)

    def depth_fractions(self) -> list[float]:
        """l_e / L for each exit: the compute an exit costs relative to full depth."""
        return [e / self.n_layer for e in self.exits]


def check_exits(exits: tuple[int, ...], n_layer: int) -> None:
    """Exits must be strictly increasing layer counts in [1, n_layer] that end at n_layer."""
    if not exits:
        raise ProceedingsError("exits is empty; give layer counts such as 2,4,6,8 ending at n_layer")
    if exits[0] < 1:
        raise ProceedingsError(f"exit at layer {exits[0]}: exits count layers from 1 (an exit after the embedding predicts nothing)")
    if any(b <= a for a, b in zip(exits, exits[1:])):
        raise ProceedingsError(f"exits {list(exits)} are not strictly increasing; list each depth once, shallow to deep")
    if exits[-1] != n_layer:
        raise ProceedingsError(f"exits {list(exits)} must end at the last layer ({n_layer}) so the full model is one exit")


class RMSNorm(nn.Module):
    """Root-mean-square norm, computed in fp32 exactly as Llama does."""

    def __init__(self, dim: int, eps: float) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x32 = x.float()
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x32.to(x.dtype)


class Rotary(nn.Module):
    """Rotary position embedding tables (Llama's half-split convention)."""

    def __init__(self, head_dim: int, max_len: int, theta: float) -> None:
        super().__init__()
        inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float) / head_dim))
        angles = torch.outer(torch.arange(max_len, dtype=torch.float), inv_freq)
        angles = torch.cat((angles, angles), dim=-1)  # (max_len, head_dim)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)

    def forward(self, x: torch.Tensor, start: int) -> torch.Tensor:
        """Rotate x (batch, heads, T, head_dim) as positions start .. start+T-1."""
        T = x.shape[-2]
        cos, sin = self.cos[start:start + T].to(x.dtype), self.sin[start:start + T].to(x.dtype)
        half = x.shape[-1] // 2
        rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return x * cos + rotated * sin

    def at(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """Rotate x (batch, heads, T, head_dim) with each row's own positions (batch, T)."""
        positions = positions.clamp(max=self.cos.shape[0] - 1).to(x.device)  # padding may run past the table
        cos, sin = self.cos[positions][:, None].to(x.dtype), self.sin[positions][:, None].to(x.dtype)
        half = x.shape[-1] // 2
        rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return x * cos + rotated * sin


class KVCache:
    """One layer's keys and values for positions [0, length), preallocated for one sequence (static)."""

    def __init__(self, config: NviumConfig, max_len: int, device, dtype) -> None:
        shape = (1, config.n_kv_head, max_len, config.head_dim)
        self.k = torch.zeros(shape, device=device, dtype=dtype)
        self.v = torch.zeros(shape, device=device, dtype=dtype)
        self.length = 0

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Store a chunk of new positions; return keys and values of every position so far."""
        end = self.length + k.shape[-2]
        if end > self.k.shape[-2]:
            raise ProceedingsError(f"sequence longer than the cache ({self.k.shape[-2]} positions); raise max_len")
        self.k[:, :, self.length:end] = k
        self.v[:, :, self.length:end] = v
        self.length = end
        return self.k[:, :, :end], self.v[:, :, :end]

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, rotary: "Rotary") -> torch.Tensor:
        """A chunk of T new positions (rotated from `length` on) attending to the cache and causally to itself."""
        start, T = self.length, q.shape[-2]
        k, v = self.append(rotary(k, start), v)
        mask = None if T == 1 else torch.ones(T, start + T, dtype=torch.bool, device=q.device).tril(start)
        return F.scaled_dot_product_attention(rotary(q, start), k, v, attn_mask=mask, enable_gqa=True)


class DynamicKVCache(KVCache):
    """The same cache grown by concatenation at every call (Hugging Face's DynamicCache does this):
    the reference the static, preallocated cache is tested against, token for token."""

    def __init__(self, config: NviumConfig, max_len: int, device, dtype) -> None:
        shape = (1, config.n_kv_head, 0, config.head_dim)
        self.k = torch.zeros(shape, device=device, dtype=dtype)
        self.v = torch.zeros(shape, device=device, dtype=dtype)
        self.length = 0

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.k, self.v = torch.cat((self.k, k), dim=-2), torch.cat((self.v, v), dim=-2)
        self.length = self.k.shape[-2]
        return self.k, self.v


class RaggedKVCache:
    """One layer's static cache for a batch of sequences whose lengths differ (batched deferral).

    Before a layer call, `select(rows, counts)` names the sequences the call serves and how many of
    the chunk's T positions are real for each; shorter chunks are padded. Padding is written past a
    sequence's length, where no real query can see it and the next real position overwrites it.
    """

    def __init__(self, config: NviumConfig, batch: int, max_len: int, device, dtype, slack: int = 0) -> None:
        shape = (batch, config.n_kv_head, max_len + slack, config.head_dim)  # slack: room for padding
        self.k = torch.zeros(shape, device=device, dtype=dtype)
        self.v = torch.zeros(shape, device=device, dtype=dtype)
        self.lengths = torch.zeros(batch, dtype=torch.long)  # on the CPU: bookkeeping, not compute
        self.rows, self.counts = torch.arange(batch), torch.zeros(batch, dtype=torch.long)

    def select(self, rows: torch.Tensor, counts: torch.Tensor) -> None:
        self.rows, self.counts = rows, counts

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, rotary: "Rotary") -> torch.Tensor:
        """q, k, v (rows, heads, T, head_dim): row b's real positions start at its own length."""
        T, device = q.shape[-2], q.device
        starts = self.lengths[self.rows]
        positions = starts[:, None] + torch.arange(T)  # (rows, T)
        rows = self.rows.to(device)
        slots = positions.to(device)
        self.k[rows[:, None], :, slots] = rotary.at(k, positions).transpose(1, 2)  # (rows, T, heads, hd)
        self.v[rows[:, None], :, slots] = v.transpose(1, 2)
        keys = int((starts + self.counts).max())
        mask = torch.arange(keys)[None, None, :] <= positions[:, :, None]  # (rows, T, keys): causal per row
        y = F.scaled_dot_product_attention(rotary.at(q, positions), self.k[rows, :, :keys], self.v[rows, :, :keys],
                                           attn_mask=mask[:, None].to(device), enable_gqa=True)
        self.lengths[self.rows] += self.counts
        return y


class Attention(nn.Module):
    def __init__(self, config: NviumConfig) -> None:
        super().__init__()
        self.n_head, self.n_kv_head, self.head_dim = config.n_head, config.n_kv_head, config.head_dim
        q_dim, kv_dim = config.n_head * config.head_dim, config.n_kv_head * config.head_dim
        self.qkv = nn.Linear(config.d_model, q_dim + 2 * kv_dim, bias=False)  # fused q, k, v
        self.out = nn.Linear(q_dim, config.d_model, bias=False)
        self.split = (q_dim, kv_dim, kv_dim)

    def forward(self, x: torch.Tensor, rotary: Rotary, cache: "KVCache | RaggedKVCache | None") -> torch.Tensor:
        B, T, _ = x.shape
        q, k, v = self.qkv(x).split(self.split, dim=-1)
        q = q.view(B, T, self.n_head, self.head_dim).transpose(1, 2)  # (B, heads, T, head_dim)
        k = k.view(B, T, self.n_kv_head, self.head_dim).transpose(1, 2)
        v = v.view(B, T, self.n_kv_head, self.head_dim).transpose(1, 2)
        if cache is None:  # training and full forward: the whole sequence at once
            y = F.scaled_dot_product_attention(rotary(q, 0), rotary(k, 0), v, is_causal=True, enable_gqa=True)
        else:  # decoding: new positions attending to the cache and causally to each other
            y = cache.attend(q, k, v, rotary)
        return self.out(y.transpose(1, 2).reshape(B, T, -1))


class SwiGLU(nn.Module):
    def __init__(self, config: NviumConfig) -> None:
        super().__init__()
        self.gate_up = nn.Linear(config.d_model, 2 * config.d_ff, bias=False)  # fused gate and up
        self.down = nn.Linear(config.d_ff, config.d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.gate_up(x).chunk(2, dim=-1)
        return self.down(F.silu(gate) * up)


class Block(nn.Module):
    """One pre-norm transformer layer."""

    def __init__(self, config: NviumConfig) -> None:
        super().__init__()
        self.attn_norm = RMSNorm(config.d_model, config.norm_eps)
        self.attn = Attention(config)
        self.mlp_norm = RMSNorm(config.d_model, config.norm_eps)
        self.mlp = SwiGLU(config)

    def forward(self, x: torch.Tensor, rotary: Rotary, cache: "KVCache | RaggedKVCache | None" = None) -> torch.Tensor:
        x = x + self.attn(self.attn_norm(x), rotary, cache)
        return x + self.mlp(self.mlp_norm(x))


class ExitAdapter(nn.Module):
    """h + B A h with rank r (a LoRA on the residual stream): an intermediate exit of a frozen pretrained
    model learns to read its layer's residual stream; B starts at zero, so the exit starts as the logit lens."""

    def __init__(self, dim: int, rank: int) -> None:
        super().__init__()
        self.down = nn.Linear(dim, rank, bias=False)
        self.up = nn.Linear(rank, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.up(self.down(x))


@dataclass
class MixtureOutput:
    """What a teacher-forced forward returns: every exit's logits and the router's mixture weights."""

    exit_logits: list[torch.Tensor]  # N tensors (batch, seq, vocab)
    log_weights: torch.Tensor  # (batch, seq, N): log pi_e
    loss: MixtureLoss | None = None  # when targets were given


class NviumForCausalLM(nn.Module):
    def __init__(self, config: NviumConfig) -> None:
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.d_model)
        self.layers = nn.ModuleList(Block(config) for _ in range(config.n_layer))
        self.rotary = Rotary(config.head_dim, config.max_seq_len, config.rope_theta)
        # exit_norms[-1] is the usual final norm; the others are the intermediate exits' own norms
        self.exit_norms = nn.ModuleList(RMSNorm(config.d_model, config.norm_eps) for _ in config.exits)
        self.gates = nn.ModuleList(nn.Linear(config.d_model, 1) for _ in config.exits[:-1])
        rank = config.exit_adapter_rank
        self.exit_adapters = nn.ModuleList(ExitAdapter(config.d_model, rank) for _ in config.exits[:-1] if rank)
        self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)
        self.apply(self._init_weights)
        for adapter in self.exit_adapters:
            nn.init.zeros_(adapter.up.weight)
        for gate in self.gates:
            nn.init.zeros_(gate.weight)
            nn.init.constant_(gate.bias, config.gate_bias_init)
        for block in self.layers:  # GPT-2's scaled init of the residual projections
            for proj in (block.attn.out, block.mlp.down):
                nn.init.normal_(proj.weight, std=0.02 / math.sqrt(2 * config.n_layer))
        if config.tie_embeddings:  # the unembedding is the embedding's transpose, shared by every exit
            self.lm_head.weight = self.embed.weight
        self.exit_of_layer = {layer: e for e, layer in enumerate(config.exits)}  # layer count -> exit e

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    # -- the pieces the deferred sampler calls one at a time -------------------------------------
    def exit_state(self, e: int, hidden: torch.Tensor) -> torch.Tensor:
        """What exit e's head and gate read: norm_e of the residual stream after layer l_e (adapted, if any)."""
        if e < len(self.exit_adapters):
            hidden = self.exit_adapters[e](hidden)
        return self.exit_norms[e](hidden)

    def exit_logits(self, e: int, hidden: torch.Tensor) -> torch.Tensor:
        """Logits of exit e from the residual stream after layer l_e."""
        return self.lm_head(self.exit_state(e, hidden))

    def gate_logit(self, e: int, hidden: torch.Tensor) -> torch.Tensor:
        """z_e with g_e = sigmoid(z_e): the halting logit at non-final exit e, shape (..., )."""
        return self.gates[e](self.exit_state(e, hidden)).squeeze(-1)

    # -- teacher-forced forward (training, evaluation, the full-depth reference) -------------------
    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None,
                depth_penalty: float = 0.0) -> MixtureOutput:
        """idx (batch, seq) -> every exit's logits and log mixture weights; the loss when targets are given.

        The loss is computed here, as in nanoGPT, so that data-parallel wrappers see it inside forward.
        """
        if idx.shape[1] > self.config.max_seq_len:
            raise ProceedingsError(f"sequence of {idx.shape[1]} tokens exceeds max_seq_len={self.config.max_seq_len}")
        exit_logits, gate_logits = [], []
        for e, x in self.exit_hiddens(idx):
            exit_logits.append(self.exit_logits(e, x))
            if e < self.config.n_exits - 1:
                gate_logits.append(self.gate_logit(e, x))
        gates = torch.stack(gate_logits, dim=-1) if gate_logits else x.new_zeros(*idx.shape, 0)
        out = MixtureOutput(exit_logits, log_mixture_weights(gates.float()))
        if targets is not None:
            out.loss = mixture_loss(exit_logits, out.log_weights, targets, self.config.depth_fractions(), depth_penalty)
        return out

    def exit_hiddens(self, idx: torch.Tensor):
        """(e, residual stream after layer l_e) for every exit in order, from one teacher-forced pass."""
        x = self.embed(idx)
        for depth, block in enumerate(self.layers, start=1):
            x = block(x, self.rotary)
            e = self.exit_of_layer.get(depth)
            if e is not None:
                yield e, x

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    # -- persistence: safetensors + JSON config ------------------------------------------------
    def save_pretrained(self, directory: Path | str) -> Path:
        from safetensors.torch import save_model

        from proceedings.core.runtime import atomic_write_text

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        save_model(self, str(directory / WEIGHTS_FILE))
        atomic_write_text(directory / CONFIG_FILE, json.dumps(asdict(self.config), indent=2) + "\n")
        return directory

    @classmethod
    def from_pretrained(cls, directory: Path | str, device: str = "cpu") -> "NviumForCausalLM":
        from safetensors.torch import load_model

        directory = Path(directory)
        config_path = directory / CONFIG_FILE
        if not (directory / WEIGHTS_FILE).is_file() or not config_path.is_file():
            raise ProceedingsError(
                f"'{directory}' is not an N-vium checkpoint (needs {CONFIG_FILE} and {WEIGHTS_FILE}); "
                "train one with `proceedings nvium train`"
            )
        try:
            config = NviumConfig(**json.loads(config_path.read_text()))
        except (TypeError, ValueError) as err:
            raise ProceedingsError(f"'{config_path}' is not an N-vium config ({err})") from err
        model = cls(config)
        load_model(model, str(directory / WEIGHTS_FILE), device=str(device))
        return model.to(device).eval()
