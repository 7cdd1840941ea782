/* The book's search (Sphinx's html_search_scorer; Sphinx puts this file into
 * language_data.js, which loads after searchtools.js).
 *
 * 1. A page whose own title holds a searched word ranks above pages that only mention it in a
 *    section title or the text: "detach" finds the detach() chapter first.
 * 2. Snippets leave out the line under a chapter's title (Open in Colab, Download notebook,
 *    versions): they show the page's text around the match.
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
