// Sphinx 9.0.x ships zh search data that calls an undefined ChineseStemmer (sphinx-doc/sphinx#14229,
// fixed by #14416). Define it before language_data.js loads; a no-op once Sphinx defines its own.
if (typeof window.ChineseStemmer === "undefined") {
  window.ChineseStemmer = function () {
    return typeof EnglishStemmer !== "undefined" ? new EnglishStemmer() : { stemWord: (w) => w };
  };
}
