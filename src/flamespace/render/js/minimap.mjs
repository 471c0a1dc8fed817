// flamespace page scripts: a minimap, the whole graph in a strip with the view's window on it; drag the window to pan.
import { XPAD } from "./layout.mjs";

export function Minimap(canvas, pane, onDrop) {
	var HEIGHT = 36, ctx = canvas.getContext("2d"), cache = null, cacheKey = "", drag = null;
	function ratio() { return window.devicePixelRatio || 1; }
	function build(width) {
		var r = ratio(), t = pane.tree();
		cache = document.createElement("canvas");
		cache.width = Math.round(width * r); cache.height = Math.round(HEIGHT * r);
		var b = cache.getContext("2d", {alpha: false});
		b.setTransform(r, 0, 0, r, 0, 0);
		b.fillStyle = "#f4f4f4";
		b.fillRect(0, 0, width, HEIGHT);
		if (!t.count) return;
		var inner = width - 2 * XPAD, scale = inner / t.total, rowH = Math.min(4, HEIGHT / (t.maxDepth + 1)), icicle = pane.inverted();
		for (var i = 0; i < t.count;) {
			var pw = t.value[i] * scale;
			if (pw < 0.35) { i = t.end[i]; continue; }
			var d = t.depth[i];
			b.fillStyle = pane.colourOf(i)[0];
			b.fillRect(XPAD + t.start[i] * scale, icicle ? d * rowH : HEIGHT - (d + 1) * rowH, pw, rowH);
			i++;
		}
	}
	function render() {
		var width = canvas.clientWidth, r = ratio();
		if (!width) return;
		if (canvas.width !== Math.round(width * r) || canvas.height !== Math.round(HEIGHT * r)) {
			canvas.width = Math.round(width * r); canvas.height = Math.round(HEIGHT * r);
		}
		var key = width + "," + r + "," + pane.inverted() + "," + pane.tree().count + "," + pane.tree().total;
		if (!cache || key !== cacheKey) { build(width); cacheKey = key; }
		ctx.setTransform(1, 0, 0, 1, 0, 0);
		ctx.drawImage(cache, 0, 0);
		ctx.setTransform(r, 0, 0, r, 0, 0);
		var v = pane.view(), inner = width - 2 * XPAD, a = XPAD + v.x0 / v.total * inner, b = XPAD + v.x1 / v.total * inner;
		ctx.fillStyle = "rgba(255,255,255,0.7)";
		ctx.fillRect(0, 0, a, HEIGHT);
		ctx.fillRect(b, 0, width - b, HEIGHT);
		ctx.strokeStyle = "#444";
		ctx.lineWidth = 1;
		ctx.strokeRect(Math.round(a) + 0.5, 0.5, Math.max(Math.round(b - a) - 1, 1), HEIGHT - 1);
	}
	function valueAt(clientX) {
		var rect = canvas.getBoundingClientRect(), v = pane.view();
		return Math.max(0, Math.min(1, (clientX - rect.left - XPAD) / (rect.width - 2 * XPAD))) * v.total;
	}
	canvas.addEventListener("mousedown", function (e) {
		var v = pane.view(), at = valueAt(e.clientX), width = v.x1 - v.x0;
		e.preventDefault();
		if (width >= v.total) return;
		drag = {grab: at >= v.x0 && at <= v.x1 ? at - v.x0 : width / 2, width: width};
		if (!(at >= v.x0 && at <= v.x1)) pane.setView(at - drag.grab, at - drag.grab + width);
	});
	window.addEventListener("mousemove", function (e) {
		if (!drag) return;
		var at = valueAt(e.clientX);
		pane.setView(at - drag.grab, at - drag.grab + drag.width);
	});
	window.addEventListener("mouseup", function () { if (drag) { drag = null; onDrop(); } });
	window.addEventListener("resize", render);
	return {render: render, dragging: function () { return drag !== null; }};
}
