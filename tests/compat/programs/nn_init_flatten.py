"""nn.init as learners call it on their layers (uniform_, normal_, constant_, zeros_, ones_,
xavier_*, kaiming_*), and nn.Flatten / nn.Unflatten shapes."""
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(5, 4)
nn.init.uniform_(layer.weight, a=-0.5, b=0.5)
nn.init.zeros_(layer.bias)
print(layer.weight, layer.bias)
nn.init.normal_(layer.weight, mean=0.0, std=0.02)
nn.init.constant_(layer.bias, 0.1)
print(layer.weight, layer.bias)
nn.init.xavier_uniform_(layer.weight)
print(layer.weight.tolist())
nn.init.xavier_normal_(layer.weight, gain=nn.init.calculate_gain("tanh"))
print(layer.weight.tolist())
nn.init.kaiming_uniform_(layer.weight, nonlinearity="relu")
print(layer.weight.tolist())
nn.init.kaiming_normal_(layer.weight, mode="fan_out", nonlinearity="relu")
print(layer.weight.tolist())
ones = torch.empty(2, 3)
nn.init.ones_(ones)
print(ones)


def init_weights(m):
    if isinstance(m, nn.Linear):
        torch.nn.init.xavier_uniform_(m.weight)
        m.bias.data.fill_(0.01)


net = nn.Sequential(nn.Flatten(), nn.Linear(12, 3), nn.ReLU(), nn.Linear(3, 12),
                    nn.Unflatten(1, (3, 4)))
net.apply(init_weights)
x = torch.randn(2, 3, 4)
out = net(x)
print(out.shape, nn.Flatten(0, 1)(x).shape)
out.sum().backward()
print([p.grad.abs().sum().item() for p in net.parameters()])
