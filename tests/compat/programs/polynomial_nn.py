"""In the spirit of the polynomial-fit example with nn: features x, x^2, x^3 by a broadcast pow,
nn.Sequential(Linear, Flatten(0, 1)), MSELoss(reduction='sum'), updates by hand."""
import math

import torch

torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 500)
y = torch.sin(x)

p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
print(xx.shape, xx.dtype)

model = torch.nn.Sequential(
    torch.nn.Linear(3, 1),
    torch.nn.Flatten(0, 1),
)
loss_fn = torch.nn.MSELoss(reduction="sum")

learning_rate = 1e-5
for t in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 50 == 49:
        print(t, loss.item())
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad

linear_layer = model[0]
print(f"Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x"
      f" + {linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3")
