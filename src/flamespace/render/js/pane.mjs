// flamespace page scripts: the flame graph pane, one graph of a payload on a canvas. Every page builds on
// it: the single-profile viewer (viewer.mjs), the comparison's panes (compare_view.mjs), the flame chart's
// lanes (chart.mjs) and the trace report (report.mjs).
import { el, legendBar, showTooltip as showTip, tooltipElement } from "./dom.mjs";
import { BOX, MIN_PX, ROW, XPAD, blockView, clampView, coveringFrame, fitLabel, frameOf as frameAt, pathOf as pathAt, rowTop as rowTopOf, zoomedView } from "./layout.mjs";
import { column, decode } from "./payload.mjs";
import { escapeRegex, matchNames, matchedPercent, matchedShare, matchedText, searchField } from "./search.mjs";
import { index, kit } from "./tree_kit.mjs";
import { formatter, percent } from "./units.mjs";

const FONT = '12px Verdana, "DejaVu Sans", Geneva, sans-serif';
const SMALL_COLOUR = "rgb(200,200,200)";

// FlamespacePane(container, data, options): a flame graph of `data` (the payload, or an object with
// its settings) drawn on a canvas made inside `container` (an empty block element: the pane sets
// its height to the graph's and keeps the canvas in view while its scroller scrolls).
// options: id (the canvas's), tree (frames to draw instead of data's; see FlamespacePane.decode),
// inverted (icicle), scroller (the scrolling element; default the window), top() (pixels covered
// at the scroller's top, e.g. by a sticky header), margin (8) and minHeight (160) of the canvas,
// tooltip (false: none), tooltipRows(frame, row) (extra rows: row(label, value, cls)),
// colour(frame) -> [fill, lightInk] (replaces boxColour), draw (false: not at once).
// Events (pane.on): "zoom" {frame, x0, x1} after every change of view, "hover" {frame, path} (the
// user's; -1: none), "click" {frame, path, event} before the zoom it makes (a listener returning false
// stops it), "context" {frame, path, event} (right click), "draw" {ms}. The methods are listed at the end.
export function Pane(container, data, options) {
	options = options || {};
	var tree = options.tree || decode(data), n, nameOf, depthOf, startOf, valueOf, selfOf, colourOf, deltaOf;
	var parentOf, endOf, total, maxDepth;
	function useTree(t) {
		tree = t; n = t.count; nameOf = t.name; depthOf = t.depth; startOf = t.start; valueOf = t.value;
		selfOf = t.self; colourOf = t.colour; deltaOf = t.delta || null; parentOf = t.parent; endOf = t.end;
		total = t.total; maxDepth = t.maxDepth;
	}
	useTree(tree);
	var names = data.names, colours = data.colours, inks = data.inks, background = data.background;
	var format = formatter(data.units), human = format.human;
	var scroller = options.scroller || null, margin = options.margin === undefined ? 8 : options.margin;
	var minHeight = options.minHeight === undefined ? 160 : options.minHeight;
	var canvas = container.appendChild(el("canvas", options.id ? {id: options.id, "class": "pane"} : {"class": "pane"}));
	container.classList.add("pane-box");
	var ctx = canvas.getContext("2d", {alpha: false});
	var tooltip = options.tooltip === false ? null : tooltipElement();
	var zoom = 0, x0 = 0, x1 = total, inverted = !!options.inverted, matchName = null, shareMatched = null, matchedUpTo = null;
	var hovered = -1, hits = [], runs = [], band = {offset: 0, height: 0}, charWidth = 7, pending = false;
	var listeners = {};
	var self = {canvas: canvas, data: data, human: human, percent: percent, format: format};

	function emit(event, detail) {
		var result = true;
		(listeners[event] || []).forEach(function (callback) { if (callback(detail) === false) result = false; });
		return result;
	}
	function contentHeight() { return (maxDepth + 1) * ROW + 2; }
	function rowTop(depth) { return rowTopOf(depth, maxDepth, inverted); }

	function size() {
		var top = options.top ? options.top() : 0;
		var scrollerTop = scroller ? scroller.getBoundingClientRect().top : 0;
		var scrollerHeight = scroller ? scroller.clientHeight : window.innerHeight;
		var height = Math.min(contentHeight(), Math.max(scrollerHeight - top - margin, minHeight));
		container.style.height = contentHeight() + "px";
		canvas.style.top = top + "px";
		canvas.style.height = height + "px";
		var ratio = window.devicePixelRatio || 1, width = canvas.clientWidth;
		if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
			canvas.width = Math.round(width * ratio);
			canvas.height = Math.round(height * ratio);
		}
		ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
		ctx.font = FONT;
		charWidth = ctx.measureText("abcdefghijklmnopqrstuvwxyz_ABCDEFGHIJ0123456789 ().:").width / 52;
		band.height = height;
		var graphTop = container.getBoundingClientRect().top;
		band.offset = Math.max(0, Math.min(contentHeight() - height, scrollerTop + top - graphTop));
	}

	var trailingLocation = data.location ? new RegExp(data.location) : null;
	function fit(name, width) { return fitLabel(name, width, charWidth, trailingLocation); }

	// The one place that decides a box's colour: [fill, light ink for its label].
	function boxColour(i) {
		if (options.colour) return options.colour(i);
		var c = colourOf[i], R = data.ratio;
		if (R && tree.second) {  // a second metric: the ratio's step on the payload's ramp, as render/colouring.py's ratio_colours
			var ratio = tree.second[i] / (i ? valueOf[i] : tree.actual), largest = Math.log(R.spread), level = 0;
			var steps = (R.ramp.length - 1) / 2;
			if (ratio > 0) level = Math.max(-largest, Math.min(Math.log(ratio / R.overall), largest));
			else if (ratio === 0) level = -largest;
			var step = Math.trunc(steps * (largest - Math.abs(level)) / largest);
			c = R.ramp[level > 0 ? 2 * steps - step : level < 0 ? step : steps];
		}
		return [colours[c], !!inks[c]];
	}

	function draw() {
		var began = performance.now();
		size();
		var width = canvas.clientWidth, height = band.height, offset = band.offset, inner = width - 2 * XPAD;
		var gradient = ctx.createLinearGradient(0, -offset, 0, contentHeight() - offset);
		gradient.addColorStop(0.05, background[0]);
		gradient.addColorStop(0.95, background[1]);
		ctx.fillStyle = gradient;
		ctx.fillRect(0, 0, width, height);
		hits = [];
		runs = [];
		if (!n) return;
		var scale = inner / (x1 - x0);
		// the rows in the band: depths [low, high]
		var first = Math.floor(offset / ROW), last = Math.floor((offset + height) / ROW);
		var low = inverted ? first : maxDepth - last, high = inverted ? last : maxDepth - first;
		for (var d = 0; d <= maxDepth; d++) hits.push([]);
		var runX = new Float64Array(maxDepth + 1).fill(-1), runEnd = new Float64Array(maxDepth + 1);
		var runCount = new Uint32Array(maxDepth + 1), runValue = new Float64Array(maxDepth + 1);
		var runStart = new Float64Array(maxDepth + 1), runStop = new Float64Array(maxDepth + 1);
		ctx.save();
		ctx.beginPath();
		ctx.rect(XPAD, 0, inner, height);
		ctx.clip();
		ctx.font = FONT;
		ctx.textBaseline = "middle";
		function flush(depth) {
			if (runX[depth] < 0) return;
			var x = runX[depth], w = Math.max(runEnd[depth] - x, 0.5), y = rowTop(depth) - offset;
			ctx.fillStyle = SMALL_COLOUR;
			ctx.fillRect(x, y, w, BOX);
			runs.push({depth: depth, count: runCount[depth], value: runValue[depth], start: runStart[depth], end: runStop[depth]});
			hits[depth].push([x, w, -runs.length]);
			runX[depth] = -1;
		}
		function box(i, px, pw, faded) {
			var depth = depthOf[i], y = rowTop(depth) - offset;
			if (runX[depth] >= 0) flush(depth);
			var left = Math.max(px, XPAD - 1), right = Math.min(px + pw, XPAD + inner + 1), w = right - left;
			var colour = boxColour(i), matched = matchName !== null && matchName[nameOf[i]];
			ctx.globalAlpha = faded ? 0.5 : 1;
			ctx.fillStyle = matched ? data.search_colour : colour[0];
			ctx.fillRect(left, y, w >= 3 ? w - 0.5 : w, BOX);
			if (w >= 3 * charWidth + 6) {
				var label = fit(names[nameOf[i]], w);
				if (label) {
					ctx.fillStyle = colour[1] && !matched ? "#fff" : "#000";
					ctx.fillText(label, left + 3, y + BOX / 2 + 0.5, w - 6);
				}
			}
			if (i === hovered) {
				ctx.strokeStyle = "#000";
				ctx.lineWidth = 0.75;
				ctx.strokeRect(left + 0.375, y + 0.375, Math.max(w - 1.25, 0.5), BOX - 0.75);
			}
			ctx.globalAlpha = 1;
			hits[depth].push([left, w, i]);
		}
		// the zoomed frame's ancestors, full width and faded
		var chain = [];
		for (var a = parentOf[zoom]; a >= 0; a = parentOf[a]) chain.push(a);
		for (var k = chain.length - 1; k >= 0; k--) {
			var dd = depthOf[chain[k]];
			if (dd >= low && dd <= high) box(chain[k], XPAD + (startOf[chain[k]] - x0) * scale, valueOf[chain[k]] * scale, true);
		}
		// the zoomed frame and its subtree: skip what is outside the view, merge what is narrower than a pixel
		var stop = endOf[zoom], left = XPAD, right = XPAD + inner;
		for (var i = zoom; i < stop;) {
			var depth = depthOf[i];
			if (depth > high) { i = endOf[i]; continue; }
			var px = XPAD + (startOf[i] - x0) * scale, pw = valueOf[i] * scale;
			if (px + pw <= left || px >= right) { i = endOf[i]; continue; }
			if (pw < MIN_PX) {
				if (depth >= low) {
					if (runX[depth] >= 0 && px > runEnd[depth] + 0.5) flush(depth);
					if (runX[depth] < 0) {
						runX[depth] = px; runCount[depth] = 0; runValue[depth] = 0; runStart[depth] = startOf[i];
					}
					runEnd[depth] = px + pw; runCount[depth] += 1; runValue[depth] += valueOf[i];
					runStop[depth] = startOf[i] + valueOf[i];
				}
				i = endOf[i];
				continue;
			}
			if (depth >= low) box(i, px, pw, false);
			i++;
		}
		for (var r = 0; r <= maxDepth; r++) flush(r);
		ctx.restore();
		self.lastDraw = performance.now() - began;
		emit("draw", {ms: self.lastDraw});
	}

	function redraw() {
		if (pending) return;
		pending = true;
		window.requestAnimationFrame(function () { pending = false; draw(); });
	}

	// -- zoom -----------------------------------------------------------------------------------
	function setView(lo, hi, frame) {
		var view = clampView(lo, hi, total);
		x0 = view[0]; x1 = view[1];
		zoom = !n ? 0 : frame !== undefined ? frame : coveringFrame(tree, x0, x1);
		updateMatched();
		draw();
		emit("zoom", {frame: zoom, x0: x0, x1: x1});
	}
	// a "(small)" block: its span, or a quarter of the view around the click if the block is wider
	function zoomRun(run, clientX) {
		var rect = canvas.getBoundingClientRect(), at = x0 + (x1 - x0) * (clientX - rect.left - XPAD) / (rect.width - 2 * XPAD);
		var view = blockView(run.start, run.end, x0, x1, at);
		setView(view[0], view[1]);
	}
	function frameOf(target) { return frameAt(tree, names, target); }
	function pathOf(i) { return pathAt(tree, names, i); }
	function zoomTo(target) {
		var i = frameOf(target);
		if (i <= 0) reset(); else setView(startOf[i], startOf[i] + valueOf[i], i);
	}
	function reset() { setView(0, total, 0); }
	function zoomBy(factor, at) {
		var view = zoomedView(x0, x1, factor, at);
		setView(view[0], view[1]);
	}
	function pan(fraction) { var shift = (x1 - x0) * fraction; setView(x0 + shift, x1 + shift); }

	// -- search: a name pattern; the matched share of the zoomed frame, each match counted once (not again inside another)
	function search(pattern) {
		matchName = pattern ? matchNames(names, pattern) : null;
		updateMatched();
		draw();
	}
	function updateMatched() {
		var matched = matchName !== null && n ? matchedShare(tree, matchName, zoom) : null;
		shareMatched = matched && matched.share;
		matchedUpTo = matched && matched.upTo;
	}

	// -- tooltip and events ---------------------------------------------------------------------
	function hitAt(clientX, clientY) {
		var rect = canvas.getBoundingClientRect(), x = clientX - rect.left, y = clientY - rect.top + band.offset;
		var row = Math.floor((y - 1) / ROW), depth = inverted ? row : maxDepth - row;
		if (depth < 0 || depth > maxDepth || (y - 1) - row * ROW >= BOX || !hits[depth]) return null;
		var list = hits[depth];
		for (var k = 0; k < list.length; k++) if (x >= list[k][0] && x < list[k][0] + list[k][1]) return list[k][2];
		return null;
	}
	function showTooltip(hit, clientX, clientY) {
		if (!tooltip) return;
		if (hit < 0) {
			var run = runs[-hit - 1];
			showTip(tooltip, "(small) " + run.count + " frame" + (run.count === 1 ? "" : "s") + " narrower than a pixel", function (row) {
				row("Value", human(run.value) + " (" + percent(run.value, total) + " of total)");
				row("", "Click to zoom in on them");
			}, clientX, clientY);
			return;
		}
		showTip(tooltip, names[nameOf[hit]], function (row) {
			var parent = parentOf[hit];
			row("Value", human(valueOf[hit]));
			row("Of total", percent(valueOf[hit], total));
			if (parent >= 0) row("Of parent", percent(valueOf[hit], valueOf[parent]) + " of " + names[nameOf[parent]]);
			row("Self", human(selfOf[hit]) + " (" + percent(selfOf[hit], total) + " of total)");
			if (deltaOf !== null) {
				var change = (data.negate ? -1 : 1) * deltaOf[hit];
				row(data.delta === "self" ? "Self change" : "Change", human(change, true) + " (" +
					(change > 0 ? "+" : "") + percent(change, total) + " of total)", change > 0 ? "up" : change < 0 ? "down" : "");
			}
			if (data.ratio && tree.second) {
				var R = data.ratio, ratio = tree.second[hit] / (hit ? valueOf[hit] : tree.actual);
				var shown = R.per * (R.inverse ? 1 / ratio : ratio), whole = R.per * (R.inverse ? 1 / R.overall : R.overall);
				row(R.colour, format.count(tree.second[hit]));
				row(R.label, format.count(shown) + " (" + format.count(shown / whole) + "\u00d7 the whole profile's)");
			}
			if (options.tooltipRows) options.tooltipRows(hit, row);
		}, clientX, clientY);
	}
	function hideTooltip() { if (tooltip) tooltip.style.display = "none"; }
	function setHovered(frame, fromUser) {
		if (frame === hovered) return;
		hovered = frame;
		redraw();
		if (fromUser) emit("hover", {frame: frame, path: frame >= 0 ? pathOf(frame) : null});
	}
	canvas.addEventListener("mousemove", function (e) {
		var hit = hitAt(e.clientX, e.clientY);
		setHovered(hit === null || hit < 0 ? -1 : hit, true);
		if (hit === null) { hideTooltip(); canvas.style.cursor = "default"; return; }
		canvas.style.cursor = "pointer";
		showTooltip(hit, e.clientX, e.clientY);
	});
	canvas.addEventListener("mouseleave", function () {
		hideTooltip();
		setHovered(-1, true);
	});
	canvas.addEventListener("click", function (e) {
		var hit = hitAt(e.clientX, e.clientY);
		if (hit === null) return;
		if (!emit("click", {frame: hit < 0 ? -1 : hit, path: hit < 0 ? null : pathOf(hit), event: e})) return;
		if (hit < 0) zoomRun(runs[-hit - 1], e.clientX);
		else zoomTo(hit === zoom && zoom ? parentOf[hit] : hit);
		var after = hitAt(e.clientX, e.clientY);
		if (after === null) hideTooltip(); else showTooltip(after, e.clientX, e.clientY);
	});
	canvas.addEventListener("contextmenu", function (e) {
		var hit = hitAt(e.clientX, e.clientY);
		if (hit === null || hit < 0 || !listeners.context) return;
		e.preventDefault();
		hideTooltip();
		emit("context", {frame: hit, path: pathOf(hit), event: e});
	});
	canvas.addEventListener("wheel", function (e) {
		var rect = canvas.getBoundingClientRect(), inner = rect.width - 2 * XPAD;
		var at = Math.max(0, Math.min(1, (e.clientX - rect.left - XPAD) / inner));
		if (e.ctrlKey || e.metaKey) {
			e.preventDefault();
			zoomBy(Math.exp(Math.max(-1, Math.min(1, e.deltaY * 0.002))), at);
		} else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
			e.preventDefault();
			pan((e.shiftKey ? e.deltaY || e.deltaX : e.deltaX) / inner);
		}
	}, {passive: false});
	window.addEventListener("resize", redraw);
	(scroller || window).addEventListener("scroll", redraw, {passive: true});
	// A page in an iframe (a notebook's output) may get its size after its first draw, with no resize
	// event in it: an empty band was drawn then. Redraw whenever the pane's box or the page's does change.
	if (window.ResizeObserver) {
		var watcher = new ResizeObserver(redraw);
		watcher.observe(container);
		watcher.observe(document.documentElement);
	}

	// -- the pane's methods (keep these names: other page scripts use them) ---------------------
	self.draw = draw;
	self.redraw = redraw;
	self.size = size;
	self.zoomTo = zoomTo;          // a frame index or a path of names
	self.setView = setView;        // (lo, hi[, frame]) in value units
	self.reset = reset;
	self.zoomBy = zoomBy;          // (factor, at: 0..1 across the view)
	self.pan = pan;                // (fraction of the view)
	self.up = function () { zoomTo(zoom ? parentOf[zoom] : 0); };
	self.view = function () { return {frame: zoom, x0: x0, x1: x1, total: total}; };
	self.find = frameOf;
	self.pathOf = pathOf;
	self.hovered = function () { return hovered; };
	self.hover = function (target) { setHovered(target === null || target === undefined || target === -1 ? -1 : frameOf(target), false); };
	self.search = search;          // a RegExp (tested against each name) or null
	self.matches = function () { return matchName; };
	self.matched = function () { return shareMatched; };
	// the most the matched share can be: more than matched() when the page does not hold every frame left out
	self.matchedUpTo = function () { return matchedUpTo; };
	self.setShape = function (icicle) { inverted = !!icicle; draw(); };
	self.inverted = function () { return inverted; };
	self.setTree = function (t) { useTree(t); x0 = 0; x1 = total; zoom = 0; hovered = -1; updateMatched(); draw(); emit("zoom", {frame: 0, x0: x0, x1: x1}); };
	self.tree = function () { return tree; };
	self.on = function (event, callback) { (listeners[event] = listeners[event] || []).push(callback); return self; };
	self.colourOf = boxColour;     // (frame) -> [fill, lightInk]: what the boxes (and a minimap) are painted with
	self.hideTooltip = hideTooltip;
	self.fit = fit;
	self.charWidth = function () { return charWidth; };
	self.contentHeight = contentHeight;
	self.band = function () { return {offset: band.offset, height: band.height}; };
	// what the last draw put on the canvas (CSS pixels of the canvas): for tests
	self.drawn = function () {
		var out = [];
		hits.forEach(function (list, depth) {
			list.forEach(function (hit) {
				var small = hit[2] < 0, run = small ? runs[-hit[2] - 1] : null;
				out.push({frame: small ? -1 : hit[2], name: small ? "(small)" : names[nameOf[hit[2]]], depth: depth,
					x: hit[0], y: rowTop(depth) - band.offset, w: hit[1], h: BOX, count: small ? run.count : 1});
			});
		});
		return out;
	};
	if (options.draw !== false) draw();
	return self;
}

