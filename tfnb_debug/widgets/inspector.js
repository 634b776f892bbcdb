// The tfnb_debug layer inspector in the browser: layer list, model graph, details pane.
//
// Python (tfnb_debug/widgets/view.py) owns the state; this module draws it and
// sends back what the user picks: `selected` (a click on a row or a graph box,
// or the keyboard) and `collapsed` (the [+]/[-] toggle of a nested model).
// Keys pressed inside the widget stay inside it: every key it handles is
// stopped (stopPropagation + preventDefault) before the notebook sees it, so
// JupyterLab's and Notebook 7's command-mode shortcuts (arrows move between
// cells, Enter edits) do not fire; other keys (Shift+Enter...) pass through.
//   ArrowUp / ArrowDown  previous / next layer (among those the filter keeps)
//   Home / End           first / last layer
//   /                    filter by name (Enter: select the first match, Escape: clear)
//   Enter                on a nested model: collapse or expand it in the graph

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

// Scroll `container` (not the page) so that `item` is inside it.
function reveal(container, item) {
  const box = container.getBoundingClientRect();
  const it = item.getBoundingClientRect();
  if (it.top < box.top) container.scrollTop -= box.top - it.top + 4;
  else if (it.bottom > box.bottom) container.scrollTop += it.bottom - box.bottom + 4;
  if (it.left < box.left) container.scrollLeft -= box.left - it.left + 4;
  else if (it.right > box.right) container.scrollLeft += it.right - box.right + 4;
}

