// The one job poller, for every kind of job: polls /api/jobs/<id>/ once a second and updates
// status, progress (overall and per part), rate and time left; when the job finishes it
// reloads the page once, so the readable summary, links and kind-specific tables are rendered
// by the server. Plain fetch; the session cookie authenticates the GET.
(function () {
  "use strict";
  const card = document.getElementById("job");
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

  window.setTimeout(poll, 1000);
})();
