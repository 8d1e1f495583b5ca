// Translation job page: poll the job resource every second and update the progress bars
// (overall and per language), rate and ETA until the job finishes, then reload once so the
// translations table shows the final rows. Plain fetch; the session cookie authenticates.
(function () {
  "use strict";
  const card = document.getElementById("translation-job");
  if (!card || card.dataset.finished === "true") return;

  const FINISHED = new Set(["succeeded", "failed", "cancelled"]);
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
    const status = el("tj-status");
    status.textContent = job.status;
    status.className = "badge job-" + job.status;
    el("tj-phase").textContent = job.phase;
    const progress = el("tj-progress");
    progress.max = Math.max(job.total_strings, 1);
    progress.value = job.done_strings;
    el("tj-progress-text").textContent = job.done_strings + " / " + job.total_strings + " strings";
    const languages = job.progress_by_language || {};
    document.querySelectorAll("#tj-languages tr[data-language]").forEach((row) => {
      const entry = languages[row.dataset.language];
      if (!entry) return;
      const bar = row.querySelector("progress");
      bar.max = Math.max(entry.total, 1);
      bar.value = entry.done;
      row.querySelector(".lang-text").textContent = entry.done + " / " + entry.total;
    });
    el("tj-rate").textContent = job.rate ? job.rate.toFixed(1) + " strings/s" : "—";
    el("tj-eta").textContent = FINISHED.has(job.status) ? "—" : duration(job.eta_seconds);
    el("tj-strings").textContent = job.strings_in_items + " in the items, " + job.unique_strings +
      " unique, " + job.cached_strings + " from the cache";
    el("tj-error").textContent = job.error || "";
    if (job.result && Object.keys(job.result).length) {
      el("tj-result").textContent = JSON.stringify(job.result, null, 2);
    }
  }

  async function poll() {
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
      if (response.ok) {
        const job = await response.json();
        render(job);
        if (FINISHED.has(job.status)) {
          card.dataset.finished = "true";
          window.location.reload();
          return;
        }
      }
    } catch (error) {
      // A dropped request is retried on the next tick; the job itself is unaffected.
    }
    window.setTimeout(poll, 1000);
  }

  poll();
})();
