"""The Colab bootstrap cell does nothing outside Colab; in Colab it installs the companion
release the chapters were executed with (`miniautograd==<version of companion/pyproject.toml>`,
from PyPI) and the pinned extras the chapter imports; the chapters say which version they ran
with. The reader's editions, which learners open in Colab, run there top to bottom and print
what the source notebooks stored.

The Colab-like test builds a venv with only tests/colab-requirements.txt under
_build/colab-venv (rebuilt when that file changes); each session first uninstalls what a
bootstrap cell installed. It then builds the companion's wheel from this checkout, as the
release workflow does, and offers it to pip as a local index (PIP_FIND_LINKS, pip's own
setting): the cell runs exactly the command a reader's Colab runs, and pip finds
`miniautograd==<version>` there, as a reader's pip finds it on PyPI. The kernel is made to look
like Colab's from outside the notebook: an IPython start-up file (in a private IPYTHONDIR)
registers a `google.colab` module, which is what the cell looks for.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import types
import venv
from pathlib import Path
from unittest import mock

import bootstrap_cell
import build_book
import chapter_page
import check_publishing
import execute_notebooks
import nbformat
import pytest
import reader_edition
from IPython.core.inputtransformer2 import TransformerManager
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


def run_bootstrap(source: str, *, in_colab: bool) -> list[tuple[str, str]]:
    """Run the cell's source as IPython would, recording (not running) its line magics."""
    magics: list[tuple[str, str]] = []

    class Shell:
        def run_line_magic(self, name: str, line: str) -> None:
            magics.append((name, line))

    python = TransformerManager().transform_cell(source)
    with mock.patch.dict(sys.modules):
        sys.modules.pop("google.colab", None)
        if in_colab:
            sys.modules["google.colab"] = types.ModuleType("google.colab")
        exec(python, {"get_ipython": Shell})
    return magics


def chapter_like(*sources: str) -> nbformat.NotebookNode:
    return new_notebook(cells=[new_code_cell(s) for s in sources])


def test_outside_colab_the_cell_does_nothing() -> None:
    notebook = chapter_like("import gymnasium")
    assert run_bootstrap(bootstrap_cell.bootstrap_source(notebook), in_colab=False) == []


def test_in_colab_the_cell_installs_the_release_and_what_the_chapter_imports() -> None:
    notebook = chapter_like("import numpy as np\nimport gymnasium as gym", "from mygrad import x")
    [(magic, line)] = run_bootstrap(bootstrap_cell.bootstrap_source(notebook), in_colab=True)
    pins = bootstrap_cell.pins()
    assert magic == "pip"
    requirements = [part for part in line.split() if not part.startswith("-")]
    assert requirements == [
        "install", f"miniautograd=={bootstrap_cell.companion_version()}",
        pins["mygrad"], pins["gymnasium"],
    ]
    # Nothing that can move: every requirement is an exact release.
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][0-9A-Za-z.]*", r) for r in requirements[1:])


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_a_chapter_installs_only_what_it_imports(path: Path) -> None:
    """The pins a chapter's cell installs: the companion, and exactly the extras it imports."""
    notebook = nbformat.read(path, as_version=4)
    [(_, line)] = run_bootstrap(notebook.cells[0].source, in_colab=True)
    code = "\n".join(c.source for c in notebook.cells[1:] if c.cell_type == "code")
    imported = {name for name in bootstrap_cell.COLAB_EXTRAS
                if re.search(rf"^\s*(import|from) {name}[ .]", code, re.MULTILINE)}
    installed = {part.split("==")[0].lower() for part in line.split() if "==" in part}
    assert installed == {"miniautograd", *imported}


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


@pytest.fixture(scope="session")
def like_colab(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An IPYTHONDIR whose start-up file makes a kernel look like Colab's to the cell."""
    folder = tmp_path_factory.mktemp("ipython")
    startup = folder / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-like-colab.py").write_text(
        "import sys, types\n"
        "sys.modules.setdefault('google.colab', types.ModuleType('google.colab'))\n"
    )
    return folder


def run_in_colab_venv(python: Path, index: Path, ipython_dir: Path, notebook: Path) -> None:
    """Execute `notebook` in place in the Colab-like venv, as a Colab kernel would."""
    env = {
        **os.environ,
        "IPYTHONDIR": str(ipython_dir),
        "PIP_FIND_LINKS": " ".join([str(index), *os.environ.get("PIP_FIND_LINKS", "").split()]),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    command = [str(python), str(RUNNER), str(notebook)]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]


