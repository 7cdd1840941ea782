"""Run every workload, all engines in one single-threaded process; print the markdown tables.

    python benchmarks/run.py                  full sizes; also rewrites the results in README.md
    python benchmarks/run.py --quick          tiny sizes, for the smoke test; writes no README
    python benchmarks/run.py --json out.json  also save every number (all runs, checks, targets)

Exits with status 1 if a correctness check fails (engines disagree); a missed speed target is
reported, not an error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKLOADS = ("two_layer_net", "scalar_chain", "small_mlp", "reinforce")
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
# Some machines set these for old OpenBLAS builds; they make a current numpy use a slower
# kernel. A full benchmark run drops both (in its own process only); --quick keeps them.
OPENBLAS_OVERRIDES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
START, END = "<!-- results: start (written by benchmarks/run.py) -->", "<!-- results: end -->"


def single_threaded(drop_openblas_overrides: bool) -> list[str]:
    """Set the thread variables; must run before numpy or torch is imported to take effect."""
    if "numpy" in sys.modules:
        raise RuntimeError("single_threaded() must run before numpy is imported")
    for name in THREAD_VARIABLES:
        os.environ[name] = "1"
    if not drop_openblas_overrides:
        return []
    unset = [name for name in OPENBLAS_OVERRIDES if name in os.environ]
    for name in OPENBLAS_OVERRIDES:
        os.environ.pop(name, None)
    return unset


def write_readme(section: str) -> None:
    """Replace the text between the result markers of README.md (append them if missing)."""
    readme = HERE / "README.md"
    text = readme.read_text() if readme.exists() else ""
    block = f"{START}\n{section}{END}"
    if START in text and END in text:
        before, rest = text.split(START, 1)
        text = before + block + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + block + "\n"
    readme.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (smoke test)")
    parser.add_argument("--json", type=Path, help="write all results to this JSON file")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per engine (best of)")
    parser.add_argument("--only", default=",".join(WORKLOADS),
                        help=f"comma-separated subset of {', '.join(WORKLOADS)}")
    parser.add_argument("--no-readme", action="store_true", help="leave README.md as it is")
    args = parser.parse_args(argv)
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(WORKLOADS))
    if unknown:
        parser.error(f"unknown workload(s) {unknown}; choose from {', '.join(WORKLOADS)}")

    unset = single_threaded(drop_openblas_overrides=not args.quick)
    import torch

    torch.set_num_threads(1)
    # Import the workloads as the package `benchmarks`, not as top-level modules of this folder.
    sys.path = [str(HERE.parent)] + [p for p in sys.path if Path(p or ".").resolve() != HERE]
    import importlib

    from benchmarks import machine, results

    repeats = 1 if args.quick else args.repeats
    info = machine.describe(unset)
    sections = [f"Machine:\n\n{machine.markdown(info)}"]
    print(sections[0], flush=True)
    done = []
    for name in chosen:
        workload = importlib.import_module(f"benchmarks.{name}").run(args.quick, repeats)
        done.append(workload)
        sections.append(results.markdown(workload))
        print(sections[-1], flush=True)

    if args.json:
        args.json.write_text(json.dumps(
            {"quick": args.quick, "repeats": repeats, "machine": info,
             "workloads": [w.as_json() for w in done]}, indent=2) + "\n")
    if not (args.quick or args.no_readme or len(chosen) < len(WORKLOADS)):
        write_readme("\n".join(sections))
    failed = [check.text for w in done for check in w.checks if not check.ok]
    for text in failed:
        print(f"CHECK FAILED: {text}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
