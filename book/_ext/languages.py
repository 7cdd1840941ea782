"""The book in three editions: English at the site's root, Simplified Chinese under ``zh_CN/``
and Traditional Chinese (Taiwan) under ``zh_TW/``.

All are built from the same sources (scripts/build_book.py builds the Chinese ones with
``language = "zh_CN"`` and ``"zh_TW"``); Sphinx translates the pages with the catalogs of
book/locale/ and the themes translate their own words. The Traditional edition is generated from
the Simplified one (traditional.py): its catalogs are checked in, and the book's own Chinese
words below are converted by the same `traditional.convert` when it is built. This extension
adds what neither Sphinx nor the themes do:

- a language switch on every page (in the article's header, beside the theme's buttons) that
  leads to the same page in each other edition, and ``<link rel="alternate" hreflang>``
  tags that tell search engines the three pages are one;
- the book's own interface words (the chapter pages' run links, the folds' labels) in the
  page's language (``text``);
- the Chinese edition's title, and its author line;
- the English words that the Chinese pages would otherwise show (`interface_words`, a filter
  on the page's content in templates/layout.html): the theme's navigation landmarks, myst-nb's
  fold of hidden code, the backward stepper's buttons, labels and captions and the cross-check
  tables (miniautograd writes both into the notebooks' outputs, which the two editions share);
  the sidebar's captions (the toctree's, which Sphinx does not translate when the toctree is
  hidden) from the root page's catalog; and every figure's alt text, from the interface
  catalog (book/locale/zh_CN/LC_MESSAGES/sphinx.po), a missing one being a build warning; and
  the copy button's words on the Traditional site (sphinx-copybutton's script has zh-CN's only);
- Chinese search that knows the book's terms: Sphinx splits Chinese text into words with
  jieba, which cuts 反向传播 into 反向 and 传播, while the search page looks a query up
  whole. The terms of book/locale/zh_CN/terms.md (converted, on the Traditional site) become
  a jieba dictionary, so the index holds each term whole as well as its parts. The search page
  splits a query with the words of that index (search_scorer.js), after making its
  characters the edition's with OpenCC's character table (the `opencc-python-reimplemented`
  package's TSCharacters.txt, or STCharacters.txt on the Traditional site, read at build time),
  shipped as ``_static/traditional.js`` with only the characters the index holds.
"""

from __future__ import annotations

import functools
import html
import json
import re
from pathlib import Path
from typing import Any

import traditional
from babel.messages.pofile import read_po
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging

ENGLISH = "en"
CHINESE = "zh_CN"
TRADITIONAL = traditional.TRADITIONAL  # "zh_TW", generated from CHINESE
CHINESE_EDITIONS = (CHINESE, TRADITIONAL)
EDITIONS = (ENGLISH, *CHINESE_EDITIONS)
# Where each edition lies below the published site's root, and its name in its own language.
FOLDERS = {ENGLISH: "", CHINESE: "zh_CN/", TRADITIONAL: "zh_TW/"}
NAMES = {ENGLISH: "English", CHINESE: "简体中文", TRADITIONAL: "繁體中文"}
HREFLANG = {ENGLISH: "en", CHINESE: "zh-CN", TRADITIONAL: "zh-TW"}
TITLES = {CHINESE: "Autograd：运行与重建"}
SWITCH_TEMPLATE = "language-switch.html"
LOCALE = Path(__file__).resolve().parents[1] / "locale"
TERMS = LOCALE / CHINESE / "terms.md"
CATALOGS = TERMS.parent / "LC_MESSAGES"
INTERFACE_CATALOG = CATALOGS / "sphinx.po"
AUTHORS = {CHINESE: "autograd-book 的作者们"}
# A row of the terms table: | English | 中文 |, the Chinese without a bracketed gloss.
TERM_ROW = re.compile(r"^\| [^|]+ \| (?P<chinese>[^|（]+?)(?:（[^|]*）)? \|$", re.MULTILINE)
CJK = re.compile(r"[\u4e00-\u9fff]")

