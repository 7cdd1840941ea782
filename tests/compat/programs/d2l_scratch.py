"""In the spirit of d2l's from-scratch chapters, on small synthetic images instead of
Fashion-MNIST: softmax regression (W from torch.normal, softmax by hand, the cross-entropy as
-log(y_hat[range(len(y_hat)), y]), accuracy with argmax(axis=1) and .type(y.dtype), sgd under
no_grad with param.grad.zero_()), then the MLP (nn.Parameter, relu as torch.max(X, zeros_like),
nn.CrossEntropyLoss(reduction='none'), torch.optim.SGD), fed by a shuffled DataLoader."""
import torch
from torch import nn
from torch.utils import data

torch.manual_seed(0)
num_inputs, num_outputs, n = 16, 3, 60
centres = torch.randn(num_outputs, 1, 4, 4) * 2
labels = torch.randint(0, num_outputs, (n,))
images = centres[labels] + torch.randn(n, 1, 4, 4)
train_iter = data.DataLoader(data.TensorDataset(images, labels), batch_size=16, shuffle=True)


class Accumulator:
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def __getitem__(self, idx):
        return self.data[idx]


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


# ---- softmax regression from scratch ----
W = torch.normal(0, 0.01, size=(num_inputs, num_outputs), requires_grad=True)
b = torch.zeros(num_outputs, requires_grad=True)


def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdim=True)
    return X_exp / partition


def net(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)


def cross_entropy(y_hat, y):
    return -torch.log(y_hat[range(len(y_hat)), y])


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


X = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(X.sum(0, keepdim=True), X.sum(1, keepdim=True))
y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y], cross_entropy(y_hat, y), accuracy(y_hat, y) / len(y))

for epoch in range(3):
    metric = Accumulator(3)
    for X, y in train_iter:
        y_hat = net(X)
        l = cross_entropy(y_hat, y)
        l.sum().backward()
        sgd([W, b], 0.1, X.shape[0])
        metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
    print(f"epoch {epoch + 1}, loss {metric[0] / metric[2]:.6f}, train acc {metric[1] / metric[2]:.3f}")

# ---- the MLP from scratch ----
num_hiddens = 32
W1 = nn.Parameter(torch.randn(num_inputs, num_hiddens, requires_grad=True) * 0.01)
b1 = nn.Parameter(torch.zeros(num_hiddens, requires_grad=True))
W2 = nn.Parameter(torch.randn(num_hiddens, num_outputs, requires_grad=True) * 0.01)
b2 = nn.Parameter(torch.zeros(num_outputs, requires_grad=True))
params = [W1, b1, W2, b2]


def relu(X):
    a = torch.zeros_like(X)
    return torch.max(X, a)


def mlp(X):
    X = X.reshape((-1, num_inputs))
    H = relu(X @ W1 + b1)
    return H @ W2 + b2


loss = nn.CrossEntropyLoss(reduction="none")
updater = torch.optim.SGD(params, lr=0.5)
for epoch in range(5):
    metric = Accumulator(3)
    for X, y in train_iter:
        y_hat = mlp(X)
        l = loss(y_hat, y)
        updater.zero_grad()
        l.mean().backward()
        updater.step()
        metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
    print(f"epoch {epoch + 1}, loss {metric[0] / metric[2]:.6f}, train acc {metric[1] / metric[2]:.3f}")
print(W1.grad.shape, b2)
