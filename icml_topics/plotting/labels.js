/* icml_topics map labels that follow the zoom (shared by the report's map and tm.explore()).
 *
 * layers: [{name, level, min_zoom, font_size, labels: [{text, x, y, size, node, color}]}], coarse to fine
 * (written by icml_topics/plotting/labels.py). At a zoom (1 = the whole map) the finest layer whose
 * min_zoom is reached is shown; of its labels, those whose box lies inside the plot area are taken
 * greedily by size (largest node first) and a label is dropped when its box would overlap one taken
 * before, so no two drawn labels ever overlap. Labels are absolutely positioned <div>s in an overlay;
 * IcmlLabels.create(container, layers, options) makes them, .update(project, area, zoom) draws them.
 */
var IcmlLabels = (function () {
  "use strict";
  var GAP = 2; // px kept free between two labels

  function layerFor(layers, zoom) {
    var k = 0;
    for (var i = 0; i < layers.length; i++) if (zoom >= layers[i].min_zoom * 0.999) k = i;
    return k;
  }

  function overlaps(a, b) {
    return !(a.x1 + GAP <= b.x0 || b.x1 + GAP <= a.x0 || a.y1 + GAP <= b.y0 || b.y1 + GAP <= a.y0);
  }

  /* boxes: [{cx, cy, w, h, size}] in px; area: {x0, y0, x1, y1}; returns the indices kept. */
  function place(boxes, area) {
    var order = boxes.map(function (_, i) { return i; });
    order.sort(function (a, b) { return boxes[b].size - boxes[a].size || a - b; });
    var kept = [], rects = [];
    order.forEach(function (i) {
      var b = boxes[i];
      var r = { x0: b.cx - b.w / 2, y0: b.cy - b.h / 2, x1: b.cx + b.w / 2, y1: b.cy + b.h / 2 };
      if (!(r.x0 >= area.x0 && r.y0 >= area.y0 && r.x1 <= area.x1 && r.y1 <= area.y1)) return;
      for (var j = 0; j < rects.length; j++) if (overlaps(r, rects[j])) return;
      kept.push(i);
      rects.push(r);
    });
    return kept;
  }

  /* One overlay of label <div>s in `container` (which must be positioned). options.onClick(layer, label)
   * makes the labels clickable; otherwise they let the pointer through to the plot below. */
  function create(container, layers, options) {
    options = options || {};
    var overlay = document.createElement("div");
    overlay.className = "icml-map-labels";
    overlay.style.cssText = "position:absolute;left:0;top:0;width:0;height:0;overflow:visible;z-index:5;";
    container.appendChild(overlay);
    var items = layers.map(function (layer, k) {
      return layer.labels.map(function (lab) {
        var div = document.createElement("div");
        div.className = "icml-map-label";
        div.textContent = lab.text;
        div.dataset.layer = String(k);
        div.dataset.node = String(lab.node);
        div.dataset.level = String(layer.level); // "theme", "topic" or a tree level
        div.title = lab.text + " (" + lab.size + " papers)";
        div.style.cssText =
          "position:absolute;visibility:hidden;width:max-content;max-width:13em;text-align:center;line-height:1.15;" +
          "padding:1px 3px;border-radius:3px;background:rgba(255,255,255,0.78);white-space:normal;" +
          "font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;" +
          "font-weight:" + (k === 0 ? 700 : 600) + ";font-size:" + layer.font_size + "px;color:" + lab.color + ";" +
          (options.onClick ? "cursor:pointer;pointer-events:auto;" : "pointer-events:none;");
        if (options.onClick) {
          div.addEventListener("click", function (ev) { ev.stopPropagation(); options.onClick(layer, lab); });
          div.addEventListener("pointerdown", function (ev) { ev.stopPropagation(); });
        }
        overlay.appendChild(div);
        return { div: div, lab: lab, w: 0, h: 0 };
      });
    });
    var measured = false;

    function measure() {
      items.forEach(function (row) {
        row.forEach(function (it) { it.w = it.div.offsetWidth; it.h = it.div.offsetHeight; });
      });
      measured = items.some(function (row) { return row.some(function (it) { return it.w > 0; }); });
    }

    /* project(x, y) -> [px, py] relative to the container; area: the plot rectangle in the same px;
     * skip(label, layerIndex): true for a label not to draw (e.g. its theme is hidden). */
    function update(project, area, zoom, skip) {
      if (!measured) measure();
      var k = layerFor(layers, zoom);
      var shown = new Set();
      if (items.length) {
        var row = items[k].filter(function (it) { return !(skip && skip(it.lab, k)); });
        var boxes = row.map(function (it) {
          var p = project(it.lab.x, it.lab.y);
          return { cx: p[0], cy: p[1], w: it.w, h: it.h, size: it.lab.size };
        });
        place(boxes, area).forEach(function (i) {
          var it = row[i];
          it.div.style.left = boxes[i].cx - it.w / 2 + "px";
          it.div.style.top = boxes[i].cy - it.h / 2 + "px";
          shown.add(it.div);
        });
      }
      items.forEach(function (row) {
        row.forEach(function (it) {
          var on = shown.has(it.div);
          it.div.style.visibility = on ? "visible" : "hidden";
          it.div.classList.toggle("shown", on);
        });
      });
      overlay.dataset.layer = String(k);
      overlay.dataset.zoom = zoom.toFixed(3);
      return k;
    }

    return { overlay: overlay, update: update, layerFor: function (z) { return layerFor(layers, z); } };
  }

  return { create: create, layerFor: layerFor, place: place };
})();
