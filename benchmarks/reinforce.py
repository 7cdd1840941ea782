"""Workload: REINFORCE on CartPole-v1, the agent of the book's REINFORCE chapter, on each engine.

A 4 -> 128 -> 2 policy (nn.Linear + ReLU) picks actions with distributions.Categorical in 32
Gymnasium CartPoles run in lockstep (the vectorised CartPole); after each batch of 32 episodes
one forward pass recomputes the log-probabilities, weighted by returns-to-go normalised over
the batch's time steps, and Adam (lr 0.02) takes a step. Two measurements per engine:

- episodes per second over the first 128 episodes (4 updates), best of N: the agent's own
  cost, per-op overhead on small tensors plus Gymnasium's stepping, which both engines pay;
- wall time and episode count to solve the task (mean return >= 475 over 100 consecutive
  episodes), one run each from seed 0.

All engines draw the same random numbers (miniautograd replays torch's CPU generator), so
their first episodes are identical; rounding differences in the last bit make the runs
diverge after a few hundred episodes, so the episode counts to solve differ a little.
mygrad has no layers, distributions or optimizers: its program writes the policy out, samples
actions with torch's generator as numpy code (``miniautograd._random``, which replays it), and
takes torch's Adam steps on the numpy arrays (``numpy_adam.py``).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import gymnasium as gym
import mygrad as mg
import numpy as np
import torch

import miniautograd
from benchmarks.numpy_adam import Adam
from benchmarks.results import Check, WorkloadResult
from benchmarks.timing import measure
from miniautograd import _random

SOLVED_MEAN, SOLVED_WINDOW = 475.0, 100


def returns_to_go(rewards: np.ndarray, gamma: float) -> np.ndarray:
    """G_t = r_t + gamma G_{t+1} along axis 0 (time); axis 1 holds the batch's episodes."""
    returns = np.zeros_like(rewards)
    future = np.zeros_like(rewards[0])
    for t in reversed(range(len(rewards))):
        future = rewards[t] + gamma * future
        returns[t] = future
    return returns


def play(act: Callable[[np.ndarray], np.ndarray], envs: Any, seed: int) -> tuple[np.ndarray, ...]:
    """One episode per CartPole, in lockstep, each step's actions from ``act(observations)``:
    (time, episode) arrays of states, actions, rewards, and which steps are real."""
    observation, _ = envs.reset(seed=seed)
    alive = np.ones(envs.num_envs, dtype=bool)
    states, actions, rewards, running = [], [], [], []
    while alive.any():
        action = act(observation)
        next_observation, reward, terminated, truncated, _ = envs.step(action)
        states.append(observation)
        actions.append(action)
        rewards.append(reward * alive)
        running.append(alive)
        alive = alive & ~(terminated | truncated)
        observation = next_observation
    return np.stack(states), np.stack(actions), np.stack(rewards), np.stack(running)


def solved_after(returns: list[float]) -> int | None:
    """Episodes played when the last 100 first averaged >= 475, or None."""
    if len(returns) < SOLVED_WINDOW:
        return None
    means = np.convolve(returns, np.ones(SOLVED_WINDOW) / SOLVED_WINDOW, mode="valid")
    hits = np.flatnonzero(means >= SOLVED_MEAN)
    return int(hits[0]) + SOLVED_WINDOW if hits.size else None


def train(engine: ModuleType, max_episodes: int, stop_when_solved: bool, batch: int = 32,
          hidden: int = 128, lr: float = 0.02, gamma: float = 0.99,
          seed: int = 0) -> list[float]:
    """REINFORCE from ``seed``; the return of every episode played, in order."""
    engine.manual_seed(seed)
    nn = engine.nn
    policy = nn.Sequential(nn.Linear(4, hidden), nn.ReLU(), nn.Linear(hidden, 2))
    optimizer = engine.optim.Adam(policy.parameters(), lr=lr)
    envs = gym.make_vec("CartPole-v1", num_envs=batch, vectorization_mode="vector_entry_point")
    episode_returns: list[float] = []

    def act(observation: np.ndarray) -> np.ndarray:
        with engine.no_grad():
            logits = policy(engine.from_numpy(observation))
            return engine.distributions.Categorical(logits=logits).sample().numpy()

    while len(episode_returns) < max_episodes:
        states, actions, rewards, alive = play(act, envs, seed * 100_000 + len(episode_returns))
        returns = returns_to_go(rewards, gamma)[alive]
        weights = (returns - returns.mean()) / (returns.std() + 1e-8)
        dist = engine.distributions.Categorical(
            logits=policy(engine.from_numpy(states[alive])))
        log_probs = dist.log_prob(engine.from_numpy(actions[alive]))
        loss = -(log_probs * engine.from_numpy(weights)).sum() / batch
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        episode_returns += rewards.sum(axis=0).tolist()
        if stop_when_solved and solved_after(episode_returns) is not None:
            break
    envs.close()
    return episode_returns


# ---- mygrad: the same agent, written out -----------------------------------------------------


def _linear_init(fan_in: int, fan_out: int) -> tuple[np.ndarray, np.ndarray]:
    """nn.Linear's initial weight and bias, drawn as torch draws them (kaiming_uniform_)."""
    bound = math.sqrt(3.0) * (math.sqrt(2.0 / (1 + math.sqrt(5) ** 2)) / math.sqrt(fan_in))
    weight = _random.uniform_((fan_out, fan_in), -bound, bound, np.float32)
    bias = _random.uniform_((fan_out,), -1 / math.sqrt(fan_in), 1 / math.sqrt(fan_in), np.float32)
    return weight, bias


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _sample(logits: np.ndarray) -> np.ndarray:
    """Categorical(logits=logits).sample(): torch's multinomial call on the softmax."""
    normalised = _log_softmax(logits)
    shifted = np.exp(normalised - normalised.max(axis=-1, keepdims=True))
    probs = shifted / shifted.sum(axis=-1, keepdims=True)
    return _random.multinomial(probs, 1, True)[:, 0]


