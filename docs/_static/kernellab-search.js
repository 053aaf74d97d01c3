// kernellab's search, on top of Sphinx's (docs/_templates/search.html loads it after searchtools.js,
// language_data.js and the index). Three changes, each checked by running this file and Sphinx's own with
// node (tests/site/search.mjs, tests/site/test_search.py):
//
// 1. A Chinese query is cut into the index's own terms, a synonym replaced by its term. Sphinx looks a query up word by word, and a run of
//    Chinese characters is one word to it: 矩阵乘法, 自动调优 or 边界检查 found nothing, although the index
//    holds 矩阵 and 乘法. A run that is not itself a term is cut into the fewest terms that cover the most of
//    it (a character no term covers, such as 的, is left out).
// 2. Lessons and guides rank above the API reference for the words they teach: Sphinx scores an object's
//    name above a page that explains it (occupancy: the lesson was 7th; 合并访问: 33rd of 33). Among them, a
//    page whose title names the query ranks first, the more so the more of its title the query is; a page
//    found by text scores the sum of its words, not their best.
// 3. A result's snippet is taken from the article, not from the breadcrumbs and links above it.
(function () {
  "use strict";
  var CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
  var RUNS = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[^\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
  var LONGEST = 12; // characters in the longest Chinese term looked for
  var API = /^(generated\/|api$|genindex$|py-modindex$|_modules\/)/;
  var HUB = /^(index|glossary|auto_examples\/(.+\/)?index)$/; // pages that list everything
  var has = Object.prototype.hasOwnProperty;

  function synonyms() {
    return (Search._index && Search._index.kernellab_synonyms) || {};
  }

  function known(word) {
    var index = Search._index;
    return !!index && (has.call(index.terms, word) || has.call(index.titleterms, word) || has.call(synonyms(), word));
  }

  // The index terms a run of Chinese characters is made of: fewest characters left uncovered, then fewest terms.
  function segment(run) {
    if (known(run)) return [run];
    var best = [{ lost: 0, parts: 0, from: -1, term: null }];
    for (var end = 1; end <= run.length; end++) {
      best[end] = null;
      for (var start = Math.max(0, end - LONGEST); start < end; start++) {
        var piece = run.slice(start, end);
        var hit = known(piece);
        if (!best[start] || (!hit && end - start > 1)) continue;
        var lost = best[start].lost + (hit ? 0 : 1);
        var parts = best[start].parts + 1;
        var b = best[end];
        if (!b || lost < b.lost || (lost === b.lost && parts < b.parts))
          best[end] = { lost: lost, parts: parts, from: start, term: hit ? piece : null };
      }
    }
    var terms = [];
    for (var at = run.length; at > 0; at = best[at].from) if (best[at].term) terms.unshift(best[at].term);
    return terms;
  }

  var sphinxSplit = splitQuery;
  function split(query) {
    var words = [];
    sphinxSplit(query).forEach(function (word) {
      if (!CJK.test(word)) return words.push(word);
      (word.match(RUNS) || []).forEach(function (run) {
        if (CJK.test(run)) words.push.apply(words, segment(run));
        else if (run.trim()) words.push(run);
      });
    });
    return words;
  }
  // A synonym a student types (合并访问, 线程束: docs/_ext/zh_search.py) is looked up as the term it stands for.
  var typed = []; // the query's words before the synonyms are replaced
  splitQuery = function (query) {
    var words = [];
    typed = split(query);
    typed.forEach(function (word) {
      var terms = has.call(synonyms(), word) ? synonyms()[word] : null;
      if (!terms) return words.push(word);
      terms.forEach(function (term) { words.push.apply(words, split(term)); });
    });
    return words;
  };

  // What the query is, for the scorer (Sphinx gives it only each result).
  var current = { words: [], rejected: false };
  var sphinxPerform = Search._performSearch;
  Search._performSearch = function (query, searchTerms, excludedTerms, highlightTerms) {
    var rejected = Search._index.kernellab_rejected || [];
    current.rejected = typed.some(function (w) { return rejected.indexOf(w) >= 0; });
    // the words as typed (lower case), not stemmed: a title holds "memory", not "memori"
    current.words = Array.from(highlightTerms || searchTerms || []).map(function (w) { return w.toLowerCase(); });
    return sphinxPerform.apply(this, arguments);
  };

  // A page found by its text scores the sum of its words' scores, not their maximum: a page with every word
  // of 自动调优 (自动 + 调优) in its headings above one with only 自动 there.
  function posting(table, word, file) {
    var files = has.call(table, word) ? table[word] : undefined;
    return files !== undefined && (files === file || (files.indexOf && files.indexOf(file) >= 0));
  }
  var sphinxTerms = Search.performTermsSearch;
  Search.performTermsSearch = function (searchTerms, excludedTerms) {
    var results = sphinxTerms.apply(this, arguments);
    var index = Search._index, words = Array.from(searchTerms);
    if (words.length < 2) return results;
    results.forEach(function (r) {
      var file = index.docnames.indexOf(r[0]);
      r[4] = words.reduce(function (sum, w) {
        return sum + (posting(index.titleterms, w, file) ? Scorer.title : posting(index.terms, w, file) ? Scorer.term : 0);
      }, 0);
    });
    return results;
  };

  // How much of a page's title the query is, when the title holds every word of it: 0 when it does not.
  function titleShare(title) {
    var t = (title || "").toLowerCase();
    if (!current.words.length) return 0;
    var length = 0;
    var all = current.words.every(function (w) {
      length += w.length;
      return t.indexOf(w) >= 0;
    });
    return all ? length / Math.max(t.length, 1) : 0;
  }

  var sphinxScore = Scorer.score;
  Scorer.score = function (result) {
    var score = sphinxScore ? sphinxScore(result) : result[4];
    var docname = result[0], kind = result[6];
    if (API.test(docname)) return score; // the reference: Sphinx's own score
    score += HUB.test(docname) ? 15 : 30; // a lesson or guide above any API entry (at most 26)
    if (current.rejected && docname === "glossary") score += 60; // 线程束: the glossary says the site writes warp
    var share = kind === "object" ? 0 : titleShare(result[1]);
    if (share) score += 10 + Math.round(20 * share); // its title names the query: the shorter the title, the more
    return score;
  };

  var sphinxHtmlToText = Search.htmlToText;
  Search.htmlToText = function (htmlString, anchor) {
    var doc = new DOMParser().parseFromString(htmlString, "text/html");
    var chrome = ".bd-header-article, .bd-breadcrumbs, .sphx-glr-download-link-note, .prev-next-area, " +
      ".sphx-glr-footer, .sphx-glr-signature, footer, nav";
    doc.querySelectorAll(chrome).forEach(function (el) { el.remove(); });
    return sphinxHtmlToText(doc.documentElement.outerHTML, anchor);
  };
})();