# The book's interface words that are not on any page's source (each English string, as the
# extensions write it, and its Chinese).
WORDS = {
    CHINESE: {
        "Open in Colab": "在 Colab 中打开",
        "Download notebook": "下载 notebook",
        "All chapters (zip)": "全部章节（zip）",
        "Outputs produced with PyTorch {torch} and miniautograd {mini}. The chapter runs on "
        "PyTorch {oldest} (Colab's) to {newest}, tested at both ends; other releases in that "
        "range word some error messages differently and may print warnings this page does not "
        "show.":
            "输出由 PyTorch {torch} 与 miniautograd {mini} 生成。本章可在 PyTorch {oldest}"
            "（Colab 预先安装的版本）至 {newest} 上运行，两端均经测试；该范围内的其他版本中部分"
            "错误信息的措辞不同，也可能打印本页未显示的警告。",
        "Open the full-size image": "打开原尺寸图片",
        "Show the solution": "显示参考答案",
        "Hide the solution": "隐藏参考答案",
        "Show the same run on miniautograd": "显示在 miniautograd 上的同一次运行",
        "Hide the run on miniautograd": "隐藏在 miniautograd 上的运行",
        "Show the side road": "展开选读内容",
        "Hide the side road": "收起选读内容",
        "Solution": "参考答案",
        "Run All skips this solution: to run it, uncomment the lines below (select them, then "
        "Ctrl+/, or ⌘/ on a Mac).":
            "“全部运行”会跳过这个参考答案：要运行它，请取消下面各行的注释（选中这些行，按 Ctrl+/，"
            "Mac 上按 ⌘/）。",
        "Read this page in Simplified Chinese": "阅读本页的简体中文版",
        "Read this page in Traditional Chinese": "阅读本页的繁体中文版",
    },
}
SWITCH_TITLES = {ENGLISH: "Read this page in English",
                 CHINESE: "Read this page in Simplified Chinese",
                 TRADITIONAL: "Read this page in Traditional Chinese"}

logger = logging.getLogger(__name__)


def language(app: Sphinx) -> str:
    return app.config.language if app.config.language in FOLDERS else ENGLISH


def is_chinese(app: Sphinx) -> bool:
    """A Chinese edition, Simplified or Traditional."""
    return language(app) in CHINESE_EDITIONS


@functools.cache  # the same captions and words come back on every page
def chinese(edition: str, words: str) -> str:
    """The Simplified `words` in the Chinese `edition`'s characters and terms."""
    return traditional.convert(words, markup=False) if edition == TRADITIONAL else words


def words_of(edition: str) -> dict[str, str]:
    """The book's interface words (WORDS) of an edition."""
    if edition == TRADITIONAL:
        return _traditional_words()
    return WORDS.get(edition, {})


@functools.cache
def _traditional_words() -> dict[str, str]:
    return {english: chinese(TRADITIONAL, words) for english, words in WORDS[CHINESE].items()}


def text(app: Sphinx, english: str, **values: str) -> str:
    """`english` in the language of the build, with `values` filled in."""
    return words_of(language(app)).get(english, english).format(**values)


def others(app: Sphinx) -> list[str]:
    """The other editions, in the order of EDITIONS."""
    return [edition for edition in EDITIONS if edition != language(app)]


def page_in(app: Sphinx, pagename: str, target: str) -> str:
    """The relative address, from the page `pagename` of this build, of the same page in the
    edition `target`."""
    up = "../" * (pagename.count("/") + (language(app) != ENGLISH))
    return f"{up}{FOLDERS[target]}{pagename}.html"


def chinese_terms(edition: str = CHINESE) -> list[str]:
    """The Chinese terms of terms.md, each a word for the search's splitter (converted for the
    Traditional edition)."""
    found = [m["chinese"].strip() for m in TERM_ROW.finditer(TERMS.read_text(encoding="utf-8"))]
    return sorted({chinese(edition, t) for t in found
                   if CJK.search(t) and " " not in t and "N" not in t})


