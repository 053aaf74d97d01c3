// kernellab's site: keep --kl-header-height at the sticky header's real height (it wraps on narrow
// screens), so anchor jumps stop below it (custom.css: scroll-padding-top).
(function () {
  function update() {
    var header = document.querySelector(".bd-header");
    if (header) document.documentElement.style.setProperty("--kl-header-height", header.offsetHeight + "px");
  }
  document.addEventListener("DOMContentLoaded", function () {
    update();
    var header = document.querySelector(".bd-header");
    if (header && window.ResizeObserver) new ResizeObserver(update).observe(header);
  });
})();

// The language switcher keeps the reader's place: the same #anchor (section ids are the English ones in
// both languages) and, on the search page, the same ?q= query. On a highlighted source page, which both
// languages share (docs/_ext/site_weight.py), it leads to the other language's entry of the object in view.
(function () {
  function entryInView(link) {
    var block = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    var back = block && block.classList.contains("viewcode-block") && block.querySelector("a.viewcode-back");
    if (!back) return null;
    var root = new URL(document.documentElement.dataset.content_root || "./", location.href).href;
    var otherRoot = new URL("../" + link.getAttribute("hreflang").replace("-", "_") + "/", root).href;
    var entry = new URL(back.getAttribute("href"), location.href).href;
    return entry.indexOf(root) === 0 ? otherRoot + entry.slice(root.length) : null;
  }
  function keepPlace(event) {
    var link = event.currentTarget;
    var url = new URL(link.getAttribute("href"), location.href);
    if (document.querySelector("div.viewcode-block")) {
      link.href = entryInView(link) || url.href;  // the module's API page when no object is in view
      return;
    }
    url.search = location.search;
    url.hash = location.hash;
    link.href = url.href;
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".kernellab-lang-switcher a").forEach(function (link) {
      ["click", "focus", "mouseover", "touchstart"].forEach(function (kind) {
        link.addEventListener(kind, keepPlace, { passive: true });
      });
    });
  });
})();
