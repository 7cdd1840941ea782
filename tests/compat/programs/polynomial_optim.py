"""In the spirit of the polynomial-fit examples with an optimizer: nn.Sequential, a squeeze in
place of Flatten, MSELoss(reduction='sum'), SGD with momentum, then a custom Module with four
scalar Parameters trained the same way."""
import math

import torch
from torch import nn

torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 400)
y = torch.sin(x)
xx = torch.stack([x, x ** 2, x ** 3], dim=1)

model = nn.Sequential(nn.Linear(3, 1))
loss_fn = nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6, momentum=0.9)
for t in range(200):
    y_pred = model(xx).squeeze(1)
    loss = loss_fn(y_pred, y)
    if t % 40 == 39:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print([p.tolist() for p in model.parameters()])


class Polynomial3(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(torch.randn(()))
        self.b = nn.Parameter(torch.randn(()))
        self.c = nn.Parameter(torch.randn(()))
        self.d = nn.Parameter(torch.randn(()))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return (f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2"
                f" + {self.d.item()} x^3")


model = Polynomial3()
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(200):
    loss = criterion(model(x), y)
    if t % 40 == 39:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"Result: {model.string()}")
