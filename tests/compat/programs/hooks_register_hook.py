"""In the spirit of torch's register_hook docstring: a hook that doubles the gradient, a hook on
an intermediate tensor that only looks, and a hook removed through its handle."""
import torch

v = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
h = v.register_hook(lambda grad: grad * 2)
v.backward(torch.tensor([1.0, 2.0, 3.0]))
print(v.grad)
h.remove()
v.grad = None
v.backward(torch.tensor([1.0, 2.0, 3.0]))
print(v.grad)

seen = []
torch.manual_seed(0)
x = torch.randn(4, requires_grad=True)
y = x.tanh()
y.register_hook(lambda grad: seen.append(grad.tolist()))
z = (y * y).sum()
z.backward()
print(seen)
print(x.grad)

order = []
w = torch.ones(2, requires_grad=True)
w.register_hook(lambda g: order.append("first") or g + 1)
w.register_hook(lambda g: order.append("second") or g * 10)
(w * 3).sum().backward()
print(order, w.grad)
