"""The release checks of scripts/check_publishing.py find what they claim to find, and the
workflows do what README.md, "Publishing", says they do.

`make test` runs check_publishing.py itself on the real build; here it meets small archives and
workflow files made to fail one way each.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
import urllib.error
import urllib.request
import zipfile
from email.message import Message
from pathlib import Path
from typing import Any

import check_publishing
import pytest
import reader_edition
import yaml

ROOT = check_publishing.ROOT
VERSION = "1.2.3"
INFO = f"miniautograd-{VERSION}.dist-info/"
SOURCE = {"__init__.py": b"x = 1\n", "ops/add.py": b"y = 2\n"}


def make_wheel(path: Path, files: dict[str, bytes], version: str = VERSION,
               license_file: bool = True) -> Path:
    with zipfile.ZipFile(path, "w") as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
        wheel.writestr(INFO + "METADATA", f"Metadata-Version: 2.4\nName: miniautograd\n"
                                          f"Version: {version}\n")
        if license_file:
            wheel.writestr(INFO + "licenses/LICENSE", "MIT")
    return path


def package(files: dict[str, bytes]) -> dict[str, bytes]:
    return {f"miniautograd/{name}": data for name, data in files.items()}


def test_file_differences() -> None:
    packaged = {"__init__.py": b"x = 1\n", "ops/add.py": b"y = 3\n", "extra.py": b""}
    assert check_publishing.file_differences(SOURCE, SOURCE) == []
    assert check_publishing.file_differences(packaged, {**SOURCE, "new.py": b""}) == [
        "missing new.py",
        "not in the source: extra.py",
        "differs from the source: ops/add.py",
    ]


def test_package_files_leave_out_bytecode(tmp_path: Path) -> None:
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "a.py").write_text("a = 1\n")
    (tmp_path / "drawing.css").write_text("svg {}\n")
    assert sorted(check_publishing.package_files(tmp_path)) == ["a.py", "drawing.css"]


def test_a_complete_wheel_passes(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "w.whl", package(SOURCE))
    assert check_publishing.wheel_problems(wheel, VERSION, SOURCE) == []


@pytest.mark.parametrize(
    ("files", "version", "license_file", "problem"),
    [
        (package({"__init__.py": SOURCE["__init__.py"]}), VERSION, True, "missing ops/add.py"),
        ({**package(SOURCE), "tests/test_x.py": b""}, VERSION, True, "holds tests besides"),
        (package(SOURCE), "1.2.4", True, "METADATA says version 1.2.4"),
        (package(SOURCE), VERSION, False, "no LICENSE"),
    ],
)
def test_the_wheel_check_finds(tmp_path: Path, files: dict[str, bytes], version: str,
                               license_file: bool, problem: str) -> None:
    wheel = make_wheel(tmp_path / "w.whl", files, version, license_file)
    [found] = check_publishing.wheel_problems(wheel, VERSION, SOURCE)
    assert problem in found


def make_sdist(path: Path, files: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as sdist:
        for name, data in files.items():
            member = tarfile.TarInfo(f"miniautograd-{VERSION}/{name}")
            member.size = len(data)
            sdist.addfile(member, io.BytesIO(data))
    return path


def test_the_sdist_check(tmp_path: Path) -> None:
    top = dict.fromkeys(check_publishing.SDIST_FILES, b"")
    sources = {f"src/miniautograd/{name}": data for name, data in SOURCE.items()}
    complete = make_sdist(tmp_path / "a.tar.gz", {**top, **sources})
    assert check_publishing.sdist_problems(complete, VERSION, SOURCE) == []
    del top["LICENSE"]
    del sources["src/miniautograd/ops/add.py"]
    lacking = make_sdist(tmp_path / "b.tar.gz", {**top, **sources})
    assert check_publishing.sdist_problems(lacking, VERSION, SOURCE) == [
        "b.tar.gz: missing ops/add.py",
        "b.tar.gz: no LICENSE",
    ]


def test_the_tag_must_be_the_version() -> None:
    assert check_publishing.tag_problems(None, VERSION) == []
    assert check_publishing.tag_problems(f"v{VERSION}", VERSION) == []
    [problem] = check_publishing.tag_problems("v1.2.4", VERSION)
    assert "v1.2.4 is not v1.2.3" in problem


def test_the_package_urls_name_the_configured_repository(tmp_path: Path) -> None:
    assert check_publishing.url_problems() == []
    pyproject = tmp_path / "pyproject.toml"
    text = (ROOT / "companion" / "pyproject.toml").read_text()
    pyproject.write_text(text.replace("github.com/miniautograd/", "github.com/someone-else/"))
    problems = check_publishing.url_problems(pyproject)
    assert [p.split(" is ")[0] for p in problems] == [
        "pyproject.toml: [project.urls] Source",
        "pyproject.toml: [project.urls] Issues",
    ]


def test_the_workflows_and_dependabot_validate() -> None:
    assert check_publishing.workflow_problems() == []


def test_the_schema_check_finds_an_invalid_workflow(tmp_path: Path) -> None:
    (tmp_path / "broken.yml").write_text("on: push\njobs:\n  test:\n    steps: []\n")
    schema, lint = check_publishing.workflow_problems(tmp_path, tmp_path / "none.yml")
    assert "broken.yml" in schema and "runs-on" in schema
    assert "broken.yml:3:" in lint and '"runs-on" section is missing' in lint
    assert check_publishing.workflow_problems(tmp_path / "empty", tmp_path / "none.yml") == [
        f"no workflow in {tmp_path / 'empty'}"
    ]


def test_actionlint_finds_what_the_schema_allows(tmp_path: Path) -> None:
    """A misspelt context and a `needs` on no job are valid YAML for the schema."""
    (tmp_path / "typo.yml").write_text(
        "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    needs: biuld\n"
        "    steps:\n      - run: echo ${{ github.evnt_name }}\n")
    [problem] = check_publishing.workflow_problems(tmp_path, tmp_path / "none.yml")
    assert 'job "test" needs job "biuld" which does not exist' in problem
    assert 'typo.yml:7:' in problem and 'property "evnt_name" is not defined' in problem


def test_a_release_installs_the_node_tools_before_its_check() -> None:
    build = steps(workflow("release.yml")["jobs"]["build"])
    check = next(i for i, step in enumerate(build) if "check_publishing.py" in step)
    assert "npm ci --no-audit --no-fund" in build[:check]


class FakePyPI:
    """Stands in for pypi.org: the JSON API of one release, and its wheel's bytes."""

    def __init__(self, wheel: bytes | None, *, digest: str | None = None) -> None:
        self.wheel = wheel
        self.digest = digest

    def urlopen(self, url: str, timeout: float) -> io.BytesIO:
        if self.wheel is None:
            raise urllib.error.HTTPError(url, 404, "Not Found", Message(), None)
        if url.endswith("/json"):
            digest = self.digest or hashlib.sha256(self.wheel).hexdigest()
            files = [{"packagetype": "bdist_wheel", "url": "https://files/w.whl",
                      "filename": f"miniautograd-{VERSION}-py3-none-any.whl",
                      "digests": {"sha256": digest}}]
            return io.BytesIO(json.dumps({"urls": files}).encode())
        return io.BytesIO(self.wheel)


