// Adjudication keys: a approve, r reject, e save the edit as a new version.
(function () {
  "use strict";
  var keys = { a: "approve", r: "reject", e: "edit" };
  document.addEventListener("keydown", function (e) {
    var el = document.activeElement;
    if (e.ctrlKey || e.altKey || e.metaKey) return;
    if (el && (el.tagName === "TEXTAREA" || el.tagName === "INPUT" && el.type !== "radio")) {
      if (e.key === "Escape") el.blur();
      return;
    }
    var button = keys[e.key] && document.getElementById(keys[e.key]);
    if (button) { e.preventDefault(); button.click(); }
  });
})();
