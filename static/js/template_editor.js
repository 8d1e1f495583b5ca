// Template authoring page (templates/catalog/authoring/template_form.html): as the researcher
// types, the form is posted (debounced, with its CSRF token) to the page's JSON preview
// endpoint; the exact instance count, the first instances (in the template's script) and each
// finding beside the field it concerns are shown again. Every text is set with textContent,
// never as HTML. Also: typed values or a vocabulary per list, and adding/removing WORD lists.
(function () {
  "use strict";
  const form = document.getElementById("template-form");
  if (!form) return;
  // getAttribute, not form.dataset: the form has a control named "dataset", which shadows it.
  const url = form.getAttribute("data-preview-url");
  const DEBOUNCE_MS = 250;
  let timer = null;
  let sent = 0; // requests sent; only the newest answer is shown
  const el = (id) => document.getElementById(id);

  function csrfToken() {
    const input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function item(tag, text, className) {
    const node = document.createElement(tag);
    node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  function showFindings(findings) {
    const lists = form.querySelectorAll("[data-findings-for]");
    lists.forEach((list) => list.replaceChildren());
    for (const finding of findings) {
      const field = finding.field || "";
      const base = field.split("-")[0];
      const list =
        form.querySelector(`[data-findings-for="${CSS.escape(field)}"]`) ||
        form.querySelector(`[data-findings-for="${CSS.escape(base)}"]`) ||
        el("findings-");
      const prefix = list.id === "findings-" && field ? `${field}: ` : "";
      list.appendChild(item("li", prefix + finding.message, `finding-${finding.level}`));
    }
  }

  function showInstances(preview) {
    const list = el("preview-instances");
    list.setAttribute("lang", preview.language || "en");
    list.replaceChildren();
    if (!preview.instances.length) {
      list.appendChild(item("li", "No instance yet: write the texts and NAME lists.", "empty"));
      return;
    }
    for (const instance of preview.instances) {
      const li = item("li", "", "instance");
      li.appendChild(
        item(
          "div",
          `${instance.context_condition} · ${instance.question_polarity} · ${instance.pairing}`,
          "small muted",
        ),
      );
      li.appendChild(item("p", instance.context, "context"));
      li.appendChild(item("p", instance.question, "question"));
      const options = document.createElement("ol");
      options.className = "options";
      options.start = 0;
      instance.answers.forEach((answer, index) => {
        options.appendChild(item("li", answer, index === instance.label ? "gold" : ""));
      });
      li.appendChild(options);
      list.appendChild(li);
    }
  }

  function show(preview) {
    el("preview-count").textContent =
      preview.count === null ? "—" : preview.count.toLocaleString("en");
    el("preview-axes").textContent =
      preview.axes.map((axis) => `${axis.size} ${axis.name} × `).join("") +
      String(preview.per_combination);
    el("preview-errors").textContent = String(preview.error_count);
    el("preview-warnings").textContent = String(preview.warning_count);
    el("preview-status").textContent = preview.error_count
      ? "With errors the version is saved as a draft that is neither instantiated nor approved."
      : "";
    showInstances(preview);
    showFindings(preview.findings);
  }

  async function refresh() {
    const number = ++sent;
    form.setAttribute("aria-busy", "true");
    try {
      const response = await fetch(url, {
        method: "POST",
        body: new FormData(form),
        headers: { "X-CSRFToken": csrfToken(), Accept: "application/json" },
        credentials: "same-origin",
      });
      if (!response.ok || number !== sent) return;
      show(await response.json());
      form.setAttribute("data-previewed", String(number));
    } catch (error) {
      // A dropped request changes nothing on the page; the next keystroke tries again.
    } finally {
      if (number === sent) form.removeAttribute("aria-busy");
    }
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(refresh, DEBOUNCE_MS);
  }

  // A list's values are typed or come from a vocabulary: show the controls of the one chosen.
  function showMode(fieldset) {
    const checked = fieldset.querySelector("input[type=radio]:checked");
    const vocabulary = checked && checked.value === "vocabulary";
    fieldset.querySelector(".list-values").hidden = vocabulary;
    fieldset.querySelector(".list-vocabulary").hidden = !vocabulary;
  }

  function followLanguage() {
    const language = el("id_language");
    if (!language || !/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(language.value)) return;
    form.querySelectorAll("[data-lang-follows]").forEach((node) => {
      node.setAttribute("lang", language.value);
    });
  }

  function addWordList() {
    const numbers = [...form.querySelectorAll("[data-list^=WORD]")].map((node) =>
      Number(node.dataset.list.slice(4)),
    );
    const next = Math.max(0, ...numbers) + 1;
    const html = el("blank-list").innerHTML.replaceAll("__N__", String(next));
    const holder = document.createElement("div");
    holder.innerHTML = html; // the server's own markup for an empty list, renumbered
    const fieldset = holder.querySelector("fieldset");
    el("list-container").appendChild(fieldset);
    fieldset.querySelector(`input[type=radio][value=values]`).checked = true;
    showMode(fieldset);
    followLanguage();
    fieldset.querySelector("textarea").focus();
  }

  form.addEventListener("input", schedule);
  form.addEventListener("change", (event) => {
    if (event.target.type === "radio") showMode(event.target.closest("fieldset"));
    if (event.target.id === "id_language") followLanguage();
    schedule();
  });
  form.addEventListener("click", (event) => {
    const remove = event.target.closest(".remove-list");
    if (!remove) return;
    remove.closest("fieldset").remove();
    el("add-word-list").focus();
    schedule();
  });
  el("add-word-list").addEventListener("click", addWordList);
  form.querySelectorAll("fieldset.placeholder-list").forEach(showMode);
  refresh();
})();
