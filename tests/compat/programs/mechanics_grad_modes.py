"""In the spirit of the "Autograd mechanics" note on grad modes: no_grad, enable_grad inside it,
set_grad_enabled as a function and a context, inference_mode, and no_grad as a decorator."""
import torch

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
with torch.no_grad():
    y = x * 2
    with torch.enable_grad():
        z = x * 2
print(y.requires_grad, z.requires_grad)

is_train = False
with torch.set_grad_enabled(is_train):
    y = x * 2
print(y.requires_grad)
torch.set_grad_enabled(True)
y = x * 2
print(y.requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(False)
y = x * 2
print(y.requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(True)

with torch.inference_mode():
    w = x * x
print(w.requires_grad)


@torch.no_grad()
def doubler(t):
    return t * 2


print(doubler(x).requires_grad)
model = torch.nn.Linear(3, 2)
model.eval()
with torch.no_grad():
    out = model(x)
print(out.requires_grad, out.grad_fn is None)
print(out.tolist())
