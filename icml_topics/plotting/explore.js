/* icml_topics explore(): the interactive paper map widget (anywidget ES module; labels.js is prepended).
 *
 * Synced state (icml_topics/plotting/explore.py): data {x, y, year, c, palette, title, topic}, layers
 * (label layers, with the node of every point), selected (point positions, both ways), year (null: all),
 * years, query -> hits (the Python side searches), view [x0, x1, y0, y1] (the data rectangle the canvas
 * shows, its full width and height), mode ("lasso" | "box" | "pan"), height.
 * Points are drawn on a <canvas>; the lasso / box outline is an <svg> over it; labels are <div>s
 * (IcmlLabels) that follow the zoom and select their papers when clicked. Wheel: zoom about the pointer.
 */
const SVG = "http://www.w3.org/2000/svg";

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function inside(poly, x, y) { // ray casting; poly: [[x, y], ...] in data coordinates
  let hit = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i], [xj, yj] = poly[j];
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) hit = !hit;
  }
  return hit;
}

function render({ model, el: host }) {
  const data = model.get("data");
  const layers = model.get("layers");
  const n = data.x.length;
  const xs = Float64Array.from(data.x), ys = Float64Array.from(data.y);
  const palette = data.palette;

  // ------------------------------------------------------------------ DOM
  const root = el("div", "icml-explore");
  root.setAttribute("data-lm-suppress-shortcuts", "true"); // JupyterLab: keys typed here are not commands
  const bar = el("div", "icml-explore-bar");
  const modes = {};
  for (const [mode, text, tip] of [
    ["lasso", "Lasso", "Draw around papers to select them (Shift: add)"],
    ["box", "Box", "Drag a rectangle to select papers (Shift: add)"],
    ["pan", "Pan", "Drag to move the map"],
  ]) {
    const b = el("button", "icml-explore-mode", text);
    b.type = "button";
    b.title = tip;
    b.dataset.mode = mode;
    b.addEventListener("click", () => { model.set("mode", mode); model.save_changes(); });
    modes[mode] = b;
    bar.appendChild(b);
  }
  const reset = el("button", "icml-explore-reset", "Reset view");
  const clear = el("button", "icml-explore-clear", "Clear selection");
  reset.type = clear.type = "button";
  const yearSelect = el("select", "icml-explore-year");
  yearSelect.title = "Show one year";
  yearSelect.appendChild(new Option("All years", ""));
  for (const y of model.get("years")) yearSelect.appendChild(new Option(String(y), String(y)));
  const search = el("input", "icml-explore-search");
  search.type = "search";
  search.placeholder = "Search titles and abstracts (Enter: select)";
  const status = el("span", "icml-explore-status");
  bar.append(reset, clear, yearSelect, search, status);

  const body = el("div", "icml-explore-body");
  const mapDiv = el("div", "icml-explore-map");
  const canvas = el("canvas", "icml-explore-canvas");
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "icml-explore-outline");
  const outline = document.createElementNS(SVG, "polygon");
  svg.appendChild(outline);
  const tip = el("div", "icml-explore-tip");
  tip.hidden = true;
  mapDiv.append(canvas, svg, tip);
  const side = el("div", "icml-explore-side");
  const sideHead = el("div", "icml-explore-side-head");
  const list = el("ol", "icml-explore-list");
  side.append(sideHead, list);
  body.append(mapDiv, side);
  root.append(bar, body);
  host.appendChild(root);

  // ------------------------------------------------------------------ view
  let W = 600, H = model.get("height"), view = null, base = 1;
  const ctx = canvas.getContext("2d");
  function fit() {
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (let i = 0; i < n; i++) {
      x0 = Math.min(x0, xs[i]); x1 = Math.max(x1, xs[i]); y0 = Math.min(y0, ys[i]); y1 = Math.max(y1, ys[i]);
    }
    if (!n) { x0 = y0 = 0; x1 = y1 = 1; }
    const scale = Math.min(W / Math.max((x1 - x0) * 1.08, 1e-9), H / Math.max((y1 - y0) * 1.08, 1e-9));
    view = { cx: (x0 + x1) / 2, cy: (y0 + y1) / 2, scale: scale };
    base = scale;
  }
  const toPx = (x, y) => [W / 2 + (x - view.cx) * view.scale, H / 2 - (y - view.cy) * view.scale];
  const toData = (px, py) => [view.cx + (px - W / 2) / view.scale, view.cy - (py - H / 2) / view.scale];
  const labels = IcmlLabels.create(mapDiv, layers, { onClick: (layer, lab) => selectNode(layer, lab) });

  // ------------------------------------------------------------------ state helpers
  const year = () => model.get("year");
  const visible = (i) => { const y = year(); return y === null || y === undefined || data.year[i] === y; };
  const selectedSet = () => new Set(model.get("selected"));

  function setSelection(indices, add) {
    const chosen = add ? selectedSet() : new Set();
    for (const i of indices) if (visible(i)) chosen.add(i);
    model.set("selected", Array.from(chosen).sort((a, b) => a - b));
    model.save_changes();
  }
  function selectNode(layer, lab) {
    const out = [];
    for (let i = 0; i < n; i++) if (layer.groups[i] === lab.node) out.push(i);
    setSelection(out, false);
  }

  // ------------------------------------------------------------------ drawing
  let viewTimer = 0, frame = 0;
  function draw() {
    frame = 0;
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    const zoom = view.scale / base;
    const r = (n < 300 ? 3.5 : n < 3000 ? 2.6 : 1.8) * Math.min(2.2, 1 + 0.3 * Math.log2(Math.max(zoom, 1)));
    const sel = selectedSet(), hits = new Set(model.get("hits")), anySel = sel.size > 0 || hits.size > 0;
    let drawn = 0;
    const dot = (i, fill, alpha, stroke) => {
      const [px, py] = toPx(xs[i], ys[i]);
      if (px < -r || py < -r || px > W + r || py > H + r) return;
      ctx.globalAlpha = alpha;
      ctx.beginPath();
      ctx.arc(px, py, r, 0, 2 * Math.PI);
      ctx.fillStyle = fill;
      ctx.fill();
      if (stroke) { ctx.lineWidth = 1.2; ctx.strokeStyle = stroke; ctx.stroke(); }
    };
    for (let i = 0; i < n; i++) {
      if (!visible(i)) continue;
      drawn++;
      if (!sel.has(i) && !hits.has(i)) dot(i, palette[data.c[i]], anySel ? 0.22 : 0.85, null);
    }
    for (let i = 0; i < n; i++) {
      if (visible(i) && (sel.has(i) || hits.has(i))) dot(i, palette[data.c[i]], 1, sel.has(i) ? "#111" : "#e6194b");
    }
    ctx.globalAlpha = 1;
    canvas.dataset.drawn = String(drawn);
    root.dataset.layer = String(
      labels.update(toPx, { x0: 0, y0: 0, x1: W, y1: H }, zoom)
    );
    const v = [toData(0, 0)[0], toData(W, 0)[0], toData(0, H)[1], toData(0, 0)[1]];
    clearTimeout(viewTimer);
    viewTimer = setTimeout(() => { model.set("view", v); model.save_changes(); }, 120);
    root.dataset.view = JSON.stringify(v);
    updateStatus(drawn, sel.size, hits.size);
  }
  const schedule = () => { if (!frame) frame = requestAnimationFrame(draw); };

  function updateStatus(drawn, nSel, nHits) {
    const bits = [`${drawn.toLocaleString()} of ${n.toLocaleString()} papers shown`];
    if (nSel) bits.push(`${nSel.toLocaleString()} selected`);
    if (model.get("query").trim().length >= 2) bits.push(`${nHits.toLocaleString()} match`);
    status.textContent = bits.join(" · ");
  }

  function updateList() {
    const sel = model.get("selected");
    sideHead.textContent = sel.length
      ? `${sel.length.toLocaleString()} selected paper${sel.length === 1 ? "" : "s"}`
      : "Select papers: lasso, box, or click a label";
    list.replaceChildren();
    for (const i of sel.slice(0, 300)) {
      const li = el("li", "icml-explore-row");
      li.appendChild(el("span", "icml-explore-title", data.title[i] || "(untitled)"));
      const meta = [data.year[i], data.topic[i]].filter((v) => v !== null && v !== undefined && v !== "");
      li.appendChild(el("span", "icml-explore-meta", meta.join(" · ")));
      list.appendChild(li);
    }
    if (sel.length > 300) list.appendChild(el("li", "icml-explore-more", `… and ${sel.length - 300} more`));
  }

  function updateModes() {
    for (const [mode, b] of Object.entries(modes)) b.classList.toggle("active", model.get("mode") === mode);
    canvas.style.cursor = model.get("mode") === "pan" ? "grab" : "crosshair";
  }

  function resize() {
    const w = Math.max(200, Math.floor(mapDiv.clientWidth || 600));
    const h = model.get("height");
    if (view && w === W && h === H) return;
    const first = !view;
    W = w; H = h;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
    canvas.style.width = W + "px"; canvas.style.height = H + "px";
    mapDiv.style.height = H + "px";
    svg.setAttribute("width", W); svg.setAttribute("height", H);
    if (first) fit(); // later resizes keep the view's centre and scale (and so its zoom)
    schedule();
  }

  // ------------------------------------------------------------------ pointer
  let drag = null;
  const local = (ev) => { const b = canvas.getBoundingClientRect(); return [ev.clientX - b.left, ev.clientY - b.top]; };
  function showOutline(pts) { outline.setAttribute("points", pts.map((p) => p.join(",")).join(" ")); }

  canvas.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0) return;
    canvas.setPointerCapture(ev.pointerId);
    const p = local(ev);
    drag = { mode: model.get("mode"), start: p, path: [p], cx: view.cx, cy: view.cy, add: ev.shiftKey };
    tip.hidden = true;
    ev.preventDefault();
  });
  canvas.addEventListener("pointermove", (ev) => {
    const p = local(ev);
    if (!drag) return hover(p);
    if (drag.mode === "pan") {
      view.cx = drag.cx - (p[0] - drag.start[0]) / view.scale;
      view.cy = drag.cy + (p[1] - drag.start[1]) / view.scale;
      schedule();
    } else if (drag.mode === "box") {
      drag.path = [drag.start, p];
      const [a, b] = [drag.start, p];
      showOutline([a, [b[0], a[1]], b, [a[0], b[1]]]);
    } else {
      drag.path.push(p);
      showOutline(drag.path);
    }
  });
  canvas.addEventListener("pointerup", (ev) => {
    if (!drag) return;
    const d = drag;
    drag = null;
    outline.setAttribute("points", "");
    const p = local(ev);
    if (d.mode === "pan") return;
    if (d.mode === "lasso") d.path.push(p);
    const moved = Math.hypot(p[0] - d.start[0], p[1] - d.start[1]);
    if (moved < 4 && d.path.length < 4) { // a click: the nearest paper, or nothing
      const near = nearest(p, 8);
      setSelection(near === null ? [] : [near], d.add);
      return;
    }
    let poly;
    if (d.mode === "box") {
      const [a, b] = [toData(...d.start), toData(...p)];
      poly = [a, [b[0], a[1]], b, [a[0], b[1]]];
    } else {
      poly = d.path.map((q) => toData(q[0], q[1]));
    }
    const out = [];
    for (let i = 0; i < n; i++) if (visible(i) && inside(poly, xs[i], ys[i])) out.push(i);
    setSelection(out, d.add);
  });
  canvas.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const p = local(ev);
    const [dx, dy] = toData(p[0], p[1]);
    const factor = Math.exp(-ev.deltaY * 0.0015);
    view.scale = Math.min(base * 400, Math.max(base * 0.5, view.scale * factor));
    view.cx = dx - (p[0] - W / 2) / view.scale;
    view.cy = dy + (p[1] - H / 2) / view.scale;
    schedule();
  }, { passive: false });
  canvas.addEventListener("pointerleave", () => { tip.hidden = true; });

  function nearest(p, maxPx) {
    let best = null, bestD = maxPx * maxPx;
    for (let i = 0; i < n; i++) {
      if (!visible(i)) continue;
      const [px, py] = toPx(xs[i], ys[i]);
      const d2 = (px - p[0]) ** 2 + (py - p[1]) ** 2;
      if (d2 <= bestD) { bestD = d2; best = i; }
    }
    return best;
  }
  function hover(p) {
    const i = nearest(p, 6);
    if (i === null) { tip.hidden = true; return; }
    tip.textContent = (data.title[i] || "(untitled)") + (data.year[i] ? ` (${data.year[i]})` : "");
    tip.style.left = Math.min(p[0] + 12, W - 260) + "px";
    tip.style.top = p[1] + 12 + "px";
    tip.hidden = false;
  }

  // ------------------------------------------------------------------ controls
  reset.addEventListener("click", () => { fit(); schedule(); });
  clear.addEventListener("click", () => setSelection([], false));
  yearSelect.addEventListener("change", () => {
    model.set("year", yearSelect.value === "" ? null : Number(yearSelect.value));
    model.set("selected", model.get("selected").filter(visible));
    model.save_changes();
  });
  let searchTimer = 0;
  search.addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => { model.set("query", search.value); model.save_changes(); }, 200);
  });
  search.addEventListener("keydown", (ev) => {
    ev.stopPropagation();
    if (ev.key === "Enter") setSelection(model.get("hits"), ev.shiftKey);
  });

  const onSelected = () => { updateList(); schedule(); };
  const onYear = () => { yearSelect.value = year() === null ? "" : String(year()); schedule(); };
  model.on("change:selected", onSelected);
  model.on("change:hits", schedule);
  model.on("change:year", onYear);
  model.on("change:mode", updateModes);
  model.on("change:height", resize);
  const observer = new ResizeObserver(resize);
  observer.observe(mapDiv);

  updateModes();
  onYear();
  updateList();
  resize();
  return () => {
    observer.disconnect();
    model.off("change:selected", onSelected);
    model.off("change:hits", schedule);
    model.off("change:year", onYear);
    model.off("change:mode", updateModes);
    model.off("change:height", resize);
  };
}

export default { render };
