// Correction keys: c confirm the machine translation, e edit (focus the text), Ctrl+Enter save.
(function () {
  "use strict";
  var text = document.getElementById("correction-text");
  document.addEventListener("keydown", function (e) {
    var el = document.activeElement;
    if (e.key === "Enter" && e.ctrlKey) { var s = document.getElementById("save-edit"); if (s) { e.preventDefault(); s.click(); } return; }
    if (el && (el.tagName === "TEXTAREA" || el.tagName === "INPUT")) { if (e.key === "Escape") el.blur(); return; }
    if (e.ctrlKey || e.altKey || e.metaKey) return;
    if (e.key === "c") { var c = document.getElementById("confirm"); if (c) { e.preventDefault(); c.click(); } }
    if (e.key === "e" && text) { e.preventDefault(); text.focus(); }
  });
})();