def catalogs_of(edition: str) -> Path:
    """The LC_MESSAGES folder of a Chinese edition."""
    return LOCALE / edition / "LC_MESSAGES"


@functools.cache
def catalog(path: Path = INTERFACE_CATALOG) -> dict[str, str]:
    """The translated messages of a catalog (the interface one unless told)."""
    if not path.is_file():
        return {}
    with path.open("rb") as handle:
        return {m.id: m.string for m in read_po(handle) if m.id and m.string and not m.fuzzy}


# ---- the Chinese pages' interface words ---------------------------------------------------------

# Exact pieces of the rendered content (the themes' templates, myst-nb, miniautograd's stepper
# widget) and their Chinese.
CHINESE_MARKUP = {
    '<nav class="bd-links bd-docs-nav" aria-label="Main">':
        '<nav class="bd-links bd-docs-nav" aria-label="主导航">',
    '<nav aria-label="Page">': '<nav aria-label="本页">',
    # miniautograd.stepper's controls, and the slider's spoken value in its script.
    'aria-label="backward pass, step by step"': 'aria-label="反向传播，逐步演示"',
    # (site_theme.named_by_their_text has renamed "previous step" by the text it shows first)
    'aria-label="prev step">◀ prev</button>': 'aria-label="上一步">◀ 上一步</button>',
    ' aria-label="step">': ' aria-label="步骤">',
    'aria-label="next step">next ▶</button>': 'aria-label="下一步">下一步 ▶</button>',
    "'step ' + k + ' of ' + last": "'第 ' + k + ' 步，共 ' + last + ' 步'",
    # Chapter 1's text names the button: "press **next ▶**" (its catalog keeps the English).
    "<strong>next ▶</strong>": "<strong>下一步 ▶</strong>",
}
CHINESE_MARKUP_PATTERN = re.compile("|".join(re.escape(k) for k in CHINESE_MARKUP))
# miniautograd.testing's cross-check report (CrossCheck._repr_html_).
CROSS_CHECK = re.compile(r"<table><thead><tr><th>quantity</th>.*?\(atol=[^)]*\)\.</p>", re.S)
CROSS_CHECK_WORDS = {
    "<th>quantity</th><th>shape</th><th>max abs diff</th><th>max rel diff</th><th>ok</th>":
        "<th>量</th><th>形状</th><th>最大绝对误差</th><th>最大相对误差</th><th>通过</th>",
    "<td>output</td>": "<td>输出</td>",
    "<p>graph: same op names and edges. Verdict: ": "<p>计算图：操作名与边均相同。结论：",
    "<p>graph: <pre>": "<p>计算图不同：<pre>",
    "</pre>. Verdict: ": "</pre>结论：",
    "<b>agree</b>": "<b>一致</b>",
    "<b>DISAGREE</b>": "<b>不一致</b>",
    ").</p>": "）。</p>",
    " (atol=": "（atol=",
}
GRAD_INPUT = re.compile(r"<td>grad input (\d+)</td>")
# miniautograd.stepper's captions (BackwardRecording.caption), in figcaptions, in the drawings'
# aria-labels and in the listing shown without JavaScript.
SEED_CAPTION = re.compile(r"Before backward: the seed gradient (?P<g>.+) goes to (?P<who>.+)\.")
STEP_CAPTION = re.compile(r"Step (?P<k>\d+) of (?P<n>\d+): (?P<who>.+?) runs(?P<rest>.*)\.")
FIGCAPTION = re.compile(r"(<figcaption>)([^<]*)(</figcaption>)")
ARIA_LABEL = re.compile(r'( aria-label=")([^"]*)(")')
FILMSTRIP = re.compile(r"(<noscript><pre>)(.*?)(</pre></noscript>)", re.S)
LISTING_LINE = re.compile(r"^(\d+\. )(.*)$", re.M)
TOO_MANY = re.compile(r"<p>(\d+) steps are too many to draw; the listing:</p>")


