// flamespace flame chart: a lane per thread on one time axis, from the payload of render/chart_html.py.
// Each lane is a flame graph pane (pane.mjs) whose root is the thread and whose boxes sit where they ran
// in time; every pane shows the same [x0, x1] of the axis, so zoom and pan (wheel, drag, keys, the ruler)
// move all lanes at once. The pane draws only what is wider than a pixel in view, so a draw costs what
// is visible, not the number of boxes. Chart(container, payload, options) builds the lanes and the ruler
// in `container`: the flame chart page (chart_view.mjs) and the trace report (report.mjs) use it.
import { el, showTooltip as showTip, tooltipElement } from "./dom.mjs";
import { XPAD } from "./layout.mjs";
import { Pane } from "./pane.mjs";
import { column } from "./payload.mjs";
import { index } from "./tree_kit.mjs";
import { formatter } from "./units.mjs";

const RULER = 30;

// payload -> one tree per lane: the thread as root (the whole axis), its boxes below (depth + 1)
export function laneTrees(data) {
	var B = data.boxes, lane = column(B.lane), depth = column(B.depth), start = column(B.start);
	var value = column(B.value), self = column(B.self), name = column(B.name), colour = column(B.colour);
	var trees = [], at = 0;
	data.lanes.forEach(function (spec, k) {
		var n = spec.count + 1, t = {count: n, name: new Uint32Array(n), depth: new Uint16Array(n), start: new Float64Array(n),
			value: new Float64Array(n), self: new Float64Array(n), colour: new Uint32Array(n), delta: null, total: data.end};
		var busy = 0;
		t.name[0] = spec.name; t.colour[0] = spec.colour; t.value[0] = data.end;
		for (var i = 1; i < n; i++, at++) {
			if (lane[at] !== k) throw new Error("flamespace chart: the boxes of lane " + k + " are not together");
			t.name[i] = name[at]; t.depth[i] = depth[at] + 1; t.start[i] = start[at]; t.value[i] = value[at];
			t.self[i] = self[at]; t.colour[i] = colour[at];
			if (depth[at] === 0) busy += value[at];
		}
		t.self[0] = data.end - busy;
		t.maxDepth = spec.rows;
		t.busy = busy;
		trees.push(index(t));
	});
	return trees;
}

// "nice" steps for a ruler: 1, 2, 5 times a power of ten of the unit's base
export function tickStep(span, pixels) {
	var raw = span / Math.max(1, pixels / 90), power = Math.pow(10, Math.floor(Math.log10(raw))), steps = [1, 2, 5, 10];
	for (var k = 0; k < steps.length; k++) if (steps[k] * power >= raw) return steps[k] * power;
	return 10 * power;
}

