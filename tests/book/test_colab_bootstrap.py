"""The Colab bootstrap cell does nothing outside Colab, and in a Colab-like environment (only
tests/colab-requirements.txt installed) it installs what every chapter needs to run.

The Colab-like venv is built once under _build/colab-venv and rebuilt when
tests/colab-requirements.txt changes. Each session first uninstalls what a bootstrap cell
installed, so the first notebook really installs the companion and the pinned extras (from
PyPI). The companion comes from a wheel built from this checkout once per session and handed
to the cell through AUTOGRAD_BOOK_INSTALL_SOURCE (the same build pip does from the repository
URL in Colab, done once instead of once per chapter).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import bootstrap_cell
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from site_tools import CHAPTERS, ROOT

VENV = ROOT / "_build" / "colab-venv"
REQUIREMENTS = ROOT / "tests" / "colab-requirements.txt"
RECORD = VENV / "colab-requirements.txt"
INSTALLED_BY_BOOTSTRAP = ("miniautograd", *bootstrap_cell.COLAB_EXTRAS)
RUNNER = ROOT / "scripts" / "execute_notebooks.py"


def run_bootstrap(monkeypatch: pytest.MonkeyPatch, installed: bool = False) -> list[list[str]]:
    """Execute the cell's source here, recording (not running) its pip commands, as if the
    companion were `installed` or not."""
    commands: list[list[str]] = []
    monkeypatch.setattr(subprocess, "run", lambda command, **_: commands.append(command))
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, *args: object) -> object:
        return None if name == "miniautograd" and not installed else real_find_spec(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    exec(bootstrap_cell.bootstrap_source(), {})
    return commands


def test_outside_colab_the_cell_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(bootstrap_cell.FORCE_VARIABLE, raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    assert run_bootstrap(monkeypatch) == []


def test_in_colab_the_cell_installs_from_the_configured_repository(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(bootstrap_cell.SOURCE_VARIABLE, raising=False)
    monkeypatch.setitem(sys.modules, "google.colab", sys)
    [command] = run_bootstrap(monkeypatch)
    pins = bootstrap_cell.pins()
    assert command[:4] == [sys.executable, "-m", "pip", "install"]
    url = "git+https://github.com/miniautograd/autograd-book@main#subdirectory=companion"
    assert url in command
    assert {pins[name] for name in bootstrap_cell.COLAB_EXTRAS} <= set(command)


def test_in_colab_the_cell_skips_an_installed_companion(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(bootstrap_cell.FORCE_VARIABLE, "1")
    assert run_bootstrap(monkeypatch, installed=True) == []


def test_the_install_source_can_be_overridden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(bootstrap_cell.FORCE_VARIABLE, "1")
    monkeypatch.setenv(bootstrap_cell.SOURCE_VARIABLE, "/somewhere/companion")
    [command] = run_bootstrap(monkeypatch)
    assert "/somewhere/companion" in command
    assert bootstrap_cell.companion_url() not in command


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
def companion_wheel(colab_python: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel of this checkout's companion package, built from a copy (setuptools leaves
    build/ behind in the tree it builds)."""
    folder = tmp_path_factory.mktemp("wheel")
    source = folder / "companion"
    junk = shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    shutil.copytree(ROOT / "companion", source, ignore=junk)
    build = [str(colab_python), "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(folder)]
    subprocess.run([*build, str(source)], check=True, timeout=600)
    [wheel] = folder.glob("miniautograd-*.whl")
    return wheel


def run_in_colab_venv(python: Path, wheel: Path, notebook: Path, *, write: bool) -> None:
    env = {
        **os.environ,
        bootstrap_cell.FORCE_VARIABLE: "1",
        bootstrap_cell.SOURCE_VARIABLE: str(wheel),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    command = [str(python), str(RUNNER), *([] if write else ["--check"]), str(notebook)]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]


@pytest.mark.slow
def test_the_bootstrap_installs_the_companion_into_a_colab_like_venv(
    colab_python: Path, companion_wheel: Path, tmp_path: Path
) -> None:
    probe = "import json, miniautograd\nprint(json.dumps(miniautograd.__file__))"
    notebook = new_notebook(
        cells=[
            new_code_cell(bootstrap_cell.bootstrap_source(), metadata={"tags": ["remove-cell"]}),
            new_code_cell(probe),
        ]
    )
    path = tmp_path / "bootstrap_only.ipynb"
    nbformat.write(notebook, path)
    run_in_colab_venv(colab_python, companion_wheel, path, write=True)
    [output] = nbformat.read(path, as_version=4).cells[1].outputs
    location = Path(json.loads(output.text))
    assert location.is_relative_to(VENV), "imported the checkout, not the installed package"


@pytest.mark.slow
@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_chapter_runs_in_a_colab_like_venv(
    colab_python: Path, companion_wheel: Path, path: Path
) -> None:
    run_in_colab_venv(colab_python, companion_wheel, path, write=False)
