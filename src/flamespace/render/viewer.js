// flamespace HTML viewer: flame graphs drawn on canvases from the page's payload (render/html.py).
// The payload is in value units; a pane turns the frames of its current view into pixels on
// every draw, visiting only frames wider than a pixel (narrower neighbours are merged into one
// "(small)" block per row, their subtrees skipped), so a draw costs what is visible.
//
// window.FlamespacePane(container, payload, options) is one flame graph pane (other page
// scripts build comparison and timeline pages from several); main() at the end is the
// single-profile page, run when the page holds a <script id="flamespace-data"> payload.
"use strict";
(function () {
	var ROW = 16, BOX = 15, XPAD = 10, MIN_PX = 1;
	var FONT = '12px Verdana, "DejaVu Sans", Geneva, sans-serif';
	var SMALL_COLOUR = "rgb(200,200,200)";

	// -- the payload ----------------------------------------------------------------------------
	var TYPES = {u1: Uint8Array, u2: Uint16Array, u4: Uint32Array, i1: Int8Array, i2: Int16Array, i4: Int32Array, f8: Float64Array};
	function column(c) {
		var text = atob(c.data), n = text.length, bytes = new Uint8Array(n);
		for (var i = 0; i < n; i++) bytes[i] = text.charCodeAt(i);
		return new TYPES[c.type](bytes.buffer);
	}
	function decode(data) {
		var F = data.frames;
		var tree = index({count: F.count, name: column(F.name), depth: column(F.depth), start: column(F.start),
			value: column(F.value), self: column(F.self), colour: column(F.colour), delta: F.delta ? column(F.delta) : null,
			second: F.second ? column(F.second) : null,
			total: data.total, maxDepth: data.max_depth, actual: data.ratio ? data.ratio.actual : data.total});
		tree.narrow = data.narrow ? narrowFrames(data.narrow, tree) : null;
		return tree;
	}
	// the frames the layout left out (only the search counts them: its matched share is exact): name, depth
	// below the laid-out frame that owns them, value; those of laid-out frame i are [first[i], first[i + 1]).
	// When the page holds only the widest of them (render/html.py's SEARCH_FRAMES), `missing[i]`: the value
	// under laid-out frame i in frames it does not hold (what they could add to the matched share).
	function narrowFrames(N, tree) {
		var counts = column(N.count), n = counts.length, first = new Uint32Array(n + 1);
		for (var i = 0; i < n; i++) first[i + 1] = first[i] + counts[i];
		var out = {first: first, name: column(N.name), depth: column(N.depth), value: column(N.value), missing: null};
		if (!N.complete) {
			var missing = new Float64Array(n), value = tree.value, parent = tree.parent;
			for (i = 0; i < n; i++) missing[i] = (i ? value[i] : N.actual) - tree.self[i];
			for (i = 1; i < n; i++) missing[parent[i]] -= value[i];
			for (i = 0; i < n; i++) {
				for (var r = first[i]; r < first[i + 1]; r++) if (out.depth[r] === 1) missing[i] -= out.value[r];
				if (missing[i] < 1e-9 * (value[i] || 1)) missing[i] = 0;
			}
			out.missing = missing;
		}
		return out;
	}

	// -- numbers for people (as flamespace.core.units.human; the unit's scales come in the payload)
	function formatter(U) {
		function groupThousands(digits) { return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
		function plain(value, signed) {
			if (isNaN(value)) return "n/a";
			if (!isFinite(value)) return value > 0 ? (signed ? "+\u221e" : "\u221e") : "-\u221e";
			if (value === 0) return "0";
			var sign = value < 0 ? "-" : signed ? "+" : "", magnitude = Math.abs(value), sig = U.significant;
			var exponent = Math.floor(Math.log10(magnitude));
			if (Number(magnitude.toFixed(Math.max(0, Math.min(100, sig - 1 - exponent)))) >= Math.pow(10, exponent + 1)) exponent += 1;
			var decimals = Math.max(0, sig - 1 - exponent);
			if (decimals > U.max_decimals) {
				var parts = magnitude.toExponential(sig - 1).split("e");
				var power = parseInt(parts[1], 10);
				return sign + parts[0] + "e" + (power < 0 ? "-" : "+") + (Math.abs(power) < 10 ? "0" : "") + Math.abs(power);
			}
			var text = magnitude.toFixed(decimals), dot = text.indexOf(".");
			return sign + (dot < 0 ? groupThousands(text) : groupThousands(text.slice(0, dot)) + text.slice(dot));
		}
		function scaleFor(magnitude, difference) {
			if (U.kind === "share") return [100, difference ? "pp" : "%"];
			if (U.kind !== "scaled") return [1, ""];
			var scales = U.scales, base = isFinite(magnitude) ? Math.abs(magnitude) * U.size : 0, index = 0;
			for (var i = 0; i < scales.length; i++) if (base >= scales[i][1]) index = i;
			var suffix = scales[index][0], step = scales[index][1];
			if (index + 1 < scales.length && base && Math.abs(parseFloat(plain(base / step).replace(/,/g, ""))) >= scales[index + 1][1] / step) {
				suffix = scales[index + 1][0]; step = scales[index + 1][1];
			}
			return [U.size / step, suffix];
		}
		// plain counts as the SVG's tooltips write them (flamespace.core.units.format_count)
		function count(value, signed) {
			var magnitude = Math.abs(value), sign = value < 0 ? "-" : signed && value > 0 ? "+" : "", text;
			if (Number.isInteger(magnitude) || magnitude >= 100) text = groupThousands(magnitude.toFixed(0));
			else text = String(Number(magnitude.toPrecision(3)));
			return sign + text;
		}
		function human(value, signed) {
			if (U.kind === "count") return count(value, signed) + (U.name ? " " + U.name : "");
			var scale = scaleFor(value, signed), text = plain(value * scale[0], signed);
			if (scale[1] && isFinite(value)) text = scale[1] === "%" ? text + "%" : text + " " + scale[1];
			return text;
		}
		return {human: human, count: count, percent: percent};
	}
	function percent(part, whole) { return whole ? (100 * part / whole).toFixed(2) + "%" : "n/a"; }

	// a matched share as the SVG's search shows it (flamegraph.js): one decimal, "100" only when all but 0.005% matched
	function matchedPercent(share) { var pct = Math.min(100, 100 * share); return pct > 99.995 ? "100" : pct.toFixed(1); }
	// a pane's "Matched: 40.8%" (empty without a search); "Matched: 40.1–41.2%" when frames the page does not
	// hold could add up to the second figure
	function matchedText(pane) {
		var share = pane.matched();
		if (share === null) return "";
		var low = matchedPercent(share), high = matchedPercent(pane.matchedUpTo === undefined ? share : pane.matchedUpTo());
		return "Matched: " + (high === low ? low : low + "\u2013" + high) + "%";
	}

	function searchField(toolbar) {
		var box = toolbar.appendChild(el("input", {id: "search", type: "search", placeholder: "Search (regex)  /", spellcheck: "false", autocomplete: "off"}));
		var label = toolbar.appendChild(el("label", {"class": "check", title: "Ignore case"}));
		var ignoreCase = label.appendChild(el("input", {id: "ignorecase", type: "checkbox"}));
		label.appendChild(document.createTextNode("Ignore case"));
		return {box: box, ignoreCase: ignoreCase, matched: toolbar.appendChild(el("span", {id: "matched"}))};
	}
	function legendBar(legend, spec) {
		var row = legend.appendChild(el("div"));
		row.appendChild(el("span", {}, spec.low));
		var stops = spec.stops.map(function (s) { return s[1] + " " + (100 * s[0]) + "%"; }).join(", ");
		row.appendChild(el("span", {"class": "bar", style: "background: linear-gradient(to right, " + stops + ")"}));
		row.appendChild(el("span", {}, spec.high));
		row.appendChild(el("span", {"class": "meaning"}, spec.meaning));
		return row;
	}
	function el(tag, attributes, text) {
		var node = document.createElement(tag);
		for (var key in attributes) node.setAttribute(key, attributes[key]);
		if (text !== undefined) node.textContent = text;
		return node;
	}
	function escapeRegex(text) { return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }
	// the one floating tooltip of the page (panes share it)
	function tooltipElement() {
		return document.getElementById("tooltip") || document.body.appendChild(el("div", {id: "tooltip"}));
	}

	// -- a pane -------------------------------------------------------------------------------------
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
	function Pane(container, data, options) {
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
		var zoom = 0, x0 = 0, x1 = total, inverted = !!options.inverted, matchName = null, matchedShare = null, matchedUpTo = null;
		var hovered = -1, hits = [], runs = [], band = {offset: 0, height: 0}, charWidth = 7, pending = false;
		var listeners = {};
		var self = {canvas: canvas, data: data, human: human, percent: percent, format: format};

		function emit(event, detail) {
			var result = true;
			(listeners[event] || []).forEach(function (callback) { if (callback(detail) === false) result = false; });
			return result;
		}
		function contentHeight() { return (maxDepth + 1) * ROW + 2; }
		function rowTop(depth) { return inverted ? depth * ROW + 1 : (maxDepth - depth) * ROW + 1; }

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
		// As the SVG emitter's fit_label: whole, without a trailing " (file:line)", cut with "..", or empty.
		function fit(name, width) {
			var chars = Math.floor((width - 6) / charWidth);
			if (chars < 3) return "";
			if (chars >= name.length) return name;
			if (trailingLocation !== null) {
				name = name.replace(trailingLocation, "");
				if (chars >= name.length) return name;
			}
			return name.substring(0, chars - 2) + "..";
		}

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
		function coveringFrame(lo, hi) {
			// the deepest frame whose span holds [lo, hi]: the zoomed frame of a wheel zoom
			var tolerance = (hi - lo) * 1e-9, found = 0, i = 0;
			for (;;) {
				var next = -1;
				for (var c = found + 1; c < endOf[found]; c = endOf[c]) {
					if (startOf[c] <= lo + tolerance && startOf[c] + valueOf[c] >= hi - tolerance) { next = c; break; }
				}
				if (next < 0) return found;
				found = next;
				if (++i > maxDepth + 1) return found;
			}
		}
		function setView(lo, hi, frame) {
			var width = hi - lo, least = total * 1e-12;
			if (width < least) { var middle = (lo + hi) / 2; lo = middle - least / 2; hi = middle + least / 2; width = least; }
			if (width >= total) { lo = 0; hi = total; }
			else if (lo < 0) { hi -= lo; lo = 0; }
			else if (hi > total) { lo -= hi - total; hi = total; }
			x0 = lo; x1 = hi;
			zoom = !n ? 0 : frame !== undefined ? frame : coveringFrame(lo, hi);
			updateMatched();
			draw();
			emit("zoom", {frame: zoom, x0: x0, x1: x1});
		}
		// a "(small)" block: its span, or a quarter of the view around the click if the block is wider
		function zoomRun(run, clientX) {
			var span = run.end - run.start, limit = (x1 - x0) / 4;
			if (span <= limit) { setView(run.start, run.end); return; }
			var rect = canvas.getBoundingClientRect(), at = x0 + (x1 - x0) * (clientX - rect.left - XPAD) / (rect.width - 2 * XPAD);
			var lo = Math.max(run.start, Math.min(run.end - limit, at - limit / 2));
			setView(lo, lo + limit);
		}
		// a frame index, or a path of names from the root's children down (the deepest frame found)
		function frameOf(target) {
			if (typeof target === "number") return target;
			var found = 0;
			for (var k = 0; k < target.length && n; k++) {
				var next = -1;
				for (var c = found + 1; c < endOf[found]; c = endOf[c]) if (names[nameOf[c]] === target[k]) { next = c; break; }
				if (next < 0) break;
				found = next;
			}
			return found;
		}
		function pathOf(i) {
			var path = [];
			for (var a = i; a > 0; a = parentOf[a]) path.unshift(names[nameOf[a]]);
			return path;
		}
		function zoomTo(target) {
			var i = frameOf(target);
			if (i <= 0) reset(); else setView(startOf[i], startOf[i] + valueOf[i], i);
		}
		function reset() { setView(0, total, 0); }
		function zoomBy(factor, at) {
			var focus = x0 + (x1 - x0) * at;
			setView(focus - (focus - x0) * factor, focus + (x1 - focus) * factor);
		}
		function pan(fraction) { var shift = (x1 - x0) * fraction; setView(x0 + shift, x1 + shift); }

		// -- search: a name pattern; the matched share of the zoomed frame, each match counted once (not again inside another)
		function search(pattern) {
			matchName = null;
			if (pattern) {
				matchName = new Uint8Array(names.length);
				for (var j = 0; j < names.length; j++) matchName[j] = pattern.test(names[j]) ? 1 : 0;
			}
			updateMatched();
			draw();
		}
		function updateMatched() {
			matchedShare = matchedUpTo = null;
			if (matchName !== null && n) {
				var sum = 0, inside = false, N = tree.narrow, missing = N && N.missing, unknown = 0;
				for (var a = zoom; a >= 0; a = parentOf[a]) if (matchName[nameOf[a]]) inside = true;
				if (inside) sum = valueOf[zoom];
				else {
					sum = narrowMatched(zoom);
					if (missing) unknown += missing[zoom];
					for (var i = zoom + 1, stop = endOf[zoom]; i < stop;) {
						if (matchName[nameOf[i]]) { sum += valueOf[i]; i = endOf[i]; continue; }
						sum += narrowMatched(i);
						if (missing) unknown += missing[i];
						i++;
					}
				}
				matchedShare = valueOf[zoom] ? sum / valueOf[zoom] : 0;
				matchedUpTo = valueOf[zoom] ? Math.min(1, (sum + unknown) / valueOf[zoom]) : 0;
			}
		}
		// the value of the left-out frames owned by laid-out frame i that match (outermost ones: a match inside one counts once)
		function narrowMatched(i) {
			var N = tree.narrow;
			if (!N) return 0;
			var sum = 0, r = N.first[i], stop = N.first[i + 1], nameAt = N.name, depthAt = N.depth;
			while (r < stop) {
				if (matchName[nameAt[r]]) {
					var depth = depthAt[r];
					sum += N.value[r];
					for (r++; r < stop && depthAt[r] > depth; r++);
				} else r++;
			}
			return sum;
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
			tooltip.textContent = "";
			var table = el("table");
			function row(label, value, cls) {
				var tr = table.appendChild(el("tr"));
				tr.appendChild(el("td", {}, label));
				tr.appendChild(el("td", cls ? {"class": cls} : {}, value));
			}
			if (hit < 0) {
				var run = runs[-hit - 1];
				tooltip.appendChild(el("div", {"class": "name"}, "(small) " + run.count + " frame" + (run.count === 1 ? "" : "s") + " narrower than a pixel"));
				row("Value", human(run.value) + " (" + percent(run.value, total) + " of total)");
				row("", "Click to zoom in on them");
			} else {
				var parent = parentOf[hit];
				tooltip.appendChild(el("div", {"class": "name"}, names[nameOf[hit]]));
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
			}
			tooltip.appendChild(table);
			tooltip.style.display = "block";
			var w = tooltip.offsetWidth, h = tooltip.offsetHeight;
			var left = clientX + 14, top = clientY + 16;
			if (left + w > window.innerWidth - 4) left = Math.max(4, clientX - w - 14);
			if (top + h > window.innerHeight - 4) top = Math.max(4, clientY - h - 12);
			tooltip.style.left = left + "px";
			tooltip.style.top = top + "px";
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
		self.matched = function () { return matchedShare; };
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
	// -- transforms: new trees from a tree, in the page or in a worker ---------------------------------
	// A tree's frames are merged by path into a trie (Builder), then laid out again as columns
	// (children in name order, or widest first: left heavy). Each frame brings its exclusive value
	// (its value less its children's: its self plus any narrow frames the layout left out), its
	// exclusive change for differential input and its exclusive second metric on a page coloured by
	// one, so a transformed tree's total, changes and ratios are exact for what it keeps (a merged
	// frame's ratio is its summed second metric over its summed value). Everything is in typed arrays:
	// a million-frame profile makes no string and no object per frame.
	// treeKit() names nothing outside itself: the page calls it, and its source text is the transform
	// worker's (TransformRunner), so the worker runs the very code the main thread would.
	function treeKit() {
		"use strict";
		// A tree of frames: columns (name, depth, start, value, self, colour, delta and second or null) in
		// depth-first order, parents first; index() adds each frame's parent and the end of its subtree.
		// `actual`: the root's value without a larger --total (the root's ratio is over it).
		function index(tree) {
			var n = tree.count, depthOf = tree.depth, parentOf = new Int32Array(n), endOf = new Uint32Array(n);
			var open = new Int32Array(n + 1), top = 0, maxDepth = 0;
			for (var i = 0; i < n; i++) {
				var d = depthOf[i];
				if (d > maxDepth) maxDepth = d;
				while (top && depthOf[open[top - 1]] >= d) endOf[open[--top]] = i;
				parentOf[i] = top ? open[top - 1] : -1;
				open[top++] = i;
			}
			while (top) endOf[open[--top]] = n;
			tree.parent = parentOf;
			tree.end = endOf;
			if (tree.maxDepth === undefined) tree.maxDepth = maxDepth;
			if (tree.total === undefined) tree.total = n ? tree.value[0] : 0;
			if (tree.actual === undefined) tree.actual = tree.total;
			return tree;
		}
		function exclusiveOf(t, column) {
			var ex = Float64Array.from(column);
			for (var i = 1; i < t.count; i++) ex[t.parent[i]] -= column[i];
			return ex;
		}
		function grown(array, size) { var bigger = new array.constructor(size); bigger.set(array); return bigger; }
		function Builder(rootName, withDelta, withSecond) {
			this.size = 1;
			this.name = new Int32Array(1024); this.parent = new Int32Array(1024); this.self = new Float64Array(1024);
			this.narrow = new Float64Array(1024);  // the value of callers too narrow to draw (inverted trees)
			this.delta = withDelta ? new Float64Array(1024) : null;  // exclusive changes, as self
			this.second = withSecond ? new Float64Array(1024) : null;  // the exclusive second metric, as self
			this.name[0] = rootName; this.parent[0] = -1;
			this.slots = null;  // open addressing: (parent, name) -> node (a Map of such keys is slow); made on first use
		}
		function slotOf(slots, parent, name, names, parents) {
			var mask = slots.length - 1, h = (Math.imul(parent + 1, 0x9E3779B1) ^ Math.imul(name + 1, 0x85EBCA77)) >>> 0;
			h = (h ^ (h >>> 15)) & mask;
			for (;;) {
				var id = slots[h];
				if (id < 0 || (parents[id] === parent && names[id] === name)) return h;
				h = (h + 1) & mask;
			}
		}
		// a new node, no questions asked (grow makes each (parent, name) once)
		Builder.prototype.add = function (p, name) {
			var id = this.size;
			if (id === this.name.length) {
				var size = 2 * id;
				this.name = grown(this.name, size); this.parent = grown(this.parent, size); this.self = grown(this.self, size);
				this.narrow = grown(this.narrow, size);
				if (this.delta) this.delta = grown(this.delta, size);
				if (this.second) this.second = grown(this.second, size);
			}
			this.name[id] = name; this.parent[id] = p; this.size = id + 1;
			return id;
		};
		// the node of `name` under node p, made if new
		Builder.prototype.child = function (p, name) {
			var k;
			if (this.slots === null || 2 * this.size > this.slots.length) {  // keep it at most half full
				var length = 1024;  // a power of two (the mask)
				while (length < 4 * this.size) length *= 2;
				var slots = new Int32Array(length).fill(-1);
				for (k = 1; k < this.size; k++) slots[slotOf(slots, this.parent[k], this.name[k], this.name, this.parent)] = k;
				this.slots = slots;
			}
			var h = slotOf(this.slots, p, name, this.name, this.parent), id = this.slots[h];
			if (id < 0) this.slots[h] = id = this.add(p, name);
			return id;
		};
		// node m takes frame i's exclusive parts (value ex, change dex, second metric sex; the last two may be null)
		Builder.prototype.take = function (m, i, ex, dex, sex) {
			this.self[m] += ex[i];
			if (dex) this.delta[m] += dex[i];
			if (sex) this.second[m] += sex[i];
		};
		// each name's place in name order (the layout's sibling order), computed once per string table
		var rankCache = {names: null, length: -1, rank: null};
		function nameRank(names) {
			if (rankCache.names !== names || rankCache.length !== names.length) {
				var order = new Int32Array(names.length), rank = new Int32Array(names.length);
				for (var k = 0; k < order.length; k++) order[k] = k;
				order.sort(function (a, b) { var x = names[a], y = names[b]; return x < y ? -1 : x > y ? 1 : a - b; });
				for (k = 0; k < order.length; k++) rank[order[k]] = k;
				rankCache = {names: names, length: names.length, rank: rank};
			}
			return rankCache.rank;
		}
		// the trie as a tree (columns in depth-first order); byValue: siblings widest first; ownDelta: each
		// frame's change of its own value (the payload's delta "self"), else of its inclusive value
		Builder.prototype.tree = function (names, byValue, ownDelta) {
			var N = this.size, parent = this.parent, nameOf = this.name, self = this.self, k;
			var value = new Float64Array(N), delta = null, second = null, rank = nameRank(names);
			for (k = 0; k < N; k++) value[k] = self[k] + this.narrow[k];  // callers too narrow to draw still count
			for (k = N - 1; k > 0; k--) value[parent[k]] += value[k];  // a child is made after its parent
			if (this.delta) {
				delta = this.delta.slice(0, N);
				if (!ownDelta) for (k = N - 1; k > 0; k--) delta[parent[k]] += delta[k];
			}
			if (this.second) {  // with its callees, as the payload's
				second = this.second.slice(0, N);
				for (k = N - 1; k > 0; k--) second[parent[k]] += second[k];
			}
			// children in name order: the nodes by name rank (a counting sort), then bucketed by parent (stable)
			var byRank = new Int32Array(names.length + 1), sorted = new Int32Array(Math.max(N - 1, 0));
			for (k = 1; k < N; k++) byRank[rank[nameOf[k]] + 1] += 1;
			for (k = 0; k < names.length; k++) byRank[k + 1] += byRank[k];
			for (k = 1; k < N; k++) sorted[byRank[rank[nameOf[k]]]++] = k;
			var first = new Int32Array(N + 1);
			for (k = 1; k < N; k++) first[parent[k] + 1] += 1;
			for (k = 0; k < N; k++) first[k + 1] += first[k];
			var fill = first.slice(0, N), kids = new Int32Array(Math.max(N - 1, 0));
			for (var s = 0; s < N - 1; s++) { var c = sorted[s]; kids[fill[parent[c]]++] = c; }
			if (byValue) {
				var widest = function (a, b) { return value[b] - value[a] || rank[nameOf[a]] - rank[nameOf[b]]; };
				for (k = 0; k < N; k++) if (first[k + 1] - first[k] > 1) kids.subarray(first[k], first[k + 1]).sort(widest);
			}
			var oName = new Uint32Array(N), oDepth = new Uint32Array(N), oStart = new Float64Array(N), oValue = new Float64Array(N);
			var oSelf = new Float64Array(N), oDelta = delta ? new Float64Array(N) : null, oSecond = second ? new Float64Array(N) : null;
			var depth = new Int32Array(N), start = new Float64Array(N), stack = new Int32Array(N), top = 0, n = 0;
			stack[top++] = 0;
			while (top) {
				var id = stack[--top];
				if (!(value[id] > 0) && id) continue;
				oName[n] = nameOf[id]; oDepth[n] = depth[id]; oStart[n] = start[id]; oValue[n] = value[id]; oSelf[n] = self[id];
				if (oDelta) oDelta[n] = delta[id];
				if (oSecond) oSecond[n] = second[id];
				n++;
				// its own value first, as the layout puts it (a stack that ends here sorts before those that go on)
				var x = start[id] + self[id];
				for (k = first[id]; k < first[id + 1]; k++) { c = kids[k]; start[c] = x; depth[c] = depth[id] + 1; x += value[c]; }
				for (k = first[id + 1] - 1; k >= first[id]; k--) stack[top++] = kids[k];
			}
			return index({count: n, name: oName.slice(0, n), depth: oDepth.slice(0, n), start: oStart.slice(0, n),
				value: oValue.slice(0, n), self: oSelf.slice(0, n), colour: new Uint32Array(n), delta: oDelta ? oDelta.slice(0, n) : null,
				second: oSecond ? oSecond.slice(0, n) : null});
		};
		// Paths read upwards (callers of a frame, then theirs...) merged into the trie I under `node`: members
		// at frames at[m] (> 0) weigh weight[m] (and change by change[m], bring second[m] of the second metric:
		// either may be null). Level by level: the members of one group (a run of `order`) are split by the
		// name they are at, each name's run moves one caller up and becomes a group under its node; a run
		// narrower than minValue stops there (its value stays in its parent's width), so a big profile's
		// inverted tree stays small. Typed arrays only, no hashing.
		function grow(I, node, at, weight, change, second, parentOf, nameOf, nameCount, minValue) {
			var count = at.length, order = new Int32Array(count), link = new Int32Array(count), seen = new Int32Array(count);
			var stamp = new Int32Array(nameCount).fill(-1), head = new Int32Array(nameCount), sum = new Float64Array(nameCount);
			var stack = new Int32Array(3 * 64), top = 0, job = 0, m, k;
			for (m = 0; m < count; m++) order[m] = m;
			if (count) { stack[0] = node; stack[1] = 0; stack[2] = count; top = 3; }
			while (top) {
				var hi = stack[--top], lo = stack[--top], parent = stack[--top], kinds = 0;
				job += 1;
				for (k = lo; k < hi; k++) {
					m = order[k];
					var name = nameOf[at[m]];
					if (stamp[name] !== job) { stamp[name] = job; head[name] = -1; sum[name] = 0; seen[kinds++] = name; }
					link[m] = head[name]; head[name] = m; sum[name] += weight[m];
				}
				var w = lo;  // the runs that go on are written back over this group's run
				for (var g = 0; g < kinds; g++) {
					var nm = seen[g];
					if (sum[nm] < minValue) {
						I.narrow[parent] += sum[nm];
						if (change || second) for (m = head[nm]; m >= 0; m = link[m]) {
							if (change) I.delta[parent] += change[m];
							if (second) I.second[parent] += second[m];
						}
						continue;
					}
					var child = I.add(parent, nm), from = w;
					for (m = head[nm]; m >= 0; m = link[m]) {
						var up = parentOf[at[m]];
						if (up > 0) { at[m] = up; order[w++] = m; } else {
							I.self[child] += weight[m];
							if (change) I.delta[child] += change[m];
							if (second) I.second[child] += second[m];
						}
					}
					if (w > from) {
						if (top + 3 > stack.length) stack = grown(stack, 2 * stack.length);
						stack[top++] = child; stack[top++] = from; stack[top++] = w;
					}
				}
			}
		}
		// Colours of a transformed tree: for differential input (change: the payload's change scale) by each
		// frame's change, as palettes.py's diff_colour on the payload's ramp; else by name, each name the
		// colour of its first frame in `t` (a merged box is not the colour of whichever frame came first).
		// (A page coloured by a second metric colours boxes from the tree's `second` column instead.)
		function paint(out, t, change) {
			var k, colour = out.colour;
			if (out.delta && change) {
				var L = change.largest, S = (change.ramp.length - 1) / 2, fixed = change.fixed || {};
				for (k = 0; k < out.count; k++) {
					var f = fixed[out.name[k]];
					if (f !== undefined && k) { colour[k] = f; continue; }
					var d = Math.max(-L, Math.min(out.delta[k], L));
					colour[k] = change.ramp[d > 0 ? 2 * S - Math.trunc(S * (L - d) / L) : d < 0 ? Math.trunc(S * (L + d) / L) : S];
				}
				return out;
			}
			var most = 0;
			for (k = 0; k < t.count; k++) if (t.name[k] > most) most = t.name[k];
			for (k = 0; k < out.count; k++) if (out.name[k] > most) most = out.name[k];
			var byName = new Int32Array(most + 1).fill(-1);
			for (k = t.count - 1; k >= 0; k--) byName[t.name[k]] = t.colour[k];
			var fallback = t.count ? t.colour[0] : 0;
			for (k = 0; k < out.count; k++) colour[k] = byName[out.name[k]] >= 0 ? byName[out.name[k]] : fallback;
			return out;
		}
		// spec: only (a frame: keep its subtree and its ancestors), drop / merge (Uint8Array over names: frames
		// left out with their callees / left out, their callees moved to their caller), focus (Uint8Array over
		// names: the root becomes spec.root, every outermost frame of those names merged into it), recursion
		// (a frame called by a frame of its own name merges into it), invert (leaves become roots), byValue,
		// minValue (an inverted tree's narrowest frame), change (the payload's change scale: differential
		// colours), ownDelta (the tree's deltas are each frame's own change: the payload's delta "self").
		function transform(t, names, spec) {
			var n = t.count, nameOf = t.name, parentOf = t.parent, endOf = t.end, deltaOf = t.delta;
			var ex = exclusiveOf(t, t.value), dex = deltaOf ? (spec.ownDelta ? deltaOf : exclusiveOf(t, deltaOf)) : null;
			var sex = t.second ? exclusiveOf(t, t.second) : null;
			var OUT = -2, DROP = -1, only = spec.only >= 0 ? spec.only : -1;
			var B = new Builder(spec.focus ? spec.root : nameOf[0], !!deltaOf, !!sex);
			// only merging frames (merge, recursion, focus) can meet a path twice: else no hashing
			var mapped = new Int32Array(n), merging = !!(spec.merge || spec.recursion || spec.focus);
			mapped[0] = spec.focus ? OUT : 0;
			// the root's own value (with a larger --total's padding) stays when the root does
			var rootKept = mapped[0] === 0 && !(only > 0);
			if (rootKept) B.take(0, 0, ex, dex, sex);
			for (var i = 1; i < n;) {
				if (only > 0 && !(i <= only ? i === only || endOf[i] > only : i < endOf[only])) { i = endOf[i]; continue; }
				var name = nameOf[i], pm = mapped[parentOf[i]], m;
				if (pm === DROP || (spec.drop && spec.drop[name])) { i = endOf[i]; continue; }
				if (pm === OUT) m = spec.focus[name] ? 0 : OUT;
				else if (spec.merge && spec.merge[name] && pm >= 0) m = pm;
				else if (spec.recursion && pm > 0 && B.name[pm] === name) m = pm;
				else m = merging ? B.child(pm, name) : B.add(pm, name);
				mapped[i] = m;
				if (m >= 0 && (only <= 0 || i >= only)) B.take(m, i, ex, dex, sex);
				i++;
			}
			if (spec.invert) {
				var I = new Builder(B.name[0], !!dex, !!sex), kept = 0, k;
				var member = function (k) { return B.self[k] > 0 || (dex && B.delta[k]) || (sex && B.second[k]); };
				for (k = 1; k < B.size; k++) if (member(k)) kept++;
				var at = new Int32Array(kept), weight = new Float64Array(kept);
				var change = dex ? new Float64Array(kept) : null, second = sex ? new Float64Array(kept) : null;
				for (kept = 0, k = 1; k < B.size; k++) if (member(k)) {
					at[kept] = k; weight[kept] = B.self[k];
					if (change) change[kept] = B.delta[k];
					if (second) second[kept] = B.second[k];
					kept++;
				}
				I.take(0, 0, B.self, B.delta, B.second);
				grow(I, 0, at, weight, change, second, B.parent, B.name, names.length, spec.minValue || 0);
				B = I;
			}
			var out = paint(B.tree(names, !!spec.byValue, !!spec.ownDelta), t, spec.change);
			out.actual = out.total - (rootKept ? t.total - t.actual : 0);
			return out;
		}
		// the callers of the frames whose names `match` (outermost ones): a tree rooted at `root`, each path
		// of callers above it innermost first, as wide as the calls it made (and with their second metric)
		function callers(t, names, match, root, rootColour, minValue) {
			var B = new Builder(root, false, !!t.second), nameOf = t.name, parentOf = t.parent, endOf = t.end;
			var at = [], weight = [], second = [], colour = -1;
			for (var i = 1; i < t.count;) {
				if (!match[nameOf[i]]) { i++; continue; }
				if (colour < 0) colour = t.colour[i];  // the function's own colour
				if (parentOf[i] > 0) {
					at.push(parentOf[i]); weight.push(t.value[i]);
					if (t.second) second.push(t.second[i]);
				} else B.take(0, i, t.value, null, t.second);
				i = endOf[i];
			}
			grow(B, 0, Int32Array.from(at), Float64Array.from(weight), null, t.second ? Float64Array.from(second) : null,
				parentOf, nameOf, names.length, minValue || 0);
			var out = paint(B.tree(names, false, false), t, null);
			if (out.count) out.colour[0] = colour >= 0 ? colour : rootColour;
			return out;
		}
		// per name, or per group (groupOf: an Int32Array from name to group, null: each name its own; names
		// past its end are their own): self and inclusive (outermost frames only) of a tree, rows in the order
		// the tree first meets them
		function functionCosts(t, groupOf) {
			var n = t.count, nameOf = t.name, endOf = t.end, most = 0, count = 0, i, g;
			function group(k) { return groupOf !== null && k < groupOf.length ? groupOf[k] : k; }
			for (i = 1; i < n; i++) if ((g = group(nameOf[i])) > most) most = g;
			var rowOf = new Int32Array(most + 1).fill(-1), active = new Int32Array(most + 1);
			var rowName = new Int32Array(most + 1), self = new Float64Array(most + 1), inclusive = new Float64Array(most + 1);
			var openFrame = new Int32Array(t.maxDepth + 2), openGroup = new Int32Array(t.maxDepth + 2), top = 0;
			for (i = 1; i < n; i++) {  // the root is no function
				while (top && endOf[openFrame[top - 1]] <= i) active[openGroup[--top]] -= 1;
				g = group(nameOf[i]);
				var row = rowOf[g];
				if (row < 0) { row = rowOf[g] = count++; rowName[row] = g; }
				self[row] += t.self[i];
				if (!active[g]) inclusive[row] += t.value[i];
				active[g] += 1;
				openFrame[top] = i; openGroup[top++] = g;
			}
			return {count: count, name: rowName.slice(0, count), self: self.slice(0, count), inclusive: inclusive.slice(0, count)};
		}
		return {index: index, transform: transform, callers: callers, functionCosts: functionCosts};
	}
	var kit = treeKit(), index = kit.index;

	// The transform worker's code (its source text, with treeKit's, is the worker's script): it keeps the
	// page's tree and string table, and answers each job with the transformed tree and its tables of
	// functions, their arrays transferred, not copied.
	function transformWorker(kit, scope) {
		var base = null, names = null;
		scope.onmessage = function (event) {
			var job = event.data;
			if (job.type === "base") { base = job.tree; names = job.names; return; }
			try {
				for (var k = 0; k < job.names.length; k++) names.push(job.names[k]);  // names the page added since
				var began = performance.now(), tree = kit.transform(base, names, job.spec), tables = {}, buffers = [];
				job.groups.forEach(function (g) { tables[g.key] = kit.functionCosts(tree, g.map); });
				[tree].concat(Object.keys(tables).map(function (key) { return tables[key]; })).forEach(function (columns) {
					for (var key in columns) {
						var v = columns[key];
						if (ArrayBuffer.isView(v) && buffers.indexOf(v.buffer) < 0) buffers.push(v.buffer);
					}
				});
				scope.postMessage({id: job.id, tree: tree, tables: tables, ms: performance.now() - began}, buffers);
			} catch (error) {
				scope.postMessage({id: job.id, error: String(error && error.stack || error)});
			}
		};
	}

	// TransformRunner(base, names): runs transforms of the page's tree `base` (run(spec, groups, done):
	// done(tree, tables, where) with the tables of functions for each of `groups`, [{key, map}] as
	// functionCosts' groupOf). In a worker made from a Blob URL of this script's own transform code (the page
	// stays one file that asks for nothing) when the tree has at least WORKER_FRAMES frames: the page stays
	// responsive meanwhile. The worker gets the tree once (a copy: the page keeps its own) and each job the
	// names added since; a job started while another runs ends that worker (a transform cannot be
	// interrupted), so the newest one wins. Where workers are unavailable or fail, on the main thread.
	var WORKER_FRAMES = 20000;
	var workerSource = null;
	function TransformRunner(base, names) {
		var mode = "auto", worker = null, sent = 0, pending = null, jobs = 0;
		var usable = typeof Worker !== "undefined" && typeof Blob !== "undefined" && typeof URL !== "undefined" && !!URL.createObjectURL;
		function onMainThread(spec, groups) {
			var tree = kit.transform(base, names, spec), tables = {};
			groups.forEach(function (g) { tables[g.key] = kit.functionCosts(tree, g.map); });
			return {tree: tree, tables: tables};
		}
		function stop() {
			if (worker) { worker.terminate(); worker = null; }
		}
		function fallBack() {  // the worker failed: this job and the next ones on the main thread
			usable = false;
			stop();
			var job = pending;
			pending = null;
			if (job) { var out = onMainThread(job.spec, job.groups); job.done(out.tree, out.tables, "main"); }
		}
		function start() {
			if (workerSource === null) {
				workerSource = URL.createObjectURL(new Blob(['"use strict";(' + transformWorker.toString() + ")((" + treeKit.toString() + ")(), self);\n"],
					{type: "text/javascript"}));
			}
			worker = new Worker(workerSource);
			worker.onmessage = function (event) {
				var answer = event.data, job = pending;
				if (!job || answer.id !== job.id) return;  // a job since cancelled
				if (answer.error) { fallBack(); return; }
				pending = null;
				job.done(answer.tree, answer.tables, "worker");
			};
			worker.onerror = function (event) { event.preventDefault(); fallBack(); };
			worker.onmessageerror = fallBack;
			var columns = {};
			["count", "name", "depth", "start", "value", "self", "colour", "delta", "second", "parent", "end", "total", "maxDepth", "actual"]
				.forEach(function (key) { columns[key] = base[key]; });
			worker.postMessage({type: "base", tree: columns, names: names});
			sent = names.length;
		}
		function cancel() {
			if (pending) { pending = null; stop(); }
		}
		function run(spec, groups, done) {
			cancel();
			var id = ++jobs;
			if (!usable || mode === "main" || (mode === "auto" && base.count < WORKER_FRAMES)) {
				var out = onMainThread(spec, groups);
				done(out.tree, out.tables, "main");
				return;
			}
			try {
				if (!worker) start();
				pending = {id: id, spec: spec, groups: groups, done: done};
				worker.postMessage({type: "job", id: id, spec: spec, groups: groups, names: names.slice(sent)});
				sent = names.length;
			} catch (error) {
				pending = {id: id, spec: spec, groups: groups, done: done};
				fallBack();
			}
		}
		return {
			run: run, cancel: cancel,
			busy: function () { return pending !== null; },
			// "auto" (a worker from WORKER_FRAMES frames), "worker" or "main": where the next transforms run
			setMode: function (m) { mode = m; },
		};
	}

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
	Pane.WORKER_FRAMES = WORKER_FRAMES;  // from this many frames the viewer transforms in a worker
	window.FlamespacePane = Pane;


	// -- a minimap: the whole graph in a strip, the view's window on it; drag the window to pan -------------
	function Minimap(canvas, pane, onDrop) {
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

	// -- the single-profile page ----------------------------------------------------------------------
	function main(data) {
		if (data.version !== 1) throw new Error("flamespace viewer: unknown payload version " + data.version);
		var api = {ready: false, draws: 0};
		window.flamespaceViewer = api;
		var names = data.names, human = formatter(data.units).human, base = decode(data), total = data.total;
		// an inverted tree or a callers' tree stops at frames narrower than this (render/html.py says why)
		var minValue = total * (data.transform_min_percent || 0) / 100, nameIndexes = null;
		function nameIndex(text) {  // a name's index in the string table, added if new (group names, sandwich roots)
			if (nameIndexes === null) { nameIndexes = new Map(); names.forEach(function (name, k) { nameIndexes.set(name, k); }); }
			var k = nameIndexes.get(text);
			if (k === undefined) { k = names.length; names.push(text); nameIndexes.set(text, k); }
			return k;
		}
		function matcher(pattern) {
			var match = new Uint8Array(names.length + 64);
			for (var j = 0; j < names.length; j++) match[j] = pattern.test(names[j]) ? 1 : 0;
			return match;
		}
		function compile(text, flags) { try { return text ? new RegExp(text, flags || "") : null; } catch (e) { return undefined; } }

		// -- the header: it stays in view -----------------------------------------------------------------
		var header = el("header");
		header.appendChild(el("h1", {id: "title"}, data.title));
		header.appendChild(el("div", {id: "subtitle"}, data.subtitle || ""));
		var toolbar = header.appendChild(el("div", {"class": "toolbar"}));
		var resetButton = toolbar.appendChild(el("button", {id: "reset", title: "Show the whole graph (Esc)"}, "Reset zoom"));
		var shape = toolbar.appendChild(el("span", {"class": "segmented"}));
		var flameButton = shape.appendChild(el("button", {id: "flame", title: "Root at the bottom"}, "Flame"));
		var icicleButton = shape.appendChild(el("button", {id: "icicle", title: "Root at the top"}, "Icicle"));
		var views = toolbar.appendChild(el("span", {"class": "segmented"}));
		var graphButton = views.appendChild(el("button", {id: "view-graph", title: "The flame graph"}, "Graph"));
		var sandwichButton = views.appendChild(el("button", {id: "view-sandwich", title: "Callers and callees of one function: pick it in the table or from a frame's menu (right click)"}, "Sandwich"));
		toolbar.appendChild(el("span", {id: "hint", title: "Click a frame to zoom in (again: out); Ctrl+wheel zooms, Shift+wheel pans; \u2190 \u2192 + \u2212 \u2191; / searches; Esc resets the zoom, then the search"},
			"Click: zoom \u00b7 right click: more \u00b7 Esc: reset"));
		toolbar.appendChild(el("span", {"class": "grow"}));
		var searchUi = Pane.searchField(toolbar), searchBox = searchUi.box, caseBox = searchUi.ignoreCase, matchedText = searchUi.matched;
		// transforms: recomputed in the page from the payload's frames
		var tools = header.appendChild(el("div", {"class": "toolbar", id: "transforms"}));
		var threadSelect = null;
		if (data.roots && data.roots.length && base.count) {
			threadSelect = tools.appendChild(el("select", {id: "thread", title: "Show one " + data.roots.join(" or ")}));
			var plural = {process: "processes", thread: "threads"};
			threadSelect.appendChild(el("option", {value: "-1"}, "All " + data.roots.map(function (r) { return plural[r] || r + "s"; }).join(" and ")));
			for (var i = 1; i < base.count; i++) {
				var depth = base.depth[i];
				if (depth > data.roots.length) continue;
				threadSelect.appendChild(el("option", {value: String(i)}, "\u2003".repeat(depth - 1) + data.roots[depth - 1] + ": " +
					names[base.name[i]] + " \u2014 " + human(base.value[i]) + " (" + percent(base.value[i], total) + ")"));
			}
		}
		function check(id, label, title) {
			var wrap = tools.appendChild(el("label", {"class": "check", title: title}));
			var box = wrap.appendChild(el("input", {id: id, type: "checkbox"}));
			wrap.appendChild(document.createTextNode(label));
			return box;
		}
		var leftHeavyBox = check("left-heavy", "Left heavy", "Siblings widest first (else by name)");
		var invertBox = check("invert", "Invert", "Leaves become roots: who spends time, then who called them");
		var recursionBox = check("recursion", "Collapse recursion", "A function called by itself merges into its caller");
		var PRESETS = [["", "presets"], ["\\(<stdlib>/|\\(<frozen |^<frozen ", "standard library"], ["\\(site-packages/", "site-packages"],
			["\\(<stdlib>/|\\(<frozen |^<frozen |\\(site-packages/", "both"]];
		function regexField(id, label, title) {
			tools.appendChild(el("span", {"class": "label"}, label));
			var input = tools.appendChild(el("input", {id: id, type: "text", "class": "regex", placeholder: "regex", title: title, spellcheck: "false", autocomplete: "off"}));
			var presets = tools.appendChild(el("select", {id: id + "-preset", title: "Fill in a regex"}));
			PRESETS.forEach(function (p) { presets.appendChild(el("option", {value: p[0]}, p[1])); });
			presets.addEventListener("change", function () { if (presets.value) { input.value = presets.value; apply(); } presets.value = ""; });
			return input;
		}
		var mergeBox = regexField("merge", "Merge", "Frames matching this leave the graph; their callees move to their caller");
		var hideBox = regexField("hide", "Hide", "Frames matching this leave the graph with all their callees (the total shrinks)");
		var focusChip = tools.appendChild(el("span", {id: "focus", "class": "chip"}));
		var workingText = tools.appendChild(el("span", {id: "working", role: "status"}));
		var clearButton = tools.appendChild(el("button", {id: "clear-transforms", title: "Undo every transform"}, "Clear"));
		var minimapCanvas = header.appendChild(el("canvas", {id: "minimap", title: "The whole graph: drag the window to pan"}));
		var crumbs = header.appendChild(el("div", {id: "crumbs"}));
		document.body.appendChild(header);
		var legend = document.body.appendChild(el("div", {id: "legend"}));
		if (data.legend) drawLegend(data.legend);
		var graph = document.body.appendChild(el("div", {id: "graph"}));
		tooltipElement();
		function headerHeight() { return header.getBoundingClientRect().height; }
		var pane = Pane(graph, data, {id: "canvas", inverted: !!data.inverted, top: headerHeight, draw: false, tree: base});
		var runner = TransformRunner(base, names);
		var searchTerm = "", picked = -1, tableFilter = null, view = "graph";
		var focus = null;  // {text, group}: the function all of whose calls are the root
		var sandwich = null, sandwichPanes = null;  // {text, group}; the callers' and callees' panes
		var minimap = Minimap(minimapCanvas, pane, function () { remember(); });

		function drawLegend(spec) {
			if (spec.items) {  // a palette's key: what each colour family means
				var row = legend.appendChild(el("div", {"class": "key"}));
				spec.items.forEach(function (item) {
					var entry = row.appendChild(el("span", {"class": "entry"}));
					entry.appendChild(el("span", {"class": "swatch", style: "background: " + item[1]}));
					entry.appendChild(document.createTextNode(item[0]));
				});
			} else {
				legendBar(legend, spec);
			}
			legend.appendChild(el("div", {"class": "note"}, spec.note));
		}

		// -- zoom: the breadcrumbs and what is shown ------------------------------------------------------
		function crumbsOf() {
			var v = pane.view(), zoom = v.frame, tree = pane.tree();
			crumbs.textContent = "";
			var chain = [];
			if (tree.count) for (var a = zoom; a >= 0; a = tree.parent[a]) chain.unshift(a);
			chain.forEach(function (j, position) {
				var name = names[tree.name[j]];
				if (position) crumbs.appendChild(el("span", {"class": "sep"}, "\u203a"));
				if (j === zoom) {
					crumbs.appendChild(el("span", {"class": "here"}, name));
				} else {
					var link = crumbs.appendChild(el("a", {"data-frame": String(j), title: "Zoom to " + name}, name));
					link.addEventListener("click", function () { pane.zoomTo(j); });
				}
			});
			var shown = v.x1 - v.x0;
			crumbs.appendChild(el("span", {"class": "amount"}, human(shown) + " \u00b7 " + (v.total !== total || transformsActive() ?
				percent(shown, v.total) + " of the transformed graph, " + percent(shown, total) + " of the total" : percent(shown, total) + " of the total")));
			resetButton.disabled = zoom === 0 && v.x0 === 0 && v.x1 === v.total;
		}
		pane.on("zoom", function () { crumbsOf(); updateMatched(); minimap.render(); if (!minimap.dragging()) remember(); });
		pane.on("draw", function (detail) { api.lastDraw = detail.ms; api.draws += 1; });

		// -- search -------------------------------------------------------------------------------------
		function panes() { return view === "sandwich" && sandwichPanes ? [pane, sandwichPanes[0], sandwichPanes[1]] : [pane]; }
		function search(term, keepTable) {
			searchTerm = term;
			if (!keepTable) picked = -1;
			searchBox.classList.remove("bad");
			var pattern = compile(term, caseBox.checked ? "i" : "");
			if (pattern === undefined) { searchBox.classList.add("bad"); pattern = null; }
			panes().forEach(function (p) { p.search(pattern); });
			updateMatched();
			tableFilter = picked < 0 ? pane.matches() : null;
			fillTable();
			remember();
		}
		function updateMatched() {
			var share = pane.matched();
			matchedText.textContent = Pane.matchedText(pane);
			matchedText.title = share !== null && pane.matchedUpTo() !== share ? "The page holds the widest of the frames too narrow " +
				"to draw, not all: the others could add up to the second figure" : "";
			matchedText.className = share ? "some" : "";
		}

		// -- transforms ------------------------------------------------------------------------------------
		// a function as the table names it: by line, the name itself; by function, "f (app.py)" stands for
		// "f (app.py)" and "f (app.py:N)" (and "file.c" for "file.c:N"), as flamespace.core.ranking groups them
		function termFor(text, group) {
			if (group !== "function") return "^" + escapeRegex(text) + "$";
			if (text.slice(-1) === ")") return "^" + escapeRegex(text.slice(0, -1)) + "(:\\d+)?\\)$";
			return "^" + escapeRegex(text) + "(:\\d+)?$";
		}
		function transformsActive() {
			return !!(leftHeavyBox.checked || invertBox.checked || recursionBox.checked || mergeBox.value || hideBox.value || focus ||
				(threadSelect && threadSelect.value !== "-1"));
		}
		// Recomputes the drawn tree from the controls (in a worker on a big page: TransformRunner), then `done`.
		// waiting: the callbacks of applies not shown yet (one cancelled by a newer apply is done when that one is)
		var shows = 0, tablePending = false, waiting = [];
		function apply(done) {
			if (done) waiting.push(done);
			var spec = {byValue: leftHeavyBox.checked, invert: invertBox.checked, recursion: recursionBox.checked,
				only: threadSelect ? parseInt(threadSelect.value, 10) : -1, minValue: minValue, change: data.change,
				ownDelta: data.delta === "self"};
			[[mergeBox, "merge"], [hideBox, "drop"]].forEach(function (field) {
				var pattern = compile(field[0].value);
				field[0].classList.toggle("bad", pattern === undefined);
				if (pattern) spec[field[1]] = matcher(pattern);
			});
			if (focus) { spec.focus = matcher(new RegExp(termFor(focus.text, focus.group))); spec.root = nameIndex(focus.text); }
			focusChip.textContent = "";
			focusChip.style.display = focus ? "" : "none";
			if (focus) {
				focusChip.appendChild(document.createTextNode("Focus: " + focus.text + " "));
				var close = focusChip.appendChild(el("button", {id: "unfocus", title: "Show every function again"}, "\u00d7"));
				close.addEventListener("click", function () { focus = null; apply(); });
			}
			var active = transformsActive(), began = performance.now();
			clearButton.disabled = !active;
			// the new tree drawn; from a worker, the table in a task of its own (the page's longest task halved)
			function show(tree, computed, where) {
				var token = ++shows;
				working(false);
				pane.setTree(tree);
				tables = computed || {};
				for (var key in tables) tables[key].computed = true;
				tablePending = where === "worker";
				if (tablePending) setTimeout(rest, 0); else rest();
				function rest() {
					if (token !== shows) return;  // another tree is shown since
					tablePending = false;
					fn = tableOf(grouping);
					tableFilter = picked < 0 ? pane.matches() : null;
					fillTable();
					if (view === "sandwich" && sandwich) showSandwich(sandwich);
					remember();
					api.transforms += 1;
					api.lastTransform = {where: where, ms: performance.now() - began};
					var callbacks = waiting;
					waiting = [];
					callbacks.forEach(function (callback) { callback(); });
				}
			}
			if (!active) { runner.cancel(); show(base, null, "none"); return; }
			working(true);
			var groups = [{key: "line", map: null}];
			if (hasFunctions) groups.push({key: "function", map: groupsOf("function")});
			runner.run(spec, groups, show);
		}
		// "Working…" while a transform runs in the worker (the graph shows the tree before it, dimmed)
		function working(on) {
			document.body.classList.toggle("transforming", on);
			workingText.textContent = on ? "Working\u2026" : "";
		}
		[leftHeavyBox, invertBox, recursionBox].forEach(function (box) { box.addEventListener("change", function () { apply(); }); });
		[mergeBox, hideBox].forEach(function (box) { box.addEventListener("input", function () { apply(); }); });
		if (threadSelect) threadSelect.addEventListener("change", function () { apply(); });
		clearButton.addEventListener("click", function () {
			leftHeavyBox.checked = invertBox.checked = recursionBox.checked = false;
			mergeBox.value = hideBox.value = "";
			if (threadSelect) threadSelect.value = "-1";
			focus = null;
			apply();
		});
		function focusOn(text, group) { focus = {text: text, group: group}; setView("graph"); apply(); }

		// -- sandwich: the callers of one function above it, its callees below ---------------------------------
		var sandwichSection = document.body.appendChild(el("section", {id: "sandwich"}));
		var sandwichHeading = sandwichSection.appendChild(el("h2"));
		var callersBox = sandwichSection.appendChild(el("div", {"class": "scroll", id: "callers-box"}));
		callersBox.appendChild(el("div", {"class": "caption"}, "Callers (the function at the bottom, who called it above)"));
		var callersGraph = callersBox.appendChild(el("div", {id: "callers"}));
		var calleesBox = sandwichSection.appendChild(el("div", {"class": "scroll", id: "callees-box"}));
		calleesBox.appendChild(el("div", {"class": "caption"}, "Callees (the function at the top, what it called below)"));
		var calleesGraph = calleesBox.appendChild(el("div", {id: "callees"}));
		sandwichSection.style.display = "none";
		function showSandwich(which) {
			sandwich = which;
			var tree = pane.tree(), match = matcher(new RegExp(termFor(which.text, which.group))), root = nameIndex(which.text);
			var up = kit.callers(tree, names, match, root, tree.colour[0], minValue), down = kit.transform(tree, names, {focus: match, root: root, change: data.change, ownDelta: data.delta === "self"});
			if (!sandwichPanes) {
				var common = {margin: 0, minHeight: 3 * ROW, top: function () { return 0; }};
				sandwichPanes = [
					Pane(callersGraph, data, Object.assign({id: "callers-canvas", tree: up, scroller: callersBox, draw: false}, common)),
					Pane(calleesGraph, data, Object.assign({id: "callees-canvas", tree: down, inverted: true, scroller: calleesBox, draw: false}, common)),
				];
				sandwichPanes.forEach(function (p) { p.on("context", contextMenu(p)); });
			} else {
				sandwichPanes[0].setTree(up);
				sandwichPanes[1].setTree(down);
			}
			sandwichHeading.textContent = "";
			sandwichHeading.appendChild(el("span", {"class": "name"}, which.text));
			sandwichHeading.appendChild(el("span", {"class": "note"}, human(down.total) + " \u00b7 " + percent(down.total, total) +
				" of the total, in all its calls" + (which.group === "function" ? " (all its lines)" : "")));
			var back = sandwichHeading.appendChild(el("button", {id: "close-sandwich", title: "Back to the graph (Esc)"}, "Back to the graph"));
			back.addEventListener("click", function () { setView("graph"); });
			setView("sandwich");
			var pattern = compile(searchTerm, caseBox.checked ? "i" : "");
			sandwichPanes.forEach(function (p) { p.search(pattern || null); p.draw(); });
			callersBox.scrollTop = callersBox.scrollHeight;  // the function, at the callers' bottom, next to its callees
			sandwichPanes[0].draw();
		}
		function setView(which) {
			view = which === "sandwich" && sandwich ? "sandwich" : "graph";
			graphButton.classList.toggle("on", view === "graph");
			sandwichButton.classList.toggle("on", view === "sandwich");
			sandwichButton.disabled = !sandwich;
			sandwichSection.style.display = view === "sandwich" ? "" : "none";
			graph.style.display = view === "graph" && base.count ? "" : "none";
			minimapCanvas.style.display = view === "graph" && base.count ? "" : "none";
			crumbs.style.visibility = view === "graph" ? "" : "hidden";
			if (view === "graph") { pane.draw(); minimap.render(); }
			remember();
		}
		graphButton.addEventListener("click", function () { setView("graph"); });
		sandwichButton.addEventListener("click", function () { if (sandwich) showSandwich(sandwich); });

		// -- a frame's menu (right click) -------------------------------------------------------------------
		var menu = document.body.appendChild(el("div", {id: "menu"}));
		function closeMenu() { menu.style.display = "none"; }
		function contextMenu(owner) {
			return function (detail) {
				var text = names[owner.tree().name[detail.frame]], e = detail.event;
				menu.textContent = "";
				menu.appendChild(el("div", {"class": "title"}, text));
				var items = [];
				if (owner === pane) items.push(["zoom", "Zoom to this frame", function () { pane.zoomTo(detail.frame); }]);
				items.push(["sandwich", "Callers and callees (sandwich)", function () { showSandwich({text: text, group: "line"}); }]);
				items.push(["focus", "Focus on it: all its calls as the root", function () { focusOn(text, "line"); }]);
				items.push(["merge", "Merge it (keep its callees)", function () { addRegex(mergeBox, text); }]);
				items.push(["hide", "Hide it and its callees", function () { addRegex(hideBox, text); }]);
				items.push(["highlight", "Highlight it", function () { searchBox.value = termFor(text, "line"); caseBox.checked = false; search(searchBox.value); }]);
				items.forEach(function (item) {
					var button = menu.appendChild(el("button", {"data-action": item[0]}, item[1]));
					button.addEventListener("click", function () { closeMenu(); item[2](); });
				});
				menu.style.display = "block";
				var w = menu.offsetWidth, h = menu.offsetHeight;
				menu.style.left = Math.max(4, Math.min(e.clientX, window.innerWidth - w - 4)) + "px";
				menu.style.top = Math.max(4, Math.min(e.clientY, window.innerHeight - h - 4)) + "px";
			};
		}
		function addRegex(input, text) {
			var term = termFor(text, "line");
			input.value = input.value ? input.value + "|" + term : term;
			setView("graph");
			apply();
		}
		pane.on("context", contextMenu(pane));
		document.addEventListener("mousedown", function (e) { if (!menu.contains(e.target)) closeMenu(); });

		// -- keys ----------------------------------------------------------------------------------------
		document.addEventListener("keydown", function (e) {
			if (e.target === searchBox) {
				if (e.key === "Escape") { searchBox.value = ""; search(""); searchBox.blur(); }
				return;
			}
			if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") {
				if (e.key === "Escape") e.target.blur();
				return;
			}
			if ((e.ctrlKey || e.metaKey) && e.key === "f" || e.key === "/" || e.key === "F3") {
				e.preventDefault(); searchBox.focus(); searchBox.select(); return;
			}
			if (e.ctrlKey || e.metaKey || e.altKey) return;
			if (e.key === "Escape") escape();
			else if (view !== "graph") return;
			else if (e.key === "+" || e.key === "=") pane.zoomBy(0.5, 0.5);
			else if (e.key === "-" || e.key === "_") pane.zoomBy(2, 0.5);
			else if (e.key === "ArrowLeft") pane.pan(-0.1);
			else if (e.key === "ArrowRight") pane.pan(0.1);
			else if (e.key === "ArrowUp" || e.key === "Backspace") pane.up();
			else return;
			e.preventDefault();
		});
		// Esc: close the menu, else reset the zoom, else leave the sandwich, else clear the search
		function escape() {
			if (menu.style.display === "block") { closeMenu(); return; }
			var shown = view === "sandwich" ? sandwichPanes : [pane];
			var zoomed = shown.filter(function (p) { var v = p.view(); return v.frame || v.x0 || v.x1 !== v.total; });
			if (zoomed.length) zoomed.forEach(function (p) { p.reset(); });
			else if (view === "sandwich") setView("graph");
			else if (searchTerm) { searchBox.value = ""; search(""); }
		}
		searchBox.addEventListener("input", function () { search(searchBox.value); });
		caseBox.addEventListener("change", function () { search(searchBox.value); });
		resetButton.addEventListener("click", function () { pane.reset(); });
		function setShape(icicle) {
			flameButton.classList.toggle("on", !icicle);
			icicleButton.classList.toggle("on", icicle);
			pane.setShape(icicle);
			minimap.render();
			remember();
		}
		flameButton.addEventListener("click", function () { setShape(false); });
		icicleButton.addEventListener("click", function () { setShape(true); });

		// -- the view in the URL's fragment (#z=FRAME or #x=FROM,TO; s=TERM; ic; icicle/flame; transforms;
		// sandwich): kept on reload and in links
		var restoring = true;
		function remember() {
			if (restoring) return;
			var parts = [], v = pane.view(), tree = pane.tree(), zoom = v.frame;
			if (zoom && v.x0 === tree.start[zoom] && v.x1 === tree.start[zoom] + tree.value[zoom]) parts.push("z=" + zoom);
			else if (v.x0 !== 0 || v.x1 !== v.total) parts.push("x=" + v.x0 + "," + v.x1);
			if (searchTerm) parts.push("s=" + encodeURIComponent(searchTerm));
			if (caseBox.checked) parts.push("ic");
			if (pane.inverted() !== !!data.inverted) parts.push(pane.inverted() ? "icicle" : "flame");
			if (leftHeavyBox.checked) parts.push("lh");
			if (invertBox.checked) parts.push("inv");
			if (recursionBox.checked) parts.push("rec");
			if (mergeBox.value) parts.push("merge=" + encodeURIComponent(mergeBox.value));
			if (hideBox.value) parts.push("hide=" + encodeURIComponent(hideBox.value));
			if (threadSelect && threadSelect.value !== "-1") parts.push("only=" + threadSelect.value);
			if (focus) parts.push((focus.group === "function" ? "focusf=" : "focus=") + encodeURIComponent(focus.text));
			if (view === "sandwich") parts.push((sandwich.group === "function" ? "swf=" : "sw=") + encodeURIComponent(sandwich.text));
			var hash = parts.length ? "#" + parts.join("&") : "";
			if (hash !== window.location.hash && !(hash === "" && window.location.hash === "#")) {
				history.replaceState(null, "", window.location.pathname + window.location.search + hash);
			}
		}
		function restore(done) {
			var state = {};
			window.location.hash.replace(/^#/, "").split("&").forEach(function (part) {
				var at = part.indexOf("=");
				if (part) state[at < 0 ? part : part.slice(0, at)] = at < 0 ? "" : decodeURIComponent(part.slice(at + 1));
			});
			if ("icicle" in state) setShape(true);
			if ("flame" in state) setShape(false);
			if ("ic" in state) caseBox.checked = true;
			leftHeavyBox.checked = "lh" in state;
			invertBox.checked = "inv" in state;
			recursionBox.checked = "rec" in state;
			mergeBox.value = state.merge || "";
			hideBox.value = state.hide || "";
			if (threadSelect && state.only && threadSelect.querySelector("option[value='" + parseInt(state.only, 10) + "']")) threadSelect.value = String(parseInt(state.only, 10));
			if (state.focus || state.focusf) focus = {text: state.focus || state.focusf, group: state.focusf ? "function" : "line"};
			if (transformsActive()) apply(rest); else rest();
			function rest() {  // once the transformed tree is drawn
				if (state.s) { searchBox.value = state.s; search(state.s); }
				var frame = parseInt(state.z, 10);
				if (frame > 0 && frame < pane.tree().count) pane.zoomTo(frame);
				else if (state.x) {
					var span = state.x.split(",").map(Number);
					if (span.length === 2 && isFinite(span[0]) && isFinite(span[1]) && span[1] > span[0]) pane.setView(span[0], span[1]);
				}
				if (state.sw || state.swf) showSandwich({text: state.sw || state.swf, group: state.swf ? "function" : "line"});
				restoring = false;
				done();
			}
		}

		// -- the table of functions (by line: frame names as they are; by function: line numbers left out) --------
		// From the payload (the whole profile, exact), or with transforms from the frames drawn.
		var tables = {}, grouping = "line", fn = null, hasFunctions = !!data.functions["function"];
		var groupRule = data.function_group ? new RegExp(data.function_group[0]) : null;
		function tableOf(group) {  // decoded (or computed) on first use
			if (!tables[group]) {
				if (transformsActive()) {
					tables[group] = kit.functionCosts(pane.tree(), groupsOf(group));
					tables[group].computed = true;
				} else {
					var T = data.functions[group], decoded = {count: T.count};
					["name", "self", "inclusive", "delta_self", "delta_inclusive", "calls"].forEach(function (key) {
						if (T[key]) decoded[key] = column(T[key]);
					});
					tables[group] = decoded;
				}
			}
			return tables[group];
		}
		// each name's group in the table by function (as functionCosts' groupOf; null: by line, each name its own)
		var groupCache = {length: -1, map: null};
		function groupsOf(group) {
			if (group === "line" || !groupRule) return null;
			if (groupCache.length !== names.length) {
				var map = new Int32Array(names.length);
				for (var k = 0; k < map.length; k++) map[k] = nameIndex(names[k].replace(groupRule, data.function_group[1]));
				groupCache = {length: names.length, map: map};
			}
			return groupCache.map;
		}
		fn = tableOf(grouping);
		var section = document.body.appendChild(el("section", {id: "functions"}));
		var heading = section.appendChild(el("h2", {}, "Functions "));
		if (hasFunctions) {
			var groupButtons = heading.appendChild(el("span", {"class": "segmented"}));
			[["line", "By line"], ["function", "By function"]].forEach(function (g) {
				var button = groupButtons.appendChild(el("button", {id: "by-" + g[0], title: g[0] === "line" ? "Each frame name: f (app.py:12)" : "Lines of one function together: f (app.py)"}, g[1]));
				button.addEventListener("click", function () { grouping = g[0]; fn = tableOf(grouping); picked = -1; fillTable(); });
			});
		}
		var tableNote = heading.appendChild(el("span", {"class": "note"}));
		var table = section.appendChild(el("table", {id: "table"}));
		var headRow = table.appendChild(el("thead")).appendChild(el("tr"));
		var body = table.appendChild(el("tbody"));
		// each row's buttons (copied into every row) and one listener for the rows' clicks (rows are rebuilt
		// after every transform: no listener per row)
		var rowActions = el("td", {"class": "actions"});
		rowActions.appendChild(el("button", {"data-action": "sandwich", title: "Who calls it and what it calls"}, "callers & callees"));
		rowActions.appendChild(el("button", {"data-action": "focus", title: "All its calls as the root of the graph"}, "focus"));
		body.addEventListener("click", function (e) {
			var tr = e.target.closest("tr[data-row]"), button = e.target.closest("button[data-action]");
			if (!tr) return;
			var name = fn.name[parseInt(tr.getAttribute("data-row"), 10)], text = names[name];
			if (!button) pick(name);
			else if (button.getAttribute("data-action") === "sandwich") showSandwich({text: text, group: grouping});
			else focusOn(text, grouping);
		});
		var sortKey = "inclusive", descending = true, COLUMNS = [];
		function columnsOf() {
			var columns = [
				{key: "name", title: "Function", field: null},
				{key: "self", title: "Self", field: "self"},
				{key: "self_share", title: "Self %", field: "self", share: true},
				{key: "inclusive", title: "Inclusive", field: "inclusive"},
				{key: "inclusive_share", title: "Inclusive %", field: "inclusive", share: true},
			];
			if (fn.calls) columns.push({key: "calls", title: "Calls", field: "calls", plain: true});
			if (fn.delta_self) {
				columns.push({key: "delta_self", title: "\u0394 Self", field: "delta_self", signed: true});
				columns.push({key: "delta_inclusive", title: "\u0394 Inclusive", field: "delta_inclusive", signed: true});
			}
			return columns;
		}
		function fillHead() {
			var columns = columnsOf();
			if (columns.map(function (c) { return c.key; }).join() === COLUMNS.map(function (c) { return c.key; }).join()) return;
			COLUMNS = columns;
			if (!COLUMNS.some(function (c) { return c.key === sortKey; })) { sortKey = "inclusive"; descending = true; }
			headRow.textContent = "";
			COLUMNS.forEach(function (spec) {
				var th = headRow.appendChild(el("th", {"data-key": spec.key, title: "Sort by " + spec.title}, spec.title));
				th.addEventListener("click", function () {
					if (sortKey === spec.key) descending = !descending;
					else { sortKey = spec.key; descending = spec.key !== "name"; }
					fillTable();
				});
			});
			headRow.appendChild(el("th", {"class": "actions"}));
		}
		function fillTable() {
			fillHead();
			var spec = COLUMNS.filter(function (c) { return c.key === sortKey; })[0];
			var fnName = fn.name, order = [];
			for (var r = 0; r < fnName.length; r++) if (tableFilter === null || tableFilter[fnName[r]]) order.push(r);
			var values = spec.field === null ? null : fn[spec.field], sign = descending ? -1 : 1;
			order.sort(function (a, b) {
				var byKey = values === null ? (names[fnName[a]] < names[fnName[b]] ? -1 : names[fnName[a]] > names[fnName[b]] ? 1 : 0)
					: (spec.signed ? Math.abs(values[a]) - Math.abs(values[b]) : values[a] - values[b]);
				return sign * byKey || a - b;
			});
			var rows = order.slice(0, data.top), whole = pane.tree().total || total;
			body.textContent = "";
			var fragment = document.createDocumentFragment();
			rows.forEach(function (r) {
				var tr = el("tr", {"data-row": String(r)});
				if (fnName[r] === picked) tr.className = "picked";
				COLUMNS.forEach(function (c) {
					var td = tr.appendChild(el("td")), v = c.field === null ? 0 : fn[c.field][r];
					if (c.field === null) { td.textContent = names[fnName[r]]; td.title = names[fnName[r]]; }
					else if (c.share) {
						td.appendChild(el("span", {"class": "share", style: "width:" + (40 * v / whole).toFixed(1) + "px"}));
						td.appendChild(document.createTextNode(percent(v, whole)));
					} else if (c.plain) {
						td.textContent = v.toLocaleString("en");
					} else {
						if (c.signed && data.negate) v = -v;  // as the tooltip: --negate swaps the sides
						td.textContent = human(v, !!c.signed);
						if (c.signed) td.className = v > 0 ? "up" : v < 0 ? "down" : "";
					}
				});
				tr.appendChild(rowActions.cloneNode(true));  // their clicks: rowClick
				fragment.appendChild(tr);
			});
			body.appendChild(fragment);
			Array.prototype.forEach.call(headRow.children, function (th) {
				if (th.hasAttribute("data-key")) th.className = th.getAttribute("data-key") === sortKey ? "sorted" + (descending ? "" : " asc") : "";
			});
			Array.prototype.forEach.call(heading.querySelectorAll(".segmented button"), function (button) {
				button.classList.toggle("on", button.id === "by-" + grouping);
			});
			var count = fn.count, noun = grouping === "line" ? "frame name" : "function";
			tableNote.textContent = (order.length < count ? order.length.toLocaleString("en") + " of " : "") + count.toLocaleString("en") +
				" " + noun + (count === 1 ? "" : "s") + (rows.length < order.length ? ", the first " + rows.length + " shown" : "") +
				(fn.computed ? " (of the transformed graph)" : "") + " \u00b7 click a row to highlight its frames";
		}
		function pick(name) {
			picked = name;
			var term = termFor(names[name], grouping);
			searchBox.value = term;
			caseBox.checked = false;
			setView("graph");
			pane.reset();
			search(term, true);
			var top = graph.getBoundingClientRect().top - headerHeight();
			if (top < 0 || top > window.innerHeight / 2) window.scrollBy(0, top - 4);
		}

		// -- start ------------------------------------------------------------------------------------
		var n = base.count;
		if (!n) {
			section.style.display = "none";
			tools.style.display = "none";
			minimapCanvas.style.display = "none";
			document.body.appendChild(el("div", {id: "empty"}, "No stack counts found: nothing to draw."));
		}
		setView("graph");
		setShape(pane.inverted());
		clearButton.disabled = true;
		focusChip.style.display = "none";
		crumbsOf();
		fillTable();
		window.addEventListener("resize", function () { document.documentElement.style.setProperty("--header", headerHeight() + "px"); });
		api.pane = pane;
		api.sandwich = function () { return sandwichPanes; };
		api.human = human;
		api.count = n;
		api.fit = pane.fit;
		api.charWidth = pane.charWidth;
		api.drawn = pane.drawn;
		api.width = function (i) { return pane.tree().value[i] / pane.tree().total; };
		api.zoomTo = pane.zoomTo;
		api.reset = pane.reset;
		api.zoomBy = pane.zoomBy;
		api.search = function (term) { searchBox.value = term; search(term); };
		api.state = function () {
			var v = pane.view();
			return {zoom: v.frame, name: names[pane.tree().name[v.frame]], x0: v.x0, x1: v.x1, inverted: pane.inverted(),
				matched: pane.matched(), term: searchTerm, total: v.total, view: view};
		};
		api.transforms = 0;  // transforms shown so far (lastTransform: {where: "worker", "main" or "none", ms})
		api.busy = function () { return runner.busy() || tablePending; };  // a transform is running in the worker, or its table waits
		api.transformsIn = runner.setMode;  // "auto", "worker" or "main" (tests compare the two)
		if (n) restore(started); else { restoring = false; started(); }
		function started() {  // the view restored from the fragment (after its transforms)
			document.documentElement.style.setProperty("--header", headerHeight() + "px");
			pane.size();
			var band = pane.band();
			if (view === "graph" && !pane.inverted() && pane.contentHeight() > band.height) {  // a flame graph taller than the window: its root in view
				window.scrollTo(0, graph.getBoundingClientRect().top + window.scrollY + pane.contentHeight() - band.height - headerHeight());
			}
			pane.draw();
			minimap.render();
			api.ready = true;
			api.firstDraw = performance.now();
			window.requestAnimationFrame(function () { api.firstPaint = performance.now(); });
		}
	}

	var source = document.getElementById("flamespace-data");
	if (source) main(JSON.parse(source.textContent));
})();
