"""In the spirit of WGAN-GP training code: the gradient penalty on random interpolates between
real and fake samples, taken with autograd.grad(create_graph=True) and a norm over dim 1."""
import torch
import torch.nn as nn
from torch import autograd

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))
LAMBDA = 10


def calc_gradient_penalty(netD, real_data, fake_data):
    alpha = torch.rand(real_data.size(0), 1)
    alpha = alpha.expand(real_data.size())
    interpolates = alpha * real_data + ((1 - alpha) * fake_data)
    interpolates = autograd.Variable(interpolates, requires_grad=True)
    disc_interpolates = netD(interpolates)
    gradients = autograd.grad(outputs=disc_interpolates, inputs=interpolates,
                              grad_outputs=torch.ones(disc_interpolates.size()),
                              create_graph=True, retain_graph=True, only_inputs=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA


for step in range(8):
    real = torch.randn(16, 3) + 2
    fake = torch.randn(16, 3)
    optimizer.zero_grad()
    d_real = critic(real).mean()
    d_fake = critic(fake).mean()
    penalty = calc_gradient_penalty(critic, real, fake)
    loss = d_fake - d_real + penalty
    loss.backward()
    optimizer.step()
    print(step, loss.item(), penalty.item())

print("final", [p.tolist() for p in critic.parameters()])
