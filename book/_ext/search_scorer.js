/* The book's search (Sphinx's html_search_scorer; Sphinx puts this file into
 * language_data.js, which loads after searchtools.js).
 *
 * 1. A page whose own title holds a searched word ranks above pages that only mention it in a
 *    section title or the text: "detach" finds the detach() chapter first.
 * 2. Snippets leave out the line under a chapter's title (Open in Colab, Download notebook,
 *    versions): they show the page's text around the match.
 * 3. On the Chinese sites (<html lang="zh-CN"> and "zh-TW"), a query is split as the pages
 *    were: jieba cut the pages into words (with the book's terms as its dictionary,
 *    languages.py), and the index holds those words, none of one character. A run of Chinese
 *    characters in the query is cut into the longest words the index holds, left to right
 *    (内存泄漏 -> 内存泄漏, or 内存 + 泄漏 where the index has only those), a character that
 *    starts no word is left out as the index left it out, and the characters of the other
 *    script are first made the site's (traditional.js, OpenCC's table cut to the index's
 *    characters, written by languages.py): 反向傳播 finds 反向传播 on the Simplified site,
 *    反向传播 finds 反向傳播 on the Traditional one. Sphinx's own splitter cuts only at spaces
 *    and punctuation.
 */
var Scorer = {
  score: (result) => {
    const [, title, , , score] = result;
    const query = new URLSearchParams(window.location.search).get("q") || "";
    const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) || [];
    const pageTitle = String(title).split(" > ")[0].toLowerCase();
    return words.some((word) => pageTitle.includes(word)) ? score + 20 : score;
  },
  // Sphinx's defaults for the rest.
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: {0: 15, 1: 5, 2: -5},
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};

if (typeof Search !== "undefined" && !Search.bookSnippets) {
  const pageText = Search.htmlToText;
  Search.bookSnippets = true;
  Search.htmlToText = (htmlString, anchor) => {
    const page = new DOMParser().parseFromString(htmlString, "text/html");
    page.querySelectorAll(".chapter-run").forEach((line) => line.remove());
    return pageText(page.documentElement.outerHTML, anchor);
  };
}

if (["zh-CN", "zh-TW"].includes(document.documentElement.lang)) {
  const HAN_OR_NOT = /\p{Script=Han}+|[^\p{Script=Han}]+/gu;
  const HAN = /^\p{Script=Han}/u;
  const LONGEST = 12;  // no word of the index is longer
  const own = Object.prototype.hasOwnProperty;
  let ours = null;
  const toOurs = (text) => {
    if (ours === null) {
      ours = new Map();
      const pairs = typeof CHARACTER_PAIRS === "string" ? Array.from(CHARACTER_PAIRS) : [];
      for (let i = 0; i + 1 < pairs.length; i += 2) ours.set(pairs[i], pairs[i + 1]);
    }
    return Array.from(text, (c) => ours.get(c) || c).join("");
  };
  const known = (word) => {
    const index = Search._index || {};
    return own.call(index.terms || {}, word) || own.call(index.titleterms || {}, word);
  };
  const words = (run) => {
    const found = [];
    const chars = Array.from(run);
    for (let i = 0; i < chars.length;) {
      let n = Math.min(LONGEST, chars.length - i);
      while (n > 1 && !known(chars.slice(i, i + n).join(""))) n -= 1;
      if (n > 1) found.push(chars.slice(i, i + n).join(""));
      i += n;
    }
    return found.length ? found : [run];  // no word of the index: found nowhere, as it should
  };
  // Sphinx's splitter (searchtools.js), then the Chinese runs of each term cut into words.
  var splitQuery = (query) => toOurs(query)
    .split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu)
    .filter((term) => term)
    .flatMap((term) => term.match(HAN_OR_NOT))
    .flatMap((part) => (HAN.test(part) ? words(part) : [part]));
}
