"""The Colab bootstrap cell does nothing outside Colab; in Colab it installs the companion
release the chapters were executed with (`miniautograd==<version of companion/pyproject.toml>`,
from PyPI) and the pinned extras; the chapters say which version they ran with.

The Colab-like test builds a venv with only tests/colab-requirements.txt under
_build/colab-venv (rebuilt when that file changes); each session first uninstalls what a
bootstrap cell installed. It then builds the companion's wheel from this checkout, as the
release workflow does, and offers it to pip as a local index (PIP_FIND_LINKS, pip's own
setting): the cell runs exactly the command a reader's Colab runs, and pip finds
`miniautograd==<version>` there, as a reader's pip finds it on PyPI.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import bootstrap_cell
import chapter_page
import check_publishing
import execute_notebooks
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output
from site_tools import CHAPTERS, ROOT

import miniautograd

VENV = ROOT / "_build" / "colab-venv"
REQUIREMENTS = ROOT / "tests" / "colab-requirements.txt"
RECORD = VENV / "colab-requirements.txt"
INSTALLED_BY_BOOTSTRAP = ("miniautograd", *bootstrap_cell.COLAB_EXTRAS)
RUNNER = ROOT / "scripts" / "execute_notebooks.py"
# What each chapter's first visible code cell prints (the versions the page was executed with;
# chapter_page.versions reads it back, as the page shows it).
VERSIONS_CODE = 'print(f"PyTorch {torch.__version__}, miniautograd {mini.__version__}")'


def run_bootstrap(
    monkeypatch: pytest.MonkeyPatch, installed: str | None = None
) -> list[list[str]]:
    """Execute the cell's source here, recording (not running) its pip commands, as if the
    companion were installed at version `installed` (None: not installed)."""
    commands: list[list[str]] = []
    monkeypatch.setattr(subprocess, "run", lambda command, **_: commands.append(command))
    real_version = importlib.metadata.version

    def version(name: str) -> str:
        if name != "miniautograd":
            return real_version(name)
        if installed is None:
            raise importlib.metadata.PackageNotFoundError(name)
        return installed

    monkeypatch.setattr(importlib.metadata, "version", version)
    exec(bootstrap_cell.bootstrap_source(), {})
    return commands


def test_outside_colab_the_cell_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(bootstrap_cell.FORCE_VARIABLE, raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    assert run_bootstrap(monkeypatch) == []


def test_in_colab_the_cell_installs_the_release_of_pyproject(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "google.colab", sys)
    [command] = run_bootstrap(monkeypatch)
    pins = bootstrap_cell.pins()
    assert command[:4] == [sys.executable, "-m", "pip", "install"]
    assert f"miniautograd=={bootstrap_cell.companion_version()}" in command
    assert {pins[name] for name in bootstrap_cell.COLAB_EXTRAS} <= set(command)
    # Nothing that can move: every requirement is an exact release.
    requirements = [part for part in command[4:] if not part.startswith("-")]
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][0-9A-Za-z.]*", r) for r in requirements)


def test_in_colab_the_cell_skips_the_release_when_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(bootstrap_cell.FORCE_VARIABLE, "1")
    assert run_bootstrap(monkeypatch, installed=bootstrap_cell.companion_version()) == []


def test_in_colab_the_cell_replaces_another_version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(bootstrap_cell.FORCE_VARIABLE, "1")
    [command] = run_bootstrap(monkeypatch, installed="0.0.1")
    assert f"miniautograd=={bootstrap_cell.companion_version()}" in command


def test_the_version_is_the_one_of_pyproject() -> None:
    assert miniautograd.__version__ == bootstrap_cell.companion_version()


def version_problems(
    notebook: nbformat.NotebookNode, companion: str, torch_pin: str
) -> list[str]:
    """The first visible code cell must print the versions the chapter was executed with, and
    they must be the companion the bootstrap cell installs and the torch requirements.txt pins."""
    found = chapter_page.versions(notebook)
    if found is None:
        return [f"the first visible code cell does not print the versions ({VERSIONS_CODE})"]
    torch, mini = found
    problems = []
    if mini != companion:
        problems.append(f"executed with miniautograd {mini}, but the bootstrap cell installs "
                        f"{companion}: run `make execute`")
    if torch.split("+")[0] != torch_pin:
        problems.append(f"executed with PyTorch {torch}, but requirements.txt pins {torch_pin}")
    return problems


def versions_notebook(printed: str) -> nbformat.NotebookNode:
    bootstrap = new_code_cell(bootstrap_cell.bootstrap_source(), metadata={"tags": ["remove-cell"]})
    first = new_code_cell(f"import torch\nimport miniautograd as mini\n{VERSIONS_CODE}",
                          outputs=[new_output("stream", name="stdout", text=printed)])
    return new_notebook(cells=[bootstrap, first, new_code_cell("x = 1")])


def test_the_version_check_accepts_the_bootstrap_version() -> None:
    notebook = versions_notebook("PyTorch 2.13.0+cpu, miniautograd 0.4.2\n")
    assert version_problems(notebook, "0.4.2", "2.13.0") == []


@pytest.mark.parametrize(
    ("printed", "problem"),
    [
        ("PyTorch 2.13.0+cpu, miniautograd 0.4.1\n", "executed with miniautograd 0.4.1"),
        ("PyTorch 2.12.0, miniautograd 0.4.2\n", "executed with PyTorch 2.12.0"),
        ("miniautograd 0.4.2\n", "does not print the versions"),
        ("", "does not print the versions"),
    ],
)
def test_the_version_check_finds(printed: str, problem: str) -> None:
    [found] = version_problems(versions_notebook(printed), "0.4.2", "2.13.0")
    assert problem in found


@pytest.mark.slow
def test_the_version_check_reads_a_real_run(tmp_path: Path) -> None:
    """The line as a kernel prints it passes; checked against another companion version (a
    chapter executed before the version changed), it fails."""
    path = tmp_path / "chapter.ipynb"
    nbformat.write(versions_notebook(""), path)
    execute_notebooks.execute(path, write=True)
    notebook = nbformat.read(path, as_version=4)
    torch_pin = bootstrap_cell.pins()["torch"].split("==")[1]
    assert version_problems(notebook, miniautograd.__version__, torch_pin) == []
    assert version_problems(notebook, "99.0.0", torch_pin) != []


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_chapter_was_executed_with_the_versions_the_bootstrap_installs(path: Path) -> None:
    torch_pin = bootstrap_cell.pins()["torch"].split("==")[1]
    notebook = nbformat.read(path, as_version=4)
    assert version_problems(notebook, bootstrap_cell.companion_version(), torch_pin) == []


@pytest.fixture(scope="session")
def colab_python() -> Path:
    """The Python of a venv holding only what Colab ships, minus what a bootstrap installs."""
    python = VENV / "bin" / "python"
    if not (python.exists() and RECORD.exists() and RECORD.read_text() == REQUIREMENTS.read_text()):
        shutil.rmtree(VENV, ignore_errors=True)
        venv.create(VENV, with_pip=True)
        pip = [str(python), "-m", "pip", "install", "--quiet", "--no-compile"]
        subprocess.run([*pip, "-r", str(REQUIREMENTS)], check=True, timeout=1200)
        shutil.copyfile(REQUIREMENTS, RECORD)
    uninstall = [str(python), "-m", "pip", "uninstall", "--yes", *INSTALLED_BY_BOOTSTRAP]
    subprocess.run(uninstall, check=True, capture_output=True, timeout=300)
    return python


@pytest.fixture(scope="session")
def local_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the sdist and wheel of this checkout's companion, built as the release
    workflow builds them: pip's find-links stands in for PyPI."""
    folder = tmp_path_factory.mktemp("index")
    check_publishing.build_distributions(folder)
    return folder


