"""The book in two languages: English at the site's root, Simplified Chinese under ``zh_CN/``.

Both are built from the same sources (scripts/build_book.py builds the Chinese one with
``language = "zh_CN"``); Sphinx translates the pages with the catalogs of book/locale/ and
the themes translate their own words. This extension adds what neither does:

- a language switch on every page (in the article's header, beside the theme's buttons) that
  leads to the same page in the other language, and ``<link rel="alternate" hreflang>``
  tags that tell search engines the two pages are one;
- the book's own interface words (the chapter pages' run links, the folds' labels) in the
  page's language (``text``);
- the Chinese edition's title;
- Chinese search that knows the book's terms: Sphinx splits Chinese text into words with
  jieba, which cuts 反向传播 into 反向 and 传播, while the search page looks a query up
  whole. The terms of book/locale/zh_CN/terms.md become a jieba dictionary, so the index
  holds each term whole as well as its parts.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

ENGLISH = "en"
CHINESE = "zh_CN"
# Where each edition lies below the published site's root, and its name in its own language.
FOLDERS = {ENGLISH: "", CHINESE: "zh_CN/"}
NAMES = {ENGLISH: "English", CHINESE: "中文"}
HREFLANG = {ENGLISH: "en", CHINESE: "zh-CN"}
TITLES = {CHINESE: "Autograd：运行与重建"}
SWITCH_TEMPLATE = "language-switch.html"
TERMS = Path(__file__).resolve().parents[1] / "locale" / CHINESE / "terms.md"
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
            "（Colab 预装的版本）至 {newest} 上运行，两端均经测试；该范围内的其他版本部分报错措辞"
            "不同，也可能打印本页未显示的警告。",
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
        "Read this page in Chinese": "阅读本页的中文版",
    },
}


def language(app: Sphinx) -> str:
    return app.config.language if app.config.language in FOLDERS else ENGLISH


def text(app: Sphinx, english: str, **values: str) -> str:
    """`english` in the language of the build, with `values` filled in."""
    return WORDS.get(language(app), {}).get(english, english).format(**values)


def other(app: Sphinx) -> str:
    return CHINESE if language(app) == ENGLISH else ENGLISH


def page_in(app: Sphinx, pagename: str, target: str) -> str:
    """The relative address, from the page `pagename` of this build, of the same page in the
    edition `target`."""
    up = "../" * (pagename.count("/") + (language(app) != ENGLISH))
    return f"{up}{FOLDERS[target]}{pagename}.html"


def chinese_terms() -> list[str]:
    """The Chinese terms of terms.md, each a word for the search's splitter."""
    found = [m["chinese"].strip() for m in TERM_ROW.finditer(TERMS.read_text(encoding="utf-8"))]
    return sorted({t for t in found if CJK.search(t) and " " not in t and "N" not in t})


def _configure(app: Sphinx, config: Any) -> None:
    options = dict(config.html_theme_options)
    end = list(options.get("article_header_end", ["article-header-buttons.html"]))
    options["article_header_end"] = [SWITCH_TEMPLATE, *end]
    if language(app) == CHINESE:
        config.html_title = TITLES[CHINESE]
        options["search_bar_text"] = "搜索本书…"  # a theme option: no catalog translates it
        # Folds' labels that myst-nb and sphinx-togglebutton take from the configuration.
        config.nb_code_prompt_show, config.nb_code_prompt_hide = "显示代码", "隐藏代码"
        config.togglebutton_hint, config.togglebutton_hint_hide = "点击展开", "点击收起"
        words = Path(app.outdir).parent / "search-words.txt"
        words.parent.mkdir(parents=True, exist_ok=True)
        words.write_text("".join(f"{term}\n" for term in chinese_terms()), encoding="utf-8")
        config.html_search_options = {**config.html_search_options, "dict": str(words)}
    config.html_theme_options = options


def _switch(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
            doctree: Any) -> None:
    """The other edition's page, for the switch and for the alternate links."""
    target = other(app)
    href = page_in(app, pagename, target)
    context["language_switch"] = {
        "href": href,
        "name": NAMES[target],
        "hreflang": HREFLANG[target],
        "title": text(app, "Read this page in English" if target == ENGLISH
                      else "Read this page in Chinese"),
    }
    here = f"{pagename.rsplit('/', 1)[-1]}.html"
    links = [(HREFLANG[language(app)], here), (HREFLANG[target], href)]
    context["metatags"] = context.get("metatags", "") + "".join(
        f'\n<link rel="alternate" hreflang="{lang}" href="{html.escape(url)}">'
        for lang, url in links
    )


def setup(app: Sphinx) -> dict[str, object]:
    # Before sphinx-togglebutton writes its fold hints from the configuration (also at
    # config-inited, at the default priority 500).
    app.connect("config-inited", _configure, priority=400)
    app.connect("html-page-context", _switch)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