def _node(who: str) -> str:
    """'AccumulateGrad of a' -> 'a 的 AccumulateGrad'."""
    node, of, leaf = who.partition(" of ")
    return f"{leaf} 的 {node}" if of else who


def _values(text: str) -> str:
    """miniautograd.graph.summarize's words: 'all 1', 'mean 0.5, range [0, 1]'."""
    text = re.sub(r"\bmean ([^,;]+), range (\[[^\]]*\])", r"均值 \1，范围 \2", text)
    return re.sub(r"\ball (?=[-\d.])", "全为 ", text)


def stepper_caption(caption: str) -> str | None:
    """The Chinese of a stepper's caption; None for a text that is not one."""
    if seed := SEED_CAPTION.fullmatch(caption):
        return _values(f"反向传播开始前：种子梯度 {seed['g']} 传给 {_node(seed['who'])}。")
    step = STEP_CAPTION.fullmatch(caption)
    if step is None:
        return None
    rest, now = step["rest"], None
    if "; .grad is now " in rest:
        rest, _, now = rest.rpartition("; .grad is now ")
    got, sent = "", ""
    if rest.startswith(": gets "):
        got, _, sent = rest.removeprefix(": gets ").partition(" and sends ")
    elif rest:
        return None
    out = f"第 {step['k']} 步（共 {step['n']} 步）：{_node(step['who'])} 运行"
    if got:
        out += f"，收到 {got}"
    if sent:
        pairs = [item.rpartition(" to ") for item in sent.split("; ")]
        out += "，并" + "；".join(f"把 {g} 传给 {_node(w)}" for g, _, w in pairs)
    if now is not None:
        out += f"；.grad 现在是 {now}"
    return _values(out + "。")


def _escaped_caption(escaped: str, edition: str = CHINESE) -> str:
    words = stepper_caption(html.unescape(escaped))
    return escaped if words is None else html.escape(chinese(edition, words))


def chinese_interface(page: str, edition: str = CHINESE) -> str:
    """A Chinese page's rendered content with the English interface words above in Chinese
    (in the Traditional edition's words where `edition` is it)."""
    page = CHINESE_MARKUP_PATTERN.sub(
        lambda m: chinese(edition, CHINESE_MARKUP[m.group(0)]), page)

    def cross_check(match: re.Match[str]) -> str:
        report = match.group(0)
        for english, words in CROSS_CHECK_WORDS.items():
            report = report.replace(english, chinese(edition, words))
        return GRAD_INPUT.sub(chinese(edition, r"<td>输入 \1 的梯度</td>"), report)

    page = CROSS_CHECK.sub(cross_check, page)
    if "mag-stepper" in page:
        page = FIGCAPTION.sub(lambda m: m[1] + _escaped_caption(m[2], edition) + m[3], page)
        page = ARIA_LABEL.sub(lambda m: m[1] + _escaped_caption(m[2], edition) + m[3], page)
        page = FILMSTRIP.sub(lambda m: m[1] + LISTING_LINE.sub(
            lambda line: line[1] + _escaped_caption(line[2], edition), m[2]) + m[3], page)
        page = TOO_MANY.sub(
            chinese(edition, r"<p>共 \1 步，太多，无法逐一绘制；以下是文字列表：</p>"), page)
    return page


def interface_words(app: Sphinx):
    """The template filter: `chinese_interface` on a Chinese site, nothing on the English."""
    edition = language(app)
    if edition in CHINESE_EDITIONS:
        return functools.partial(chinese_interface, edition=edition)
    return lambda page: page


def _filters(app: Sphinx) -> None:
    if app.builder.format == "html":
        app.builder.templates.environment.filters["interface_words"] = interface_words(app)


def _toctree_captions(app: Sphinx, doctree: nodes.document) -> None:
    """The captions of a page's toctrees from the page's catalog: Sphinx translates a
    toctree's caption only where the toctree is written in the page, not where a table of
    contents (_toc.yml) inserts it."""
    if not is_chinese(app):
        return
    words = catalog(catalogs_of(language(app)) / f"{app.env.docname}.po")
    for toctree in doctree.findall(addnodes.toctree):
        caption = toctree.get("caption")
        if caption and caption in words:
            toctree["caption"] = words[caption]


