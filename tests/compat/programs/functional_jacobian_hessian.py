"""In the spirit of torch.autograd.functional's docstrings: jacobian of a reducer and of a
two-input function, hessian of a scalar function, with and without create_graph."""
import torch
from torch.autograd.functional import hessian, jacobian


def exp_reducer(x):
    return x.exp().sum(dim=1)


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


def pow_reducer(x):
    return x.pow(3).sum()


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


torch.manual_seed(0)
inputs = torch.rand(2, 2)
print(jacobian(exp_reducer, inputs))
jac = jacobian(exp_reducer, inputs, create_graph=True)
print(jac.shape, jac.requires_grad)
pair = (torch.rand(2), torch.rand(2))
for block in jacobian(exp_adder, pair):
    print(block)
print(hessian(pow_reducer, torch.rand(2, 2)).shape)
print(hessian(pow_reducer, torch.tensor([1.0, -2.0, 0.5])))
for row in hessian(pow_adder_reducer, (torch.rand(2), torch.rand(2))):
    for block in row:
        print(block)
