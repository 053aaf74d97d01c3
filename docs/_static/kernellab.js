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
// both languages) and, on the search page, the same ?q= query.
(function () {
  function keepPlace(event) {
    var link = event.currentTarget;
    var url = new URL(link.getAttribute("href"), location.href);
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
