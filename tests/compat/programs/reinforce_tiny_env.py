# compat-rtol: 1e-4 (the policy loss sums terms of size ~1 that the normalized returns make
# cancel to ~0.04: float32 rounding of the terms shows as ~3e-5 relative)
"""In the spirit of pytorch/examples' reinforce.py: a Policy with dropout and a softmax head,
actions drawn from Categorical, returns-to-go normalized, on a small deterministic corridor
(no gym): reach position 4 from 0 in at most 12 steps."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

gamma = 0.99
eps = np.finfo(np.float32).eps.item()


class Corridor:
    def reset(self):
        self.position, self.steps = 0, 0
        return self.observe()

    def observe(self):
        return np.array([self.position / 4, self.steps / 12, 1.0, -1.0])

    def step(self, action):
        self.position = max(0, self.position + (1 if action == 1 else -1))
        self.steps += 1
        done = self.position == 4 or self.steps == 12
        reward = 1.0 if self.position == 4 else -0.1
        return self.observe(), reward, done


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 16)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(16, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


torch.manual_seed(543)
env = Corridor()
policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=1e-2)


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    R = 0
    policy_loss = []
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return policy_loss.item()


for i_episode in range(1, 7):
    state, ep_reward = env.reset(), 0
    actions = []
    for _ in range(12):
        action = select_action(state)
        actions.append(action)
        state, reward, done = env.step(action)
        policy.rewards.append(reward)
        ep_reward += reward
        if done:
            break
    loss = finish_episode()
    print(f"Episode {i_episode}\tactions {actions}\treward {ep_reward:.2f}\tloss {loss}")

for name, param in policy.named_parameters():
    print(name, param.tolist())
