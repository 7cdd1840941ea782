"""Higher derivatives as learners take them: autograd.grad with create_graph, a second and a
third derivative, a gradient accumulated over two backward calls with retain_graph."""
import torch
from torch import autograd

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
y = x ** 3 * torch.sin(x)
(dy,) = autograd.grad(y.sum(), x, create_graph=True)
(d2y,) = autograd.grad(dy.sum(), x, create_graph=True)
(d3y,) = autograd.grad(d2y.sum(), x)
print(dy.tolist())
print(d2y.tolist())
print(d3y.tolist())

z = (x * x).sum()
z.backward(retain_graph=True)
z.backward()
print(x.grad)

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
f = a * a * b + b.exp()
ga, gb = autograd.grad(f, (a, b), create_graph=True)
print(ga.item(), gb.item())
print(autograd.grad(ga, b, retain_graph=True)[0].item(), autograd.grad(gb, b)[0].item())
unused = torch.tensor(1.0, requires_grad=True)
print(autograd.grad(a * 2, (a, unused), allow_unused=True))
