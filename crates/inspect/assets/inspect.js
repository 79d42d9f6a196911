// The inspector's one script. The pages work without it (the filter form is a plain GET);
// with it, a filter change, a sort or a page fetches only the table's rows from the server,
// swaps them in, and keeps the address in step so the view can be shared or reloaded.
"use strict";
(function () {
  const form = document.getElementById("filters");
  const rows = document.getElementById("rows");
  if (!form || !rows) return;
  let seq = 0;
  let timer = null;

  function query(extra) {
    const params = new URLSearchParams();
    for (const [k, v] of new FormData(form)) {
      if (v !== "" && !(k === "sort" && v === "index")) params.set(k, v);
    }
    return params.toString();
  }

  async function load(qs) {
    const mine = ++seq;
    const started = performance.now();
    rows.setAttribute("aria-busy", "true");
    const resp = await fetch(form.dataset.rows + (qs ? "?" + qs : ""), { headers: { Accept: "text/html" } });
    const html = await resp.text();
    if (mine !== seq) return; // a newer request is on its way
    rows.innerHTML = html;
    rows.removeAttribute("aria-busy");
    rows.dataset.seq = String(mine);
    rows.dataset.ms = (performance.now() - started).toFixed(1);
    history.replaceState(null, "", form.action + (qs ? "?" + qs : ""));
  }

  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    load(query());
  });
  form.addEventListener("change", function (ev) {
    if (ev.target.name !== "q") load(query());
  });
  form.addEventListener("input", function (ev) {
    if (ev.target.name !== "q" && ev.target.name !== "min" && ev.target.name !== "max") return;
    clearTimeout(timer);
    timer = setTimeout(function () { load(query()); }, 200);
  });
  // Sort headers and pager links: fetch their rows instead of the whole page.
  rows.addEventListener("click", function (ev) {
    const a = ev.target.closest("a.sort, .pager a");
    if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    ev.preventDefault();
    const url = new URL(a.href);
    for (const k of ["sort", "dir"]) {
      const el = form.elements.namedItem(k);
      if (el) el.value = url.searchParams.get(k) || (k === "sort" ? "index" : "");
    }
    load(url.searchParams.toString());
  });
  rows.dataset.seq = "0";
})();