def _alt_texts(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Each figure's alt text in Chinese, from the interface catalog."""
    if not is_chinese(app) or app.builder.format != "html":
        return
    words = catalog(catalogs_of(language(app)) / INTERFACE_CATALOG.name)
    for image in doctree.findall(nodes.image):
        alt = image.get("alt")
        if not alt or CJK.search(alt):
            continue
        if alt in words:
            image["alt"] = words[alt]
        else:
            logger.warning("languages: no Chinese for this alt text in %s: %r (add it to %s)",
                           docname, alt[:80], INTERFACE_CATALOG.relative_to(LOCALE),
                           location=image)


# ---- Chinese search: Traditional characters --------------------------------------------------

TRADITIONAL_JS = "traditional.js"
INDEX_JSON = re.compile(r"^Search\.setIndex\((.*)\)\s*$", re.S)


def index_words(outdir: Path) -> set[str]:
    """The words of a built site's search index (in the text and in titles)."""
    found = INDEX_JSON.match((outdir / "searchindex.js").read_text(encoding="utf-8"))
    index = json.loads(found.group(1))
    return set(index["terms"]) | set(index["titleterms"])


def opencc_characters(table: str) -> dict[str, list[str]]:
    """One of OpenCC's character tables (TSCharacters.txt, STCharacters.txt): each single
    character and the characters it may become, OpenCC's first choice first."""
    from importlib import resources

    try:
        data = resources.files("opencc") / "dictionary" / table
        lines = data.read_text(encoding="utf-8").splitlines()
    except (ModuleNotFoundError, FileNotFoundError) as error:
        raise RuntimeError("the Chinese search needs OpenCC's tables: pip install -r "
                           "requirements.txt (opencc-python-reimplemented)") from error
    found = {}
    for line in lines:
        character, _, choices = line.partition("\t")
        if len(character) == 1:
            found[character] = choices.split()
    return found


def traditional_to_simplified(characters: set[str],
                              table: str = "TSCharacters.txt") -> dict[str, str]:
    """OpenCC's Traditional -> Simplified character table, for the Simplified `characters`
    only (a Traditional character with several Simplified ones takes OpenCC's first); with
    `table` STCharacters.txt, Simplified -> Traditional for the Traditional `characters`."""
    pairs = {}
    for character, choices in opencc_characters(table).items():
        first = (choices or [""])[0]
        if len(first) == 1 and first != character and first in characters:
            pairs[character] = first
    return pairs


def _traditional_table(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html" or not is_chinese(app):
        return
    outdir = Path(app.outdir)
    characters = {c for word in index_words(outdir) for c in word if CJK.match(c)}
    simplified = language(app) == CHINESE
    table = traditional_to_simplified(
        characters, "TSCharacters.txt" if simplified else "STCharacters.txt")
    pairs = "".join(f"{t}{s}" for t, s in sorted(table.items()))
    what = ("Traditional Chinese characters and their Simplified ones" if simplified
            else "Simplified Chinese characters and their Traditional ones")
    (outdir / "_static" / TRADITIONAL_JS).write_text(
        f"/* {what}, in pairs, for the search\n"
        f" * (book/_ext/languages.py): OpenCC's {'TS' if simplified else 'ST'}Characters table "
        "(Apache License 2.0),\n * cut to the characters of this site's search index. */\n"
        f'var CHARACTER_PAIRS = "{pairs}";\n', encoding="utf-8")


# sphinx-copybutton's words, in its script (a dict by the page's lang), which has zh-CN's only
# (the full-width exclamation mark as an escape).
COPY_BUTTON_WORDS = {"copy": "复制", "copy_to_clipboard": "复制到剪贴板",
                     "copy_success": "复制成功\uff01", "copy_failure": "复制失败"}
COPY_BUTTON_MESSAGES = "const messages = {\n"


def _copy_button_words(app: Sphinx, exception: Exception | None) -> None:
    """The Traditional edition's words for the copy button (zh-TW would fall back to English)."""
    if exception is not None or app.builder.format != "html" or language(app) != TRADITIONAL:
        return
    script = Path(app.outdir) / "_static" / "copybutton.js"
    source = script.read_text(encoding="utf-8") if script.is_file() else ""
    if COPY_BUTTON_MESSAGES not in source:
        logger.warning("the copy button's words: %s has no %r to add zh-TW's to", script,
                       COPY_BUTTON_MESSAGES.strip())
        return
    words = "".join(f"    '{key}': '{chinese(TRADITIONAL, value)}',\n"
                    for key, value in COPY_BUTTON_WORDS.items())
    script.write_text(source.replace(
        COPY_BUTTON_MESSAGES, f"{COPY_BUTTON_MESSAGES}  'zh-TW': {{\n{words}  }},\n", 1),
        encoding="utf-8")


def _search_page_script(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                        doctree: Any) -> None:
    if pagename == "search" and is_chinese(app):
        app.add_js_file(TRADITIONAL_JS)


def _configure(app: Sphinx, config: Any) -> None:
    options = dict(config.html_theme_options)
    end = list(options.get("article_header_end", ["article-header-buttons.html"]))
    options["article_header_end"] = [SWITCH_TEMPLATE, *end]
    if is_chinese(app):
        edition = language(app)
        config.html_title = chinese(edition, TITLES[CHINESE])
        config.author = chinese(edition, AUTHORS[CHINESE])
        # a theme option: no catalog translates it
        options["search_bar_text"] = chinese(edition, "搜索本书…")
        # Folds' labels that myst-nb and sphinx-togglebutton take from the configuration.
        config.nb_code_prompt_show, config.nb_code_prompt_hide = (
            chinese(edition, "显示代码"), chinese(edition, "隐藏代码"))
        config.togglebutton_hint, config.togglebutton_hint_hide = (
            chinese(edition, "点击展开"), chinese(edition, "点击收起"))
        words = Path(app.outdir).parent / "search-words.txt"
        words.parent.mkdir(parents=True, exist_ok=True)
        words.write_text("".join(f"{term}\n" for term in chinese_terms(edition)),
                         encoding="utf-8")
        config.html_search_options = {**config.html_search_options, "dict": str(words)}
    config.html_theme_options = options


def _switch(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
            doctree: Any) -> None:
    """The other editions' pages, for the switch and for the alternate links (each link's
    title in its edition's language, as its text)."""
    context["language_switch"] = [{
        "href": page_in(app, pagename, target),
        "name": NAMES[target],
        "hreflang": HREFLANG[target],
        "title": words_of(target).get(SWITCH_TITLES[target], SWITCH_TITLES[target]),
    } for target in others(app)]
    here = f"{pagename.rsplit('/', 1)[-1]}.html"
    links = [(HREFLANG[language(app)], here),
             *((link["hreflang"], link["href"]) for link in context["language_switch"])]
    context["metatags"] = context.get("metatags", "") + "".join(
        f'\n<link rel="alternate" hreflang="{lang}" href="{html.escape(url)}">'
        for lang, url in links
    )


def setup(app: Sphinx) -> dict[str, object]:
    # Before sphinx-togglebutton writes its fold hints from the configuration (also at
    # config-inited, at the default priority 500).
    app.connect("config-inited", _configure, priority=400)
    app.connect("html-page-context", _switch)
    app.connect("builder-inited", _filters)
    app.connect("html-page-context", _search_page_script)
    app.connect("build-finished", _traditional_table)
    app.connect("build-finished", _copy_button_words)
    app.connect("doctree-read", _toctree_captions)
    # After chapter_page.py has set the alt texts from the cells' metadata.
    app.connect("doctree-resolved", _alt_texts, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
