/* The book's own behaviour on top of the theme (no library; the pages work without it).
   - On a phone the Contents and the menu are dialogs: one closes after a tap on a link to a
     place in the page, instead of covering it.
   - Printing (or saving as PDF): the light palette whatever the screen's, and every fold
     open (hints, solutions, hidden helpers), as they were before once printing is done. */
(function () {
  'use strict';
  document.addEventListener('click', function (event) {
    var link = event.target.closest && event.target.closest('dialog a[href]');
    var dialog = link && link.closest('dialog');
    if (!dialog || !dialog.open) { return; }
    var target = new URL(link.href, location.href);
    if (target.pathname === location.pathname && target.hash) { dialog.close(); }
  });

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
