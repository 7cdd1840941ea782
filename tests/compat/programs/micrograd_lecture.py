"""In the spirit of the micrograd lecture: the single tanh neuron checked against PyTorch
(torch.Tensor([...]).double(), requires_grad set by hand, .data.item() and .grad.item()), then
the demo's training loop in tensor form: a 2-16-16-1 MLP with ReLU units on two interleaved
half circles, the max-margin loss with L2 regularisation, a decaying learning rate, and the
accuracy of the score's sign."""
import math

import torch

x1 = torch.Tensor([2.0]).double()
x1.requires_grad = True
x2 = torch.Tensor([0.0]).double()
x2.requires_grad = True
w1 = torch.Tensor([-3.0]).double()
w1.requires_grad = True
w2 = torch.Tensor([1.0]).double()
w2.requires_grad = True
b = torch.Tensor([6.8813735870195432]).double()
b.requires_grad = True
n = x1 * w1 + x2 * w2 + b
o = torch.tanh(n)

print(o.data.item())
o.backward()

print("---")
print("x2", x2.grad.item())
print("w2", w2.grad.item())
print("x1", x1.grad.item())
print("w1", w1.grad.item())

# the demo: two interleaved half circles, labels -1 and 1
points, labels = [], []
for i in range(40):
    angle = math.pi * i / 39
    points.append([math.cos(angle), math.sin(angle)])
    labels.append(-1.0)
    points.append([1 - math.cos(angle), 0.5 - math.sin(angle)])
    labels.append(1.0)
X = torch.tensor(points)
y = torch.tensor(labels)

torch.manual_seed(1337)
model = torch.nn.Sequential(
    torch.nn.Linear(2, 16), torch.nn.ReLU(),
    torch.nn.Linear(16, 16), torch.nn.ReLU(),
    torch.nn.Linear(16, 1),
)
print("number of parameters", sum(p.numel() for p in model.parameters()))


def loss_fn():
    scores = model(X).squeeze(1)
    losses = (1 + -y * scores).relu()
    data_loss = losses.mean()
    alpha = 1e-4
    reg_loss = alpha * sum((p * p).sum() for p in model.parameters())
    total_loss = data_loss + reg_loss
    accuracy = ((y > 0) == (scores.data > 0)).float().mean()
    return total_loss, accuracy


for k in range(50):
    total_loss, acc = loss_fn()
    model.zero_grad()
    total_loss.backward()
    learning_rate = 1.0 - 0.9 * k / 50
    for p in model.parameters():
        p.data -= learning_rate * p.grad
    if k % 10 == 0:
        print(f"step {k} loss {total_loss.item()}, accuracy {acc.item() * 100}%")
total_loss, acc = loss_fn()
print(f"final loss {total_loss.item():.6f}, accuracy {acc.item() * 100}%")
