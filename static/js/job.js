// The one job poller, for every kind of job: polls /api/jobs/<id>/ once a second and updates
// status, progress (overall and per part), rate, time left, error, the readable summary and
// the links. A page with a kind-specific section (data-reload-on-finish) reloads once when the
// job finishes, so the server renders that section's final rows. Plain fetch; the session
// cookie authenticates the GET.
(function () {
  "use strict";
  const card = document.getElementById("job");
  if (!card || card.dataset.finished === "true") return;

  const FINISHED = new Set(["succeeded", "failed", "cancelled"]);
  const RESUMABLE = new Set(["failed", "cancelled"]);
  const url = card.dataset.apiUrl;
  const el = (id) => document.getElementById(id);

  function duration(seconds) {
    if (seconds === null || seconds === undefined) return "—";
    const s = Math.round(seconds);
    if (s < 60) return s + " s";
    if (s < 3600) return Math.floor(s / 60) + " min " + (s % 60) + " s";
    return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
  }

  function render(job) {
    const status = el("job-status");
    status.textContent = job.status;
    status.className = "badge job-" + job.status;
    const progress = el("job-progress");
    progress.max = Math.max(job.progress_total, 1);
    progress.value = job.progress_done;
    el("job-progress-text").textContent =
      job.progress_done + " / " + job.progress_total + " " + (job.progress_unit || "");
    (job.parts || []).forEach((part, index) => {
      const row = document.querySelector('#job-parts tr[data-part="' + index + '"]');
      if (!row) return;
      const bar = row.querySelector("progress");
      bar.max = Math.max(part.total, 1);
      bar.value = part.done;
      row.querySelector(".part-text").textContent = part.done + " / " + part.total;
    });
    el("job-rate").textContent = job.rate ? job.rate.toFixed(1) + " " + (job.progress_unit || "") + "/s" : "—";
    el("job-eta").textContent = FINISHED.has(job.status) ? "—" : duration(job.eta_seconds);
    el("job-error").textContent = job.error || "";
    // Times as the server renders them ("Y-m-d H:i:s" in the site's time zone, which the API's
    // ISO strings carry).
    const stamp = (iso) => (iso ? iso.replace("T", " ").slice(0, 19) : "—");
    if (el("job-started")) el("job-started").textContent = stamp(job.started_at);
    el("job-finished").textContent = stamp(job.finished_at);
    // Cancel while the job can still be stopped; Resume once it failed or was cancelled.
    if (el("job-cancel-form")) el("job-cancel-form").hidden = FINISHED.has(job.status);
    if (el("job-resume-form")) el("job-resume-form").hidden = !RESUMABLE.has(job.status);
    if (job.summary && job.summary.length) {
      const list = document.createElement("ul");
      list.className = "summary";
      job.summary.forEach((line) => {
        const item = document.createElement("li");
        item.textContent = line;
        list.appendChild(item);
      });
      el("job-result").replaceChildren(list);
    } else if (FINISHED.has(job.status)) {
      el("job-result").textContent = "—";
    }
    if (job.links && job.links.length) {
      const links = el("job-links");
      links.replaceChildren();
      job.links.forEach((link) => {
        const a = document.createElement("a");
        a.className = "button";
        a.href = link.url;
        a.textContent = link.label;
        links.append(a, " ");
      });
    }
  }

  // A kind's own section under the card (a translation's phase, strings and table) is
  // rendered by the server: while the job runs it is fetched again every few seconds and
  // swapped in, so every panel stays live. Not while someone uses a control inside it.
  const extra = el("job-extra");
  const EXTRA_EVERY = 3;
  let ticks = 0;

  async function refreshExtra() {
    if (!extra || extra.contains(document.activeElement)) return;
    const response = await fetch(window.location.href, {
      headers: { Accept: "text/html" },
      credentials: "same-origin",
    });
    if (!response.ok) return;
    const fresh = new DOMParser()
      .parseFromString(await response.text(), "text/html")
      .getElementById("job-extra");
    if (fresh && !extra.contains(document.activeElement)) extra.replaceChildren(...fresh.childNodes);
  }

  async function poll() {
    ticks += 1;
    if (extra && ticks % EXTRA_EVERY === 0) {
      try {
        await refreshExtra();
      } catch (error) {
        // Retried at the next refresh.
      }
    }
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
      if (response.ok) {
        const job = await response.json();
        render(job);
        if (FINISHED.has(job.status)) {
          card.dataset.finished = "true";
          el("job-refresh-note").textContent = "";
          if (card.dataset.reloadOnFinish === "true") window.location.reload();
          return;
        }
      }
    } catch (error) {
      // A dropped request is retried on the next tick; the job itself is unaffected.
    }
    window.setTimeout(poll, 1000);
  }

  window.setTimeout(poll, 1000);
})();