function render({ model, el: host }) {
  const root = el("div", "tfnb-aw");
  root.tabIndex = 0;
  const left = el("div", "tfnb-aw-left");
  const tabs = el("div", "tfnb-aw-tabs");
  const graphTab = el("button", "tfnb-aw-tab", "Graph");
  const listTab = el("button", "tfnb-aw-tab", "List");
  graphTab.dataset.view = "graph";
  listTab.dataset.view = "list";
  const filter = el("input", "tfnb-aw-filter");
  filter.type = "text";
  filter.placeholder = "/ filter by name";
  filter.setAttribute("aria-label", "filter layers by name");
  tabs.append(graphTab, listTab, filter);
  const graph = el("div", "tfnb-aw-graph");
  const list = el("div", "tfnb-aw-list");
  const header = el("div", "tfnb-aw-header");
  const rowsBox = el("div", "tfnb-aw-rows");
  rowsBox.setAttribute("role", "listbox");
  list.append(header, rowsBox);
  const hint = el("div", "tfnb-hint");
  left.append(tabs, graph, list, hint);
  const details = el("div", "tfnb-aw-details tfnb-inspector-details");
  root.append(left, details);
  host.append(root);

  let rowEls = new Map();

  const query = () => filter.value.trim().toLowerCase();
  const matches = (r) => !query() || r.name.toLowerCase().includes(query());
  const visibleRows = () => model.get("rows").filter(matches);

  function drawRows() {
    rowsBox.replaceChildren();
    rowEls = new Map();
    for (const r of model.get("rows")) {
      const item = el("div", "tfnb-aw-row", r.label);
      item.dataset.row = String(r.row);
      if (r.mark) item.dataset.mark = r.mark;
      item.setAttribute("role", "option");
      item.title = r.name;
      rowsBox.append(item);
      rowEls.set(r.row, item);
    }
    header.textContent = model.get("header");
    const n = Math.max(2, Math.min(model.get("list_rows"), model.get("rows").length));
    rowsBox.style.maxHeight = `${n * 17 + 4}px`;
    applyFilter();
    showSelected(false);
  }

  function drawGraph() {
    graph.innerHTML = model.get("graph");
    applyFilter();
    showSelected(false);
  }

  function applyFilter() {
    const q = query();
    for (const r of model.get("rows")) {
      const keep = !q || r.name.toLowerCase().includes(q);
      const item = rowEls.get(r.row);
      if (item) item.hidden = !keep;
      const box = graph.querySelector(`.tfnb-node[data-row="${r.row}"]`);
      if (box) box.classList.toggle("tfnb-dim", !keep);
    }
  }

  function showSelected(scroll) {
    const selected = model.get("selected");
    for (const [row, item] of rowEls) {
      const on = row === selected;
      item.classList.toggle("tfnb-selected", on);
      item.setAttribute("aria-selected", on ? "true" : "false");
      if (on && scroll && !list.hidden) reveal(rowsBox, item);
    }
    for (const box of graph.querySelectorAll(".tfnb-node")) {
      const on = Number(box.dataset.row) === selected;
      box.classList.toggle("tfnb-selected", on);
      if (on && scroll && !graph.hidden) reveal(graph, box);
    }
  }

  function showView() {
    const view = model.get("view");
    graph.hidden = view !== "graph";
    list.hidden = view !== "list";
    graphTab.classList.toggle("tfnb-active", view === "graph");
    listTab.classList.toggle("tfnb-active", view === "list");
    showSelected(true);
  }

  function select(row) {
    if (row === null || row === undefined || Number.isNaN(row)) return;
    model.set("selected", row);
    model.save_changes();
    showSelected(true);
  }

  function toggle(row) {
    const collapsed = new Set(model.get("collapsed"));
    if (collapsed.has(row)) collapsed.delete(row);
    else collapsed.add(row);
    model.set("collapsed", [...collapsed].sort((a, b) => a - b));
    model.save_changes();
  }

  function step(delta) {
    const rows = visibleRows();
    if (!rows.length) return;
    const at = rows.findIndex((r) => r.row === model.get("selected"));
    const next = at < 0 ? 0 : Math.max(0, Math.min(rows.length - 1, at + delta));
    select(rows[next].row);
  }

  rowsBox.addEventListener("click", (event) => {
    const item = event.target.closest(".tfnb-aw-row");
    if (!item) return;
    root.focus({ preventScroll: true });
    select(Number(item.dataset.row));
  });
  graph.addEventListener("click", (event) => {
    const toggler = event.target.closest("[data-toggle]");
    root.focus({ preventScroll: true });
    if (toggler) {
      toggle(Number(toggler.dataset.toggle));
      return;
    }
    const box = event.target.closest(".tfnb-node");
    if (box && Number(box.dataset.row) >= 0) select(Number(box.dataset.row));
  });
  for (const tab of [graphTab, listTab]) {
    tab.addEventListener("click", () => {
      model.set("view", tab.dataset.view);
      model.save_changes();
      root.focus({ preventScroll: true });
    });
  }
  filter.addEventListener("input", applyFilter);

  // Keys are taken on their way down, in a capture listener on the window: JupyterLab
  // listens on the document in the bubbling phase, Notebook 7 in the capture phase, and
  // both run their command-mode shortcuts there; a key the widget handles stops here.
  const stop = (event) => {
    event.stopPropagation();
    event.preventDefault();
  };
  function onFilterKey(event) {
    if (event.key === "Enter") {
      stop(event);
      const first = visibleRows()[0];
      if (first) select(first.row);
      root.focus({ preventScroll: true });
    } else if (event.key === "Escape") {
      stop(event);
      filter.value = "";
      applyFilter();
      root.focus({ preventScroll: true });
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      stop(event);
      step(event.key === "ArrowDown" ? 1 : -1);
    } else if (!event.ctrlKey && !event.metaKey) {
      event.stopPropagation(); // typing in the filter is not a notebook shortcut
    }
  }
  function onKey(event) {
    if (!root.contains(event.target)) return;
    if (event.target === filter) {
      onFilterKey(event);
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
    const key = event.key;
    if (key === "ArrowDown" || key === "ArrowUp") {
      stop(event);
      step(key === "ArrowDown" ? 1 : -1);
    } else if (key === "Home" || key === "End") {
      stop(event);
      step(key === "Home" ? -1e9 : 1e9);
    } else if (key === "/") {
      stop(event);
      filter.focus();
      filter.select();
    } else if (key === "Enter") {
      stop(event);
      if (graph.querySelector(`[data-toggle="${model.get("selected")}"]`)) {
        toggle(model.get("selected"));
      }
    } else if (key === "Escape") {
      stop(event);
      if (filter.value) {
        filter.value = "";
        applyFilter();
      }
    }
  }
  window.addEventListener("keydown", onKey, true);

  model.on("change:rows", drawRows);
  model.on("change:header", drawRows);
  model.on("change:graph", drawGraph);
  model.on("change:selected", () => showSelected(true));
  model.on("change:details", () => {
    details.innerHTML = model.get("details");
  });
  model.on("change:view", showView);
  model.on("change:hint", () => {
    hint.textContent = model.get("hint");
  });

  drawRows();
  drawGraph();
  details.innerHTML = model.get("details");
  hint.textContent = model.get("hint");
  showView();
  requestAnimationFrame(() => showSelected(true)); // once the browser has laid it out
  return () => {
    window.removeEventListener("keydown", onKey, true);
    host.replaceChildren();
  };
}

export default { render };
