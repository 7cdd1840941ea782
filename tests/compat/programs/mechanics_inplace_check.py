"""In the spirit of the "Autograd mechanics" note on in-place correctness: version counters,
and the errors for a saved tensor changed in place and for an in-place op on a leaf."""
import torch

torch.manual_seed(0)
a = torch.randn(4, requires_grad=True)
b = a.sigmoid()
print(b._version)
c = b * 2
b.mul_(3)
print(b._version, c._version)
try:
    b.sum().backward()
    print("no error")
except RuntimeError as error:
    print(type(error).__name__, "modified by an inplace operation" in str(error))

d = a.exp()
d.add_(1)  # exp saves its output, so this in-place change spoils the graph
try:
    d.sum().backward()
except RuntimeError as error:
    print(type(error).__name__, "modified by an inplace operation" in str(error))

e = a * 1
e.add_(1)  # mul saves neither its output nor the result: this is fine
e.sum().backward()
print(a.grad)

try:
    a.add_(1)
except RuntimeError as error:
    print(type(error).__name__, "a leaf Variable that requires grad" in str(error))

with torch.no_grad():
    a.add_(1)
print(a._version, a.requires_grad, a.is_leaf)
print("final", a.tolist())
