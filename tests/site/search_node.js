// Run the built site's own search in node: the scripts its search page loads (Sphinx's searchtools.js and
// language_data.js, the index, kernellab-search.js), in the page's order, then each query as the page runs
// it (Search._parseQuery, then Search._performSearch), results in the order the page shows them.
//
//   node tests/site/search_node.js <site>/<lang> < queries.json
//   → {scripts, out: [{query, words, results: [[docname, title, kind, score], ...]}, ...]}
//
// Only what these scripts touch outside the search is stubbed: no document, no summaries fetched.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const [root] = process.argv.slice(2);
const SEARCH_SCRIPTS = new Set(["sphinx9-zh-search-fix.js", "searchtools.js", "language_data.js", "searchindex.js",
  "kernellab-search.js"]);

const page = fs.readFileSync(path.join(root, "search.html"), "utf8");
const scripts = [...page.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1].split("?")[0])
  .filter((src) => SEARCH_SCRIPTS.has(path.basename(src)));

const context = {
  console,
  document: { getElementById: () => null, querySelectorAll: () => [], addEventListener: () => {},
    documentElement: { dataset: {} } },
  localStorage: { setItem: () => {}, getItem: () => null },
  DOCUMENTATION_OPTIONS: {},
  SPHINX_HIGHLIGHT_ENABLED: false,
  _: (text) => text,
  _ready: () => {},
};
context.window = context;
vm.createContext(context);
for (const src of scripts) {
  vm.runInContext(fs.readFileSync(path.join(root, src), "utf8"), context, { filename: src });
}
const queries = JSON.parse(fs.readFileSync(0, "utf8"));
const out = vm.runInContext(`(function (queries) {
  return queries.map(function (query) {
    const parsed = Search._parseQuery(query);
    const results = Search._performSearch(...parsed).slice().reverse();  // the page shows the last first
    return { query: query, words: [...parsed[1]],
             results: results.map((r) => [r[0], r[1], r[6], r[4]]) };
  });
})`, context)(queries);
process.stdout.write(JSON.stringify({ scripts, out }));