def train_mygrad(max_episodes: int, stop_when_solved: bool, batch: int = 32,
                 hidden: int = 128, lr: float = 0.02, gamma: float = 0.99,
                 seed: int = 0) -> list[float]:
    """REINFORCE from ``seed`` in mygrad; the return of every episode played, in order."""
    _random.manual_seed(seed)
    params = [mg.tensor(array) for array in (*_linear_init(4, hidden), *_linear_init(hidden, 2))]
    w1, b1, w2, b2 = params
    optimizer = Adam([param.data for param in params], lr=lr)

    def policy(states: np.ndarray) -> Any:
        return mg.matmul(mg.nnet.activations.relu(mg.matmul(states, w1.T) + b1), w2.T) + b2

    envs = gym.make_vec("CartPole-v1", num_envs=batch, vectorization_mode="vector_entry_point")
    episode_returns: list[float] = []

    def act(observation: np.ndarray) -> np.ndarray:
        with mg.no_autodiff:
            return _sample(policy(observation).data)

    while len(episode_returns) < max_episodes:
        states, actions, rewards, alive = play(act, envs, seed * 100_000 + len(episode_returns))
        returns = returns_to_go(rewards, gamma)[alive]
        weights = (returns - returns.mean()) / (returns.std() + 1e-8)
        log_probs = mg.nnet.activations.logsoftmax(policy(states[alive]), axis=-1)
        chosen = log_probs[np.arange(len(weights)), actions[alive]]
        loss = -(chosen * weights.astype(np.float32)).sum() / batch
        loss.backward()
        optimizer.step([param.grad for param in params])
        episode_returns += rewards.sum(axis=0).tolist()
        if stop_when_solved and solved_after(episode_returns) is not None:
            break
    envs.close()
    return episode_returns


TRAIN: dict[str, Callable[..., list[float]]] = {
    "miniautograd": functools.partial(train, miniautograd),
    "torch": functools.partial(train, torch),
    "mygrad": train_mygrad,
}


def time_to_solve(name: str, max_episodes: int) -> dict[str, Any]:
    start = time.perf_counter()
    returns = TRAIN[name](max_episodes, stop_when_solved=True)
    seconds = time.perf_counter() - start
    return {"solved_after": solved_after(returns), "episodes": len(returns),
            "steps": int(sum(returns)), "wall_s": seconds, "returns": returns}


def run(quick: bool, repeats: int) -> WorkloadResult:
    episodes, batch = (8, 4) if quick else (128, 32)
    cases = {name: functools.partial(run_engine, episodes, False, batch)
             for name, run_engine in TRAIN.items()}
    warmups = {name: functools.partial(run_engine, 2, False, 2)
               for name, run_engine in TRAIN.items()}
    results = measure(cases, repeats, warmups=warmups)
    for measurement in results.values():  # the value column: the mean return of those episodes
        measurement.value = float(np.mean(measurement.value))
    timed_returns = {name: cases[name]() for name in TRAIN}  # untimed re-run, for the check
    same = all(returns == timed_returns["torch"] for returns in timed_returns.values())
    checks = [Check(f"the first {episodes} episodes are identical in every engine", same)]
    notes = []
    for name, measurement in results.items():
        per_second = episodes / measurement.best_wall if measurement.best_wall else float("nan")
        notes.append(f"{name}: {per_second:.1f} episodes/s (wall, best run) over the first "
                     f"{episodes} episodes")
    extra: dict[str, Any] = {"episodes_timed": episodes}
    if not quick:
        solving = {name: time_to_solve(name, 3000) for name in TRAIN}
        for name, outcome in solving.items():
            checks.append(Check(f"{name} solves CartPole-v1 within 3000 episodes",
                                outcome["solved_after"] is not None))
            notes.append(f"{name}: solved after {outcome['solved_after']} episodes "
                         f"({outcome['steps']} steps) in {outcome['wall_s']:.1f} s wall")
        extra["solve"] = {name: {k: v for k, v in outcome.items() if k != "returns"}
                          for name, outcome in solving.items()}
        extra["first_different_episode"] = {}
        for name, outcome in solving.items():
            if name == "torch":
                continue
            pairs = zip(outcome["returns"], solving["torch"]["returns"], strict=False)
            first = next((k for k, (a, b) in enumerate(pairs) if a != b), None)
            notes.append(f"{name} plays the same episodes as torch until episode {first}")
            extra["first_different_episode"][name] = first
    return WorkloadResult(
        key="reinforce",
        title="REINFORCE on CartPole-v1 (4 -> 128 -> 2 policy, Categorical, Adam)",
        setup=(f"{episodes} episodes in batches of {batch} lockstep CartPoles from seed 0; "
               "returns-to-go normalised over each batch's time steps; Adam lr 0.02. Time to "
               "solve (mean return >= 475 over 100 episodes): one run per engine, in the notes."),
        value_label="mean return of the timed episodes",
        measurements=list(results.values()),
        baselines=["torch"],
        checks=checks,
        notes=notes,
        extra=extra,
    )


if __name__ == "__main__":  # python -m benchmarks.reinforce [--quick]
    import sys

    from benchmarks.results import markdown

    torch.set_num_threads(1)
    print(markdown(run("--quick" in sys.argv, repeats=3)))