// options: top() (pixels covered at the window's top by a sticky header), keys (true: the
// keyboard zooms and pans), ruler (an element to put the ruler in; default: above the lanes).
export function Chart(container, data, options) {
	options = options || {};
	if (data.version !== 1 || data.kind !== "chart") throw new Error("flamespace chart: unknown payload " + data.kind + " " + data.version);
	var format = formatter(data.units), human = format.human, names = data.names;
	var trees = laneTrees(data), lanes = [], syncing = false, x0 = 0, x1 = data.end, hovered = null, drag = null;
	var api = {lanes: lanes, data: data, human: human};
	var rulerBox = options.ruler || container.appendChild(el("div", {"class": "ruler-box"}));
	var ruler = rulerBox.appendChild(el("canvas", {"class": "ruler", title: "Drag to zoom to a stretch of time; wheel zooms"}));
	var body = container.appendChild(el("div", {"class": "lanes"}));
	var tooltip = tooltipElement();
	function top() { return (options.top ? options.top() : 0); }

	trees.forEach(function (tree, k) {
		var spec = data.lanes[k], box = body.appendChild(el("div", {"class": "lane", id: "lane-" + k}));
		var head = box.appendChild(el("div", {"class": "lane-head"}));
		var toggle = head.appendChild(el("button", {"class": "collapse", title: "Hide or show this thread", "aria-expanded": "true"}, "\u25be"));
		head.appendChild(el("span", {"class": "lane-name"}, names[spec.name]));
		head.appendChild(el("span", {"class": "lane-info"}, spec.count.toLocaleString("en") + " boxes \u00b7 busy " + human(tree.busy) +
			(data.end ? " (" + format.percent(tree.busy, data.end) + ")" : "")));
		var holder = box.appendChild(el("div", {"class": "lane-body"}));
		var pane = Pane(holder, data, {tree: tree, inverted: true, tooltip: false, top: top, minHeight: 0, margin: 0});
		var entry = {name: names[spec.name], pane: pane, box: box, collapsed: false};
		lanes.push(entry);
		toggle.addEventListener("click", function () { setCollapsed(k, !entry.collapsed); });
		pane.on("zoom", function (e) { if (!syncing) follow(pane, e.x0, e.x1); });
		pane.on("hover", function (e) { hovered = e.frame > 0 ? {lane: k, frame: e.frame} : null; if (!hovered) hideTooltip(); });
		pane.on("click", function () { return !drag || !drag.moved; });  // the end of a drag is no click
		pane.canvas.addEventListener("mousemove", function (e) { if (hovered && hovered.lane === k) showTooltip(e.clientX, e.clientY); });
		pane.canvas.addEventListener("mouseleave", hideTooltip);
		pane.canvas.addEventListener("mousedown", function (e) { startDrag(e, "pan"); });
	});

	function setCollapsed(k, collapsed) {
		var entry = lanes[k], holder = entry.box.querySelector(".lane-body"), toggle = entry.box.querySelector(".collapse");
		entry.collapsed = collapsed;
		holder.style.display = collapsed ? "none" : "";
		toggle.textContent = collapsed ? "\u25b8" : "\u25be";
		toggle.setAttribute("aria-expanded", collapsed ? "false" : "true");
		entry.box.classList.toggle("collapsed", collapsed);
		if (!collapsed) entry.pane.setView(x0, x1);
	}

	// one pane's view changed (its own click or wheel): every other lane and the ruler follow
	function follow(source, lo, hi) {
		x0 = lo; x1 = hi;
		syncing = true;
		lanes.forEach(function (entry) { if (entry.pane !== source && !entry.collapsed) entry.pane.setView(lo, hi); });
		syncing = false;
		drawRuler();
		if (options.onView) options.onView(x0, x1);
	}
	function setView(lo, hi) {
		var first = null;
		lanes.forEach(function (entry) { if (!first && !entry.collapsed) first = entry; });
		if (first) first.pane.setView(lo, hi);  // it clamps, then the others follow
		else { x0 = Math.max(0, lo); x1 = Math.min(data.end, hi); drawRuler(); }
	}
	function zoomBy(factor, at) {
		var focus = x0 + (x1 - x0) * (at === undefined ? 0.5 : at);
		setView(focus - (focus - x0) * factor, focus + (x1 - focus) * factor);
	}
	function pan(fraction) { var shift = (x1 - x0) * fraction; setView(x0 + shift, x1 + shift); }
	function reset() { setView(0, data.end); }

	// -- the ruler: ticks in human units over the view ------------------------------------------------
	function drawRuler() {
		var width = ruler.clientWidth, ratio = window.devicePixelRatio || 1;
		if (!width) return;
		if (ruler.width !== Math.round(width * ratio) || ruler.height !== Math.round(RULER * ratio)) {
			ruler.width = Math.round(width * ratio); ruler.height = Math.round(RULER * ratio);
		}
		var ctx = ruler.getContext("2d");
		ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
		ctx.fillStyle = "#fff";
		ctx.fillRect(0, 0, width, RULER);
		var inner = width - 2 * XPAD, span = x1 - x0;
		if (drag && drag.kind === "select" && drag.moved) {
			ctx.fillStyle = "rgba(34, 86, 166, 0.18)";
			var a = Math.min(drag.from, drag.to), b = Math.max(drag.from, drag.to);
			ctx.fillRect(a, 0, b - a, RULER);
		}
		ctx.strokeStyle = "#999";
		ctx.fillStyle = "#333";
		ctx.font = '11px Verdana, "DejaVu Sans", Geneva, sans-serif';
		ctx.textBaseline = "top";
		ctx.beginPath();
		ctx.moveTo(XPAD, RULER - 0.5); ctx.lineTo(XPAD + inner, RULER - 0.5);
		if (span > 0 && inner > 0) {
			var step = tickStep(span, inner), first = Math.ceil(x0 / step) * step;
			for (var t = first, k = 0; t <= x1 + step * 1e-9 && k < 1000; t = first + (++k) * step) {
				var x = Math.round(XPAD + (t - x0) / span * inner) + 0.5;
				ctx.moveTo(x, RULER - 10); ctx.lineTo(x, RULER);
				var label = human(t);
				var w = ctx.measureText(label).width;
				if (x + 3 + w < width) ctx.fillText(label, x + 3, 4);
				for (var m = 1; m < 5; m++) {
					var xm = Math.round(XPAD + (t + m * step / 5 - x0) / span * inner) + 0.5;
					if (xm < XPAD + inner) { ctx.moveTo(xm, RULER - 4); ctx.lineTo(xm, RULER); }
				}
			}
		}
		ctx.stroke();
		ruler.setAttribute("data-view", human(x0) + " \u2013 " + human(x1));
	}

	// -- drag: on a lane it pans, on the ruler it selects a stretch to zoom to ------------------------
	function valueAt(clientX) {
		var rect = ruler.getBoundingClientRect(), inner = rect.width - 2 * XPAD;
		return x0 + (x1 - x0) * Math.max(0, Math.min(1, (clientX - rect.left - XPAD) / inner));
	}
	function startDrag(e, kind) {
		if (e.button !== 0) return;
		var rect = ruler.getBoundingClientRect();
		drag = {kind: kind, startX: e.clientX, from: e.clientX - rect.left, to: e.clientX - rect.left, lo: x0, hi: x1, moved: false};
		if (kind === "select") e.preventDefault();
	}
	window.addEventListener("mousemove", function (e) {
		if (!drag) return;
		if (Math.abs(e.clientX - drag.startX) > 3) drag.moved = true;
		if (!drag.moved) return;
		if (drag.kind === "pan") {
			var inner = ruler.getBoundingClientRect().width - 2 * XPAD, shift = (drag.startX - e.clientX) / inner * (drag.hi - drag.lo);
			hideTooltip();
			setView(drag.lo + shift, drag.hi + shift);
		} else {
			drag.to = e.clientX - ruler.getBoundingClientRect().left;
			drawRuler();
		}
	});
	window.addEventListener("mouseup", function (e) {
		if (!drag) return;
		var done = drag;
		if (done.kind === "select" && done.moved) {
			var a = valueAt(done.startX), b = valueAt(e.clientX);
			drag = null;
			setView(Math.min(a, b), Math.max(a, b));
		}
		window.setTimeout(function () { if (drag === done) drag = null; }, 0);  // after the click event
	});
	ruler.addEventListener("mousedown", function (e) { startDrag(e, "select"); });
	ruler.addEventListener("dblclick", reset);
	// the wheel zooms on the ruler; on the lanes with Ctrl (the pane's own), Shift+wheel pans
	ruler.addEventListener("wheel", function (e) {
		var rect = ruler.getBoundingClientRect(), at = Math.max(0, Math.min(1, (e.clientX - rect.left - XPAD) / (rect.width - 2 * XPAD)));
		e.preventDefault();
		if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) pan(e.deltaX / (rect.width - 2 * XPAD));
		else zoomBy(Math.exp(Math.max(-1, Math.min(1, e.deltaY * 0.002))), at);
	}, {passive: false});

	// -- the tooltip: name, start, duration, self, thread ----------------------------------------------
	function showTooltip(clientX, clientY) {
		if (!hovered) return;
		var t = trees[hovered.lane], i = hovered.frame;
		showTip(tooltip, names[t.name[i]], function (row) {
			row(data.time ? "Start" : "Position", human(t.start[i]));
			row(data.time ? "Duration" : "Width", human(t.value[i]));
			row("Self", human(t.self[i]) + " (" + format.percent(t.self[i], t.value[i]) + ")");
			row("Thread", names[t.name[0]]);
		}, clientX, clientY);
		api.tooltip = tooltip.textContent;
	}
	function hideTooltip() { tooltip.style.display = "none"; }

	// -- keys: + - (or W S) zoom, ← → (or A D) pan, Esc or 0 resets ------------------------------------
	if (options.keys !== false) {
		document.addEventListener("keydown", function (e) {
			var target = e.target;
			if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) return;
			if (options.active && !options.active()) return;
			if (e.ctrlKey || e.metaKey || e.altKey) return;
			var key = e.key;
			if (key === "+" || key === "=" || key === "w" || key === "W") zoomBy(0.8);
			else if (key === "-" || key === "_" || key === "s" || key === "S") zoomBy(1.25);
			else if (key === "ArrowLeft" || key === "a" || key === "A") pan(-0.2);
			else if (key === "ArrowRight" || key === "d" || key === "D") pan(0.2);
			else if (key === "Escape" || key === "0") reset();
			else return;
			e.preventDefault();
		});
	}
	window.addEventListener("resize", drawRuler);

	// -- search: every lane highlights the names that match --------------------------------------------
	function search(pattern) {
		var boxes = 0;
		lanes.forEach(function (entry, k) {
			entry.pane.search(pattern);
			if (pattern) {
				var match = entry.pane.matches(), t = trees[k];
				for (var i = 1; i < t.count; i++) if (match[t.name[i]]) boxes++;
			}
		});
		return boxes;
	}

	api.setView = setView;
	api.zoomBy = zoomBy;
	api.pan = pan;
	api.reset = reset;
	api.search = search;
	api.setCollapsed = setCollapsed;
	api.drawRuler = drawRuler;
	api.view = function () { return {x0: x0, x1: x1, end: data.end}; };
	api.trees = trees;
	api.draw = function () { lanes.forEach(function (entry) { if (!entry.collapsed) entry.pane.draw(); }); drawRuler(); };
	drawRuler();
	return api;
}
