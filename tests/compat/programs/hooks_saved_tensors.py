"""In the spirit of torch's saved_tensors_hooks docstring: pack and unpack hooks see every tensor
the graph saves; a pair of hooks that stores copies, and one that counts."""
import torch

packed = []


def pack_hook(x):
    packed.append(tuple(x.shape))
    return x.clone()


def unpack_hook(x):
    return x


a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
y.sum().backward()
print(packed)
print(a.grad)

unpacked = []
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: unpacked.append(1) or t):
    z = x.pow(2).exp()
z.sum().backward()
print(len(unpacked), x.grad)
