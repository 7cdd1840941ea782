"""In the spirit of torch's register_post_accumulate_grad_hook docstring: the optimizer step
runs inside backward, right after each parameter's gradient is accumulated."""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 1))
lr = 0.05
order = []


def sgd_in_backward(param):
    order.append(tuple(param.shape))
    with torch.no_grad():
        param.add_(param.grad, alpha=-lr)
    param.grad = None


for p in model.parameters():
    p.register_post_accumulate_grad_hook(sgd_in_backward)

x = torch.randn(8, 4)
y = torch.randn(8, 1)
for step in range(5):
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    print(step, loss.item())
print(order[:4])
print([p.grad is None for p in model.parameters()])
print("final", [p.tolist() for p in model.parameters()])