def run_in_colab_venv(python: Path, index: Path, notebook: Path, *, write: bool) -> None:
    env = {
        **os.environ,
        bootstrap_cell.FORCE_VARIABLE: "1",
        "PIP_FIND_LINKS": " ".join([str(index), *os.environ.get("PIP_FIND_LINKS", "").split()]),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    command = [str(python), str(RUNNER), *([] if write else ["--check"]), str(notebook)]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]


@pytest.mark.slow
def test_the_bootstrap_installs_the_release_into_a_colab_like_venv(
    colab_python: Path, local_index: Path, tmp_path: Path
) -> None:
    probe = (
        "import json, os, miniautograd\n"
        "print(json.dumps([os.path.dirname(miniautograd.__file__), miniautograd.__version__]))"
    )
    notebook = new_notebook(
        cells=[
            new_code_cell(bootstrap_cell.bootstrap_source(), metadata={"tags": ["remove-cell"]}),
            new_code_cell(probe),
        ]
    )
    path = tmp_path / "bootstrap_only.ipynb"
    nbformat.write(notebook, path)
    run_in_colab_venv(colab_python, local_index, path, write=True)
    [output] = nbformat.read(path, as_version=4).cells[1].outputs
    location, version = json.loads(output.text)
    assert Path(location).is_relative_to(VENV), "imported the checkout, not the installed package"
    assert version == bootstrap_cell.companion_version()
    installed = check_publishing.package_files(Path(location))
    assert check_publishing.file_differences(installed, check_publishing.package_files()) == []


@pytest.mark.slow
@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_chapter_runs_in_a_colab_like_venv(
    colab_python: Path, local_index: Path, path: Path, tmp_path: Path
) -> None:
    """The chapter, its bootstrap cell as `make execute` writes it (test_notebooks checks that
    the committed one is current), run alone in a folder as Colab opens it."""
    notebook = nbformat.read(path, as_version=4)
    bootstrap_cell.update(notebook)
    copy = tmp_path / path.name
    nbformat.write(notebook, copy)
    run_in_colab_venv(colab_python, local_index, copy, write=False)
