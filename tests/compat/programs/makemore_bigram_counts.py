"""In the spirit of makemore part 1: a bigram model from counts (an int32 table, smoothed,
normalised with keepdims), names sampled with multinomial from a seeded torch.Generator, the
negative log-likelihood printed with f-strings, then the same model as a one-layer net on
one-hot inputs, trained by gradient descent; and the embedding-row form W[xs] it equals."""
import itertools

import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "harper", "evelyn"]
chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
V = len(stoi)

N = torch.zeros((V, V), dtype=torch.int32)
for w in words:
    cs = [".", *w, "."]
    for a, b in itertools.pairwise(cs):
        N[stoi[a], stoi[b]] += 1
print(N.dtype, N.sum().item(), N[0].tolist())

P = (N + 1).float()
P /= P.sum(1, keepdims=True)
print(P[0].sum(), P.shape)

g = torch.Generator().manual_seed(2147483647)
for _ in range(5):
    ix, name = 0, []
    while True:
        ix = torch.multinomial(P[ix], num_samples=1, replacement=True, generator=g).item()
        if ix == 0:
            break
        name.append(itos[ix])
    print("".join(name))

log_likelihood, n = 0.0, 0
for w in words:
    cs = [".", *w, "."]
    for a, b in itertools.pairwise(cs):
        log_likelihood += torch.log(P[stoi[a], stoi[b]])
        n += 1
nll = -log_likelihood
print(f"{log_likelihood=}")
print(f"{nll=}")
print(f"{nll/n}")
print(f"average nll {nll / n:.4f}")

xs, ys = [], []
for w in words:
    cs = [".", *w, "."]
    for a, b in itertools.pairwise(cs):
        xs.append(stoi[a])
        ys.append(stoi[b])
xs, ys = torch.tensor(xs), torch.tensor(ys)
W = torch.randn((V, V), generator=g, requires_grad=True)
for k in range(20):
    xenc = F.one_hot(xs, num_classes=V).float()
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdims=True)
    loss = -probs[torch.arange(len(ys)), ys].log().mean() + 0.01 * (W**2).mean()
    W.grad = None
    loss.backward()
    W.data += -10 * W.grad
    if k % 5 == 0:
        print(f"step {k}: loss {loss.item():.6f}")
print(xenc.shape, xenc.dtype, (logits == W[xs]).all())
print(probs.argmax(axis=1)[:10])
print(probs.max(axis=1, keepdims=True).values[:3])
