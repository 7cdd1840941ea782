"""In-place unary ops as learners write them: cos_ and sin_ on a non-leaf, their backward,
and nn.ReLU(True) inside a Sequential."""
import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(5, requires_grad=True)
y = x * 1.5
y.cos_()
y.sin_()
print(y, y.grad_fn.name(), y._version)
y.sum().backward()
print(x.grad)

z = x.detach().clone()
z.exp_().log_()
print(torch.allclose(z, x.detach()))

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(True), nn.Linear(8, 2), nn.Sigmoid())
print(model)
inputs = torch.randn(3, 4)
out = model(inputs)
out.sum().backward()
print(out)
print(model[0].weight.grad.tolist(), model[2].weight.grad.tolist())
