"""Each Triton kernel of the harness at a small size, against a float64 numpy reference, in any :mod:`env`.

The rows are predicted from sampled launches, which do not compute; these checks run the same kernels in
full at small sizes (edges included: sizes that are not multiples of the blocks where the kernel allows
them) so that what is counted is a correct kernel. The unit tests run them on kernellab; the GPU check
runs them with real Triton before timing a row; under ``TRITON_INTERPRET=1`` they run on real Triton's
interpreter on the CPU.

Every check returns ``{name: (largest error, limit)}``; :func:`run_all` raises on the first failure.
"""

from __future__ import annotations

import numpy as np

LOG2E = 1.4426950408889634


def _err(got, want) -> float:
    return float(np.abs(np.asarray(got, np.float64) - want).max())


def check_add(env) -> dict:
    n = 5000
    x, y, out = env.randn(n, "fp32", 1), env.randn(n, "fp32", 2), env.zeros(n, "fp32")
    env.kt.add_kernel[(env.triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    # one fp32 rounding of |x + y| < 8: half an ulp, 2^-21 < 1e-6
    return {"add": (_err(env.numpy(out), env.numpy(x) + env.numpy(y)), 1e-6)}


def check_zero(env) -> dict:
    n = 257  # one program of 256 and one element of a second; the 43 after n keep their values
    buf = env.randn(300, "int32", 9, 1000)
    before = env.numpy(buf).copy()
    env.kt.zero_kernel[(env.triton.cdiv(n, 256),)](buf, n, BLOCK_SIZE=256)
    want = np.where(np.arange(300) < n, 0, before)
    return {"zero": (_err(env.numpy(buf), want), 0)}


def check_softmax(env) -> dict:
    m, n = 64, 300
    x, y = env.randn((m, n), "fp32", 3), env.zeros((m, n), "fp32")
    env.kt.softmax_kernel[(m,)](y, x, n, n, n, BLOCK_SIZE=env.triton.next_power_of_2(n))
    xs = env.numpy(x)
    p = np.exp(xs - xs.max(1, keepdims=True))
    # probabilities ≤ 1 from fp32 exp and a sum of 300: a few ulps of 1, far below 1e-6
    return {"softmax": (_err(env.numpy(y), p / p.sum(1, keepdims=True)), 1e-6)}


def _ln_reference(x, w, b, eps=1e-5):
    mean = x.mean(1, keepdims=True)
    rstd = 1 / np.sqrt(((x - mean) ** 2).mean(1, keepdims=True) + eps)
    return (x - mean) * rstd * w + b, mean[:, 0], rstd[:, 0]


def check_layer_norm(env) -> dict:
    m, n, group = 96, 1000, 8
    x, dy = env.randn((m, n), "fp16", 4), env.randn((m, n), "fp16", 5)
    w, b = env.randn(n, "fp16", 6, 0.5), env.randn(n, "fp16", 7, 0.5)
    y, mean, rstd = env.zeros((m, n), "fp16"), env.zeros(m, "fp32"), env.zeros(m, "fp32")
    block = env.triton.next_power_of_2(n)
    env.kt.layer_norm_fwd[(m,)](x, y, w, b, mean, rstd, n, n, 1e-5, BLOCK_SIZE=256)  # 4 column blocks, the last part
    xs, ws, bs, dys = (env.numpy(a) for a in (x, w, b, dy))
    ref, ref_mean, ref_rstd = _ln_reference(xs, ws, bs)
    # y in fp16, |y| < 8 (|x̂| < 5, |w|, |b| < 2): half an ulp is 2^-9 < 4e-3; mean and rstd in fp32 (rstd ≈ 1)
    out = {"layer norm forward": (_err(env.numpy(y), ref), 4e-3),
           "layer norm mean, rstd": (max(_err(env.numpy(mean), ref_mean), _err(env.numpy(rstd), ref_rstd)), 1e-4)}
    dx, dw_part, db_part = env.zeros((m, n), "fp16"), env.zeros((group, n), "fp16"), env.zeros((group, n), "fp16")
    locks, dw, db = env.zeros(2 * group, "int32"), env.zeros(n, "fp16"), env.zeros(n, "fp16")
    env.kt.layer_norm_bwd_dx[(m,)](dx, dy, dw_part, db_part, x, w, mean, rstd, locks, n, n, GROUP_SIZE_M=group,
                                   BLOCK_SIZE_N=block)
    env.kt.layer_norm_bwd_dwdb[(env.triton.cdiv(n, 128),)](dw_part, db_part, dw, db, group, n, BLOCK_SIZE_M=32,
                                                            BLOCK_SIZE_N=128)
    xhat = (xs - ref_mean[:, None]) * ref_rstd[:, None]
    wdy = ws * dys
    c1 = (xhat * wdy).mean(1, keepdims=True)
    c2 = wdy.mean(1, keepdims=True)
    ref_dx = (wdy - (xhat * c1 + c2)) * ref_rstd[:, None]
    # dx in fp16, |dx| < 8: half an ulp 2^-9, and the fp16 inputs' products summed in fp32
    out["layer norm backward dx"] = (_err(env.numpy(dx), ref_dx), 8e-3)
    # dW, dB: 96 rows summed into 8 fp16 partial sums of 12 rows each (|sum| < 64: 12 roundings of at most
    # half an ulp, 2^-6, is 0.19), then in fp32
    out["layer norm backward dW, dB"] = (max(_err(env.numpy(dw), (dys * xhat).sum(0)),
                                             _err(env.numpy(db), dys.sum(0))), 0.25)
    return out


#: name → (dtype, layout, input precision). The reference multiplies the inputs as stored (decoded), so what
#: remains is C's rounding to fp16 (half an ulp, 2^-11 of |C| at most) and, for TF32 dots, the inputs' rounding
#: to 10-bit mantissas (2^-11 each, about √K·2^-11 of |C| over K random products): 2·10⁻³ of the largest |C|.
MATMUL_CHECKS = {
    "matmul fp16": ("fp16", "rrr", None),
    "matmul bf16, B and C column-major": ("bf16", "rcc", None),
    "matmul fp8 e5m2, B column-major": ("fp8e5", "rcr", None),
    "matmul fp32 with TF32 dots": ("fp32", "rrr", "tf32"),
}


def matmul_args(env, a, b, c, m, n, k, layout):
    """The kernel's arguments for A (M × K), B (K × N) and C (M × N) stored as ``layout`` says
    (``"r"``: row-major, ``"c"``: column-major, for A, B, C in turn)."""
    sa = (k, 1) if layout[0] == "r" else (1, m)
    sb = (n, 1) if layout[1] == "r" else (1, k)
    sc = (n, 1) if layout[2] == "r" else (1, m)
    return (a, b, c, m, n, k, *sa, *sb, *sc)


def check_matmul(env) -> dict:
    m, n, k = 200, 136, 96  # no dimension a multiple of its 64-wide block but K
    out = {}
    for name, (dtype, layout, precision) in MATMUL_CHECKS.items():
        a = env.randn(m * k, dtype, 8)
        b = env.randn(k * n, dtype, 9)
        c = env.zeros(m * n, "fp16" if dtype != "fp32" else "fp32")
        grid = (env.triton.cdiv(m, 64) * env.triton.cdiv(n, 64),)
        env.kt.matmul_kernel[grid](*matmul_args(env, a, b, c, m, n, k, layout), BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,
                                   BLOCK_SIZE_K=32, GROUP_SIZE_M=2, BITCAST=env.bitcast[dtype], PRECISION=precision)
        an = env.numpy(a, dtype).reshape(m, k) if layout[0] == "r" else env.numpy(a, dtype).reshape(k, m).T
        bn = env.numpy(b, dtype).reshape(k, n) if layout[1] == "r" else env.numpy(b, dtype).reshape(n, k).T
        cn = env.numpy(c).reshape(m, n) if layout[2] == "r" else env.numpy(c).reshape(n, m).T
        ref = an @ bn
        out[name] = (_err(cn, ref), 2e-3 * float(np.abs(ref).max()))
    return out


def attention_reference(q, k, v, scale, causal):
    """softmax(QKᵀ·scale)·V in float64, and the log2-sum-exp of each row of scores × log2 e."""
    s = q @ np.swapaxes(k, -1, -2) * scale
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    mx = s.max(-1, keepdims=True)
    p = np.exp(s - mx)
    lse2 = (mx[..., 0] + np.log(p.sum(-1))) * LOG2E
    return (p / p.sum(-1, keepdims=True)) @ v, lse2, p / p.sum(-1, keepdims=True)


def run_attention_fwd(env, q, k, v, n, d, causal, heads, ws=False, qk_dtype="fp16", config=None):
    """The forward launch of the harness at a small size (``ws``: warp-specialised; ``qk_dtype``: the dtype
    of q, k and O, V being fp16): returns O and the row statistics M."""
    from .cases import attn_config

    bm, bn, warps, stages = config or attn_config(d)
    o, lse = env.zeros((1, heads, n, d), qk_dtype), env.zeros((1, heads, n), "fp32")
    env.kt.attn_fwd[(env.triton.cdiv(n, bm), heads)](q, k, v, lse, o, d ** -0.5, n, HEAD_DIM=d, BLOCK_M=bm,
                                                     BLOCK_N=bn, CAUSAL=causal, WARP_SPECIALIZE=ws,
                                                     QK_BITCAST=env.bitcast[qk_dtype], num_warps=warps,
                                                     num_stages=stages)
    return o, lse


def check_attention(env) -> dict:
    heads, n = 2, 256
    out = {}
    for d, causal, ws in ((64, False, False), (64, True, False), (128, False, False), (128, False, True)):
        q, k, v = (env.randn((1, heads, n, d), "fp16", s) for s in (10, 11, 12))
        o, lse = run_attention_fwd(env, q, k, v, n, d, causal, heads, ws)
        ref, ref_lse, _ = attention_reference(*(env.numpy(t) for t in (q, k, v)), d ** -0.5, causal)
        name = f"attention forward d {d}{', causal' if causal else ''}{', warp-specialised' if ws else ''}"
        # O in fp16 (|o| < 4: half an ulp 2^-10), P rounded to fp16 before P·V (2^-11 of each term): 1e-2;
        # the row statistics are fp32 sums of exponentials: 1e-4
        out[name] = (_err(env.numpy(o), ref), 1e-2)
        out[name + ", row statistics"] = (_err(env.numpy(lse), ref_lse), 1e-4)
    # the 2023-10 tutorial's fp8 forward (AF-17): q, k and O stored as fp8 e5m2, V fp16, causal, its H100 tiles
    from .cases import TUT06_2023_H100

    q, k = (env.randn((1, heads, n, 64), "fp8e5", s) for s in (18, 19))
    v = env.randn((1, heads, n, 64), "fp16", 20)
    o, lse = run_attention_fwd(env, q, k, v, n, 64, True, heads, qk_dtype="fp8e5", config=TUT06_2023_H100)
    ref, ref_lse, _ = attention_reference(env.numpy(q, "fp8e5"), env.numpy(k, "fp8e5"), env.numpy(v), 64 ** -0.5,
                                          True)
    # q and k are exact in fp8 and their products exact in the fp32 dot, so the row statistics keep 1e-4; O is
    # rounded to e5m2 after P·V's 1e-2: 2 mantissa bits, half an ulp at most 2^-3 of |o|, so each element's
    # error less 2^-3·|ref| is at most 1e-2·(1 + 2^-3) < 1.2e-2
    name = "attention forward d 64, causal, fp8 e5m2 q, k and O"
    out[name] = (float((np.abs(env.numpy(o, "fp8e5") - ref) - 2 ** -3 * np.abs(ref)).max()), 1.2e-2)
    out[name + ", row statistics"] = (_err(env.numpy(lse), ref_lse), 1e-4)
    return out


def check_attention_bwd(env, dq_atomic: bool = False) -> dict:
    from .cases import BWD

    heads, n, d = 2, 256, 64
    scale = d ** -0.5
    q, k, v, do = (env.randn((1, heads, n, d), "fp16", s) for s in (13, 14, 15, 16))
    o, lse = run_attention_fwd(env, q, k, v, n, d, False, heads)
    delta = env.zeros((1, heads, n), "fp32")
    dq, dk, dv = (env.zeros((1, heads, n, d), "fp16") for _ in range(3))
    # FlashAttention's float32 dQ accumulator, left holding garbage as torch.empty leaves it: the preprocess
    # zeroes it (CLEAR_DQ), else dQ comes out wrong
    dq_acc = env.randn((1, heads, n, d), "fp32", 17) if dq_atomic else dq
    env.kt.attn_bwd_preprocess[(n // 128, heads)](o, do, delta, dq_acc, n, HEAD_DIM=d, BLOCK_M=128,
                                                  CLEAR_DQ=dq_atomic)
    k_scaled = k * (scale * LOG2E)  # the caller pre-scales K by scale · log2 e (tutorial 06 does, in torch)
    m1, n1, m2, n2, warps, stages = BWD
    env.kt.attn_bwd[(n // n1, 1, heads)](q, k_scaled, v, scale, do, dq_acc, dk, dv, lse, delta, n, HEAD_DIM=d,
                                         BLOCK_M1=m1, BLOCK_N1=n1, BLOCK_M2=m2, BLOCK_N2=n2, num_warps=warps,
                                         num_stages=stages, **({"DQ_ATOMIC": True} if dq_atomic else {}))
    if dq_atomic:
        env.kt.attn_bwd_dq_convert[(heads * n * d // 1024,)](dq_acc, dq, BLOCK=1024)
    qn, kn, vn, don = (env.numpy(t) for t in (q, k, v, do))
    ref_o, _, p = attention_reference(qn, kn, vn, scale, False)
    dp = don @ np.swapaxes(vn, -1, -2)
    ds = p * (dp - (don * ref_o).sum(-1, keepdims=True))
    # delta from the fp16 O (2^-11 of each of 64 terms); dV, dK, dQ in fp16 (|·| < 4) from P and dS rounded to
    # fp16 before their dots, and K rounded to fp16 after its scaling: 2e-2
    return {"attention backward delta": (_err(env.numpy(delta), (don * ref_o).sum(-1)), 1e-2),
            "attention backward dV": (_err(env.numpy(dv), np.swapaxes(p, -1, -2) @ don), 2e-2),
            "attention backward dK": (_err(env.numpy(dk), np.swapaxes(ds, -1, -2) @ qn * scale), 2e-2),
            "attention backward dQ": (_err(env.numpy(dq), ds @ kn * scale), 2e-2)}


def check_attention_bwd_5_dots(env) -> dict:
    """The backward with FlashAttention-2's and -3's five dots: dQ added by atomics (``DQ_ATOMIC``), then converted;
    the same limits (its dQ sums 2 key blocks' fp32 dS·K, each from fp16 operands)."""
    return {name.replace("backward", "backward (5 dots)"): v for name, v in check_attention_bwd(env, True).items()}


CHECKS = (check_add, check_zero, check_softmax, check_layer_norm, check_matmul, check_attention, check_attention_bwd,
          check_attention_bwd_5_dots)


def run_all(env, checks=CHECKS) -> dict:
    """Every check on ``env``; raises AssertionError naming the first kernel whose error is over its limit."""
    results = {}
    for check in checks:
        for name, (err, limit) in check(env).items():
            if not err <= limit:
                raise AssertionError(f"{name} on {env.name}: largest error {err:.3g} over the limit {limit:.3g}")
            results[name] = (err, limit)
    return results
