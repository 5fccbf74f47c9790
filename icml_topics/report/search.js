/* icml_topics report: paper search.
 * Typing in #paper-search finds papers whose title or abstract contains the query (case-insensitive),
 * reports "N papers match", lists the matches by relevance (title matches first), and highlights them in every figure inside
 * <figure data-searchable>. Points are found through the document id in each trace's customdata.
 * The index is the JSON array in #search-index: [[id, title, year, venue, abstract], ...].
 * Everything is built with DOM text nodes: no paper text is ever parsed as HTML.
 */
(function () {
  "use strict";
  var input = document.getElementById("paper-search");
  var indexEl = document.getElementById("search-index");
  if (!input || !indexEl) return;
  var statusEl = document.getElementById("search-status");
  var listEl = document.getElementById("search-results");
  var detailEl = document.getElementById("search-detail");
  var docs = JSON.parse(indexEl.textContent || "[]");
  var byId = new Map();
  docs.forEach(function (d) { byId.set(String(d[0]), d); });
  var HIGHLIGHT = "icml-search-highlight";
  var MIN_CHARS = 2, MAX_LIST = 25, SNIPPET = 300, DIM = 0.25;
  var haystack = null;
  var current = { query: "", ids: [] };

  function lowerTexts() {
    if (!haystack) haystack = docs.map(function (d) { return (d[1] + "\n" + d[4]).toLowerCase(); });
    return haystack;
  }

  function searchablePlots() {
    return Array.prototype.slice.call(document.querySelectorAll("figure[data-searchable] .js-plotly-plot"));
  }

  function column(gd, i, key) {
    var value = gd.data[i][key];
    if (value && typeof value.length === "number" && typeof value !== "string") return value;
    // arrays sent as typed-array specs ({dtype, bdata}) are decoded by plotly.js into _fullData
    var full = (gd._fullData || []).filter(function (t) { return t.index === i; })[0];
    return full && full[key] && typeof full[key].length === "number" ? full[key] : [];
  }

  function dataTraces(gd) {
    var out = [];
    gd.data.forEach(function (t, i) { if (t.meta !== HIGHLIGHT && t.customdata) out.push(i); });
    return out;
  }

  function points(gd) {
    if (gd._icmlPoints) return gd._icmlPoints;
    var map = new Map();
    dataTraces(gd).forEach(function (i) {
      var ids = column(gd, i, "customdata"), xs = column(gd, i, "x"), ys = column(gd, i, "y");
      var texts = column(gd, i, "hovertext");
      for (var j = 0; j < ids.length; j++) {
        var id = Array.isArray(ids[j]) ? ids[j][0] : ids[j];
        if (id === null || id === undefined || xs[j] === null || ys[j] === null) continue;
        map.set(String(id), { x: +xs[j], y: +ys[j], text: texts[j] || "" });
      }
    });
    gd._icmlPoints = map;
    return map;
  }

  function enqueue(gd, step) {
    gd._icmlQueue = (gd._icmlQueue || Promise.resolve()).then(step).catch(function (err) {
      console.warn("icml_topics search: could not update the figure", err);
    });
    return gd._icmlQueue;
  }

  /* Replace the highlight trace of one figure; dim the other traces while something is highlighted. */
  function highlight(gd, ids, focusId) {
    var pts = points(gd);
    var xs = [], ys = [], texts = [], sizes = [];
    ids.forEach(function (id) {
      var p = pts.get(id);
      if (!p) return;
      xs.push(p.x); ys.push(p.y); texts.push(p.text); sizes.push(id === focusId ? 20 : 11);
    });
    var traces = dataTraces(gd);
    if (!gd._icmlOpacity) {
      gd._icmlOpacity = traces.map(function (i) {
        var m = gd.data[i].marker; return m && m.opacity !== undefined ? m.opacity : 1;
      });
    }
    var opacity = xs.length ? traces.map(function () { return DIM; }) : gd._icmlOpacity;
    return enqueue(gd, function () {
      var old = [];
      gd.data.forEach(function (t, i) { if (t.meta === HIGHLIGHT) old.push(i); });
      return (old.length ? Plotly.deleteTraces(gd, old) : Promise.resolve())
        .then(function () { return Plotly.restyle(gd, { "marker.opacity": opacity }, traces); })
        .then(function () {
          if (!xs.length) return null;
          return Plotly.addTraces(gd, {
            type: "scattergl", mode: "markers", x: xs, y: ys, hovertext: texts,
            hovertemplate: "%{hovertext}<extra>search match</extra>", meta: HIGHLIGHT,
            name: "Search matches (" + xs.length + ")", showlegend: true,
            marker: { size: sizes, color: "#ffd60a", opacity: 1, line: { color: "#1d1d1f", width: 1.5 } }
          });
        });
    }).then(function () { return xs.length; });
  }

  /* Relevance of one match: a title match first (a whole-word one, and one at the start, higher),
   * then how often the query occurs in the abstract; ties keep the index order. */
  function relevance(title, abstract, query) {
    var score = 0, at = title.indexOf(query);
    if (at !== -1) {
      score += 100;
      var before = at === 0 ? " " : title.charAt(at - 1), after = title.charAt(at + query.length) || " ";
      if (!/[a-z0-9]/.test(before) && !/[a-z0-9]/.test(after)) score += 20;
      if (at === 0) score += 10;
    }
    var n = 0, from = 0;
    while (n < 20 && (from = abstract.indexOf(query, from)) !== -1) { n += 1; from += query.length; }
    return score + n;
  }

  function plural(n) { return n === 1 ? "1 paper matches" : n.toLocaleString("en-US") + " papers match"; }

  function metaLine(d) { return [d[2], d[3]].filter(function (s) { return s; }).join(" · "); }

  function appendMarked(parent, text, query) {
    var lower = text.toLowerCase(), at = query ? lower.indexOf(query) : -1;
    if (at < 0) { parent.appendChild(document.createTextNode(text)); return; }
    parent.appendChild(document.createTextNode(text.slice(0, at)));
    var mark = document.createElement("mark");
    mark.textContent = text.slice(at, at + query.length);
    parent.appendChild(mark);
    parent.appendChild(document.createTextNode(text.slice(at + query.length)));
  }

  function snippet(text, query) {
    if (text.length <= SNIPPET) return text;
    var at = text.toLowerCase().indexOf(query);
    var start = at < 0 || at + query.length < SNIPPET - 20 ? 0 : Math.max(0, at - 100);
    return (start > 0 ? "…" : "") + text.slice(start, start + SNIPPET).trim() + "…";
  }

  function showDetail(id) {
    var d = byId.get(id);
    detailEl.textContent = "";
    if (!d) { detailEl.hidden = true; return; }
    var title = document.createElement("strong");
    appendMarked(title, d[1] || "(untitled)", current.query);
    var meta = document.createElement("div");
    meta.className = "meta";
    meta.textContent = metaLine(d);
    var abstract = document.createElement("p");
    appendMarked(abstract, snippet(d[4] || "", current.query), current.query);
    var hint = document.createElement("div");
    hint.className = "hint";
    var onMap = searchablePlots().some(function (gd) { return points(gd).has(id); });
    hint.textContent = onMap ? "Marked on the map (zoomed in); double-click the map to zoom out."
                             : "Not drawn on the map (dropped, or left out of a sampled map).";
    [title, meta, abstract, hint].forEach(function (el) { detailEl.appendChild(el); });
    detailEl.hidden = false;
  }

  function focus(id) {
    showDetail(id);
    searchablePlots().forEach(function (gd) {
      var p = points(gd).get(id);
      if (!p) return;
      highlight(gd, current.ids, id).then(function () {
        var xr = gd._fullLayout.xaxis.range, yr = gd._fullLayout.yaxis.range;
        var dx = Math.abs(xr[1] - xr[0]) * 0.12, dy = Math.abs(yr[1] - yr[0]) * 0.12;
        return Plotly.relayout(gd, { "xaxis.range": [p.x - dx, p.x + dx], "yaxis.range": [p.y - dy, p.y + dy] });
      });
      gd.scrollIntoView({ behavior: "smooth", block: "center" });
    });
  }

  function renderList(ids) {
    listEl.textContent = "";
    ids.slice(0, MAX_LIST).forEach(function (id) {
      var d = byId.get(id);
      var li = document.createElement("li");
      var button = document.createElement("button");
      button.type = "button";
      button.className = "result";
      button.dataset.id = id;
      appendMarked(button, d[1] || (d[4] || "").slice(0, 90) || id, current.query);
      var meta = document.createElement("span");
      meta.className = "meta";
      meta.textContent = metaLine(d);
      li.appendChild(button);
      li.appendChild(meta);
      listEl.appendChild(li);
    });
    if (ids.length > MAX_LIST) {
      var more = document.createElement("li");
      more.className = "more";
      more.textContent = "… and " + (ids.length - MAX_LIST).toLocaleString("en-US") + " more (all highlighted on the map)";
      listEl.appendChild(more);
    }
  }

  function run() {
    var query = input.value.trim().toLowerCase();
    if (query === current.query) return;
    current.query = query;
    detailEl.hidden = true;
    var ids = [];
    if (query.length >= MIN_CHARS) {
      var texts = lowerTexts(), hits = [];
      for (var k = 0; k < texts.length; k++) {
        if (texts[k].indexOf(query) === -1) continue;
        hits.push({ k: k, score: relevance(String(docs[k][1] || "").toLowerCase(), String(docs[k][4] || "").toLowerCase(), query) });
      }
      hits.sort(function (a, b) { return b.score - a.score || a.k - b.k; });
      ids = hits.map(function (h) { return String(docs[h.k][0]); });
    }
    current.ids = ids;
    renderList(ids);
    statusEl.textContent = query.length < MIN_CHARS ? (query ? "Type at least " + MIN_CHARS + " characters" : "") : plural(ids.length);
    delete statusEl.dataset.done;
    var updates = searchablePlots().map(function (gd) { return highlight(gd, ids, null); });
    Promise.all(updates).then(function (counts) {
      if (query !== current.query) return;
      var shown = counts.length ? Math.max.apply(null, counts) : 0;
      statusEl.dataset.highlighted = String(shown);
      if (ids.length && shown < ids.length) statusEl.textContent += " (" + shown.toLocaleString("en-US") + " on the map)";
      statusEl.dataset.done = query;
    });
  }

  var timer = null;
  input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(run, 150); });
  input.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape") { input.value = ""; run(); }
    if (ev.key === "Enter") { clearTimeout(timer); run(); }
  });
  listEl.addEventListener("click", function (ev) {
    var button = ev.target.closest("button.result");
    if (button) focus(button.dataset.id);
  });
})();
