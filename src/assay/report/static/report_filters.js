// The report's filters: the form's values narrow the task runs, and live in the URL's fragment
// (#outcome=not_achieved&split=train&text=refund), so a link opens the same list. The page's
// Content-Security-Policy admits this script alone, by its hash; it writes no markup, only the
// `hidden` attribute, a class and one line of text.
(() => {
  "use strict";
  const form = document.querySelector("form.report-filters");
  if (!form) return;
  const names = ["outcome", "split", "task", "axis", "rule", "text"];
  const runs = Array.from(document.querySelectorAll("details.task-run"));
  const said = document.querySelector("[data-field=filtered]");
  const lower = (text) => (text || "").toLowerCase();
  const searched = ":scope > summary, :scope > p.muted, :scope > table.checks, :scope > div.output";
  const textOf = (run) => lower(Array.from(run.querySelectorAll(searched), (n) => n.textContent).join("\n"));

  function wanted() {
    return Object.fromEntries(names.map((name) => [name, form.elements[name].value.trim()]));
  }

  function brokeRule(run, rule) {
    const broken = run.dataset.rules ? run.dataset.rules.split("\n").map(lower) : [];
    return lower(rule) === "any" ? broken.length > 0 : broken.some((name) => name.includes(lower(rule)));
  }

  function keeps(run, want) {
    const data = run.dataset;
    return (!want.outcome || data.outcome === want.outcome)
      && (!want.split || data.split === want.split)
      && (!want.task || lower(data.task).includes(lower(want.task)))
      && (!want.axis || (data.axes || "").split(" ").includes(want.axis))
      && (!want.rule || brokeRule(run, want.rule))
      && (!want.text || textOf(run).includes(lower(want.text)));
  }

  // Narrow the page; the filters as a fragment ("" when none is set).
  function apply() {
    const want = wanted();
    const kept = new Set();
    for (const run of runs) {
      run.hidden = !keeps(run, want);
      if (!run.hidden) kept.add(run.dataset.taskRun);
    }
    for (const row of document.querySelectorAll("tr.failure[data-task-run]")) {
      row.hidden = !kept.has(row.dataset.taskRun);
    }
    for (const cell of document.querySelectorAll("td.cell[data-task-run]")) {
      cell.classList.toggle("filtered-out", !kept.has(cell.dataset.taskRun));
    }
    const set = Object.entries(want).filter(([, value]) => value);
    said.textContent = set.length
      ? `showing ${kept.size} of ${runs.length} task runs; the figures are the whole runs'`
      : "";
    return new URLSearchParams(set).toString();
  }

  // A fragment with filters sets the form; one without (a task run's anchor) leaves it alone.
  function fromFragment() {
    const fragment = location.hash.slice(1);
    if (!fragment.includes("=")) return;
    const given = new URLSearchParams(fragment);
    for (const name of names) form.elements[name].value = given.get(name) || "";
    apply();
  }

  form.addEventListener("input", () => {
    const fragment = apply();
    history.replaceState(null, "", fragment ? `#${fragment}` : location.pathname + location.search);
  });
  form.addEventListener("submit", (event) => event.preventDefault());
  window.addEventListener("hashchange", fromFragment);
  fromFragment();
})();
