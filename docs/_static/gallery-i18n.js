// sphinx-gallery writes each card's visible title and tooltip as raw HTML from the English script,
// out of gettext's reach. On a translated page the card's hidden :doc: link carries the translated
// title: copy it into the visible title and drop the English tooltip.
document.addEventListener("DOMContentLoaded", () => {
  const lang = (document.documentElement.lang || "en").toLowerCase();
  if (lang.startsWith("en")) return;
  document.querySelectorAll(".sphx-glr-thumbcontainer").forEach((card) => {
    const link = card.querySelector("a.reference.internal");
    const title = card.querySelector(".sphx-glr-thumbnail-title");
    const text = link ? link.textContent.trim() : "";
    if (title && text) title.textContent = text;
    card.removeAttribute("tooltip");
  });
});
