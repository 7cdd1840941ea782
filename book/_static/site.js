/* The book's own behaviour on top of the theme (no library; the pages work without it).
   - On a phone the Contents and the menu are dialogs: one closes after a tap on a link to a
     place in the page, instead of covering it.
   - Search: a glossary term found by name is listed once, as "term (Glossary)", not once
     as the term and again as the glossary page.
   - Printing (or saving as PDF): the light palette whatever the screen's, and every fold
     open (hints, solutions, hidden helpers), as they were before once printing is done.
   - A link to a place inside a folded section (a side road) opens the fold, in
     browsers that do not do it themselves (Chromium does).
   - On the Chinese site, the fold buttons that sphinx-togglebutton's script adds to the hints
     are named in Chinese (its script writes "Toggle hidden content"; the build translates
     every other interface word, languages.py). */
(function () {
  'use strict';
  document.addEventListener('click', function (event) {
    var link = event.target.closest && event.target.closest('dialog a[href]');
    var dialog = link && link.closest('dialog');
    if (!dialog || !dialog.open) { return; }
    var target = new URL(link.href, location.href);
    if (target.pathname === location.pathname && target.hash) { dialog.close(); }
  });

  function dedupeSearch() {
    var results = document.getElementById('search-results');
    if (!results) { return; }
    new MutationObserver(function () {
      var items = results.querySelectorAll('ul.search > li');
      var terms = {};
      items.forEach(function (item) {
        var link = item.querySelector('a');
        var href = link ? link.getAttribute('href') : '';
        var page = href.split('#')[0];
        if (href.indexOf('#term-') !== -1) {
          var name = (item.querySelector('p.context') || {}).textContent || '';
          name = name.trim();
          if (name && link.textContent.indexOf(name) !== 0) {
            link.textContent = name + ' (' + link.textContent + ')';
          }
          terms[page] = true;
        } else if (terms[page] && href === page) {
          item.remove();
        }
      });
    }).observe(results, {childList: true, subtree: true});
  }
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', dedupeSearch);
  } else {
    dedupeSearch();
  }

  function openFoldsAroundTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    var opened = false;
    for (var fold = target && target.closest('details:not([open])'); fold;
         fold = fold.parentElement.closest('details:not([open])')) {
      fold.open = true;
      opened = true;
    }
    // A folded box (a dropdown admonition, which sphinx-togglebutton hides by a class): its
    // title's button opens it, as a reader's click would.
    for (var box = target && target.closest('.admonition.toggle-hidden'); box;
         box = box.parentElement.closest('.admonition.toggle-hidden')) {
      var button = box.querySelector(':scope > .admonition-title button.toggle-button');
      if (button) {
        button.click();
        opened = true;
      }
    }
    if (opened) { target.scrollIntoView(); }
  }
  window.addEventListener('hashchange', openFoldsAroundTarget);
  if (location.hash) {
    // After sphinx-togglebutton has folded the boxes, which it does when the DOM is loaded.
    var openSoon = function () { setTimeout(openFoldsAroundTarget, 0); };
    if (document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', openSoon);
    } else {
      openSoon();
    }
  }

  function chineseToggleButtons() {
    var label = {'zh-CN': '显示或隐藏内容', 'zh-TW': '顯示或隱藏內容'}[document.documentElement.lang];
    if (!label) { return; }
    document.querySelectorAll('button.toggle-button[aria-label="Toggle hidden content"]')
      .forEach(function (button) { button.setAttribute('aria-label', label); });
  }
  // sphinx-togglebutton adds its buttons when the page's DOM is loaded: after it.
  document.addEventListener('DOMContentLoaded', function () {
    setTimeout(chineseToggleButtons, 0);
  });
  window.addEventListener('load', chineseToggleButtons);

  var printed = null;
  window.addEventListener('beforeprint', function () {
    var root = document.documentElement;
    printed = {theme: root.dataset.theme, opened: []};
    root.dataset.theme = 'light';
    document.querySelectorAll('details:not([open])').forEach(function (fold) {
      fold.open = true;
      printed.opened.push(fold);
    });
  });
  window.addEventListener('afterprint', function () {
    if (!printed) { return; }
    document.documentElement.dataset.theme = printed.theme;
    printed.opened.forEach(function (fold) { fold.open = false; });
    printed = null;
  });
})();
