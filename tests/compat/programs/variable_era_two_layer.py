"""A 2017-2018 training loop as many learners still copy it: Variables, updates through .data,
gradients zeroed through .grad.data, and a loss read with .item()."""
import torch
from torch.autograd import Variable

torch.manual_seed(0)
dtype = torch.FloatTensor
N, D_in, H, D_out = 8, 20, 10, 3
x = Variable(torch.randn(N, D_in).type(dtype), requires_grad=False)
y = Variable(torch.randn(N, D_out).type(dtype), requires_grad=False)
w1 = Variable(torch.randn(D_in, H).type(dtype), requires_grad=True)
w2 = Variable(torch.randn(H, D_out).type(dtype), requires_grad=True)

learning_rate = 1e-4
for t in range(50):
    y_pred = x.mm(w1).clamp(min=0).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    if t % 10 == 0:
        print(t, loss.item())
    loss.backward()
    w1.data -= learning_rate * w1.grad.data
    w2.data -= learning_rate * w2.grad.data
    w1.grad.data.zero_()
    w2.grad.data.zero_()

print(type(w1).__name__, w1.requires_grad, x.requires_grad)
print("final", w2.data.tolist())
