"""Run compatibility programs on one engine, each in its own forked process; write a JSON report.

    python tests/compat/runner.py torch        out.json prog1.py prog2.py ...
    python tests/compat/runner.py miniautograd out.json prog1.py prog2.py ...

With ``miniautograd`` the import of ``torch`` and of every ``torch.<sub>`` module resolves to
``miniautograd`` and ``miniautograd.<sub>``: the program text runs unchanged, as a learner runs
it with ``import miniautograd as torch``. The engine is imported once; each program then runs
in a fork of this process, so no program sees another's seed, default device or hooks, and
no program pays for importing torch again.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import json
import os
import runpy
import sys
import tempfile
import time
import traceback
from pathlib import Path
from types import ModuleType

TIMEOUT_S = 60  # per program; each takes well under 3 s, the alarm only stops a hang


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolve ``torch.x.y`` to the already-importable module ``miniautograd.x.y``."""

    def find_spec(self, fullname: str, path: object = None, target: object = None):
        if not fullname.startswith("torch."):
            return None
        target_name = "miniautograd." + fullname[len("torch."):]
        if importlib.util.find_spec(target_name) is None:
            return None  # ModuleNotFoundError names the torch module the program asked for
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec) -> ModuleType:
        return importlib.import_module("miniautograd." + spec.name[len("torch."):])

    def exec_module(self, module: ModuleType) -> None:
        """The module ran when miniautograd imported it; nothing more to do."""


def install_swap() -> None:
    """Make ``import torch`` (and its submodules) give miniautograd."""
    import miniautograd

    sys.modules["torch"] = miniautograd
    sys.meta_path.insert(0, _Alias())


def run_one(program: Path) -> dict:
    """Fork; the child runs ``program`` with stdout and stderr in files; collect both."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            status = 1
            try:
                sys.stdout.flush()
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                sys.argv = [str(program)]
                import signal

                signal.alarm(TIMEOUT_S)
                runpy.run_path(str(program), run_name="__main__")
                status = 0
            except BaseException:  # noqa: BLE001 - the report carries every failure
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(status)
        _, wait_status = os.waitpid(pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        return {
            "returncode": os.waitstatus_to_exitcode(wait_status),
            "stdout": out.read().decode(),
            "stderr": err.read().decode(),
            "seconds": seconds,
        }


def warm_up() -> None:
    """Pay the engine's first-use costs once, before forking: torch imports parts of itself
    (the optimizers' compiler hooks, distributions) on first use, ~3 s that every forked program
    would pay again. Uses no random numbers, so each program's seeded stream is untouched."""
    import torch

    weight = torch.nn.Parameter(torch.ones(2))
    for optimizer in (torch.optim.SGD([weight], lr=0.1, momentum=0.9),
                      torch.optim.Adam([weight], lr=0.1)):
        (weight * weight).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
    torch.distributions.Categorical(probs=torch.ones(2) / 2).log_prob(torch.tensor(0))
    torch.autograd.gradcheck(torch.sin, (torch.ones(2, dtype=torch.double, requires_grad=True),))


def main(argv: list[str]) -> int:
    engine, report, *programs = argv
    if engine == "miniautograd":
        install_swap()
    elif engine == "torch":
        import torch

        torch.set_num_threads(1)
    else:
        raise SystemExit(f"unknown engine {engine!r}: use torch or miniautograd")
    warm_up()
    results = {Path(p).name: run_one(Path(p)) for p in programs}
    Path(report).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
