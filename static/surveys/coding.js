// The coding queue's keyboard shortcuts and the "select all" box. Everything works without it:
// each decision is a plain form.
(function () {
  "use strict";
  const answers = () => Array.from(document.querySelectorAll("article.answer"));
  let current = -1;

  function focusAnswer(index) {
    const list = answers();
    if (!list.length) return;
    current = Math.max(0, Math.min(index, list.length - 1));
    list.forEach((el, i) => el.classList.toggle("current", i === current));
    list[current].focus({ preventScroll: true });
    list[current].scrollIntoView({ block: "nearest" });
  }

  const all = document.getElementById("select-all");
  if (all) {
    all.addEventListener("change", () => {
      document.querySelectorAll("input.pick").forEach((box) => { box.checked = all.checked; });
    });
  }
  const action = document.getElementById("bulk-action");
  const concept = document.getElementById("bulk-concept");
  const reason = document.getElementById("bulk-reason");
  function bulkFields() {
    if (!action) return;
    concept.hidden = action.value !== "code";
    reason.hidden = action.value !== "invalid";
  }
  if (action) { action.addEventListener("change", bulkFields); bulkFields(); }

  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (target.closest && target.closest("input, textarea, select")) return;
    const list = answers();
    if (current < 0 || current >= list.length) {
      const inside = target.closest && target.closest("article.answer");
      current = inside ? list.indexOf(inside) : -1;
    }
    const answer = list[current];
    if (event.key === "j") { focusAnswer(current + 1); event.preventDefault(); return; }
    if (event.key === "k") { focusAnswer(current - 1); event.preventDefault(); return; }
    if (!answer) return;
    if (/^[1-5]$/.test(event.key)) {
      const button = answer.querySelector(`button.accept[data-rank="${event.key}"]`);
      if (button) { button.click(); event.preventDefault(); }
    } else if (event.key === "x") {
      const box = answer.querySelector("input.pick");
      if (box) { box.checked = !box.checked; event.preventDefault(); }
    } else if (event.key === "/") {
      const input = answer.querySelector("input.concept-input");
      if (input) { input.focus(); event.preventDefault(); }
    }
  });
})();
