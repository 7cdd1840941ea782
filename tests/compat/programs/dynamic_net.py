"""In the spirit of the dynamic-graph example: each forward pass draws a depth at random and
reuses the same middle Linear layer that many times (weight sharing)."""
import random

import torch


class DynamicNet(torch.nn.Module):
    def __init__(self, D_in, H, D_out):
        super().__init__()
        self.input_linear = torch.nn.Linear(D_in, H)
        self.middle_linear = torch.nn.Linear(H, H)
        self.output_linear = torch.nn.Linear(H, D_out)

    def forward(self, x):
        h_relu = self.input_linear(x).clamp(min=0)
        for _ in range(random.randint(0, 3)):
            h_relu = self.middle_linear(h_relu).clamp(min=0)
        return self.output_linear(h_relu)


random.seed(0)
torch.manual_seed(0)
N, D_in, H, D_out = 16, 30, 20, 3
x = torch.randn(N, D_in)
y = torch.randn(N, D_out)

model = DynamicNet(D_in, H, D_out)
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
for t in range(60):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 10 == 9:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

for name, param in model.named_parameters():
    print(name, tuple(param.shape), param.tolist())
