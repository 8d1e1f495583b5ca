// Annotation workbench: keyboard shortcuts and draft autosave. The page works without this
// script (plain form posts); the script only makes every decision one key away.
(function () {
  "use strict";
  var form = document.getElementById("judgement-form");
  var groups = form ? Array.prototype.slice.call(form.querySelectorAll("fieldset[data-field]")) : [];
  var active = 0;
  var draftKey = form ? "kasauti-draft-" + form.dataset.draft : null;

  function typing(el) {
    return el && (el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && el.type === "text"));
  }
  function mark() {
    groups.forEach(function (g, i) { g.classList.toggle("active", i === active); });
  }
  function choose(value) {
    var group = groups[active];
    if (!group) return;
    var radios = group.querySelectorAll("input[type=radio]");
    var target = null;
    radios.forEach(function (r) { if (r.value === value) target = r; });
    if (!target && /^[1-9]$/.test(value) && radios[+value - 1] && isNaN(+radios[0].value)) {
      target = radios[+value - 1];  // keep / fix / drop by position
    }
    if (!target) return;
    target.checked = true;
    save();
    // "Fix the text" opens the text to fix; a required justification is typed next;
    // otherwise go straight to the next question.
    var then = target.dataset.focus && form.querySelector('[name="' + target.dataset.focus + '"]');
    if (then) { then.focus(); return; }
    var reason = group.querySelector(".comment[required]");
    if (reason && !reason.value.trim()) { reason.focus(); return; }
    advance();
  }
  function advance() {
    if (active < groups.length - 1) {
      active += 1;
      mark();
      groups[active].scrollIntoView({ block: "nearest" });
    }
  }
  function complete() {
    return form.checkValidity();
  }
  function values() {
    var data = {};
    new FormData(form).forEach(function (v, k) { if (k !== "csrfmiddlewaretoken" && k !== "idempotency_key") data[k] = v; });
    return data;
  }
  function restore(data) {
    Object.keys(data || {}).forEach(function (name) {
      var fields = form.querySelectorAll('[name="' + name + '"]');
      fields.forEach(function (f) {
        if (f.type === "radio") f.checked = String(f.value) === String(data[name]);
        else f.value = data[name];
      });
    });
  }
  function save() {
    if (!draftKey) return;
    try { localStorage.setItem(draftKey, JSON.stringify(values())); } catch (e) { /* private mode */ }
  }

  // After a reload with a draft, the next key answers the first question still open.
  function firstOpen() {
    for (var i = 0; i < groups.length; i++) {
      if (!groups[i].querySelector("input[type=radio]:checked")) return i;
    }
    return 0;
  }

  if (form) {
    var current = document.getElementById("current-answers");
    if (current) restore(JSON.parse(current.textContent));
    try { restore(JSON.parse(localStorage.getItem(draftKey) || "{}")); } catch (e) { /* ignore */ }
    active = firstOpen();
    form.addEventListener("input", save);
    form.addEventListener("change", save);
    form.addEventListener("submit", function () {
      try { localStorage.removeItem(draftKey); } catch (e) { /* ignore */ }
      var button = document.getElementById("submit");
      // A double-click would send the same idempotency key anyway; this just looks calmer.
      setTimeout(function () { if (button) button.disabled = true; }, 0);
    });
    groups.forEach(function (g, i) { g.addEventListener("focusin", function () { active = i; mark(); }); });
    mark();
  }

  function go(id) { var a = document.getElementById(id); if (a) window.location = a.href; }

  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.metaKey) return;
    if (e.key === "Enter" && e.ctrlKey && form) { e.preventDefault(); form.requestSubmit(); return; }
    if (typing(document.activeElement)) {
      var inText = document.activeElement;
      if (e.key === "Escape") { inText.blur(); advance(); }
      // Enter in a one-line comment: submit when everything is answered, else move on.
      if (e.key === "Enter" && inText.tagName === "INPUT" && form) {
        e.preventDefault();
        if (complete()) form.requestSubmit();
        else { inText.blur(); advance(); }
      }
      return;
    }
    if (e.ctrlKey) return;
    switch (e.key) {
      case "y": choose("yes"); break;
      case "n": choose("no"); break;
      case "1": case "2": case "3": case "4": case "5": choose(e.key); break;
      case "Enter": if (form) { e.preventDefault(); if (complete()) form.requestSubmit(); else form.reportValidity(); } break;
      case "j": go("next-link"); break;
      case "k": go("prev-link"); break;
      case "c": {
        var box = groups[active] && groups[active].querySelector(".comment");
        if (box) { e.preventDefault(); box.focus(); }
        break;
      }
      case "u": { var undo = document.getElementById("undo-form"); if (undo) undo.requestSubmit(); break; }
      case "?": toggleGuidelines(); break;
      default: return;
    }
    // Handled: the key must not also type into the field that now has the focus.
    e.preventDefault();
  });
  var toggle = document.getElementById("guidelines-toggle");
  function toggleGuidelines() {
    var g = document.getElementById("guidelines");
    if (!g) return;
    g.hidden = !g.hidden;
    if (toggle) toggle.setAttribute("aria-expanded", String(!g.hidden));
  }
  if (toggle) toggle.addEventListener("click", toggleGuidelines);
  // Highlight {{PLACEHOLDERS}} in template text.
  document.querySelectorAll(".placeholders").forEach(function (el) {
    el.innerHTML = el.innerHTML.replace(/\{\{([A-Z0-9_-]+)\}\}/g, '<mark class="ph">{{$1}}</mark>');
  });
})();
