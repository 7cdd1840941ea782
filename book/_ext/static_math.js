// Typeset TeX with MathJax 3 (npm's `mathjax`, node_modules/) into SVG, once, at build time:
// the site then ships no MathJax at all. Called by static_math.py.
//
// stdin:  {"formulas": [{"tex": "...", "display": true}, ...]}
// stdout: {"html": [...], "errors": [null | "message", ...], "defs": "<defs>...</defs>", "css": "..."}
//
// Glyphs are shared: each formula's SVG <use>s the glyph paths collected in "defs", which the
// page includes once. The MathML of each formula rides along, visually hidden, for screen
// readers (what MathJax's assistive-mml extension does in a browser).
"use strict";
const path = require("path");

const ROOT = path.resolve(__dirname, "..", "..");
const MATHJAX = path.join(ROOT, "node_modules", "mathjax");

function readStdin() {
  return new Promise((resolve, reject) => {
    let text = "";
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (chunk) => { text += chunk; });
    process.stdin.on("end", () => resolve(text));
    process.stdin.on("error", reject);
  });
}

// Attributes MathJax writes for its own scripts and menus; a static page never reads them.
// (data-mml-node stays on tables and errors: MathJax's stylesheet draws those with it.)
const UNUSED = / (data-c|data-mjx-texclass|data-latex|data-mml-node(?!="(mtable|merror)"))="[^"]*"/g;

async function main() {
  const request = JSON.parse(await readStdin());
  const MathJax = await require(MATHJAX).init({
    loader: {
      paths: {mathjax: path.join(MATHJAX, "es5")},
      load: ["input/tex-base", "[tex]/ams", "[tex]/newcommand", "[tex]/configmacros",
             "[tex]/require", "[tex]/autoload", "output/svg"],
    },
    tex: {packages: ["base", "ams", "newcommand", "configmacros", "require", "autoload"]},
    svg: {fontCache: "global"},
    startup: {typeset: false},
  });
  const adaptor = MathJax.startup.adaptor;
  const html = [];
  const errors = [];
  for (const {tex, display} of request.formulas) {
    const mml = await MathJax.tex2mmlPromise(tex, {display});
    const error = /<merror[^>]*data-mjx-error="([^"]*)"/.exec(mml);
    errors.push(error ? error[1] : null);
    const container = await MathJax.tex2svgPromise(tex, {display});
    const svg = adaptor.firstChild(container);
    adaptor.removeAttribute(svg, "role");
    adaptor.removeAttribute(svg, "focusable");
    adaptor.setAttribute(svg, "aria-hidden", "true");
    const hidden = `<mjx-assistive-mml unselectable="on" display="${display ? "block" : "inline"}">`
      + `${mml.replace(UNUSED, "").replace(/>\s+</g, "><")}</mjx-assistive-mml>`;
    const outer = adaptor.outerHTML(container).replace(/<\/mjx-container>$/, `${hidden}</mjx-container>`);
    html.push(outer.replace(UNUSED, ""));
  }
  const cache = MathJax.startup.output.fontCache.getCache();
  const defs = cache ? adaptor.outerHTML(cache) : "<defs></defs>";
  const css = adaptor.textContent(MathJax.svgStylesheet());
  process.stdout.write(JSON.stringify({html, errors, defs, css}));
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