def released(monkeypatch: pytest.MonkeyPatch, pypi: FakePyPI,
             source: dict[str, bytes]) -> tuple[bool, list[str]]:
    monkeypatch.setattr(urllib.request, "urlopen", pypi.urlopen)
    monkeypatch.setattr(check_publishing, "package_files", lambda: source)
    return check_publishing.released(VERSION)


def test_the_release_check(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "w.whl", package(SOURCE)).read_bytes()
    assert released(monkeypatch, FakePyPI(None), SOURCE) == (False, [])
    assert released(monkeypatch, FakePyPI(wheel), SOURCE) == (True, [])
    changed = {**SOURCE, "ops/add.py": b"y = 3\n"}
    found, problems = released(monkeypatch, FakePyPI(wheel), changed)
    assert found
    assert "differs from the source: ops/add.py" in problems[0]
    assert "raise the version in companion/pyproject.toml" in problems[-1]
    _, problems = released(monkeypatch, FakePyPI(wheel, digest="0" * 64), SOURCE)
    assert "does not match PyPI's sha256" in problems[0]


def test_the_release_check_fails_without_an_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    def unreachable(url: str, timeout: float) -> io.BytesIO:
        raise urllib.error.URLError("Name or service not known")

    monkeypatch.setattr(urllib.request, "urlopen", unreachable)
    found, [problem] = check_publishing.released(VERSION)
    assert not found
    assert "could not ask PyPI" in problem


def test_the_release_check_reports_a_failed_wheel_download(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pypi = FakePyPI(make_wheel(tmp_path / "w.whl", package(SOURCE)).read_bytes())

    def json_only(url: str, timeout: float) -> io.BytesIO:
        if url.endswith("/json"):
            return pypi.urlopen(url, timeout)
        raise urllib.error.URLError("Connection reset by peer")

    monkeypatch.setattr(urllib.request, "urlopen", json_only)
    found, [problem] = check_publishing.released(VERSION)
    assert found and "could not download miniautograd-1.2.3-py3-none-any.whl" in problem


def workflow(name: str) -> dict[str, Any]:
    loaded = yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())
    loaded["on"] = loaded.pop(True, loaded.get("on"))  # YAML 1.1 reads the key `on` as True
    return loaded


def steps(job: dict[str, Any]) -> list[str]:
    return [step.get("uses", "") + step.get("run", "") for step in job["steps"]]


