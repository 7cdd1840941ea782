"""Chapter 1 says that, in a program of its own, `import miniautograd as torch` runs the
chapter's PyTorch cells unchanged, apart from the three cells that use torch.func.jvp (the two
forward-mode cells and the count of saved tensors), which it runs on PyTorch only. This runs
every code cell of the chapter with that one import changed."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import nbformat
import pytest
from site_tools import ROOT

CHAPTER = ROOT / "book" / "chapters" / "01_what_autograd_does.ipynb"
IMPORT, DROP_IN = "import torch\n", "import miniautograd as torch\n"
# The three cells the sentence excepts, with torch.func.jvp: they may run or fail.
PYTORCH_ONLY = {"ch1-cell-59", "ch1-cell-61", "ch1-saved-memory"}


def as_plain_python(source: str) -> str:
    """The cell without IPython's magics (%xmode, %config), which set up the display only."""
    return "\n".join(line for line in source.splitlines() if not line.startswith("%"))


@pytest.mark.slow
def test_chapter_1_runs_with_miniautograd_imported_as_torch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # where the guided build's %%writefile cells write
    notebook = nbformat.read(CHAPTER, as_version=4)
    cells = [c for c in notebook.cells[1:] if c.cell_type == "code"]  # [0]: Colab set-up
    assert sum(IMPORT in c.source for c in cells) == 1, "the chapter imports torch once"
    assert {c.id for c in cells} >= PYTORCH_ONLY, "the excepted cells were renamed"
    namespace: dict = {"display": lambda *objects: None}
    problems = []
    for cell in cells:
        magic, _, body = cell.source.partition("\n")
        if magic.startswith("%%writefile "):  # the cell's text is a file, as IPython saves it
            Path(magic.removeprefix("%%writefile ").strip()).write_text(body + "\n")
            continue
        code = compile(as_plain_python(cell.source.replace(IMPORT, DROP_IN)), cell.id, "exec")
        expected = cell.metadata.get("expected_exception")  # a cell meant to fail
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                exec(code, namespace)
                raised = None
            except Exception as error:  # noqa: BLE001 (any failure is reported below)
                raised = f"{type(error).__name__}: {error}"
        if cell.id in PYTORCH_ONLY:
            continue
        if (raised or "").split(":")[0] != (expected or ""):
            problems.append(f"{cell.id}: expected {expected or 'no error'}, got {raised}")
    assert not problems, "\n".join(problems)