// Pane's statics: with the pane, the published API of window.FlamespacePane (docs/viewing.md) for pages
// built outside this folder; the modules here import these from their own modules.
Pane.decode = decode;          // payload -> tree (columns, parent, end, total, maxDepth)
Pane.index = index;            // adds parent and end to a tree built elsewhere
Pane.column = column;
Pane.formatter = formatter;    // payload.units -> {human, count, percent}
Pane.el = el;
Pane.matchedPercent = matchedPercent;  // share -> "40.8": the matched share's figure, as the SVG's
Pane.matchedText = matchedText;        // pane -> "Matched: 40.8%" (a range when the page lacks some narrow frames)
Pane.searchField = searchField;  // the search box, its ignore-case box and the matched share, in a toolbar
Pane.legendBar = legendBar;    // a colour scale's row: low end, the bar, high end, what it means
Pane.escapeRegex = escapeRegex;
Pane.ROW = ROW;
Pane.XPAD = XPAD;              // pixels left and right of the boxes (a ruler over a pane lines up with it)
Pane.transform = kit.transform;  // (tree, names, spec) -> tree: focus, merge, drop, recursion, invert, only, byValue
Pane.callers = kit.callers;    // (tree, names, match, rootName, rootColour, minValue) -> the callers' tree of some functions
Pane.functionCosts = kit.functionCosts;  // (tree, groupOf: Int32Array name -> group, or null) -> the table of functions
