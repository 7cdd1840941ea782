"""In the spirit of the current dynamic-net example: a polynomial of random degree 3 to 5 whose
extra terms all share one Parameter e."""
import math
import random

import torch


class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
        self.e = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y


random.seed(1)
torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 300)
y = torch.sin(x)
model = DynamicNet()
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for t in range(150):
    loss = criterion(model(x), y)
    if t % 30 == 29:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print([p.item() for p in model.parameters()])
