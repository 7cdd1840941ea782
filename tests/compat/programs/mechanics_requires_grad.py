"""In the spirit of the "Autograd mechanics" note: requires_grad flows to outputs, a frozen
model fine-tuned in its last layer only, retain_grad on an intermediate, is_leaf."""
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(5, 5)
y = torch.randn(5, 5)
z = torch.randn((5, 5), requires_grad=True)
a = x + y
print(a.requires_grad)
b = a + z
print(b.requires_grad, b.is_leaf, z.is_leaf, a.is_leaf)

model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 4))
for param in model.parameters():
    param.requires_grad = False
model[2] = nn.Linear(8, 2)
optimizer = torch.optim.SGD(model[2].parameters(), lr=0.1)
inputs = torch.randn(3, 6)
loss = model(inputs).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
print([p.grad is None for p in model.parameters()])
print([p.requires_grad for p in model.parameters()])

w = torch.randn(3, requires_grad=True)
h = w * 2
h.retain_grad()
out = (h ** 2).sum()
out.backward()
print(h.grad)
print(w.grad)
print(h.is_leaf, h.requires_grad, h.grad_fn.name())
print("final", model[2].weight.tolist(), model[2].bias.tolist())
