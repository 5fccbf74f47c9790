/* icml_topics report: labels that follow the zoom on the topic map (plotly).
 * A figure whose layout.meta.label_layers is set (plot_topic_map) gets an overlay of label <div>s
 * (IcmlLabels, labels.js): theme names zoomed out, coarser then finer topic names zoomed in, redrawn on
 * every zoom and pan without overlaps. The zoom is the width (and height) of the initial, autoranged
 * view over the current one. The overlay lets the pointer through, so hover and drag work as before; a
 * theme switched off in the legend loses its name.
 */
(function () {
  "use strict";

  function setup(gd) {
    var meta = gd.layout && gd.layout.meta;
    if (!meta || !meta.label_layers || gd._icmlLabels) return;
    if (getComputedStyle(gd).position === "static") gd.style.position = "relative";
    var labels = IcmlLabels.create(gd, meta.label_layers);
    var base = null, pending = null, frame = 0;

    function draw() {
      frame = 0;
      var fl = gd._fullLayout;
      if (!fl || !fl.xaxis || !fl.yaxis) return;
      var xa = fl.xaxis, ya = fl.yaxis;
      var xr = pending && pending.x ? pending.x : xa.range, yr = pending && pending.y ? pending.y : ya.range;
      pending = null;
      if (!base) base = [Math.abs(xr[1] - xr[0]), Math.abs(yr[1] - yr[0])];
      var zoom = Math.sqrt((base[0] / Math.abs(xr[1] - xr[0])) * (base[1] / Math.abs(yr[1] - yr[0])));
      var project = function (x, y) {
        return [
          xa._offset + ((x - xr[0]) / (xr[1] - xr[0])) * xa._length,
          ya._offset + ((yr[1] - y) / (yr[1] - yr[0])) * ya._length,
        ];
      };
      var area = { x0: xa._offset, y0: ya._offset, x1: xa._offset + xa._length, y1: ya._offset + ya._length };
      var hidden = new Set(); // themes switched off in the legend lose their names too
      (gd._fullData || []).forEach(function (t) { if (t.visible === "legendonly") hidden.add(t.name); });
      labels.update(project, area, zoom, function (lab, k) { return meta.label_layers[k].level === "theme" && hidden.has(lab.text); });
    }

    function schedule() { if (!frame) frame = requestAnimationFrame(draw); }

    gd._icmlLabels = labels;
    gd.on("plotly_afterplot", schedule);
    gd.on("plotly_relayouting", function (ev) { // live ranges while the user drags
      var x = ev && ev["xaxis.range[0]"] !== undefined ? [ev["xaxis.range[0]"], ev["xaxis.range[1]"]] : null;
      var y = ev && ev["yaxis.range[0]"] !== undefined ? [ev["yaxis.range[0]"], ev["yaxis.range[1]"]] : null;
      pending = { x: x, y: y };
      schedule();
    });
    schedule();
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll(".js-plotly-plot"), setup);
  }

  if (document.readyState === "complete") init();
  else window.addEventListener("load", init);
})();