@pytest.mark.slow
def test_the_bootstrap_installs_the_release_into_a_colab_like_venv(
    colab_python: Path, local_index: Path, like_colab: Path, tmp_path: Path
) -> None:
    probe = (
        "import json, os, miniautograd\n"
        "print(json.dumps([os.path.dirname(miniautograd.__file__), miniautograd.__version__]))"
    )
    notebook = new_notebook(cells=[new_code_cell(bootstrap_cell.bootstrap_source()),
                                   new_code_cell(probe)])
    path = tmp_path / "bootstrap_only.ipynb"
    nbformat.write(notebook, path)
    run_in_colab_venv(colab_python, local_index, like_colab, path)
    [output] = nbformat.read(path, as_version=4).cells[1].outputs
    location, version = json.loads(output.text)
    assert Path(location).is_relative_to(VENV), "imported the checkout, not the installed package"
    assert version == bootstrap_cell.companion_version()
    installed = check_publishing.package_files(Path(location))
    assert check_publishing.file_differences(installed, check_publishing.package_files()) == []


@pytest.fixture(scope="session")
def editions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the reader's editions as the site build writes them (the site's lock is held
    only while copying, so the other test session's build does not wait for this one)."""
    folder = tmp_path_factory.mktemp("editions")
    with build_book.exclusive():
        try:
            build_book.build(capture=True)
        except subprocess.CalledProcessError as error:
            pytest.fail(f"the book build failed:\n{error.stdout[-8000:]}", pytrace=False)
        for path in (build_book.HTML / reader_edition.FOLDER).glob("*.ipynb"):
            shutil.copy(path, folder / path.name)
    return folder


def compared(output: nbformat.NotebookNode) -> tuple:
    """What of an output strict nbval compares, with its sanitizer's memory addresses."""
    def clean(text: object) -> str:
        text = "".join(text) if isinstance(text, list) else str(text)
        return re.sub(execute_notebooks.ADDRESS["regex"], execute_notebooks.ADDRESS["replace"],
                      text)

    if output.output_type == "stream":
        return ("stream", output.name, clean(output.text))
    if output.output_type == "error":
        return ("error", output.ename, clean(output.evalue))
    return (output.output_type, tuple(sorted(
        (kind, clean(value)) for kind, value in output.data.items() if kind != "image/png")))


def output_differences(source: nbformat.NotebookNode, run: nbformat.NotebookNode) -> list[str]:
    """Cells of the run whose outputs differ from the source's stored ones, where strict nbval
    compares those (every code cell but the tagged nbval-ignore-output and the bootstrap cell,
    which does nothing outside Colab)."""
    stored = {cell.id: cell for cell in source.cells[1:] if cell.cell_type == "code"}
    differences = []
    for cell in run.cells:
        expected = stored.get(cell.id)
        if expected is None or "nbval-ignore-output" in expected.metadata.get("tags", []):
            continue
        if [compared(o) for o in cell.outputs] != [compared(o) for o in expected.outputs]:
            differences.append(f"cell {cell.id}: {[compared(o) for o in cell.outputs]!r:.600}")
    return differences


def test_the_output_comparison_finds_a_changed_output() -> None:
    def notebook(text: str, *tags: str) -> nbformat.NotebookNode:
        cell = new_code_cell("print(x)", metadata={"tags": list(tags)},
                             outputs=[new_output("stream", name="stdout", text=text)])
        cell.id = "the-cell"
        return new_notebook(cells=[new_code_cell(""), cell])

    assert output_differences(notebook("<a at 0x7f0011223344>"), notebook("<a at 0xADDRESS>")) == []
    assert output_differences(notebook("1.0\n"), notebook("1.1\n")) != []
    assert output_differences(notebook("1.0\n", "nbval-ignore-output"), notebook("1.1\n")) == []


@pytest.mark.slow
@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_the_reader_edition_runs_in_a_colab_like_venv(
    colab_python: Path, local_index: Path, like_colab: Path, editions: Path, path: Path,
    tmp_path: Path,
) -> None:
    """The chapter's reader's edition, run alone in a folder as Colab opens it, through its own
    bootstrap cell, prints what the source stored, wherever strict nbval compares the source."""
    copy = tmp_path / path.name
    shutil.copy(editions / path.name, copy)
    run_in_colab_venv(colab_python, local_index, like_colab, copy)
    run = nbformat.read(copy, as_version=4)
    source = nbformat.read(path, as_version=4)
    assert run.cells[0].outputs, "the bootstrap cell did not run pip"
    compared_by_nbval = {c.id for c in source.cells[1:] if c.cell_type == "code"
                         and not reader_edition.is_check(c)
                         and "nbval-ignore-output" not in c.metadata.get("tags", [])}
    assert compared_by_nbval and compared_by_nbval <= {c.id for c in run.cells}
    assert output_differences(source, run) == []
