"""In the spirit of d2l's activation-function section and its concise chapters: ReLU, sigmoid
and tanh of torch.arange(-8.0, 8.0, 0.1, requires_grad=True) with their gradients
(y.backward(torch.ones_like(x), retain_graph=True), x.grad.data.zero_()), then the concise
softmax regression and MLP: nn.Sequential(nn.Flatten(), nn.Linear, ...), net.apply(init_weights)
with nn.init.normal_(m.weight, std=0.01), nn.CrossEntropyLoss(reduction='none'), torch.optim.SGD,
a DataLoader over small synthetic images, and evaluation under net.eval() and no_grad."""
import torch
from torch import nn
from torch.utils import data

x = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
y = torch.relu(x)
y.backward(torch.ones_like(x), retain_graph=True)
print("relu'(x) at -0.1, 0, 0.1:", x.grad[79:82], "x[80] =", x[80].item())
print("relu'(x) is 1 at", int(x.grad.sum().item()), "of", x.numel(), "points")
y = torch.sigmoid(x)
x.grad.data.zero_()
y.backward(torch.ones_like(x), retain_graph=True)
print("sigmoid'(0) =", x.grad[80].item(), "max", x.grad.max().item())
y = torch.tanh(x)
x.grad.data.zero_()
y.backward(torch.ones_like(x), retain_graph=True)
print("tanh'(0) =", x.grad[80].item(), "tanh'(-8) =", x.grad[0].item())

torch.manual_seed(0)
centres = torch.randn(4, 1, 6, 6)
labels = torch.randint(0, 4, (96,))
images = centres[labels] + 0.8 * torch.randn(96, 1, 6, 6)
train_iter = data.DataLoader(data.TensorDataset(images[:64], labels[:64]), batch_size=16,
                             shuffle=True)
test_iter = data.DataLoader(data.TensorDataset(images[64:], labels[64:]), batch_size=16)


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


def evaluate_accuracy(net, data_iter):
    net.eval()
    right = total = 0
    with torch.no_grad():
        for X, y in data_iter:
            right += (net(X).argmax(axis=1) == y).sum().item()
            total += y.numel()
    return right / total


def train(net, lr, num_epochs):
    net.apply(init_weights)
    loss = nn.CrossEntropyLoss(reduction="none")
    trainer = torch.optim.SGD(net.parameters(), lr=lr)
    for epoch in range(num_epochs):
        net.train()
        total = 0.0
        for X, y in train_iter:
            l = loss(net(X), y)
            trainer.zero_grad()
            l.mean().backward()
            trainer.step()
            total += l.sum().item()
        print(f"epoch {epoch + 1}, loss {total / 64:.5f}, test acc {evaluate_accuracy(net, test_iter):.3f}")


softmax_net = nn.Sequential(nn.Flatten(), nn.Linear(36, 4))
train(softmax_net, 0.1, 3)
mlp = nn.Sequential(nn.Flatten(), nn.Linear(36, 32), nn.ReLU(), nn.Linear(32, 4))
train(mlp, 0.3, 4)
print(mlp)
print(mlp[1].weight.grad.shape, mlp[3].bias)
