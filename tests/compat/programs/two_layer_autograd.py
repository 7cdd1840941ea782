"""In the spirit of the two-layer net with autograd: random data, h = relu(x w1), y = h w2,
a sum-of-squares loss, weights updated by hand, gradients zeroed in place."""
import torch

dtype = torch.float
device = torch.device("cpu")
torch.manual_seed(0)

N, D_in, H, D_out = 16, 50, 20, 5
x = torch.randn(N, D_in, device=device, dtype=dtype)
y = torch.randn(N, D_out, device=device, dtype=dtype)
w1 = torch.randn(D_in, H, device=device, dtype=dtype, requires_grad=True)
w2 = torch.randn(H, D_out, device=device, dtype=dtype, requires_grad=True)

learning_rate = 1e-5
for t in range(100):
    y_pred = x.mm(w1).clamp(min=0).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    if t % 20 == 19:
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        w1 -= learning_rate * w1.grad
        w2 -= learning_rate * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()

print("w1", w1.tolist())
print("w2", w2.tolist())
