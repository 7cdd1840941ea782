"""In the spirit of torch.autograd.functional's docstrings: vjp, jvp, hvp and vhp, each
returning the function's output alongside the product."""
import torch
from torch.autograd import functional as AF


def exp_reducer(x):
    return x.exp().sum(dim=1)


def adder(x, y):
    return 2 * x + 3 * y


def pow_reducer(x):
    return x.pow(3).sum()


torch.manual_seed(0)
inputs = torch.rand(4, 4)
v = torch.ones(4)
out, product = AF.vjp(exp_reducer, inputs, v)
print(out)
print(product)
out, product = AF.vjp(adder, (torch.rand(2), torch.rand(2)), torch.ones(2))
print(out, product)
out, product = AF.jvp(exp_reducer, inputs, torch.ones(4, 4))
print(out)
print(product)
x = torch.rand(2, 2)
v2 = torch.ones(2, 2)
print(AF.hvp(pow_reducer, x, v2))
print(AF.vhp(pow_reducer, x, v2))
