// Job page: poll the job resource once a second and update the page until the job finishes.
// Plain fetch, no framework; the session cookie authenticates the GET.
(function () {
  "use strict";
  const card = document.getElementById("job");
  if (!card || card.dataset.finished === "true") return;

  const FINISHED = new Set(["succeeded", "failed", "cancelled"]);
  const url = card.dataset.apiUrl;
  const el = (id) => document.getElementById(id);

  function render(job) {
    const status = el("job-status");
    status.textContent = job.status;
    status.className = "badge job-" + job.status;
    const progress = el("job-progress");
    progress.max = Math.max(job.progress_total, 1);
    progress.value = job.progress_done;
    el("job-progress-text").textContent = job.progress_done + " / " + job.progress_total;
    el("job-error").textContent = job.error || "";
    if (job.finished_at) el("job-finished").textContent = job.finished_at.replace("T", " ").slice(0, 19);
    if (job.result && Object.keys(job.result).length) {
      el("job-result").textContent = JSON.stringify(job.result, null, 2);
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
          el("job-refresh-note").textContent = "";
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
