# compat-rtol: 2e-3 (float32 SGD over 250 steps: the engines' matrix products round their
# sums differently, in a way that depends on the CPU, and steps can amplify it; on one AMD EPYC
# with AVX-512 the printed numbers agree to 2e-7 relatively, while makemore_mlp.py's loop parts
# by 7.5e-4 there)
"""In the spirit of makemore part 3: hand-made Linear, BatchNorm1d and Tanh layers (running
statistics updated under no_grad), the output layer made less confident and the Linear
weights scaled by 5/3, layer.out.retain_grad(), activation and gradient statistics with
histograms, update-to-data ratios; then the same network from torch.nn (nn.Embedding,
nn.Linear without bias, nn.BatchNorm1d, nn.Tanh in nn.Sequential) evaluated in eval mode."""
import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia",
         "harper", "evelyn", "abigail", "emily", "elizabeth", "mila", "ella", "avery"]
chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
vocab_size = len(stoi)
block_size = 3


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            X.append(context)
            Y.append(stoi[ch])
            context = context[1:] + [stoi[ch]]
    return torch.tensor(X), torch.tensor(Y)


Xtr, Ytr = build_dataset(words[:13])
Xdev, Ydev = build_dataset(words[13:])
g = torch.Generator().manual_seed(2147483647)


class Linear:
    def __init__(self, fan_in, fan_out, bias=True):
        self.weight = torch.randn((fan_in, fan_out), generator=g) / fan_in**0.5
        self.bias = torch.zeros(fan_out) if bias else None

    def __call__(self, x):
        self.out = x @ self.weight
        if self.bias is not None:
            self.out += self.bias
        return self.out

    def parameters(self):
        return [self.weight] + ([] if self.bias is None else [self.bias])


class BatchNorm1d:
    def __init__(self, dim, eps=1e-5, momentum=0.1):
        self.eps = eps
        self.momentum = momentum
        self.training = True
        self.gamma = torch.ones(dim)
        self.beta = torch.zeros(dim)
        self.running_mean = torch.zeros(dim)
        self.running_var = torch.ones(dim)

    def __call__(self, x):
        if self.training:
            xmean = x.mean(0, keepdim=True)
            xvar = x.var(0, keepdim=True)
        else:
            xmean = self.running_mean
            xvar = self.running_var
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps)
        self.out = self.gamma * xhat + self.beta
        if self.training:
            with torch.no_grad():
                self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * xmean
                self.running_var = (1 - self.momentum) * self.running_var + self.momentum * xvar
        return self.out

    def parameters(self):
        return [self.gamma, self.beta]


class Tanh:
    def __call__(self, x):
        self.out = torch.tanh(x)
        return self.out

    def parameters(self):
        return []


n_embd, n_hidden = 10, 64
C = torch.randn((vocab_size, n_embd), generator=g)
layers = [
    Linear(n_embd * block_size, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
    Linear(n_hidden, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
    Linear(n_hidden, vocab_size, bias=False), BatchNorm1d(vocab_size),
]
with torch.no_grad():
    layers[-1].gamma *= 0.1
    for layer in layers[:-1]:
        if isinstance(layer, Linear):
            layer.weight *= 5 / 3

parameters = [C] + [p for layer in layers for p in layer.parameters()]
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

ud = []
for i in range(150):
    ix = torch.randint(0, Xtr.shape[0], (32,), generator=g)
    Xb, Yb = Xtr[ix], Ytr[ix]
    emb = C[Xb]
    x = emb.view(emb.shape[0], -1)
    for layer in layers:
        x = layer(x)
    loss = F.cross_entropy(x, Yb)
    for layer in layers:
        layer.out.retain_grad()
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 100 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    with torch.no_grad():
        ud.append([((lr * p.grad).std() / p.data.std()).log10().item() for p in parameters])
    if i % 50 == 0:
        print(f"{i:7d}/{150:7d}: {loss.item():.4f}")

for i, layer in enumerate(layers[:-1]):
    if isinstance(layer, Tanh):
        t = layer.out
        print("layer %d (%10s): mean %+.2f, std %.2f, saturated: %.2f%%" % (
            i, layer.__class__.__name__, t.mean(), t.std(), (t.abs() > 0.97).float().mean() * 100))
        hy, hx = torch.histogram(t, density=True)
        print(f"  histogram: {hy.shape[0]} bins from {hx[0].item():.4f} to {hx[-1].item():.4f}, "
              f"peak {hy.max().item():.4f} at bin {hy.argmax().item()}")
        t = layer.out.grad
        print("  gradient: mean %+f, std %e" % (t.mean(), t.std()))
for i, p in enumerate(parameters):
    if p.ndim == 2:
        print("weight %10s | grad:data ratio %e | update:data %.2f" % (
            tuple(p.shape), p.grad.std() / p.std(), ud[-1][i]))

for layer in layers:
    if isinstance(layer, BatchNorm1d):
        layer.training = False
x = C[Xdev].view(Xdev.shape[0], -1)
for layer in layers:
    x = layer(x)
print("dev loss (hand-made layers)", F.cross_entropy(x, Ydev).item())

# the same network from torch.nn
torch.manual_seed(42)
model = torch.nn.Sequential(
    torch.nn.Embedding(vocab_size, n_embd), torch.nn.Flatten(),
    torch.nn.Linear(n_embd * block_size, n_hidden, bias=False), torch.nn.BatchNorm1d(n_hidden),
    torch.nn.Tanh(), torch.nn.Linear(n_hidden, vocab_size, bias=False),
    torch.nn.BatchNorm1d(vocab_size),
)
with torch.no_grad():
    model[-1].weight *= 0.1
print(model)
for i in range(100):
    ix = torch.randint(0, Xtr.shape[0], (32,), generator=g)
    loss = F.cross_entropy(model(Xtr[ix]), Ytr[ix])
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= 0.1 * p.grad
print("train loss", loss.item(), "batches tracked", model[3].num_batches_tracked.item())
model.eval()
with torch.no_grad():
    print("dev loss (torch.nn)", F.cross_entropy(model(Xdev), Ydev).item())
print(model[3].running_mean[:4], model[3].running_var[:4])