def test_ci_runs_make_test_on_every_push_and_pull_request_with_caches() -> None:
    ci = workflow("ci.yml")
    assert {"push", "pull_request", "workflow_call"} <= set(ci["on"])
    [job] = ci["jobs"].values()
    assert "bash .ci/run" in steps(job)
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith("make test")
    caches = [step for step in job["steps"] if "actions/cache" in step.get("uses", "")]
    cached = [step["with"]["path"] for step in caches]
    assert cached == ["~/.cache/pip", "~/.npm"]
    assert job["strategy"]["matrix"]["python"] == ["3.11", "3.12"]
    # Colab's Python, for the Colab leg: the one tests/colab-requirements.txt names.
    colab = re.search(r"^# python: (\S+)$", (ROOT / "tests" / "colab-requirements.txt").read_text(),
                      re.MULTILINE).group(1)
    setups = [step for step in job["steps"] if "actions/setup-python" in step.get("uses", "")]
    assert [step["with"]["python-version"] for step in setups] == [colab]


def test_a_release_tests_then_publishes_to_pypi_with_trusted_publishing() -> None:
    release = workflow("release.yml")
    assert release["on"] == {"push": {"tags": ["v*"]}}
    jobs = release["jobs"]
    assert jobs["test"]["uses"] == "./.github/workflows/ci.yml"
    assert jobs["build"]["needs"] == "test"
    assert 'python scripts/check_publishing.py --tag "${GITHUB_REF_NAME}" --outdir dist' in steps(
        jobs["build"])
    publish = jobs["publish"]
    assert publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    assert "pypa/gh-action-pypi-publish@release/v1" in steps(publish)
    # Only the publishing job may ask for an OIDC token.
    assert release["permissions"] == {}
    assert all("id-token" not in job.get("permissions", {}) for name, job in jobs.items()
               if name != "publish")


def test_pages_publish_the_book_only_with_its_release_on_pypi() -> None:
    pages = workflow("pages.yml")
    assert pages["on"]["push"] == {"branches": [configured_branch()]}
    assert pages["on"]["workflow_run"]["workflows"] == [workflow("release.yml")["name"]]
    build, deploy = pages["jobs"]["build"], pages["jobs"]["deploy"]
    assert "make book" in steps(build)
    gate = next(s for s in build["steps"] if s.get("id") == "release")
    assert gate["run"] == ".venv/bin/python scripts/check_publishing.py --released"
    gated = [s for s in build["steps"] if s.get("if") == "steps.release.outputs.released == 'true'"]
    # The build, the branch's layout of the reader's editions, their upload, the site's upload.
    assert [s.get("run", s.get("uses")).split()[0] for s in gated][-4:] == [
        "make", "mkdir", "actions/upload-artifact@v5", "actions/upload-pages-artifact@v5"]
    assert gated[-4]["run"] == "make book"
    assert deploy["if"] == "needs.build.outputs.released == 'true'"
    assert deploy["environment"]["name"] == "github-pages"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}


def configured_branch() -> str:
    return yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["branch"]


def test_pages_publish_the_reader_editions_to_the_branch_colab_opens() -> None:
    """Once the site is deployed, the reader's editions it was built with become the one commit
    of the branch that the chapters' "Open in Colab" links name: the English ones at its root,
    the Chinese ones in zh_CN/ and zh_TW/ (chapter_page.colab_url)."""
    jobs = workflow("pages.yml")["jobs"]
    keep = next(s for s in jobs["build"]["steps"] if "upload-artifact" in s.get("uses", ""))
    layout = jobs["build"]["steps"][jobs["build"]["steps"].index(keep) - 1]["run"]
    assert keep["with"]["path"] == "_build/branch"
    assert f"cp _build/html/{reader_edition.FOLDER}/*.ipynb _build/branch/\n" in layout
    for folder in ("zh_CN", "zh_TW"):
        assert f"cp _build/html/{folder}/{reader_edition.FOLDER}/*.ipynb _build/branch/{folder}/" \
            in layout
    notebooks = jobs["notebooks"]
    assert notebooks["needs"] == ["build", "deploy"]
    assert notebooks["permissions"] == {"contents": "write"}
    fetch, push = notebooks["steps"]
    assert fetch["with"]["name"] == keep["with"]["name"]
    assert f"--initial-branch {reader_edition.BRANCH}" in push["run"]
    assert "git add -- *.ipynb zh_CN/*.ipynb zh_TW/*.ipynb" in push["run"]
    assert push["run"].rstrip().endswith(f".git\" {reader_edition.BRANCH}")


@pytest.mark.parametrize(
    ("answer", "status", "output"),
    [
        ((False, []), 0, "released=false\n"),
        ((True, []), 0, "released=true\n"),
        ((True, ["PyPI's wheel: differs from the source: ops/add.py"]), 1, "released=false\n"),
    ],
)
def test_the_pages_gate_tells_the_workflow(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    answer: tuple[bool, list[str]], status: int, output: str,
) -> None:
    monkeypatch.setattr(check_publishing, "released", lambda version: answer)
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "output"))
    assert check_publishing.main(["--released"]) == status
    assert (tmp_path / "output").read_text() == output
