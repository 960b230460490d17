// anonlab serve: keeps the job's progress bar up to date. The one script of the app; it reads
// the job's status as JSON and writes it into the page as text (never as HTML).
(function () {
  "use strict";
  function poll(box) {
    var url = box.getAttribute("data-url");
    var wasRunning = box.getAttribute("data-state") === "running";
    function tick() {
      fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
        .then(function (r) { return r.json(); })
        .then(function (job) {
          var bar = document.getElementById("job-bar");
          if (job.total) { bar.max = job.total; bar.value = job.done || 0; }
          else { bar.removeAttribute("value"); }
          document.getElementById("job-state").textContent = job.state;
          document.getElementById("job-step").textContent = job.step || "";
          document.getElementById("job-seconds").textContent = job.seconds;
          if (job.state === "running") { setTimeout(tick, 500); }
          else if (wasRunning) { window.location.reload(); }
        })
        .catch(function () { setTimeout(tick, 2000); });
    }
    if (wasRunning) { setTimeout(tick, 300); }
  }
  document.addEventListener("DOMContentLoaded", function () {
    var box = document.getElementById("job");
    if (box) { poll(box); }
  });
})();
